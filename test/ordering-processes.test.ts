// Submission order per scale set, across replicas, with real processes: 20 resizes of one scale set, desired
// capacities alternating 2, 1, 2, …, each submitted (alternately to two replicas) once the previous one was
// accepted. The scale set must end at the last requested capacity; there must be exactly one write per task, each
// conditional on the ETag the previous task's write produced (so planned on its result), and no 409 or 412. Run on
// PostgreSQL (two replicas on one database) and on SQLite (two processes on one file).
import t, { type Test } from "tap";
import pg from "pg";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";

const RESIZES = 20;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

t.setTimeout(300_000);

const sim = await startSimulator({ port: 0, writeDurationMs: 150, timeScale: 50 / 30_000, seed: false });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());

const common = {
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  TASK_LEASE_MS: "3000",
  TASK_CLAIM_INTERVAL_MS: "1000",
  LRO_POLL_INTERVAL_MS: "50",
  // Azure's Retry-After is whole seconds; the simulator's writes here last milliseconds.
  LRO_MAX_POLL_INTERVAL_MS: "50",
  RETRY_BUSY_POLL_INTERVAL_MS: "50",
};

async function alternatingResizes(t: Test, name: string, env: Record<string, string>) {
  await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
  await control.clearCalls();
  const a = await startChildService({ ...env, REPLICA_ID: `${name}-a` });
  const b = await startChildService({ ...env, REPLICA_ID: `${name}-b` });
  t.teardown(() => {
    a.child.kill("SIGKILL");
    b.child.kill("SIGKILL");
  });
  const wanted = Array.from({ length: RESIZES }, (_, i) => (i % 2 === 0 ? 2 : 1));
  const ids: string[] = [];
  for (let i = 0; i < RESIZES; i++) {
    const via: ChildService = i % 2 === 0 ? a : b;
    const res = await via.api("POST", "/azure/ops/resizeServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: name,
      capacity: { min: 0, max: 5, desired: wanted[i] },
    });
    t.equal(res.status, 202, `resize ${i} accepted`);
    ids.push(res.body.id);
  }
  const tasks = [];
  for (const id of ids) tasks.push(await a.waitForTask(id, 120_000));
  t.same(
    tasks.filter((x) => x.state !== "succeeded").map((x) => x.history),
    [],
    "every task succeeded",
  );
  t.same(
    tasks.map((x) => x.resultObjects[0]?.capacity?.desired),
    wanted,
    "each task reports the capacity it asked for, as Azure confirmed",
  );
  for (let i = 1; i < RESIZES; i++) {
    const waited = tasks[i].history.find((h: { status: string }) => h.status.startsWith("Waiting for task"));
    if (waited && !waited.status.startsWith(`Waiting for task ${ids[i - 1]} `))
      t.fail(`task ${i} waited for the wrong task: ${waited.status}`);
    if (tasks[i].startTimeMs < tasks[i - 1].startTimeMs) t.fail(`task ${i} was created before task ${i - 1}`);
  }
  t.ok(
    tasks.slice(1).filter((x) => x.history.some((h: { status: string }) => h.status.startsWith("Waiting for task")))
      .length > 0,
    "some tasks had to wait, and said so",
  );

  const state = await control.getScaleSet("demo-rg", name);
  t.equal(
    (state.vmss as { sku: { capacity: number } }).sku.capacity,
    wanted.at(-1),
    "the scale set ends at the last requested capacity",
  );
  const calls = (await control.calls()).filter((c) => c.path.toLowerCase().endsWith(`/${name}`));
  const writes = calls.filter((c) => c.method === "PATCH" || c.method === "PUT");
  t.equal(writes.length, RESIZES, "exactly one write per task");
  t.same(
    calls.filter((c) => c.status === 409 || c.status === 412),
    [],
    "no 409, no 412",
  );
  // Each write is conditional on the ETag the previous write left: it was planned on the previous task's result.
  const versions = (await control.request("GET", `/_sim/scaleSets/demo-rg/${name}/versions`)).body as {
    etag: string;
    previousEtag?: string;
    capacity: number;
  }[];
  const written = versions.slice(-RESIZES);
  t.same(
    written.map((v) => v.capacity),
    wanted,
    "the versions the writes made, in submission order",
  );
  t.same(
    writes.map((w) => w.ifMatch),
    written.map((v) => v.previousEtag),
    "each write's If-Match is the ETag before it",
  );
  for (let i = 1; i < RESIZES; i++)
    t.equal(written[i].previousEtag, written[i - 1].etag, `write ${i} follows write ${i - 1}`);
  a.child.kill("SIGTERM");
  b.child.kill("SIGTERM");
  await Promise.all([a.exited, b.exited]);
}

t.test("PostgreSQL, two replicas", async (t) => {
  const dbName = `vmss_ops_order_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${dbName}`);
  t.teardown(async () => {
    await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
    await admin.end();
  });
  const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();
  await alternatingResizes(t, "order-pg", { ...common, TASK_STORE: "postgres", DATABASE_URL: databaseUrl });
});

t.test("SQLite, two processes on one file", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-order-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  await alternatingResizes(t, "order-sqlite", { ...common, TASK_STORE: "sqlite", DATA_DIR: dataDir });
});
