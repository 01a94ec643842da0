// The ARM call budget (src/azure/arm-budget/): every call takes from its buckets before it is sent, one budget per
// subscription shared by replicas through PostgreSQL. Real clients (@azure/arm-compute) against the simulator over
// HTTPS, the simulator's call log as the witness. Functional, not timed: each test waits for the event it asserts on
// (a call refused by the budget, a task's history line), and bounds only from below ("not before Retry-After").
import t, { type Test } from "tap";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { loadConfig } from "../src/startup-config.ts";
import type { AccountConfig } from "../src/azure/account-config.ts";
import { startSimulator, SimulatorControl, SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import { createComputeClient, SimulatorCredential } from "../src/azure/client.ts";
import { ArmBudget, type ArmWait } from "../src/azure/arm-budget/budget.ts";
import type { ArmBudgetOptions, BucketFigures } from "../src/azure/arm-budget/figures.ts";
import { InProcessLedger } from "../src/azure/arm-budget/in-process-ledger.ts";
import type { CallAnswer, TakeAnswer, TakeRequest } from "../src/azure/arm-budget/ledger.ts";
import { PostgresLedger } from "../src/azure/arm-budget/postgres-ledger.ts";
import { listenToArmResponses } from "../src/azure/arm-listeners.ts";
import { chargeOf } from "../src/azure/arm-budget/routes.ts";
import { createPipelineRequest } from "@azure/core-rest-pipeline";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { AccountRegistry } from "../src/azure/accounts.ts";
import { buildApp } from "../src/app.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { waitFor } from "../testkit/wait-for.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SUB = SIMULATOR_SUBSCRIPTION_ID.toLowerCase();

// Real time in the simulator (timeScale 1): its buckets refill at the figures given, as ours do.
const sim = await startSimulator({ port: 0, timeScale: 1, writeDurationMs: 50, seed: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
const NAMES = Array.from({ length: 10 }, (_, i) => `budget-${i}`);
for (const name of NAMES) await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });

function account(): AccountConfig {
  const config = loadConfig({ SIMULATOR_URL: sim.url, SIMULATOR_TIME_SCALE: "1" });
  const a = config.accounts[0];
  a.caPem = sim.caPem;
  return a;
}

/** A small subscription bucket for scale-set GETs, the same in the simulator and in the budget. */
async function smallReadBucket(burst: number, refillPerMinute: number): Promise<ArmBudgetOptions> {
  await control.setThrottling({
    enabled: true,
    scale: 1,
    policies: { GetVMScaleSet: { subscription: { burst, refillPerMinute } } },
  });
  return { compute: { GetVMScaleSet: { subscription: { burst, refillPerMinute } } }, readReserve: 0 };
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  await waitFor(check, { what, timeoutMs, intervalMs: 20 });
}

const gets = async () =>
  (await control.calls()).filter((c) => c.method === "GET" && /virtualMachineScaleSets\/[^/]+$/.test(c.path));

t.test(
  "two replicas share one subscription bucket in PostgreSQL: together they send no more than it holds",
  async (t) => {
    const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
    const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema }); // migrates: arm_budget
    t.teardown(async () => {
      await store.close();
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await admin.end();
    });
    // Five calls, and almost no refill while the test runs (one token a minute).
    const options = await smallReadBucket(5, 1);
    await control.clearCalls();
    const replicas = [0, 1].map(
      () => new ArmBudget(new PostgresLedger({ connectionString: DATABASE_URL, schema }), options),
    );
    t.teardown(() => Promise.all(replicas.map((b) => b.close())));
    const aborts = new AbortController();
    let answered = 0;
    const outcomes = replicas.flatMap((budget) => {
      const client = createComputeClient(account(), new SimulatorCredential(), budget);
      return NAMES.map((name) =>
        client.virtualMachineScaleSets.get("demo-rg", name, { abortSignal: aborts.signal }).then(
          () => (answered++, "sent"),
          () => "aborted",
        ),
      );
    });
    // Every call has been answered by the shared budget: 5 given, 15 told to wait.
    await until("20 calls to have asked the budget", () => replicas.reduce((n, b) => n + b.counts.calls, 0) === 20);
    await until("15 of them to wait", () => replicas.reduce((n, b) => n + b.counts.waited, 0) === 15);
    await until("the 5 given to be answered", async () => (await gets()).filter((c) => c.status !== null).length === 5);
    const sent = await gets();
    t.equal(sent.length, 5, "the simulator saw as many calls as the bucket holds, from both replicas together");
    t.same(
      sent.map((c) => c.status),
      [200, 200, 200, 200, 200],
      "none refused",
    );
    t.ok(
      replicas.every((b) => b.counts.calls - b.counts.waited < 10),
      "each replica had some of them waiting",
    );
    // The 5 sent are answered to their callers before the others are given up.
    await until("the 5 sent to reach their callers", () => answered === 5);
    aborts.abort();
    const results = await Promise.all(outcomes);
    t.equal(results.filter((r) => r === "aborted").length, 15, "the 15 that waited were given up");
    t.equal((await gets()).length, 5, "calls given up while waiting were never sent");
  },
);

t.test("a task whose call finds the bucket empty waits, says so in its history, then goes on", async (t) => {
  // Its own simulator, at a small time scale: the polls of the write follow the simulator's Retry-After.
  const fast = await startSimulator({ port: 0, timeScale: 0.001, writeDurationMs: 50, seed: false });
  t.teardown(() => fast.close());
  const control = new SimulatorControl(fast);
  await control.putScaleSet("demo-rg", NAMES[0], { capacity: 1, loadBalanced: false });
  const ledger = new InProcessLedger();
  const budget = new ArmBudget(ledger);
  const config = loadConfig({
    SIMULATOR_URL: fast.url,
    SIMULATOR_TIME_SCALE: "0.001",
    LRO_POLL_INTERVAL_MS: "20",
    LOG_LEVEL: "silent",
  });
  for (const a of config.accounts) a.caPem = fast.caPem;
  const accounts = await AccountRegistry.open(config.accounts, (a) => createComputeClient(a, undefined, budget));
  const service = await buildApp({ config, store: new MemoryTaskStore(), accounts, armBudget: budget, logger: false });
  service.runner.start();
  t.teardown(async () => {
    await service.close();
    await budget.close();
  });
  // The subscription's write budget is empty for the next 6 s (as after a 429 of 6 s): longer than the task takes to
  // reach its write, on a loaded machine too.
  const writes = budget.figures.compute.VMScaleSetActions.subscription;
  await ledger.drain(`${SUB}/VMScaleSetActions`, writes, 6000);
  await control.clearCalls();
  const submitted = await service.app.inject({
    method: "POST",
    url: "/azure/ops",
    payload: [
      {
        resizeServerGroup: {
          credentials: "demo",
          region: "eastus",
          serverGroupName: NAMES[0],
          capacity: { min: 0, max: 5, desired: 2 },
        },
      },
    ],
  });
  t.ok(submitted.statusCode >= 200 && submitted.statusCode < 300, submitted.body);
  const id = submitted.json().id as string;
  let task: { status: { completed: boolean; failed: boolean }; history: { status: string }[] } | undefined;
  await until("the task to end", async () => {
    task = (await service.app.inject({ method: "GET", url: `/task/${id}` })).json();
    return task!.status.completed;
  });
  t.equal(task!.status.failed, false, "it succeeded");
  const line = task!.history.find((h) => /^Waiting for subscription write budget, ~\d+ s$/.test(h.status));
  t.ok(line, `its history says what it waited for: ${task!.history.map((h) => h.status).join(" | ")}`);
  const patches = (await control.calls()).filter((c) => c.method === "PATCH");
  t.equal(patches.length, 1, "the write was sent once");
  t.equal(patches[0].status, 200, "and not refused: it waited instead");
});

t.test("a 429 from outside (another tool spent the budget) empties the bucket for its Retry-After", async (t) => {
  const options = await smallReadBucket(3, 12); // a token every 5 s
  const budget = new ArmBudget(new InProcessLedger(), options);
  t.teardown(() => budget.close());
  const ours = createComputeClient(account(), new SimulatorCredential(), budget);
  const theirs = createComputeClient(account(), new SimulatorCredential()); // no budget: another tool
  await control.clearCalls();
  for (let i = 0; i < 3; i++) await theirs.virtualMachineScaleSets.get("demo-rg", NAMES[i]);
  // Ours still counts 3 tokens: it sends, and Azure refuses.
  const refused = await ours.virtualMachineScaleSets.get("demo-rg", NAMES[3]).then(
    () => undefined,
    (err: { statusCode?: number }) => err.statusCode,
  );
  t.equal(refused, 429, "the first call of ours meets the other tool's spending");
  t.equal(budget.counts.throttled, 1);
  const [throttled] = (await control.calls()).filter((c) => c.status === 429);
  // The next call of ours is not sent before the Retry-After has passed.
  const next = ours.virtualMachineScaleSets.get("demo-rg", NAMES[4]);
  await until("the next call to wait for the drained bucket", () => budget.counts.waited === 1);
  await next;
  const after = (await control.calls()).filter((c) => c.time > throttled.time && c.method === "GET");
  t.equal(after.length, 1, "one more call");
  t.equal(after[0].status, 200, "accepted: it waited out the Retry-After");
  t.ok(
    after[0].time - throttled.time >= 4_000,
    `sent ${after[0].time - throttled.time} ms after the 429 (Retry-After 5 s)`,
  );
});

t.test("a task's call waiting behind reads for a cache goes first", async (t) => {
  const options = await smallReadBucket(1, 60); // a token a second
  const budget = new ArmBudget(new InProcessLedger(), options);
  t.teardown(() => budget.close());
  const client = createComputeClient(account(), new SimulatorCredential(), budget);
  await control.clearCalls();
  await client.virtualMachineScaleSets.get("demo-rg", NAMES[0]); // the one token
  const order: string[] = [];
  const cache = [1, 2, 3].map((i) =>
    client.virtualMachineScaleSets.get("demo-rg", NAMES[i]).then(() => order.push(`cache ${i}`)),
  );
  await until("the cache reads to wait", () => budget.counts.waited === 3);
  const waits: ArmWait[] = [];
  const task = listenToArmResponses({ onArmResponse: () => {}, onArmWait: (w) => waits.push(w) }, () =>
    client.virtualMachineScaleSets.get("demo-rg", NAMES[4]).then(() => order.push("task")),
  );
  await Promise.all([...cache, task]);
  t.equal(order[0], "task", `the task's call went first: ${order.join(", ")}`);
  t.same(order.slice(1), ["cache 1", "cache 2", "cache 3"], "then the reads, in the order they came");
  t.equal(waits[0]?.budget, "subscription read budget", "the task was told what it waited for");
  t.equal((await control.calls()).filter((c) => c.status === 429).length, 0);
});

t.test(
  "the in-process ledger forgets buckets that are full again (one per operation polled would grow without end)",
  async (t) => {
    let now = 1_000_000;
    const ledger = new InProcessLedger(() => now);
    const figures = { burst: 45, refillPerMinute: 15 };
    for (let i = 0; i < 999; i++) await ledger.takeInOrder([[{ key: `sub/GetOperation/op-${i}`, figures, need: 1 }]]);
    t.equal(ledger.size, 999);
    now += 60_000; // a token back in each: all full again
    await ledger.takeInOrder([[{ key: "sub/GetOperation/op-new", figures, need: 1 }]]);
    t.equal(ledger.size, 1, "only the bucket just used is kept");
  },
);

t.test(
  "a ledger out of reach (the database restarting) sends the call without the budget instead of failing it",
  async (t) => {
    // The shared ledger lives in the task store's PostgreSQL: during its outage the first take of an idle budget
    // used to throw pg's "Connection terminated unexpectedly" into the SDK, and the operation failed as terminal.
    const unreachable = {
      ...new InProcessLedger(),
      takeInOrder: () => Promise.reject(new Error("Connection terminated unexpectedly")),
      takeAndLease: () => Promise.reject(new Error("Connection terminated unexpectedly")),
      correct: async () => {},
      drain: async () => {},
      close: async () => {},
    };
    const budget = new ArmBudget(unreachable, await smallReadBucket(3, 12));
    t.teardown(() => budget.close());
    const client = createComputeClient(account(), new SimulatorCredential(), budget);
    await control.clearCalls();
    const vmss = await client.virtualMachineScaleSets.get("demo-rg", NAMES[0]);
    t.equal(vmss.name, NAMES[0], "the read went through");
    t.equal((await control.calls()).filter((c) => c.method === "GET").length, 1, "sent once, to Azure");
  },
);

/** A schema of its own, migrated (arm_budget and its take functions), dropped afterwards. */
async function budgetSchema(t: Test): Promise<string> {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  await store.close();
  t.teardown(async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return schema;
}

t.test(
  "a take of several calls goes in order, each all or nothing, a refused call holding its buckets: alike in process and in PostgreSQL",
  async (t) => {
    const schema = await budgetSchema(t);
    const shared = new PostgresLedger({ connectionString: DATABASE_URL, schema });
    t.teardown(() => shared.close());
    const one = { burst: 1, refillPerMinute: 1 };
    const two = { burst: 2, refillPerMinute: 1 };
    const take = (key: string, figures: BucketFigures, need = 1): TakeRequest => ({ key, figures, need });
    const summary = (a: CallAnswer) => (a === "held" ? "held" : a.granted ? "given" : `refused ${a.emptyKey}`);
    for (const [name, ledger] of [
      ["in process", new InProcessLedger()],
      ["PostgreSQL", shared],
    ] as const) {
      const answers = await ledger.takeInOrder([
        [take("s", two), take("r1", one)], // given: s 2 → 1, r1 1 → 0
        [take("s", two), take("r1", one)], // refused: r1 is empty; it holds s and r1
        [take("s", two), take("r2", one)], // not tried: s is held for the call before
        [take("r2", one)], // given: r2 is not held
        [take("t", one), take("u", one, 2)], // refused: u never holds 2; t gives nothing either
      ]);
      t.same(
        answers.map(summary),
        ["given", "refused r1", "held", "given", "refused u"],
        `${name}: each call answered in order`,
      );
      const refused = answers[4] as TakeAnswer;
      t.ok(refused.waitMs > 0, `${name}: a refused call is told how long (${refused.waitMs} ms)`);
      const next = await ledger.takeInOrder([[take("t", one)], [take("s", two)], [take("s", two)]]);
      t.same(next.map(summary), ["given", "given", "refused s"], `${name}: t kept its token, s had one left`);
    }
  },
);

t.test(
  "with a shared ledger an operation's bucket is kept by the replica that polls it: no statement, no row, still counted",
  async (t) => {
    const schema = await budgetSchema(t);
    const ledger = new PostgresLedger({ connectionString: DATABASE_URL, schema });
    // An operation's bucket of 2 polls at once, one more a minute: the third poll of one operation waits.
    const budget = new ArmBudget(ledger, { compute: { GetOperation: { resource: { burst: 2, refillPerMinute: 1 } } } });
    t.teardown(() => budget.close());
    const poll = (operation: string) =>
      chargeOf(
        createPipelineRequest({
          method: "GET",
          url: `https://management.azure.com/subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/operations/${operation}?api-version=2024-07-01`,
        }),
        budget.figures,
      )!;
    const once = async (operation: string, onWait?: (wait: ArmWait) => void, signal?: AbortSignal) => {
      await budget.acquire(poll(operation), "task", onWait, signal);
      budget.release();
    };
    // A replica busy polling holds slices of the subscription's buckets (GetOperation's, ARM's reads).
    for (let i = 0; i < 12; i++) await once(`warm-${i}`);
    const before = ledger.statements;
    await once("new-operation");
    await once("new-operation");
    t.equal(ledger.statements, before, "a new operation's polls went from the slices, without a statement");
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    t.teardown(() => admin.end());
    const { rows } = await admin.query<{ key: string }>(
      `SELECT key FROM "${schema}".arm_budget WHERE key LIKE '%/getoperation/%'`,
    );
    t.same(rows, [], "and no operation has a row in the shared ledger");
    const waits: ArmWait[] = [];
    const stop = new AbortController();
    const third = once("new-operation", (wait) => waits.push(wait), stop.signal).catch((err: unknown) => err);
    await until("the third poll of one operation to wait", () => waits.length > 0);
    t.match(waits[0], { budget: "operation poll budget" }, "it waits for its operation's bucket, kept here");
    stop.abort();
    await third;
  },
);

t.test("the calls a replica asks for in one turn take in one statement, not one each", async (t) => {
  const schema = await budgetSchema(t);
  const budget = new ArmBudget(new PostgresLedger({ connectionString: DATABASE_URL, schema }));
  t.teardown(() => budget.close());
  // Every statement the ledger sends goes through its pool's query.
  const takes: unknown[][] = [];
  const names = new Set<string | undefined>();
  // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the pool as `this`, below
  const query = pg.Pool.prototype.query;
  pg.Pool.prototype.query = function (this: pg.Pool, ...args: unknown[]) {
    // A statement as text and values, or as a config (a prepared statement's, with its name).
    const sent: pg.QueryConfig =
      typeof args[0] === "string" ? { text: args[0], values: args[1] as unknown[] } : (args[0] as pg.QueryConfig);
    if (sent.text.includes("arm_budget_take")) {
      takes.push(sent.values as unknown[]);
      names.add(sent.name);
    }
    return (query as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof query;
  t.teardown(() => void (pg.Pool.prototype.query = query));
  const client = createComputeClient(account(), new SimulatorCredential(), budget);
  await control.setThrottling({ enabled: false });
  await control.clearCalls();
  const read = await Promise.all(NAMES.map((name) => client.virtualMachineScaleSets.get("demo-rg", name)));
  t.same(
    read.map((v) => v.name),
    NAMES,
    "every call was sent and answered",
  );
  t.equal((await gets()).length, NAMES.length, "Azure saw each once");
  t.equal(budget.counts.calls, NAMES.length);
  t.equal(budget.counts.waited, 0, "none waited: the budget was full");
  t.ok(
    takes.length > 0 && takes.length < NAMES.length,
    `${NAMES.length} concurrent calls took in ${takes.length} statement(s)`,
  );
  const calls = takes.reduce((n, params) => n + (params[10] as number[]).length, 0);
  t.equal(calls, NAMES.length, "each call taken once");
  t.same([...names], ["vmss_ops_budget_take_lease"], "a prepared statement: parsed once a connection, not every take");
});

t.test(
  "a ledger that does not answer (a half-open connection) holds calls for its bound, then sends them without the budget",
  async (t) => {
    // Accepts connections and never answers: the pool's connect times out, as a statement on a dead socket would.
    const silent: Socket[] = [];
    const server = createServer((socket) => silent.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    t.teardown(() => {
      for (const s of silent) s.destroy();
      server.close();
    });
    const port = (server.address() as AddressInfo).port;
    const budget = new ArmBudget(
      new PostgresLedger({ connectionString: `postgres://postgres@127.0.0.1:${port}/test`, timeoutMs: 500 }),
    );
    t.teardown(() => budget.close());
    const client = createComputeClient(account(), new SimulatorCredential(), budget);
    await control.setThrottling({ enabled: false });
    await control.clearCalls();
    const read = await Promise.all(
      NAMES.slice(0, 5).map((name) => client.virtualMachineScaleSets.get("demo-rg", name)),
    );
    t.equal(read.length, 5, "every call went through");
    t.equal((await gets()).length, 5, "sent once each, to Azure");
    t.ok(silent.length >= 1, "the ledger was asked");
  },
);
