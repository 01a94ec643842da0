// The claim on PostgreSQL: which tasks a replica takes next (the order: src/tasks/ordering.ts), leased on the
// database's clock. Its cost does not grow with the queue behind a busy scale set (test/claim-depth.test.ts shows the
// plan with 10,000 queued).
import pg from "pg";
import type { Task } from "../task.ts";
import { bySubmission, claimOrderSql, firstOfQueueSql, startedSql, waitsSql } from "../ordering.ts";
import { CLAIMABLE_STATES, sqlStateList } from "../task-state.ts";
import type { PgConnection } from "./connection.ts";
import { integerLiteral, NOW_MS, type PgTables, type Row, textParam, toTask } from "./tables.ts";

/** Lock class held while claiming ("vmsc"): claims of one schema take turns, see claim(). */
export const CLAIM_LOCK_CLASS = 0x766d7363;

const CLAIMABLE_SQL = sqlStateList(CLAIMABLE_STATES);

/**
 * SQL: the task aliased `t` has started and not ended. Word for word the predicate of the partial index
 * tasks_started (src/tasks/migrations.ts), which PostgreSQL uses only for a query that states it.
 */
export const STARTED_UNFINISHED_SQL = (t: string): string => `${t}.state IN ${CLAIMABLE_SQL} AND ${startedSql(t)}`;

/** Schema-qualified names of the tables a claim reads, and the task columns it returns. */
export type ClaimTables = Pick<PgTables, "schema" | "tasks" | "scaleSets" | "ready" | "wakes" | "columns">;

/**
 * The claim: three statements for one simple query (no parameters: values are literals), one transaction. The first
 * takes the claim lock; each after it takes a snapshot of its own, after the lock and after the statement before:
 * - the second turns the wakes (scale sets whose first task may have changed since the last claim: a task ended, came
 *   back, or was created behind another) into candidates: the first task of each by submission order, put in
 *   task_ready. Started tasks are candidates already: they were claimed from task_ready, and stay there until they end.
 * - the third walks task_ready in submission order and takes the first `limit` that are free to run, each checked
 *   against the order per scale set (waitsSql), and stops there. The started tasks and their scale sets (busy) are
 *   collected once per claim, from their own index (tasks_started).
 * So a claim reads the started tasks, the candidates up to the last it takes, and what was woken since the last claim:
 * never the queue behind a busy scale set, and not every scale set's first task either. With 10,000 scale sets ready
 * (the fleet at ten times its size, held back by Azure's budget), a claim that read every candidate to take one cost
 * PostgreSQL 12 ms.
 */
export function claimSql(t: ClaimTables, owner: string, leaseMs: number, limit: number): string {
  // The plan must not hang on statistics: right after a burst of creates, before autovacuum analyzed the tables,
  // PostgreSQL chose hash joins that read every queued task (50 ms with 10,000 queued). So the started tasks travel
  // as an array (found by index probes, seq = ANY; read in the index's order, which favours a plain index scan once there
  // are many: one that meets a dead row's entry marks it, and the next claims pass over it, where a bitmap scan read
  // every dead row's entry again until the table was vacuumed); the candidates are read in the order of task_ready's primary key,
  // each checked by a subquery of its own (free), which the planner cannot turn into a join: joined to tasks instead,
  // it merged task_ready with every queued task and checked each of those. The LIMIT stops the walk. The rows taken
  // are locked apart (picked), SKIP LOCKED passing over any a runner is writing: that claim takes fewer, the next
  // takes them.
  const waits = waitsSql({
    t: "t",
    scaleSets: t.scaleSets,
    started: {
      earlierOn: (scaleSet, seq) =>
        `EXISTS (SELECT 1 FROM busy b WHERE b.scale_set = ${scaleSet} AND b.task_seq < ${seq})`,
      scaleSets: "SELECT scale_set FROM busy",
    },
    shape: "scalar",
  });
  const free = `t.state IN ${CLAIMABLE_SQL} AND (t.lease_expires_at_ms IS NULL OR t.lease_expires_at_ms <= ${NOW_MS})`;
  return `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext(${pg.escapeLiteral(t.schema)}));
       WITH woken AS (
         DELETE FROM ${t.wakes} RETURNING scale_set
       )
       INSERT INTO ${t.ready} (task_seq)
       SELECT DISTINCT head FROM (SELECT ${firstOfQueueSql(t.scaleSets, "w.scale_set")} AS head FROM woken w) h
       WHERE head IS NOT NULL
       ON CONFLICT DO NOTHING;
       WITH busy AS MATERIALIZED (
         SELECT o.scale_set, o.task_seq FROM ${t.scaleSets} o
         WHERE o.task_seq = ANY (ARRAY(
           SELECT u.seq FROM ${t.tasks} u WHERE ${STARTED_UNFINISHED_SQL("u")} ORDER BY u.seq))
       ), free AS (
         SELECT r.seq FROM ${t.ready} r (seq)
         WHERE coalesce((SELECT ${free} AND NOT ${waits} FROM ${t.tasks} t WHERE t.seq = r.seq), false)
         ORDER BY ${claimOrderSql("r")}
         LIMIT ${integerLiteral(limit)}
       ), picked AS (
         SELECT t.seq FROM ${t.tasks} t
         WHERE t.seq = ANY (ARRAY(SELECT seq FROM free)) AND ${free}
         FOR UPDATE OF t SKIP LOCKED
       )
       UPDATE ${t.tasks} t SET lease_owner = ${pg.escapeLiteral(textParam(owner))}, lease_expires_at_ms = ${NOW_MS} + ${integerLiteral(leaseMs)}
       FROM picked WHERE t.seq = picked.seq
       RETURNING ${t.columns}`;
}

/**
 * Takes up to `limit` tasks that go first on their scale sets for `owner`, oldest first.
 *
 * Whether a task goes first on its scale sets depends on other rows than its own, which FOR UPDATE does not re-check:
 * two claims at once could each see the other's pick as not yet started. So claims of one schema take turns under a
 * transaction-scoped advisory lock, and each takes its snapshot after the lock, seeing every earlier claim. SKIP
 * LOCKED still passes over rows a runner is writing right now. One round trip: three statements in one simple query
 * run as one transaction, which holds the lock to its end, and each takes a snapshot of its own, the claim's after
 * the lock. Values are literals (the simple query protocol has no parameters).
 */
export async function claim(
  db: PgConnection,
  t: PgTables,
  owner: string,
  leaseMs: number,
  limit: number,
): Promise<Task[]> {
  if (limit <= 0) return [];
  const results = (await db.query(claimSql(t, owner, leaseMs, limit), [], false)) as unknown as pg.QueryResult<Row>[];
  return results
    .at(-1)!
    .rows.map((row) => ({ row, seq: Number(row.seq) }))
    .sort(bySubmission)
    .map(({ row }) => toTask(row));
}
