// What a resize's store calls cost PostgreSQL, without HTTP or Azure: K runners, each creating a task, claiming it,
// then writing its journal as a resize with a long-running write does (the first checkpoint with the opening lines,
// the write's in-flight checkpoint, two history lines alone while it is polled, the end with its result and line),
// reading its revision twice and the task once (as a held read and a poll do). Prints, per task and per round: the
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

const line = (phase: string) => ({ phase, status: "…", timeMs: Date.now() });
let n = 0;

/** One task, its store calls as a resize with a long-running write makes them. */
async function oneTask(store: TaskStore, owner: string): Promise<void> {
  const k = n++;
  await store.create({
    operations: [{ name: "resizeServerGroup", description: { serverGroupName: `pg-task-${k}` } }],
    scaleSets: [`demo/eastus/demo-rg/pg-task-${k}`],
  });
  const [task] = await store.claim(owner, 60_000, 1);
  if (!task) return;
  const checkpoint = { operationIndex: 0, attempt: 1 };
  await store.update(owner, task.id, { state: "running", checkpoint, history: [line("RESIZE"), line("RESIZE")] });
  // A serialized poller is some 400 characters of absolute URLs and state.
  const inFlight = { step: { kind: "update" as const, summary: "capacity 3" }, poller: "x".repeat(400) };
  await store.update(owner, task.id, { checkpoint: { ...checkpoint, inFlight }, armCalls: 2 });
  await store.update(owner, task.id, { history: [line("RESIZE")] });
  await store.revision(task.id);
  await store.update(owner, task.id, { history: [line("RESIZE")], armCalls: 4 });
  await store.revision(task.id);
  await store.get(task.id);
  await store.update(owner, task.id, {
    state: "succeeded",
    finishedAtMs: Date.now(),
    checkpoint: null,
    armCalls: 5,
    resultObjects: [
      {
        ...{ type: "destroyedServerGroup", account: "demo", region: "eastus", resourceGroup: "demo-rg" },
        ...{ serverGroupName: `pg-task-${k}`, deletedByThisTask: true, confirmedBy: "GET 404 ResourceNotFound" },
      },
    ],
    history: [line("ORCHESTRATION")],
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
