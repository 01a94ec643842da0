// Retention on PostgreSQL: finished tasks that finished before a cutoff are deleted, their history with them
// (ON DELETE CASCADE). Queued and running tasks are never pruned.
import { FINISHED_STATES } from "../task.ts";
import { sqlStateList } from "../task-state.ts";
import type { PgConnection } from "./connection.ts";
import type { PgTables } from "./tables.ts";

const FINISHED_SQL = sqlStateList(FINISHED_STATES);

export async function prune(db: PgConnection, t: PgTables, finishedBeforeMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM ${t.tasks} WHERE state IN ${FINISHED_SQL} AND coalesce(finished_at_ms, updated_at_ms) < $1::bigint`,
    [Math.floor(finishedBeforeMs)],
    true,
  );
  return rowCount ?? 0;
}
