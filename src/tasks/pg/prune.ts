// Retention on PostgreSQL: finished tasks that finished before a cutoff are deleted, their history lines, scale sets
// and candidate row with them, in the same statement (no foreign keys since migration 15: their checks locked the
// task's row, a WAL record, at each line). Queued and running tasks are never pruned.
import { FINISHED_STATES } from "../task.ts";
import { sqlStateList } from "../task-state.ts";
import type { PgConnection } from "./connection.ts";
import type { PgTables } from "./tables.ts";

const FINISHED_SQL = sqlStateList(FINISHED_STATES);

export async function prune(db: PgConnection, t: PgTables, finishedBeforeMs: number): Promise<number> {
  const { rows } = await db.query<{ n: string }>(
    // Two ranges of tasks_finished (migration 14): the index holds no updated_at_ms, so that a task's writes stay
    // heap-only updates.
    `WITH gone AS (
       DELETE FROM ${t.tasks} WHERE state IN ${FINISHED_SQL}
         AND (finished_at_ms < $1::bigint OR (finished_at_ms IS NULL AND updated_at_ms < $1::bigint))
       RETURNING seq, id
     ), lines AS (
       DELETE FROM ${t.history} h USING gone WHERE h.task_id = gone.id
     ), keys AS (
       DELETE FROM ${t.scaleSets} s USING gone WHERE s.task_seq = gone.seq
     ), candidates AS (
       DELETE FROM ${t.ready} r USING gone WHERE r.task_seq = gone.seq
     )
     SELECT count(*) AS n FROM gone`,
    [Math.floor(finishedBeforeMs)],
    true,
  );
  return Number(rows[0].n);
}
