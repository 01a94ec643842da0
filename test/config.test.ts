import t from "tap";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { buildApp } from "../src/app.ts";
import { readRetry } from "../src/azure/retry-policy.ts";
import { ConfigError } from "../src/config.ts";
import { loadConfig, loadStartupConfig } from "../src/startup-config.ts";

t.test("defaults: embedded simulator, the demo account, tasks in memory beside it", async (t) => {
  const c = loadConfig({});
  t.equal(c.port, 7002);
  t.equal(c.simulator.mode, "embedded");
  t.equal(loadStartupConfig({}).simulator?.port, 7003, "the embedded simulator's own setting");
  // The embedded simulator starts fresh at every start, so its tasks do too: the demo is one clean slate.
  t.equal(c.store.kind, "memory");
  t.equal(loadConfig({ TASK_STORE: "sqlite" }).store.kind, "sqlite", "unless told otherwise");
  t.equal(
    loadConfig({ SIMULATOR_URL: "https://127.0.0.1:7003" }).store.kind,
    "sqlite",
    "an external simulator outlives the service: tasks are kept",
  );
  t.same(
    c.accounts.map((a) => a.name),
    ["demo"],
  );
  t.equal(c.accounts[0].defaultResourceGroup, "demo-rg");
});

t.test("TASK_RETENTION_COUNT is still read from its former name, TASK_RETENTION, when it is unset", async (t) => {
  t.equal(loadConfig({}).taskRetentionCount, 10_000, "the default");
  t.equal(loadConfig({ TASK_RETENTION: "5" }).taskRetentionCount, 5, "the former name alone");
  t.equal(loadConfig({ TASK_RETENTION_COUNT: "7", TASK_RETENTION: "5" }).taskRetentionCount, 7, "the new name wins");
  t.throws(() => loadConfig({ TASK_RETENTION: "0" }), ConfigError, "checked as the new name is");
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
    ACCOUNTS: JSON.stringify([
      {
        name: "prod",
        subscriptionId: "11111111-2222-3333-4444-555555555555",
        regions: ["eastus"],
        credential: "default",
      },
    ]),
    TRUSTED_NETWORK: "true",
  });
  t.same(
    c.accounts.map((a) => [a.name, a.endpoint, a.credential.kind]),
    [["prod", "https://management.azure.com", "default"]],
  );
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
    [
      { TASK_LEASE_MS: "3000", TASK_CLAIM_INTERVAL_MS: "2000" },
      /TASK_CLAIM_INTERVAL_MS \(2000\) must be at most a third of TASK_LEASE_MS/,
    ],
  ];
  for (const [env, message] of cases) t.throws(() => loadConfig(env), message, JSON.stringify(env));
  t.throws(() => loadConfig({ PORT: "x" }), ConfigError);
  t.throws(() => loadConfig({ LOG_LEVEL: "bogus" }), { name: "ConfigError", message: /^LOG_LEVEL must be one of /u });
});

t.test("the simulator's own settings are read by its rules, and a bad one stops start-up the same way", async (t) => {
  t.throws(() => loadConfig({ SIMULATOR_TIME_SCALE: "fast" }), /SIMULATOR_TIME_SCALE must be a number above 0/);
  t.throws(() => loadConfig({ SIMULATOR_PORT: "99999" }), ConfigError);
  const subscriptionId = "11111111-2222-4333-8444-555555555555";
  t.equal(
    loadConfig({ SIMULATOR_SUBSCRIPTION_ID: subscriptionId }).accounts[0].subscriptionId,
    subscriptionId,
    "the demo account is in the simulator's subscription",
  );
  t.equal(
    loadStartupConfig({ SIMULATOR_TIME_SCALE: "0.5" }).simulator?.settings.timeScale,
    0.5,
    "what an embedded simulator starts with",
  );
});

t.test(
  "the per-task operation limit and the read-retry bounds are configuration, with their old defaults",
  async (t) => {
    const c = loadConfig({});
    t.equal(c.tasks.maxOperations, 50);
    t.same(c.readRetry, { maxAttempts: 3, deadlineMs: 20_000 });
    const read = readRetry(c.retry, c.readRetry);
    t.same([read.maxAttempts, read.deadlineMs], [3, 20_000], "a read someone waits on: three attempts within 20 s");
    const set = loadConfig({
      TASK_MAX_OPERATIONS: "2",
      READ_RETRY_MAX_ATTEMPTS: "5",
      READ_RETRY_DEADLINE_MS: "9000",
      RETRY_MAX_ATTEMPTS: "4",
    });
    t.equal(set.tasks.maxOperations, 2);
    const bounded = readRetry(set.retry, set.readRetry);
    t.same([bounded.maxAttempts, bounded.deadlineMs], [4, 9000], "never more attempts than an operation's own");
    t.throws(() => loadConfig({ TASK_MAX_OPERATIONS: "0" }), /TASK_MAX_OPERATIONS must be between 1 and 1000/);
    t.throws(() => loadConfig({ READ_RETRY_DEADLINE_MS: "soon" }), /READ_RETRY_DEADLINE_MS must be a whole number/);
  },
);

t.test("a list of more operations than TASK_MAX_OPERATIONS is a 400, and no task is made", async (t) => {
  const config = loadConfig({ SIMULATOR_URL: "https://127.0.0.1:1", TASK_MAX_OPERATIONS: "2", LOG_LEVEL: "silent" });
  const service = await buildApp({ config, logger: false });
  t.teardown(() => service.close());
  const resize = {
    resizeServerGroup: { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001", targetSize: 2 },
  };
  const res = await service.app.inject({ method: "POST", url: "/azure/ops", payload: [resize, resize, resize] });
  t.equal(res.statusCode, 400, res.body);
  t.match(res.json().message, /2/, "the limit is named");
  t.same((await service.store.list({ limit: 10 })).tasks, [], "no task");
});

/** Variable names in the first column of docs/configuration.md's tables of environment variables. */
function documentedVariables(): Set<string> {
  const doc = readFileSync(join(import.meta.dirname, "..", "docs", "configuration.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Environment variables"), doc.indexOf("## Accounts"));
  const rows = section.split("\n").filter((line) => line.startsWith("| `"));
  return new Set(rows.flatMap((row) => [...row.split("|")[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1])));
}

/** Variables the service's configuration (src/config.ts, src/config/) and the simulator's settings read. */
function readVariables(): Set<string> {
  const src = join(import.meta.dirname, "..", "src");
  const files = [
    "config.ts",
    "../packages/vmss-simulator/src/settings.ts",
    ...readdirSync(join(src, "config")).map((f) => `config/${f}`),
  ];
  const names = new Set<string>();
  for (const file of files) {
    const text = readFileSync(join(src, file), "utf8");
    const patterns = [/\benv\.([A-Z][A-Z0-9_]+)/g, /\b\w+\(\s*env,\s*"([A-Z][A-Z0-9_]+)"/g];
    // In the configuration's own modules, every quoted name in capitals is a variable (ACCOUNTS_FILE, AZURE_CLIENT_SECRET, …).
    if (file.startsWith("config")) patterns.push(/"([A-Z][A-Z0-9_]+)"/g);
    for (const pattern of patterns) for (const m of text.matchAll(pattern)) names.add(m[1]);
  }
  return names;
}

t.test("docs/configuration.md lists every variable the configuration reads, and only those", async (t) => {
  const documented = documentedVariables();
  const read = readVariables();
  t.ok(read.size > 60, `the variables were found (${read.size})`);
  t.same([...read].filter((v) => !documented.has(v)).sort(), [], "read but not documented");
  t.same([...documented].filter((v) => !read.has(v)).sort(), [], "documented but read nowhere");
});

/** Each option's `@env` and `@default`, from the doc comment on its field where its options type declares it. */
function declaredDefaults(): Map<string, { default: string; file: string }> {
  const src = join(import.meta.dirname, "..", "src");
  const out = new Map<string, { default: string; file: string }>();
  for (const file of readdirSync(src, { recursive: true, encoding: "utf8" })) {
    if (!file.endsWith(".ts") || file.startsWith("client")) continue;
    for (const block of readFileSync(join(src, file), "utf8").matchAll(/\/\*\*([\s\S]*?)\*\//g)) {
      const env = /@env\s+([A-Z][A-Z0-9_]+)/.exec(block[1])?.[1];
      const value = /@default\s+(.+)/.exec(block[1])?.[1].trim();
      if (env && value) out.set(env, { default: value, file });
    }
  }
  return out;
}

/** docs/configuration.md's default cell of each variable, in its environment tables. */
function documentedDefaults(): Map<string, string> {
  const doc = readFileSync(join(import.meta.dirname, "..", "docs", "configuration.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Environment variables"), doc.indexOf("## Accounts"));
  const out = new Map<string, string>();
  for (const row of section.split("\n").filter((line) => line.startsWith("| `"))) {
    const [names, cell] = row.split(" | ").map((c) => c.replace(/^\| /, ""));
    const variables = [...names.matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]);
    const parts = cell.split(/(?<=`), (?=`)/);
    variables.forEach((v, i) => out.set(v, parts.length === variables.length ? parts[i] : cell));
  }
  return out;
}

/** The value a default stands for when it is one (`8`, or `0` (off)), not a rule (`true` with principals). */
function literalOf(text: string): string | undefined {
  return /^`([^`\s<>]+)`(?: \([^`]*(?:`[^`]*`[^`]*)*\))?$/.exec(text)?.[1];
}

t.test(
  "every option's default is given where it is declared, as docs/configuration.md and the code have it",
  async (t) => {
    const declared = declaredDefaults();
    // The variables read with a default in code: each carries it where its option is declared.
    const config = [
      "config.ts",
      ...readdirSync(join(import.meta.dirname, "..", "src", "config")).map((f) => `config/${f}`),
    ];
    const withDefault = config.flatMap((file) => [
      ...readFileSync(join(import.meta.dirname, "..", "src", file), "utf8").matchAll(
        /\b(?:intVar|boolVar|positiveNumberVar)\(env, "([A-Z][A-Z0-9_]+)"/g,
      ),
    ]);
    t.ok(withDefault.length > 50, `variables read with a default (${withDefault.length})`);
    t.same(
      withDefault.map((m) => m[1]).filter((v) => !declared.has(v)),
      [],
      "every variable read with a default has @env and @default on its option's field",
    );

    const documented = documentedDefaults();
    // Against an external simulator at Azure's pace, with a Clouddriver: no default is then derived from another.
    const base = { SIMULATOR_URL: "https://127.0.0.1:1", SIMULATOR_TIME_SCALE: "1", CLOUDDRIVER_URL: "http://cd:7002" };
    const defaults = loadConfig(base);
    for (const [variable, { default: value, file }] of declared) {
      const strip = (s: string | undefined) => s?.replace(/`/g, "");
      t.equal(
        strip(documented.get(variable)),
        strip(value),
        `${variable}: docs/configuration.md says what ${file} says`,
      );
      const literal = literalOf(value);
      if (literal !== undefined)
        t.same(
          loadConfig({ ...base, [variable]: literal }),
          defaults,
          `${variable}=${literal} is what the code applies unset`,
        );
    }
  },
);
