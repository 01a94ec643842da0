// Two replicas share one PostgreSQL database. 200 tasks are submitted across both, and one replica is killed with
// SIGKILL midway. Every task must end completed exactly once, and none may have been run by both: each task
// resizes its own scale set, so the simulator's call log must show exactly one write per scale set.
import t from "tap";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";
import type { Json } from "../testkit/json.ts";

const TASKS = 200;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

t.setTimeout(300_000);

// A database of its own, so the replicas' schema (public) collides with nothing else.
const dbName = `vmss_ops_replicas_${randomBytes(4).toString("hex")}`;
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${dbName}`);
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
t.teardown(async () => {
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
});

// Writes of 1.5 s keep each replica's 12 slots busy for longer than it takes to submit the 200 tasks on a loaded
// machine, so when A is killed (a third done) it holds tasks in flight. At 300 ms, polled every 50 ms,
// nine tenths were done before the last submission and A often held none.
const sim = await startSimulator({ port: 0, writeDurationMs: 1500, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());
const names = Array.from({ length: TASKS }, (_, i) => `rs-${String(i).padStart(3, "0")}`);
for (const name of names) await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
await control.clearCalls();

const env = {
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  TASK_STORE: "postgres",
  DATABASE_URL: databaseUrl,
  TASK_LEASE_MS: "2000",
  TASK_CLAIM_INTERVAL_MS: "200",
  TASK_CONCURRENCY: "12",
  LRO_POLL_INTERVAL_MS: "50",
  // Azure's Retry-After is whole seconds; the simulator's writes here last milliseconds.
  LRO_MAX_POLL_INTERVAL_MS: "50",
  RETRY_BUSY_POLL_INTERVAL_MS: "50",
};

t.test("200 tasks, two replicas, one killed midway: each task completed exactly once", async (t) => {
  const a = await startChildService({ ...env, REPLICA_ID: "replica-a" });
  const b = await startChildService({ ...env, REPLICA_ID: "replica-b" });
  t.teardown(() => {
    a.child.kill("SIGKILL");
    b.child.kill("SIGKILL");
  });

  // Kill replica A once about a third of the work is done, at a moment when it holds tasks in flight (asked of the
  // database: tasks start as soon as they are submitted, so "a third done" alone does not mean A still holds any).
  // The watcher runs beside the submissions, so there is work in flight to catch.
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  let aAlive = true;
  let held = 0;
  let submitted = 0;
  const killer = (async () => {
    await waitFor(
      async () => {
        const done = (await b.api("GET", "/task?state=succeeded&limit=500")).body.tasks.length;
        held = Number(
          (await db.query("SELECT count(*) AS n FROM tasks WHERE lease_owner = 'replica-a' AND state = 'running'"))
            .rows[0].n,
        );
        if (submitted === TASKS && done === TASKS && held === 0)
          throw new Error("every task ended before replica A could be killed holding one");
        return done >= TASKS / 3 && held > 0;
      },
      {
        what: `a third of the ${TASKS} tasks done while replica A holds a running one`,
        timeoutMs: 240_000,
        intervalMs: 20,
      },
    );
    aAlive = false;
    a.child.kill("SIGKILL");
    await a.exited;
  })();

  const ids: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const body = {
      credentials: "demo",
      region: "eastus",
      serverGroupName: names[i],
      capacity: { min: 0, max: 5, desired: 2 },
    };
    const path = `/azure/ops/resizeServerGroup?clientRequestId=replica-test-${i}`;
    // Sent to A while it dies: sent again to B, and the clientRequestId makes it the same task.
    const res = await (i % 2 === 0 && aAlive ? a : b).api("POST", path, body).catch(() => b.api("POST", path, body));
    t.equal(res.status, 202, `task ${i} accepted`);
    ids.push(res.body.id);
    submitted++;
  }
  await killer;
  await db.end();
  t.comment(`replica A killed holding ${held} running task(s)`);
  // A clientRequestId is durable across replicas: the other replica answers with the same task.
  const again = await b.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=replica-test-0", {
    credentials: "demo",
    region: "eastus",
    serverGroupName: names[0],
    capacity: { min: 0, max: 5, desired: 2 },
  });
  t.equal(again.body.id, ids[0], "the same task from either replica");

  const tasks = [];
  for (const id of ids) tasks.push(await b.waitForTask(id, 120_000));
  t.equal(
    tasks.filter((x) => x.status.failed).length,
    0,
    `no task failed: ${JSON.stringify(tasks.filter((x) => x.status.failed).map((x) => x.history))}`,
  );
  t.equal(tasks.filter((x) => x.state === "succeeded").length, TASKS, "every task succeeded");
  const resumed = tasks.filter((x) => x.history.some((h: Json) => /Resumed by replica replica-b/.test(h.status)));
  t.ok(resumed.length > 0, `replica B took over tasks that A held when it died (${resumed.length})`);
  for (const x of tasks) {
    const completions = x.history.filter((h: Json) => h.status === "Orchestration completed.").length;
    if (completions !== 1) t.fail(`task ${x.id} completed ${completions} times`);
  }

  // The call log: exactly one write per scale set, none refused (a second runner would have met 409 or 412).
  const calls = await control.calls();
  const patches = calls.filter((c) => c.method === "PATCH");
  const perSet = new Map<string, number>();
  for (const p of patches)
    perSet.set(p.path.split("/").pop()!.toLowerCase(), (perSet.get(p.path.split("/").pop()!.toLowerCase()) ?? 0) + 1);
  t.equal(perSet.size, TASKS, "every scale set was written");
  t.same(
    [...perSet].filter(([, n]) => n !== 1),
    [],
    "and each exactly once",
  );
  t.same(
    patches.filter((p) => p.status !== 200),
    [],
    "no write was refused",
  );
  for (const name of names.slice(0, 5))
    t.equal(((await control.getScaleSet("demo-rg", name)).vmss as { sku?: { capacity?: number } }).sku?.capacity, 2);
  t.comment(`${resumed.length} task(s) resumed by replica B; ${calls.length} ARM calls in all`);
  b.child.kill("SIGTERM");
  await b.exited;
});
