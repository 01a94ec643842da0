// Claim cost with a deep queue against a shallow one, on PostgreSQL and on SQLite: the median time of one claim that
// takes one task on a free scale set while sizes.claimQueue[1] tasks (against [0]) wait behind a busy one.
import pg from "pg";
import { PostgresTaskStore } from "../../src/tasks/postgres-task-store.ts";
import { SqliteTaskStore } from "../../src/tasks/sqlite-task-store.ts";
import type { TaskStore } from "../../src/tasks/task-store.ts";
import { resize, type Bench } from "../context.ts";
import { median } from "../measure.ts";
import type { Figure, Row } from "../table.ts";

/**
 * A store with `queued` tasks waiting behind a running one on a busy scale set, settled (on PostgreSQL vacuumed and
 * analyzed, as autovacuum leaves a queue that waits).
 */
async function queuedStore(store: TaskStore, queued: number, settle?: () => Promise<void>): Promise<TaskStore> {
  const op = { name: "resizeServerGroup", description: resize("claim", 2) };
  await store.create({ operations: [op], scaleSets: ["bench/rg/busy"] });
  for (let i = 0; i < queued; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, queued - i) }, () =>
        store.create({ operations: [op], scaleSets: ["bench/rg/busy"] }),
      ),
    );
  }
  const running = await store.claim("bench", 3_600_000, 10);
  if (running.length !== 1) throw new Error(`claim cost: expected the head of the queue, got ${running.length}`);
  await settle?.();
  return store;
}

/** One claim that takes one task on a free scale set while the queue waits: what every task's end costs a replica. */
async function timedClaim(store: TaskStore, round: number): Promise<number> {
  const op = { name: "resizeServerGroup", description: resize("claim", 2) };
  await store.create({ operations: [op], scaleSets: [`bench/rg/free-${round}`] });
  const t0 = performance.now();
  const got = await store.claim("bench", 3_600_000, 10);
  const ms = performance.now() - t0;
  if (got.length !== 1) throw new Error(`claim cost: expected the free task, got ${got.length}`);
  await store.update("bench", got[0].id, { state: "succeeded", finishedAtMs: Date.now() });
  return ms;
}

/**
 * The median claim time of each store, the stores' claims alternating round by round (the store alone, in this
 * process): the load other work puts on the machine drifts within seconds, and alternating lays it on every depth
 * alike, so the ratio compares like with like.
 */
async function claimCosts(stores: TaskStore[], rounds: number): Promise<number[]> {
  const times: number[][] = stores.map(() => []);
  for (let round = 0; round < rounds; round++) {
    for (const [i, store] of stores.entries()) times[i].push(await timedClaim(store, round));
  }
  for (const store of stores) await store.close();
  return times.map(median);
}

/** Vacuums and analyzes the task tables of the database at `url`. */
const settled = (url: string) => async () => {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query("VACUUM ANALYZE tasks, task_scale_sets, task_ready, task_history");
  await c.end();
};

/** `claimQueue`: the shallow and the deep queue; `prefix` names the rows of another figure (the fleet at ten times). */
export async function measureClaims(b: Bench, claimQueue = b.sizes.claimQueue, prefix = "") {
  const { claimRounds } = b.sizes;
  const claimMs: Record<string, Record<number, number>> = { postgres: {}, sqlite: {} };
  const pgStores: TaskStore[] = [];
  const sqliteStores: TaskStore[] = [];
  for (const queued of claimQueue) {
    const url = await b.database();
    pgStores.push(await queuedStore(await PostgresTaskStore.open({ connectionString: url }), queued, settled(url)));
    sqliteStores.push(await queuedStore(await SqliteTaskStore.open({ dataDir: b.tempDir() }), queued));
  }
  for (const [store, list] of [
    ["postgres", pgStores],
    ["sqlite", sqliteStores],
  ] as const) {
    const ms = await claimCosts(list, claimRounds);
    claimQueue.forEach((queued, i) => (claimMs[store][queued] = ms[i]));
  }
  const [shallow, deep] = claimQueue;
  const claims = {
    queued: claimQueue,
    postgresMs: claimMs.postgres,
    sqliteMs: claimMs.sqlite,
    postgresRatio: claimMs.postgres[deep] / claimMs.postgres[shallow],
    sqliteRatio: claimMs.sqlite[deep] / claimMs.sqlite[shallow],
  };
  b.log(
    `claim with ${deep} queued / ${shallow} queued: PostgreSQL ${claims.postgresRatio.toFixed(2)}, SQLite ${claims.sqliteRatio.toFixed(2)}`,
  );
  const rows: Row[] = [
    {
      figure: `${prefix}claim with ${deep} tasks queued / with ${shallow}, PostgreSQL`,
      measured: claims.postgresRatio,
      target: "≤ 1.5",
      met: claims.postgresRatio <= 1.5,
      detail: `${claimMs.postgres[deep].toFixed(2)} ms against ${claimMs.postgres[shallow].toFixed(2)} ms`,
    },
    {
      figure: `${prefix}the same, SQLite`,
      measured: claims.sqliteRatio,
      target: "≤ 1.5",
      met: claims.sqliteRatio <= 1.5,
      detail: `${claimMs.sqlite[deep].toFixed(2)} ms against ${claimMs.sqlite[shallow].toFixed(2)} ms`,
    },
  ];
  return { rows, results: { claims } } satisfies Figure;
}
