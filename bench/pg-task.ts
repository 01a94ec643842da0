// PostgreSQL's CPU for the store calls a resize makes, without HTTP or Azure: K runners, each creating a task,
// claiming one, writing its first checkpoint with two history lines, reading its revision twice and the task once
// (as a held read and a poll do), and ending it with a line. Prints the database server's CPU per
// task (its backends', those that ended included) and this process's, per round. `--tree DIR` takes another
// checkout's store, to compare two versions in one sitting.
//
//   node bench/pg-task.ts [--tasks 2000] [--runners 16] [--rounds 3] [--tree DIR]
import { randomBytes } from "node:crypto";
import { join } from "node:path";
import pg from "pg";
import { backendsCpuBetween, postgresCpu } from "./figures/fleet.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const tasks = Number(option("--tasks", "2000"));
const runners = Number(option("--runners", "16"));
const rounds = Number(option("--rounds", "3"));
const tree = option("--tree", join(import.meta.dirname, ".."));
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const { PostgresTaskStore } = (await import(
  join(tree, "src/tasks/postgres-task-store.ts")
)) as typeof import("../src/tasks/postgres-task-store.ts");

const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const database = `vmss_ops_pg_task_${randomBytes(4).toString("hex")}`;
await admin.query(`CREATE DATABASE ${database}`);
try {
  const connectionString = Object.assign(new URL(ADMIN_URL), { pathname: `/${database}` }).toString();
  // The database is dropped at the end, its connections with it: that is not worth a line.
  const store = await PostgresTaskStore.open({ connectionString, onPoolError: () => {} });
  let n = 0;
  const line = (phase: string) => ({ phase, status: "…", timeMs: Date.now() });
  const oneTask = async (owner: string) => {
    const k = n++;
    await store.create({
      operations: [{ name: "resizeServerGroup", description: { serverGroupName: `pg-task-${k}` } }],
      scaleSets: [`demo/eastus/demo-rg/pg-task-${k}`],
    });
    const [task] = await store.claim(owner, 60_000, 1);
    if (!task) return;
    await store.update(owner, task.id, {
      state: "running",
      checkpoint: { operationIndex: 0, attempt: 1 },
      history: [line("RESIZE"), line("RESIZE")],
    });
    await store.revision(task.id);
    await store.revision(task.id);
    await store.get(task.id);
    await store.update(owner, task.id, {
      state: "succeeded",
      finishedAtMs: Date.now(),
      checkpoint: null,
      history: [line("ORCHESTRATION")],
    });
  };
  const round = async (count: number) => {
    const before = postgresCpu(database);
    const cpu0 = process.cpuUsage();
    let left = count;
    await Promise.all(
      Array.from({ length: runners }, async (_, r) => {
        while (left-- > 0) await oneTask(`runner-${r}`);
      }),
    );
    const server = backendsCpuBetween(before, postgresCpu(database));
    const own = process.cpuUsage(cpu0);
    return { serverMs: server / count, processMs: (own.user + own.system) / 1000 / count };
  };
  await round(Math.min(500, tasks));
  for (let i = 0; i < rounds; i++) {
    const r = await round(tasks);
    console.log(
      `round ${i + 1}: PostgreSQL ${r.serverMs.toFixed(3)} ms a task, this process ${r.processMs.toFixed(3)} ms (${tasks} tasks, ${runners} runners)`,
    );
  }
  await store.close();
} finally {
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.end();
}
