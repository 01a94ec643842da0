// The task store out of reach: a real service (a child process) on a real PostgreSQL behind a TCP proxy that the test
// cuts and restores, as a database restart or a network cut does. While the store is down every route that needs it
// answers 503 with Retry-After (never "internal error"), and /ready says so; once it is back, every task completes,
// without waiting for a lease: a task whose write failed is handed back as soon as the store answers.
import t from "tap";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { freePort, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";
import { storeOutageReason, TaskStoreUnavailableError } from "../src/tasks/store-outage.ts";
import { waitFor, waitForLog } from "../testkit/wait-for.ts";

const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** Far longer than the test waits for the tasks after the outage: a task left behind a lease fails the test. */
const LEASE_MS = 120_000;
const TASKS = 6;

t.setTimeout(240_000);

t.test("what counts as the store being out of reach, and what stays a bug", async (t) => {
  const coded = (code: string, message = "m") => Object.assign(new Error(message), { code });
  const table: [string, unknown, string | undefined][] = [
    ["refused", coded("ECONNREFUSED"), "ECONNREFUSED"],
    ["reset", coded("ECONNRESET"), "ECONNRESET"],
    [
      "every address refused",
      Object.assign(new AggregateError([coded("ECONNREFUSED"), coded("ECONNREFUSED")]), { code: undefined }),
      "ECONNREFUSED",
    ],
    ["admin shutdown (a restart)", coded("57P01"), "57P01"],
    ["cannot connect now (starting up)", coded("57P03"), "57P03"],
    ["connection failure", coded("08006"), "08006"],
    ["too many connections", coded("53300"), "53300"],
    ["a connection that died under a query", new Error("Connection terminated unexpectedly"), "ConnectionTerminated"],
    ["the pool could not connect in time", new Error("timeout exceeded when trying to connect"), "ConnectTimeout"],
    ["wrapped on its way up", new Error("a write failed", { cause: coded("ECONNREFUSED") }), "ECONNREFUSED"],
    ["already classified", new TaskStoreUnavailableError("57P01", new Error("x")), "57P01"],
    ["a unique violation", coded("23505"), undefined],
    ["a syntax error in our SQL", coded("42601"), undefined],
    ["a bug", new TypeError("cannot read properties of undefined"), undefined],
    ["a stack overflow", new RangeError("Maximum call stack size exceeded"), undefined],
    ["not an error", "ECONNREFUSED", undefined],
  ];
  for (const [what, err, reason] of table) t.equal(storeOutageReason(err), reason, what);
});

/** A TCP proxy in front of PostgreSQL; cut() closes it and every connection through it, restore() listens again. */
async function cuttableProxy(target: { host: string; port: number }) {
  const port = await freePort();
  const sockets = new Set<Socket>();
  let server: Server | undefined;
  const listen = () =>
    new Promise<void>((resolve, reject) => {
      server = createServer((client) => {
        const upstream = connect(target.port, target.host);
        for (const s of [client, upstream]) {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
          s.on("error", () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once("error", reject);
      server.listen(port, "127.0.0.1", () => resolve());
    });
  await listen();
  return {
    port,
    async cut() {
      const closed = new Promise<void>((r) => server!.close(() => r()));
      for (const s of sockets) s.destroy();
      await closed;
    },
    restore: listen,
  };
}

const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const dbName = `vmss_ops_outage_${randomBytes(4).toString("hex")}`;
await admin.query(`CREATE DATABASE ${dbName}`);
t.teardown(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});
const adminUrl = new URL(ADMIN_URL);
const proxy = await cuttableProxy({ host: adminUrl.hostname, port: Number(adminUrl.port || 5432) });
t.teardown(() => proxy.cut());
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}`, port: String(proxy.port) }).toString();

// Writes of 2 s: tasks are in flight when the store goes.
const sim = await startSimulator({ port: 0, writeDurationMs: 2000, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
const names = Array.from({ length: TASKS + 1 }, (_, i) => `outage-${i}`);
for (const name of names) await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });

const resize = (name: string) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: name,
  capacity: { min: 0, max: 5, desired: 3 },
});

t.test(
  "store cut while tasks run: 503 with Retry-After, /ready not ready at once, then every task completes without a lease's wait",
  async (t) => {
    const service = await startChildService({
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "postgres",
      DATABASE_URL: databaseUrl,
      TASK_LEASE_MS: String(LEASE_MS),
      TASK_CLAIM_INTERVAL_MS: "200",
      LRO_POLL_INTERVAL_MS: "50",
      // Azure's Retry-After is whole seconds; the simulator's writes here last milliseconds.
      LRO_MAX_POLL_INTERVAL_MS: "50",
      RETRY_BUSY_POLL_INTERVAL_MS: "50",
      READY_CACHE_MS: "60000",
    });
    t.teardown(() => service.child.kill("SIGKILL"));
    t.equal(
      (await service.api("GET", "/ready")).status,
      200,
      "ready before the outage (and the answer cached for a minute)",
    );

    const ids: string[] = [];
    for (let i = 0; i < TASKS; i++) {
      const res = await service.api(
        "POST",
        `/azure/ops/resizeServerGroup?clientRequestId=outage-${i}`,
        resize(names[i]),
      );
      t.equal(res.status, 202);
      ids.push(res.body.id);
    }
    // Wait until every task has its write under way in "Azure", then cut.
    await waitFor(async () => (await control.calls()).filter((c) => c.method === "PATCH").length >= TASKS, {
      what: `${TASKS} PATCHes under way`,
      intervalMs: 20,
    });
    await proxy.cut();
    const cutAt = Date.now();

    const submitted = await service.api(
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=during-outage",
      resize(names[TASKS]),
    );
    const firstAnswerMs = Date.now() - cutAt;
    t.equal(submitted.status, 503, "a submission during the outage: 503");
    t.equal(submitted.headers.get("retry-after"), "5", "with Retry-After");
    // Not sent (the pool knew the link was down): TaskStoreUnavailable. Sent on a connection the cut ended under it:
    // the service cannot know whether the create reached the database, and says so with the id to repeat it with.
    t.match(submitted.body, {
      error: /^(TaskStoreUnavailable|TaskOutcomeUnknown)$/,
      message:
        /(task store cannot be used now|the task may have been created: the task store did not answer in time) \((ECONNREFUSED|ConnectionTerminated|ConnectionError)\)/,
    });
    if (submitted.body.error === "TaskOutcomeUnknown")
      t.equal(submitted.body.clientRequestId, "during-outage", "the outcome unknown: the id to repeat it with");
    const polled = await service.api("GET", `/task/${ids[0]}`);
    t.equal(polled.status, 503, "a poll during the outage: 503, not 500");
    t.equal(polled.headers.get("retry-after"), "5");
    t.equal((await service.api("GET", "/task?limit=5")).status, 503, "a listing too");
    const ready = await service.api("GET", "/ready");
    t.equal(ready.status, 503, "/ready: not ready at once, although its last answer was cached for a minute");
    t.equal(ready.body.store.ok, false);

    // The running tasks' writes fail when their ARM writes end: each says so, and waits for the store.
    await waitForLog(() => service.output(), /a write of the task to the task store failed/, { intervalMs: 50 });
    t.notOk(/task failed with an internal error/.test(service.output()), "nothing called an internal error");
    await proxy.restore();
    const restoredAt = Date.now();

    // Within half a lease, every task: a task left holding its lease would still be waiting.
    const tasks = [];
    for (const id of ids) tasks.push(await service.waitForTask(id, LEASE_MS / 2));
    const allDoneMs = Date.now() - restoredAt;
    t.same(
      tasks.map((x) => x.state),
      ids.map(() => "succeeded"),
      "every task succeeded",
    );
    const handedBack = tasks.filter((x) =>
      x.history.some((h: { status: string }) => /The task store could not be written/.test(h.status)),
    );
    t.ok(handedBack.length >= 1, `the history says what happened (${handedBack.length} task(s) handed back)`);
    for (const name of names.slice(0, TASKS))
      t.equal(
        ((await control.getScaleSet("demo-rg", name)).vmss as { sku?: { capacity?: number } }).sku?.capacity,
        3,
        name,
      );
    t.equal((await service.api("GET", "/ready")).status, 200, "ready again, without a restart");
    const after = await service.api(
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=after-outage",
      resize(names[TASKS]),
    );
    t.equal(after.status, 202, "submissions are taken again");
    t.equal((await service.waitForTask(after.body.id, LEASE_MS / 2)).state, "succeeded");
    // The outage in the log once when it started and once when it cleared, whatever met it in between.
    const outageLines = service
      .output()
      .split("\n")
      .filter((l) => l.includes('"storeOutage"'))
      .map((l) => (JSON.parse(l) as { storeOutage: string }).storeOutage);
    t.same(outageLines, ["started", "cleared"], "the outage logged once each way");
    t.comment(
      `measured: a submission ${firstAnswerMs} ms after the cut answered 503; ${handedBack.length} task(s) handed back; every task done ${allDoneMs} ms after the store came back (lease ${LEASE_MS} ms)`,
    );
    service.child.kill("SIGTERM");
    await service.exited;
  },
);
