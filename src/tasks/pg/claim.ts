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

/** Schema-qualified names of the tables a claim reads, and the task columns it returns. */
export type ClaimTables = Pick<PgTables, "schema" | "tasks" | "scaleSets" | "ready" | "wakes" | "columns">;

/**
 * The claim: two statements for one simple query (no parameters: values are literals), one transaction. The first
 * takes the claim lock; the second, with a snapshot taken after it:
 * - turns the wakes (scale sets whose first task may have changed since the last claim: a task ended, came back, or
 *   was created behind another) into candidates: the first task of each by submission order. Started tasks are
 *   candidates already: they were claimed from task_ready, and stay there until they end.
 * - checks each candidate (task_ready and the woken) against the order per scale set (waitsSql). The started tasks
 *   and their scale sets (busy) are collected once per claim, from the candidates.
 * So a claim reads the candidates and what was woken since the last claim, never the queue behind a busy scale set.
 */
export function claimSql(t: ClaimTables, owner: string, leaseMs: number, limit: number): string {
  // The plan must not hang on statistics: right after a burst of creates, before autovacuum analyzed the tables,
  // PostgreSQL chose hash joins that read every queued task (50 ms with 10,000 queued). So the candidates travel as
  // an array (tasks are found by index probes, seq = ANY), and each check is a subquery per candidate, which the
  // planner cannot turn into a join over the whole table (waitsSql's "scalar" shape).
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
  return `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext(${pg.escapeLiteral(t.schema)}));
       WITH woken AS (
         DELETE FROM ${t.wakes} RETURNING scale_set
       ), heads AS (
         SELECT DISTINCT head FROM (SELECT ${firstOfQueueSql(t.scaleSets, "w.scale_set")} AS head FROM woken w) h
         WHERE head IS NOT NULL
       ), kept AS (
         INSERT INTO ${t.ready} (task_seq) SELECT head FROM heads ON CONFLICT DO NOTHING
       ), candidates AS (
         SELECT ARRAY(SELECT task_seq FROM ${t.ready} UNION SELECT head FROM heads) AS seqs
       ), busy AS MATERIALIZED (
         SELECT o.scale_set, o.task_seq FROM ${t.scaleSets} o
         WHERE o.task_seq = ANY (ARRAY(
           SELECT u.seq FROM ${t.tasks} u
           WHERE u.seq = ANY ((SELECT seqs FROM candidates)::bigint[]) AND u.state IN ${CLAIMABLE_SQL} AND ${startedSql("u")}))
       ), picked AS (
         SELECT t.seq FROM ${t.tasks} t
         WHERE t.seq = ANY ((SELECT seqs FROM candidates)::bigint[])
           AND t.state IN ${CLAIMABLE_SQL} AND (t.lease_expires_at_ms IS NULL OR t.lease_expires_at_ms <= ${NOW_MS})
           AND NOT ${waits}
         ORDER BY ${claimOrderSql("t")}
         LIMIT ${integerLiteral(limit)}
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
 * LOCKED still passes over rows a runner is writing right now. One round trip: two statements in one simple query
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
