// Retention on SQLite: finished tasks that finished before a cutoff are deleted, their history with them
// (ON DELETE CASCADE). Queued and running tasks are never pruned.
import { FINISHED_STATES } from "../task.ts";
import { sqlStateList } from "../task-state.ts";
import type { SqliteDb } from "./db.ts";

const FINISHED_SQL = sqlStateList(FINISHED_STATES);

export function prune(db: SqliteDb, finishedBeforeMs: number): number {
  const result = db
    .stmt(`DELETE FROM tasks WHERE state IN ${FINISHED_SQL} AND coalesce(finished_at_ms, updated_at_ms) < ?`)
    .run(finishedBeforeMs);
  return Number(result.changes);
}
