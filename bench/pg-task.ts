// What a resize's store calls cost PostgreSQL, without HTTP or Azure: K runners, each creating a task, claiming it,
// then writing its journal as the service's runner writes an uncontended resize with a long-running write, three
// updates (what a store that prints every TaskChange sees of a resize against the simulator):
//   1. the opening lines ("Initializing", "Starting") with the move to running: they wait LINES_WAIT_MS (200 ms) for
//      a change to go with (src/tasks/task-journal.ts, #scheduleFlush) and go alone when the first read of the scale
//      set outlasts that; commitOf adds `state: "running"` to the first write;
//   2. the checkpoint of the write in flight (about 1 KiB: its step, its patch and the serialized poller) with the
//      ARM calls so far and the attempt's line: src/tasks/task-run.ts #checkpoint, `journal.change({ checkpoint,
//      armCalls })`. Nothing is written while the write is polled: no line, no ARM calls alone;
//   3. the end (task-outcome.ts changeAfter): result, ARM calls, `checkpoint: null`, operationIndex, state,
//      finishedAtMs and the last three lines in one write; the checkpoint without the write in flight is not written
//      on its own (CheckpointWrites.writeOf: "withNextWrite"), the end's `checkpoint: null` replaces it.
// On PostgreSQL each update waits for and shares the group statement of src/tasks/pg/update-queue.ts. Left out: the
// lease renewals of a write that outlasts a third of the lease (one statement a replica for all its due tasks), the
// reads of the caller's held waits beyond two revisions and one get. Prints, per task and per round: the
// database server's CPU (its backends', those that ended included), this process's, the statements sent (counted
// at the client: every query of the `pg` module) and the WAL written (pg_current_wal_insert_lsn before and after:
// the whole server's, so point TEST_DATABASE_URL at a server nothing else writes to for that figure). `--tree DIR`
// takes another checkout's store (with a node_modules of its own or linked), to compare two versions in one sitting.
//
//   node bench/pg-task.ts [--tasks 2000] [--runners 16] [--rounds 3] [--tree DIR]
import { randomBytes } from "node:crypto";
import { join, resolve } from "node:path";
import pg from "pg";
import { backendsCpuBetween, postgresCpu } from "./figures/fleet.ts";
import type { TaskStore } from "../src/tasks/task-store.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const tasks = Number(option("--tasks", "2000"));
const runners = Number(option("--runners", "16"));
const rounds = Number(option("--rounds", "3"));
const tree = resolve(option("--tree", join(import.meta.dirname, "..")));
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const { PostgresTaskStore } = (await import(
  join(tree, "src/tasks/postgres-task-store.ts")
)) as typeof import("../src/tasks/postgres-task-store.ts");

/** Every statement sent through the `pg` module (both trees load this one), and those that write. */
let statements = 0;
let writes = 0;
// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
const query = pg.Client.prototype.query as (...a: unknown[]) => unknown;
pg.Client.prototype.query = function (this: pg.Client, ...a: unknown[]) {
  statements++;
  const text = typeof a[0] === "string" ? a[0] : (a[0] as { text?: string } | null)?.text;
  if (/\b(INSERT|UPDATE|DELETE|NOTIFY)\b/i.test(text ?? "")) writes++;
  return query.apply(this, a);
} as typeof pg.Client.prototype.query;

const line = (phase: string, status: string) => ({ phase, status, timeMs: Date.now() });
let n = 0;

/** The checkpoint of a resize's write in flight as the runner writes it: its step, its patch, the poller's state. */
function inFlightCheckpoint(name: string) {
  const url = (path: string) =>
    `https://management.azure.com/subscriptions/00000000-0000-4000-8000-000000000001${path}?api-version=2024-07-01`;
  const scaleSet = url(`/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`);
  const poller = JSON.stringify({
    state: {
      status: "running",
      config: {
        metadata: { mode: "OperationLocation" },
        operationLocation: url(
          `/providers/Microsoft.Compute/locations/eastus/operations/${randomBytes(16).toString("hex")}`,
        ),
        resourceLocation: scaleSet,
        initialRequestUrl: scaleSet,
        requestMethod: "PATCH",
      },
    },
  });
  const tags = { app: "web", env: "prod", version: "v001", "vmss-ops.min": "1", "vmss-ops.max": "10" };
  const patch = { sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 4 }, tags };
  const step = { kind: "update" as const, summary: "set capacity 3 → 4 (min 1, max 10)", patch };
  return { operationIndex: 0, attempt: 1, inFlight: { step, poller } };
}

/** One task, its store calls as the runner makes them for a resize with a long-running write (the header). */
async function oneTask(store: TaskStore, owner: string): Promise<void> {
  const k = n++;
  const name = `pg-task-${k}`;
  await store.create({
    operations: [{ name: "resizeServerGroup", description: { serverGroupName: name } }],
    scaleSets: [`demo/eastus/demo-rg/${name}`],
  });
  const [task] = await store.claim(owner, 60_000, 1);
  if (!task) return;
  await store.update(owner, task.id, {
    state: "running",
    history: [
      line("INIT", "Initializing operation: resizeServerGroup"),
      line(
        "RESIZE_SERVER_GROUP",
        `Starting: resize ${name} to 4 (account demo, region eastus, resource group demo-rg)`,
      ),
    ],
  });
  await store.update(owner, task.id, {
    checkpoint: inFlightCheckpoint(name),
    armCalls: 2,
    history: [line("RESIZE_SERVER_GROUP", 'attempt 1/8: set capacity 3 → 4 (min 1, max 10) (If-Match "1")')],
  });
  await store.revision(task.id);
  await store.revision(task.id);
  await store.get(task.id);
  await store.update(owner, task.id, {
    checkpoint: null,
    armCalls: 9,
    resultObjects: [
      {
        ...{ type: "serverGroup", account: "demo", region: "eastus", resourceGroup: "demo-rg", serverGroupName: name },
        ...{ capacity: { min: 1, max: 10, desired: 4 }, disabled: false, instanceCount: 4 },
        ...{ instanceIds: ["0", "1", "2", "3"], provisioningState: "Succeeded", etag: '"2"' },
      },
    ],
    operationIndex: 1,
    state: "succeeded",
    finishedAtMs: Date.now(),
    history: [
      line("RESIZE_SERVER_GROUP", "Azure confirmed: capacity 4 (min 1, max 10)"),
      line("RESIZE_SERVER_GROUP", `Done: ${name} has capacity 4 (min 1, max 10), as Azure lists it`),
      line("ORCHESTRATION", "Orchestration completed."),
    ],
  });
}

async function walLsn(admin: pg.Client): Promise<string> {
  const { rows } = await admin.query<{ lsn: string }>("SELECT pg_current_wal_insert_lsn()::text AS lsn");
  return rows[0].lsn;
}

async function round(store: TaskStore, admin: pg.Client, database: string, count: number) {
  const before = postgresCpu(database);
  const lsn0 = await walLsn(admin);
  const statements0 = statements;
  const writes0 = writes;
  const cpu0 = process.cpuUsage();
  let left = count;
  await Promise.all(
    Array.from({ length: runners }, async (_, r) => {
      while (left-- > 0) await oneTask(store, `runner-${r}`);
    }),
  );
  const sent = statements - statements0;
  const server = backendsCpuBetween(before, postgresCpu(database));
  const own = process.cpuUsage(cpu0);
  const lsn1 = await walLsn(admin);
  const { rows } = await admin.query<{ bytes: string }>("SELECT pg_wal_lsn_diff($1, $2) AS bytes", [lsn1, lsn0]);
  return {
    wal: `${lsn0}-${lsn1}`,
    serverMs: server / count,
    processMs: (own.user + own.system) / 1000 / count,
    statements: sent / count,
    writes: (writes - writes0) / count,
    walBytes: Number(rows[0].bytes) / count,
  };
}

const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const database = `vmss_ops_pg_task_${randomBytes(4).toString("hex")}`;
await admin.query(`CREATE DATABASE ${database}`);
try {
  const connectionString = Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();
  // The database is dropped at the end, its connections with it: that is not worth a line.
  const store = await PostgresTaskStore.open({ connectionString, onPoolError: () => {} });
  await round(store, admin, database, Math.min(500, tasks));
  for (let i = 0; i < rounds; i++) {
    const r = await round(store, admin, database, tasks);
    console.log(
      `round ${i + 1}: PostgreSQL ${r.serverMs.toFixed(3)} ms a task, this process ${r.processMs.toFixed(3)} ms, ` +
        `${r.statements.toFixed(2)} statements (${r.writes.toFixed(2)} writing) and ${(r.walBytes / 1024).toFixed(2)} KiB of WAL a task ` +
        `(${tasks} tasks, ${runners} runners; WAL ${r.wal})`,
    );
  }
  await store.close();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
