import t from "tap";
import { ConfigError } from "../src/config.ts";
import { loadConfig, loadStartupConfig } from "../src/startup-config.ts";

t.test("defaults: embedded simulator, the demo account, tasks in memory beside it", async (t) => {
  const c = loadConfig({});
  t.equal(c.port, 7002);
  t.equal(c.simulator.mode, "embedded");
  t.equal(loadStartupConfig({}).simulator.port, 7003, "the embedded simulator's own setting");
  // The embedded simulator starts fresh at every start, so its tasks do too: the demo is one clean slate.
  t.equal(c.store.kind, "memory");
  t.equal(loadConfig({ TASK_STORE: "sqlite" }).store.kind, "sqlite", "unless told otherwise");
  t.equal(loadConfig({ SIMULATOR_URL: "https://127.0.0.1:7003" }).store.kind, "sqlite", "an external simulator outlives the service: tasks are kept");
  t.same(c.accounts.map((a) => a.name), ["demo"]);
  t.equal(c.accounts[0].defaultResourceGroup, "demo-rg");
});

t.test("an external simulator is trusted with its built-in certificate unless told otherwise", async (t) => {
  const c = loadConfig({ SIMULATOR_URL: "https://127.0.0.1:7003/" });
  t.equal(c.simulator.mode, "external");
  t.equal(c.accounts[0].endpoint, "https://127.0.0.1:7003");
  t.match(c.accounts[0].caPem, /BEGIN CERTIFICATE/);
});

t.test("DATABASE_URL selects PostgreSQL", async (t) => {
  t.equal(loadConfig({ DATABASE_URL: "postgres://x@h/db" }).store.kind, "postgres");
  t.equal(loadConfig({ DATABASE_URL: "postgres://x@h/db", TASK_STORE: "memory" }).store.kind, "memory");
});

t.test("real accounts from ACCOUNTS", async (t) => {
  const c = loadConfig({
    SIMULATOR: "off",
    ACCOUNTS: JSON.stringify([{ name: "prod", subscriptionId: "11111111-2222-3333-4444-555555555555", regions: ["eastus"], credential: "default" }]),
    TRUSTED_NETWORK: "true",
  });
  t.same(c.accounts.map((a) => [a.name, a.endpoint, a.credential.kind]), [["prod", "https://management.azure.com", "default"]]);
});

t.test("bad values stop start-up with the variable named", async (t) => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "seventy" }, /PORT must be a whole number/],
    [{ PORT: "70000" }, /PORT must be between 0 and 65535/],
    [{ SIMULATOR: "maybe" }, /SIMULATOR must be embedded, external or off/],
    [{ SIMULATOR_URL: "http://127.0.0.1:7003" }, /SIMULATOR_URL must be an https:\/\/ URL/],
    [{ SIMULATOR: "external" }, /SIMULATOR=external needs SIMULATOR_URL/],
    [{ SIMULATOR: "off" }, /SIMULATOR=off needs at least one account/],
    [{ ACCOUNTS: "{" }, /ACCOUNTS is not valid YAML or JSON/],
    [{ ACCOUNTS: JSON.stringify([{ name: "a" }]) }, /ACCOUNTS: account "a": subscriptionId must be a non-empty string/],
    [{ ACCOUNTS_FILE: "/nonexistent/accounts.json" }, /ACCOUNTS_FILE: cannot read \/nonexistent\/accounts.json/],
    [{ TASK_STORE: "redis" }, /TASK_STORE must be memory, sqlite or postgres/],
    [{ TASK_STORE: "postgres" }, /TASK_STORE=postgres needs DATABASE_URL/],
    [{ TASK_LEASE_MS: "3000", TASK_CLAIM_INTERVAL_MS: "2000" }, /TASK_CLAIM_INTERVAL_MS \(2000\) must be at most a third of TASK_LEASE_MS/],
  ];
  for (const [env, message] of cases) t.throws(() => loadConfig(env), message, JSON.stringify(env));
  t.throws(() => loadConfig({ PORT: "x" }), ConfigError);
});
