// A running task's writes on PostgreSQL, each fenced by its lease holder: a history line, and a change (with the
// history lines of the same commit). A change of state applies only from a state the table allows
// (src/tasks/task-state.ts), in the statement itself, whoever else writes at the same time.
import type { HistoryEntry, TaskState } from "../task.ts";
import { FINISHED_STATES } from "../task.ts";
import type { TaskChange } from "../task-store.ts";
import { canMove, IllegalMoveError, sqlStateList, statesBefore } from "../task-state.ts";
import type { PgConnection } from "./connection.ts";
import { fenceSql, jsonParam, lineParams, NOW_MS, type PgTables } from "./tables.ts";
import { endAuditSql } from "./audit.ts";
import type { EndNotifier } from "./watch.ts";
import type { PgUpdateQueue } from "./update-queue.ts";

/** Appends a line if `owner` holds the lease. The UPDATE is the fence (and locks the row until the INSERT is done). */
export async function appendHistory(
  db: PgConnection,
  t: PgTables,
  owner: string,
  id: string,
  entry: HistoryEntry,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `WITH held AS (
       UPDATE ${t.tasks} SET updated_at_ms = ${NOW_MS}, revision = revision + 1
       WHERE id = $1 AND ${fenceSql("$2")}
       RETURNING id
     )
     INSERT INTO ${t.history} (task_id, phase, status, time_ms) SELECT id, $3, $4, $5 FROM held`,
    [id, owner, ...lineParams(entry)],
    false,
  );
  return rowCount === 1;
}

/** The fenced UPDATE of a change ($1 the id, $2 the owner, then its values), and whether it finishes the task. */
function fencedChange(
  t: PgTables,
  owner: string,
  id: string,
  change: TaskChange,
): { sql: string; params: unknown[]; finished: boolean } {
  const params: unknown[] = [id, owner];
  const sets: string[] = [`updated_at_ms = ${NOW_MS}`, "revision = revision + 1"];
  const set = (column: string, value: unknown, cast = "") => {
    params.push(value);
    sets.push(`${column} = $${params.length}${cast}`);
  };
  if (change.state !== undefined) set("state", change.state);
  if (change.operationIndex !== undefined) set("operation_index", change.operationIndex);
  if (change.resultObjects !== undefined) set("result_objects", jsonParam(change.resultObjects), "::jsonb");
  if (change.failure !== undefined) set("failure", jsonParam(change.failure), "::jsonb");
  else if ("failure" in change) sets.push("failure = NULL");
  if (change.armCalls !== undefined) set("arm_calls", change.armCalls);
  if (change.finishedAtMs !== undefined) set("finished_at_ms", Math.round(change.finishedAtMs), "::bigint");
  if (change.checkpoint === null) sets.push("checkpoint = NULL");
  else if (change.checkpoint !== undefined) set("checkpoint", jsonParam(change.checkpoint), "::jsonb");
  const finished = change.state !== undefined && FINISHED_STATES.has(change.state);
  if (finished) sets.push("lease_owner = NULL", "lease_expires_at_ms = NULL");
  const allowed = change.state !== undefined ? ` AND state IN ${sqlStateList(statesBefore(change.state))}` : "";
  return {
    sql: `UPDATE ${t.tasks} SET ${sets.join(", ")} WHERE id = $1 AND ${fenceSql("$2")}${allowed}`,
    params,
    finished,
  };
}

/**
 * Applies a change if `owner` holds the lease; false otherwise, IllegalMoveError for a move the table does not have.
 * A change that does not end the task goes with other tasks' in the update queue's next statement. One that ends it
 * is one statement: the fenced change, its history lines (only if the fence held), and for a finished task the scale
 * sets it no longer holds and their wake-ups. A finished task's NOTIFY, which wakes the replicas (one of them may now
 * claim the next task on those scale sets), is `ended`'s, once the statement committed (watch.ts says why).
 */
export async function update(
  db: PgConnection,
  t: PgTables,
  owner: string,
  id: string,
  change: TaskChange,
  ended: EndNotifier,
  updates: PgUpdateQueue,
): Promise<boolean> {
  // A write that does not end the task shares a statement with the other tasks' (update-queue.ts).
  if (change.state === undefined || !FINISHED_STATES.has(change.state))
    return (await updates.add(owner, id, change)) || refusedMove(db, t, owner, id, change.state);
  const { sql: fenced, params, finished } = fencedChange(t, owner, id, change);
  const history = change.history ?? [];
  const parts = [`done AS (${fenced} RETURNING seq, id)`];
  if (history.length > 0) {
    params.push(jsonParam(history.map((h) => ({ phase: h.phase, status: h.status, timeMs: Math.round(h.timeMs) }))));
    parts.push(
      `lines AS (INSERT INTO ${t.history} (task_id, phase, status, time_ms)
         SELECT done.id, e.value->>'phase', e.value->>'status', (e.value->>'timeMs')::bigint
         FROM done, jsonb_array_elements($${params.length}::jsonb) WITH ORDINALITY AS e(value, n)
         ORDER BY e.n)`,
    );
  }
  if (finished) {
    parts.push(`freed AS (DELETE FROM ${t.scaleSets} s USING done WHERE s.task_seq = done.seq RETURNING s.scale_set)`);
    parts.push(`woken AS (INSERT INTO ${t.wakes} (scale_set) SELECT DISTINCT scale_set FROM freed ORDER BY scale_set)`);
    parts.push(`unready AS (DELETE FROM ${t.ready} r USING done WHERE r.task_seq = done.seq)`);
    params.push(change.state);
    parts.push(`settled AS (${endAuditSql(t, "done", `$${params.length}`)})`);
  }
  const sql = `WITH ${parts.join(",\n")} SELECT (SELECT count(*) FROM done) AS n`;
  const { rows } = await db.query<{ n: string }>(sql, params, false, db.named(sql));
  const changed = Number(rows[0].n) === 1;
  if (changed && finished) ended.ended();
  return changed || refusedMove(db, t, owner, id, change.state);
}

/**
 * An update changed nothing: false when the lease is not held (the fence), IllegalMoveError when it is and the
 * task is in a state the table has no move from to `to`.
 */
async function refusedMove(
  db: PgConnection,
  t: PgTables,
  owner: string,
  id: string,
  to: TaskState | undefined,
): Promise<false> {
  if (to === undefined) return false;
  const { rows } = await db.query<{ state: TaskState }>(
    `SELECT state FROM ${t.tasks} WHERE id = $1 AND ${fenceSql("$2")}`,
    [id, owner],
    true,
  );
  if (rows[0] && !canMove(rows[0].state, to)) throw new IllegalMoveError(id, rows[0].state, to);
  return false;
}
