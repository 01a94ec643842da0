// The vmss-ops command with access control on: the token comes from VMSS_OPS_TOKEN, never from a flag; without it
// the service's 401 is bad input (2), with a read-only one a write is refused (2), with a writer's it runs (0).
import t from "tap";
import { run } from "../src/cli/main.ts";
import { startTestEnv } from "./helpers/service.ts";

const WRITER = "writer-token-0123456789";
const READER = "reader-token-0123456789";
const env = await startTestEnv({
  env: {
    AUTH_TOKENS: `
principals:
  - { name: deployer, token: ${WRITER}, accounts: [demo] }
  - { name: oncall, token: ${READER}, accounts: "*", readOnly: true }
`,
  },
});
t.teardown(() => env.close());

async function cli(args: string[], token?: string) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await run(args, {
    out: (s) => out.push(s),
    err: (s) => err.push(s),
    tty: false,
    env: { VMSS_OPS_URL: env.baseUrl, ...(token ? { VMSS_OPS_TOKEN: token } : {}) },
  });
  return { code, out: out.join("\n"), err: err.join("\n") };
}

t.test("no token: the 401, as bad input", async (t) => {
  const r = await cli(["tasks"]);
  t.equal(r.code, 2);
  t.match(r.err, /401 Unauthorized/);
});

t.test("a read-only token reads, and may not write", async (t) => {
  t.equal((await cli(["tasks"], READER)).code, 0);
  const write = await cli(["resize", "web-prod-v001", "--desired", "4"], READER);
  t.equal(write.code, 2);
  t.match(write.err, /403 Forbidden: .*oncall may only read/);
});

t.test("a writer's token runs the operation", async (t) => {
  const r = await cli(["resize", "web-prod-v001", "--desired", "4", "--wait"], WRITER);
  t.equal(r.code, 0, r.err);
  t.match(r.out, /succeeded \(resizeServerGroup\)/);
});
