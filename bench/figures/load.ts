// What the soak and store-latency figures share: HTTP calls at a client's patience, each one's outcome tallied (an
// answer, a 503 from the error catalogue with Retry-After, fastify's own 503, a time-out, a refused connection), and
// the latency of each answer.
import { readFileSync } from "node:fs";
import { API_ERRORS } from "../../src/api/error-catalogue.ts";

export type Outcome = "answered" | "unavailable" | "unavailableBare" | "timedOut" | "refused";

export interface Answer {
  outcome: Outcome;
  status: number;
  ms: number;
  body: unknown;
}

/** Counts of each outcome and status, the 503s' error codes, and each answer's latency. */
export class Tally {
  readonly outcomes: Record<Outcome, number> = {
    answered: 0,
    unavailable: 0,
    unavailableBare: 0,
    timedOut: 0,
    refused: 0,
  };
  readonly statuses: Record<string, number> = {};
  readonly unavailableCodes: Record<string, number> = {};
  /** 503s not from the catalogue or without Retry-After: their bodies, the first few. */
  readonly bareSamples: string[] = [];
  readonly latenciesMs: number[] = [];

  add(a: Answer, code?: string): void {
    this.outcomes[a.outcome]++;
    if (a.status) this.statuses[a.status] = (this.statuses[a.status] ?? 0) + 1;
    if (a.outcome !== "timedOut" && a.outcome !== "refused") this.latenciesMs.push(a.ms);
    if (code) this.unavailableCodes[code] = (this.unavailableCodes[code] ?? 0) + 1;
  }

  get total(): number {
    return Object.values(this.outcomes).reduce((x, y) => x + y, 0);
  }

  /** Requests the client gave up on (its patience ran out) or answered later than `ms`. */
  pastMs(ms: number): number {
    return this.outcomes.timedOut + this.latenciesMs.filter((l) => l > ms).length;
  }

  summary() {
    const sorted = [...this.latenciesMs].sort((x, y) => x - y);
    const round = (x: number) => Math.round(x * 10) / 10;
    return {
      requests: this.total,
      ...this.outcomes,
      statuses: this.statuses,
      unavailableCodes: this.unavailableCodes,
      bareSamples: this.bareSamples,
      p50Ms: sorted.length ? round(percentile(sorted, 0.5)) : null,
      p99Ms: sorted.length ? round(percentile(sorted, 0.99)) : null,
      maxMs: sorted.length ? round(sorted.at(-1)!) : null,
    };
  }
}

/** The q-quantile of sorted values (nearest rank). */
export function percentile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

const CODES = new Set(Object.keys(API_ERRORS));

/**
 * One request at a client's patience (`patienceMs`: then it gives up, a time-out), tallied into each of `tallies`.
 * A 503 counts as "unavailable" only if it carries Retry-After and an error code of the catalogue.
 */
export async function call(
  url: string,
  method: string,
  path: string,
  body: unknown,
  patienceMs: number,
  tallies: Tally[],
): Promise<Answer> {
  const t0 = performance.now();
  let answer: Answer;
  let code: string | undefined;
  try {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: body === undefined ? {} : { "content-type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(patienceMs),
    });
    const text = await res.text();
    const ms = performance.now() - t0;
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = text;
    }
    let outcome: Outcome = "answered";
    if (res.status === 503) {
      const error = (parsed as { error?: unknown } | undefined)?.error;
      const fromCatalogue = typeof error === "string" && CODES.has(error);
      const retryAfter = Number(res.headers.get("retry-after"));
      if (fromCatalogue && Number.isFinite(retryAfter) && retryAfter > 0) {
        outcome = "unavailable";
        code = error;
      } else {
        outcome = "unavailableBare";
        for (const t of tallies)
          if (t.bareSamples.length < 5)
            t.bareSamples.push(`${text.slice(0, 200)} (Retry-After: ${res.headers.get("retry-after")})`);
      }
    }
    answer = { outcome, status: res.status, ms, body: parsed };
  } catch (err) {
    const name = (err as Error).name;
    const timedOut = name === "TimeoutError" || name === "AbortError";
    answer = { outcome: timedOut ? "timedOut" : "refused", status: 0, ms: performance.now() - t0, body: undefined };
  }
  for (const t of tallies) t.add(answer, code);
  return answer;
}

/** A process's resident set in MB, from /proc/<pid>/status (VmRSS); undefined once it has gone. */
export function rssMb(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The host and port of a PostgreSQL URL, and the same URL through another port of this host (a faulty link). */
export function throughPort(databaseUrl: string, port: number): string {
  return Object.assign(new URL(databaseUrl), { hostname: "127.0.0.1", port: String(port) }).toString();
}

export function target(databaseUrl: string): { host: string; port: number } {
  const u = new URL(databaseUrl);
  return { host: u.hostname, port: Number(u.port || 5432) };
}
