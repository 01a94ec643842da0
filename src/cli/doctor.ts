// `vmss-ops doctor [--account A] [--resource-group R] [--json]`: the service's checks of each account against Azure
// (GET /accounts/{account}/checks), one line per check, each FAIL and WARN with its fix. Without --account, every
// account the service names in GET /ready that the caller may read.
//   exit 0 every check OK (WARNs included)   1 a FAIL   2 bad input   3 cannot reach the service
import { parseArgs } from "node:util";
import type { components } from "../client/index.ts";

type AccountChecks = components["schemas"]["AccountChecks"];

const EXIT = { ok: 0, failed: 1, badInput: 2, unreachable: 3 } as const;

export const DOCTOR_USAGE = `vmss-ops doctor [--account A] [--resource-group R] [--json]
  Checks each account against Azure: the credential and the clock, the subscription and its providers, the
  permissions at each resource group against the role the service needs, quota against the largest cluster,
  and the load balancers, subnets and Key Vault secrets named. Exit 0 all OK, 1 a FAIL, 2 bad input, 3 no service.`;

interface Io {
  out(text: string): void;
  err(text: string): void;
  env: Record<string, string | undefined>;
}

class Refused extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}
class Unreachable extends Error {}

async function getJson<T>(base: string, path: string, token: string | undefined): Promise<{ status: number; body: T }> {
  let res: Response;
  try {
    res = await fetch(`${base}${path}`, {
      headers: { accept: "application/json", ...(token ? { authorization: `Bearer ${token}` } : {}) },
      // The checks read Azure: a dozen reads or more, each bounded by the service.
      signal: AbortSignal.timeout(180_000),
    });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new Unreachable(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { message: text.slice(0, 200) };
  }
  const message = (body as { message?: string } | null)?.message ?? "";
  if (res.status >= 500 && path !== "/ready") throw new Unreachable(`${base}${path}: ${res.status} ${message}`);
  if (res.status >= 400 && path !== "/ready") throw new Refused(res.status, `${res.status} ${message}`);
  return { status: res.status, body: body as T };
}

/** One account's report as lines for a person: each check, and under each WARN and FAIL its fix. */
export function renderReport(report: AccountChecks): string {
  const width = Math.max(...report.checks.map((c) => c.check.length), 10);
  const lines = [`account ${report.account}: ${report.status} (checked ${report.checkedAt})`];
  for (const c of report.checks) {
    lines.push(`  ${c.status.padEnd(4)}  ${c.check.padEnd(width)}  ${c.found}`);
    if (c.fix && c.status !== "OK") lines.push(`  ${"".padEnd(4)}  ${"".padEnd(width)}  fix: ${c.fix}`);
  }
  return lines.join("\n");
}

export async function doctor(argv: string[], io: Io): Promise<number> {
  let values: { account?: string; "resource-group"?: string; json?: boolean; url?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        account: { type: "string" },
        "resource-group": { type: "string" },
        json: { type: "boolean" },
        url: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      allowPositionals: false,
      strict: true,
    }));
  } catch (err) {
    io.err(`vmss-ops doctor: ${(err as Error).message}\n\n${DOCTOR_USAGE}`);
    return EXIT.badInput;
  }
  if (values.help) {
    io.out(DOCTOR_USAGE);
    return EXIT.ok;
  }
  const base = (values.url ?? io.env.VMSS_OPS_URL ?? "http://127.0.0.1:7002").replace(/\/+$/, "");
  const token = io.env.VMSS_OPS_TOKEN;
  const query = values["resource-group"] ? `?resourceGroup=${encodeURIComponent(values["resource-group"])}` : "";
  try {
    const named = values.account ?? io.env.VMSS_OPS_ACCOUNT;
    const accounts = named
      ? [named]
      : Object.keys((await getJson<{ accounts?: Record<string, unknown> }>(base, "/ready", token)).body.accounts ?? {});
    if (accounts.length === 0) {
      io.err("vmss-ops doctor: the service names no account; pass --account");
      return EXIT.badInput;
    }
    const reports: AccountChecks[] = [];
    for (const account of accounts) {
      try {
        reports.push(
          (await getJson<AccountChecks>(base, `/accounts/${encodeURIComponent(account)}/checks${query}`, token)).body,
        );
      } catch (err) {
        // Without --account, an account this caller may not read is left out, not a failure.
        if (!named && err instanceof Refused && err.status === 403) continue;
        throw err;
      }
    }
    io.out(
      values.json
        ? JSON.stringify(reports.length === 1 && named ? reports[0] : reports)
        : reports.map(renderReport).join("\n\n"),
    );
    return reports.some((r) => r.status === "FAIL") ? EXIT.failed : EXIT.ok;
  } catch (err) {
    io.err(`vmss-ops doctor: ${(err as Error).message}`);
    return err instanceof Refused ? EXIT.badInput : EXIT.unreachable;
  }
}
