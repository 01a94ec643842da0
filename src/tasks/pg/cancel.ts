// Cancel and resume on PostgreSQL: a cancel request (a queued task nobody started ends at once; a running one carries
// the request for its lease holder), and a failed, retryable task put back in the queue at its place.
import type pg from "pg";
import type { HistoryEntry } from "../task.ts";
import { FINISHED_STATES } from "../task.ts";
import type { CancelLines, CancelOutcome } from "../task-store.ts";
import type { PgConnection } from "./connection.ts";
import { getTask } from "./read.ts";
import { lineParams, NOW_MS, type PgTables, textParam } from "./tables.ts";
import type { NewAuditEntry } from "../audit.ts";
import { auditRow, endAuditSql, insertAudit, insertAuditSql } from "./audit.ts";

/**
 * Puts a failed, retryable task back in the queue. One statement: the UPDATE is the compare-and-set; the history
 * line, the scale sets it holds again (at its place in submission order) and the wake-up of other replicas happen
 * only if it matched.
 */
export async function requeueRetryable(
  db: PgConnection,
  t: PgTables,
  id: string,
  entry: HistoryEntry,
  scaleSets: string[],
  audit?: NewAuditEntry,
): Promise<boolean> {
  const row = audit ? auditRow({ ...audit, taskId: id }) : undefined;
  const { rows } = await db.query(
    `WITH requeued AS (
       UPDATE ${t.tasks} SET state = 'queued', failure = NULL, finished_at_ms = NULL, checkpoint = NULL,
         lease_owner = NULL, lease_expires_at_ms = NULL, updated_at_ms = ${NOW_MS}, revision = revision + 1
       WHERE id = $1 AND state = 'failed' AND (failure->>'retryable')::boolean IS TRUE
       RETURNING id, seq
     ), line AS (
       INSERT INTO ${t.history} (task_id, phase, status, time_ms) SELECT id, $2, $3, $4 FROM requeued
     ), held AS (
       INSERT INTO ${t.scaleSets} (task_seq, scale_set)
       SELECT requeued.seq, k FROM requeued, unnest($5::text[]) AS k ON CONFLICT DO NOTHING
     ), ready AS (
       INSERT INTO ${t.ready} (task_seq) SELECT seq FROM requeued ON CONFLICT DO NOTHING
     ), woken AS (
       INSERT INTO ${t.wakes} (scale_set) SELECT DISTINCT k FROM requeued, unnest($5::text[]) AS k ORDER BY k
     ), notified AS (
       SELECT pg_notify($6, '') FROM requeued
     ), audited AS (
       ${insertAuditSql(t, "$7::text", "$8", " WHERE $8::jsonb IS NOT NULL AND EXISTS (SELECT 1 FROM requeued)")}
     )
     SELECT (SELECT count(*) FROM notified) AS notified FROM requeued`,
    [
      id,
      ...lineParams(entry),
      [...new Set(scaleSets.map((k) => textParam(k)))],
      t.channel,
      row?.id ?? null,
      row?.json ?? null,
    ],
    false,
  );
  return rows.length === 1;
}

/** The one method of more than one round trip: a transaction that locks the task's row, then decides. */
export async function requestCancel(
  db: PgConnection,
  t: PgTables,
  id: string,
  lines: CancelLines,
  audit?: NewAuditEntry,
): Promise<CancelOutcome> {
  const outcome = await db.inTransaction(async (client) => {
    const found = await client.query(
      `SELECT seq, state, lease_owner, lease_expires_at_ms, cancel_requested_at_ms, ${NOW_MS} AS now
       FROM ${t.tasks} WHERE id = $1 FOR UPDATE`,
      [id],
    );
    const row = found.rows[0];
    const line = (entry: HistoryEntry) =>
      client.query(`INSERT INTO ${t.history} (task_id, phase, status, time_ms) VALUES ($1, $2, $3, $4)`, [
        id,
        ...lineParams(entry),
      ]);
    if (!row) return "missing";
    if (FINISHED_STATES.has(row.state)) return "finished";
    if (audit) await insertAudit(client, t, { ...audit, taskId: id });
    if (row.state === "queued" && (row.lease_owner === null || Number(row.lease_expires_at_ms) <= Number(row.now))) {
      await cancelQueued(client, t, id, Number(row.seq));
      await client.query(`WITH done AS (SELECT $1::text AS id) ${endAuditSql(t, "done", "$2")}`, [id, "canceled"]);
      await line(lines.canceled);
      // The scale sets it named are free: wake the replicas.
      await client.query("SELECT pg_notify($1, '')", [t.channel]);
      return "canceled";
    }
    if (row.cancel_requested_at_ms === null) {
      await client.query(
        `UPDATE ${t.tasks} SET cancel_requested_at_ms = ${NOW_MS}, updated_at_ms = ${NOW_MS}, revision = revision + 1 WHERE id = $1`,
        [id],
      );
      await line(lines.requested);
    }
    return "requested";
  });
  if (outcome === "missing") return { outcome };
  return { outcome, task: (await getTask(db, t, id))! };
}

/** Ends a queued task as canceled, inside the caller's transaction: it frees its scale sets, and wakes them. */
async function cancelQueued(client: pg.PoolClient, t: PgTables, id: string, seq: number): Promise<void> {
  await client.query(
    `UPDATE ${t.tasks} SET state = 'canceled', cancel_requested_at_ms = ${NOW_MS}, finished_at_ms = ${NOW_MS},
       updated_at_ms = ${NOW_MS}, revision = revision + 1, lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = $1`,
    [id],
  );
  await client.query(
    `WITH freed AS (DELETE FROM ${t.scaleSets} WHERE task_seq = $1 RETURNING scale_set), unready AS (DELETE FROM ${t.ready} WHERE task_seq = $1)
     INSERT INTO ${t.wakes} (scale_set) SELECT DISTINCT scale_set FROM freed ORDER BY scale_set`,
    [seq],
  );
}
