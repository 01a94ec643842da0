// A running task's writes on PostgreSQL, each fenced by its lease holder: a history line, and a change (with the
// history lines of the same commit). A change of state applies only from a state the table allows
// (src/tasks/task-state.ts), in the statement itself, whoever else writes at the same time.
import type { HistoryEntry, TaskState } from "../task.ts";
import type { TaskChange } from "../task-store.ts";
import { canMove, IllegalMoveError } from "../task-state.ts";
import type { PgConnection } from "./connection.ts";
import { fenceSql, lineParams, NOW_MS, type PgTables } from "./tables.ts";
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

/**
 * Applies a change if `owner` holds the lease; false otherwise, IllegalMoveError for a move the table does not have.
 * Every change goes with other tasks' in the update queue's next statement (update-queue.ts), one that ends its task
 * with the freeing of its scale sets and their wake-ups; a finished task's NOTIFY, which wakes the replicas (one of
 * them may now claim the next task on those scale sets), is the queue's, once the statement committed (watch.ts
 * says why).
 */
export async function update(
  db: PgConnection,
  t: PgTables,
  owner: string,
  id: string,
  change: TaskChange,
  updates: PgUpdateQueue,
): Promise<boolean> {
  return (await updates.add(owner, id, change)) || refusedMove(db, t, owner, id, change.state);
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
