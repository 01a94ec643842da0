// `vmss-ops doctor` against the service and the simulator: the table a person reads, --json for scripts, and the exit
// codes (0 all OK, 1 a FAIL, 2 bad input, 3 no service), a FAIL set up in the simulator.
import type { Json } from "../testkit/json.ts";
import t from "tap";
import { run } from "../src/cli/main.ts";
import { startResettingTestEnv } from "./helpers/service.ts";
import { freePort } from "../testkit/child-service.ts";

const { env } = await startResettingTestEnv(t);

async function cli(args: string[], env_: Record<string, string> = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    tty: false,
    env: { VMSS_OPS_URL: env.baseUrl, ...env_ },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

t.test("every check OK: a line per check, exit 0; without --account every account of /ready", async (t) => {
  const one = await cli(["doctor", "--account", "demo"]);
  t.equal(one.code, 0, one.err);
  t.match(one.out, /^account demo: OK/);
  t.match(one.out, /\n {2}OK {4}permissions on demo-rg +all \d+ actions the service needs/);
  const all = await cli(["doctor"]);
  t.equal(all.code, 0, all.err);
  t.match(all.out, /^account demo: OK/);
});

t.test("a FAIL: exit 1, the fix under it; --json is the service's report", async (t) => {
  await env.simControl("PUT", "/_sim/subscription/permissions", {
    deny: [{ action: "Microsoft.Compute/virtualMachineScaleSets/write" }],
  });
  const human = await cli(["doctor", "--account", "demo", "--resource-group", "demo-rg"]);
  t.equal(human.code, 1);
  t.match(
    human.out,
    /FAIL {2}permissions on demo-rg +missing 1 of \d+ actions: Microsoft.Compute\/virtualMachineScaleSets\/write/,
  );
  t.match(
    human.out,
    /fix: az role assignment create .*--role "vmss-ops operator" --scope \/subscriptions\/.*\/resourceGroups\/demo-rg/,
  );
  const json = await cli(["doctor", "--account", "demo", "--json"]);
  t.equal(json.code, 1);
  const report = JSON.parse(json.out);
  t.equal(report.status, "FAIL");
  t.ok(report.checks.some((c: Json) => c.check === "permissions on demo-rg" && c.status === "FAIL"));
});

t.test("bad input: exit 2 (an unknown flag, an unknown account); no service: exit 3", async (t) => {
  const flag = await cli(["doctor", "--acount", "demo"]);
  t.equal(flag.code, 2);
  t.match(flag.err, /Unknown option '--acount'/);
  const unknown = await cli(["doctor", "--account", "nope"]);
  t.equal(unknown.code, 2);
  t.match(unknown.err, /404 no account nope/);
  const gone = await cli(["doctor", "--account", "demo"], { VMSS_OPS_URL: `http://127.0.0.1:${await freePort()}` });
  t.equal(gone.code, 3);
  t.match(gone.err, /cannot reach/);
});
