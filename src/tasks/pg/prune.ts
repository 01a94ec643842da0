// Retention on PostgreSQL: finished tasks that finished before a cutoff are deleted, their history with them
// (ON DELETE CASCADE). Queued and running tasks are never pruned.
import { FINISHED_STATES } from "../task.ts";
import { sqlStateList } from "../task-state.ts";
import type { PgConnection } from "./connection.ts";
import type { PgTables } from "./tables.ts";

const FINISHED_SQL = sqlStateList(FINISHED_STATES);

export async function prune(db: PgConnection, t: PgTables, finishedBeforeMs: number): Promise<number> {
  const { rowCount } = await db.query(
    // Two ranges of tasks_finished (migration 14): the index holds no updated_at_ms, so that a task's writes stay
    // heap-only updates.
    `DELETE FROM ${t.tasks} WHERE state IN ${FINISHED_SQL}
       AND (finished_at_ms < $1::bigint OR (finished_at_ms IS NULL AND updated_at_ms < $1::bigint))`,
    [Math.floor(finishedBeforeMs)],
    true,
  );
  return rowCount ?? 0;
}
