// A running task's writes on SQLite, each fenced by its lease holder: a history line, and a change (with the history
// lines of the same commit). A change of state applies only from a state the table allows (src/tasks/task-state.ts),
// in the statement itself, whoever else writes at the same time.
import type { SQLInputValue } from "node:sqlite";
import type { HistoryEntry, TaskState } from "../task.ts";
import { FINISHED_STATES } from "../task.ts";
import type { TaskChange } from "../task-store.ts";
import { canMove, IllegalMoveError, sqlStateList, statesBefore } from "../task-state.ts";
import { FENCE, json, type SqliteDb } from "./db.ts";
import { endAudit } from "./audit.ts";

/** Appends a line if `owner` holds the lease: the fenced UPDATE and the INSERT in one transaction. */
export function appendHistory(db: SqliteDb, owner: string, id: string, entry: HistoryEntry): boolean {
  return db.write(() => {
    const now = Date.now();
    const held = db
      .stmt(`UPDATE tasks SET updated_at_ms = ?, revision = revision + 1 WHERE id = ? AND ${FENCE}`)
      .run(now, id, owner, now);
    if (Number(held.changes) !== 1) return false;
    db.insertLine(id, entry);
    return true;
  });
}

/** The fenced UPDATE of a change (its values, then id, owner and now), and whether it finishes the task. */
function fencedChange(change: TaskChange, now: number): { sql: string; params: SQLInputValue[]; finished: boolean } {
  const sets: string[] = ["updated_at_ms = ?", "revision = revision + 1"];
  const params: SQLInputValue[] = [now];
  const set = (column: string, value: SQLInputValue) => {
    sets.push(`${column} = ?`);
    params.push(value);
  };
  if (change.state !== undefined) set("state", change.state);
  if (change.operationIndex !== undefined) set("operation_index", change.operationIndex);
  if (change.resultObjects !== undefined) set("result_objects", json(change.resultObjects));
  if (change.failure !== undefined) set("failure", json(change.failure));
  else if ("failure" in change) set("failure", null);
  if (change.armCalls !== undefined) set("arm_calls", change.armCalls);
  if (change.finishedAtMs !== undefined) set("finished_at_ms", change.finishedAtMs);
  if (change.checkpoint !== undefined) set("checkpoint", change.checkpoint === null ? null : json(change.checkpoint));
  const finished = change.state !== undefined && FINISHED_STATES.has(change.state);
  if (finished) sets.push("lease_owner = NULL", "lease_expires_at_ms = NULL");
  const allowed = change.state !== undefined ? ` AND state IN ${sqlStateList(statesBefore(change.state))}` : "";
  return {
    sql: `UPDATE tasks SET ${sets.join(", ")} WHERE id = ? AND ${FENCE}${allowed} RETURNING seq`,
    params,
    finished,
  };
}

/**
 * Applies a change if `owner` holds the lease; false otherwise, IllegalMoveError for a move the table does not have.
 * A change with history lines, or that finishes the task (freeing its scale sets), is one transaction.
 */
export function update(db: SqliteDb, owner: string, id: string, change: TaskChange): boolean {
  const now = Date.now();
  const { sql, params, finished } = fencedChange(change, now);
  const history = change.history ?? [];
  if (!finished && history.length === 0) {
    if (db.stmt(sql).get(...params, id, owner, now) !== undefined) return true;
    return refusedMove(db, owner, id, change.state, now);
  }
  return db.write(() => {
    const row = db.stmt(sql).get(...params, id, owner, now) as { seq: number } | undefined;
    if (!row) return refusedMove(db, owner, id, change.state, now);
    for (const h of history) db.insertLine(id, h);
    // A finished task no longer holds its scale sets: the next task on each may be claimed.
    if (finished) {
      freeScaleSets(db, row.seq);
      endAudit(db, id, change.state!, now);
    }
    return true;
  });
}

/**
 * A task that ended frees its scale sets, and wakes those another task waits on: the next claim looks at the first
 * task of each. A scale set nothing else holds is not woken: the claim that would find nothing there would still
 * take the write lock and commit (most tasks end with nothing behind them). Under the write lock this sees every
 * create committed before it, and a create after it finds the scale set free and makes its task a candidate itself
 * (create.ts), so no wake-up is lost.
 */
export function freeScaleSets(db: SqliteDb, seq: number): void {
  db.stmt(
    `INSERT OR IGNORE INTO task_wakes (scale_set) SELECT s.scale_set FROM task_scale_sets s
     WHERE s.task_seq = ? AND EXISTS (SELECT 1 FROM task_scale_sets o WHERE o.scale_set = s.scale_set AND o.task_seq <> s.task_seq)`,
  ).run(seq);
  db.stmt("DELETE FROM task_scale_sets WHERE task_seq = ?").run(seq);
  db.stmt("DELETE FROM task_ready WHERE task_seq = ?").run(seq);
}

/**
 * An update changed nothing: false when the lease is not held (the fence), IllegalMoveError when it is and the
 * task is in a state the table has no move from to `to`.
 */
function refusedMove(db: SqliteDb, owner: string, id: string, to: TaskState | undefined, now: number): false {
  if (to === undefined) return false;
  const held = db.stmt(`SELECT state FROM tasks WHERE id = ? AND ${FENCE}`).get(id, owner, now) as
    { state: TaskState } | undefined;
  if (held && !canMove(held.state, to)) throw new IllegalMoveError(id, held.state, to);
  return false;
}
