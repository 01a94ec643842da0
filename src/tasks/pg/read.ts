// Reading tasks on PostgreSQL: one by id, its revision alone, a page of a list (newest first, with a cursor), and
// which of a replica's tasks someone asked to cancel. Reads are safe to run twice (PgConnection.query).
import type { Task, TaskState } from "../task.ts";
import type { TaskPage, TaskQuery, TaskRevision } from "../task-store.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { listOrderSql } from "../ordering.ts";
import type { PgConnection } from "./connection.ts";
import { jsonParam, type PgTables, toTask } from "./tables.ts";
import { STARTED_UNFINISHED_SQL } from "./claim.ts";
import { FINISHED_STATES } from "../task.ts";
import { sqlStateList } from "../task-state.ts";

const FINISHED_SQL = sqlStateList(FINISHED_STATES);

/**
 * SQL: the task aliased `t` is queued and nobody holds it. Word for word the predicate of the partial index
 * tasks_waiting (migration 15), which the backlog reads.
 */
export const WAITING_SQL = (t: string): string => `${t}.state = 'queued' AND ${t}.lease_owner IS NULL`;

export async function getTask(db: PgConnection, t: PgTables, id: string): Promise<Task | undefined> {
  const sql = `SELECT ${t.columns} FROM ${t.tasks} t WHERE t.id = $1`;
  const { rows } = await db.query(sql, [id], true, db.named(sql));
  return rows[0] ? toTask(rows[0]) : undefined;
}

export async function getTaskByClientRequestId(
  db: PgConnection,
  t: PgTables,
  clientRequestId: string,
): Promise<Task | undefined> {
  const sql = `SELECT ${t.columns} FROM ${t.tasks} t WHERE t.client_request_id = $1`;
  const { rows } = await db.query(sql, [clientRequestId], true, db.named(sql));
  return rows[0] ? toTask(rows[0]) : undefined;
}

export async function revision(db: PgConnection, t: PgTables, id: string): Promise<number | undefined> {
  const sql = `SELECT revision FROM ${t.tasks} WHERE id = $1`;
  const { rows } = await db.query(sql, [id], true, db.named(sql));
  return rows[0] ? Number(rows[0].revision) : undefined;
}

/** Where each of `ids` stands (TaskStore.revisions): one statement for them all. */
export async function revisions(
  db: PgConnection,
  t: PgTables,
  ids: readonly string[],
): Promise<Map<string, TaskRevision>> {
  const found = new Map<string, TaskRevision>();
  if (ids.length === 0) return found;
  const sql = `SELECT id, revision, state FROM ${t.tasks} WHERE id = ANY ($1::text[])`;
  const { rows } = await db.query(sql, [ids], true, db.named(sql));
  for (const row of rows)
    found.set(row.id as string, { revision: Number(row.revision), state: row.state as TaskState });
  return found;
}

/** A page, newest first; nextCursor (the last task's seq) only when another matching task exists. */
export async function list(db: PgConnection, t: PgTables, query: TaskQuery): Promise<TaskPage> {
  const limit = Math.max(1, Math.min(500, Math.floor(query.limit) || 1));
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const before = decodeCursor(query.cursor);
  if (before !== undefined) where.push(`t.seq < ${param(before)}::bigint`);
  if (query.state) where.push(`t.state = ${param(query.state)}`);
  // jsonb containment: of the finished tasks, served by their GIN index (migration 15); of the others, read from
  // tasks_waiting and tasks_started, whose predicates each part states word for word, as PostgreSQL uses a partial
  // index only for a query that implies its predicate. The three parts are every state, each task in one.
  const contains: string[] = [];
  if (query.operation) contains.push(`u.operations @> ${param(jsonParam([{ name: query.operation }]))}::jsonb`);
  if (query.serverGroup) {
    contains.push(
      `u.operations @> ${param(jsonParam([{ description: { serverGroupName: query.serverGroup } }]))}::jsonb`,
    );
  }
  const part = (predicate: string) => `SELECT u.* FROM ${t.tasks} u WHERE ${predicate} AND ${contains.join(" AND ")}`;
  const from =
    contains.length === 0
      ? t.tasks
      : `(${part(`u.state IN ${FINISHED_SQL}`)}
         UNION ALL ${part(WAITING_SQL("u"))}
         UNION ALL ${part(STARTED_UNFINISHED_SQL("u"))})`;
  const { rows } = await db.query(
    `SELECT ${t.columns} FROM ${from} t ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
     ORDER BY ${listOrderSql("t")} LIMIT ${param(limit + 1)}`,
    params,
    true,
  );
  const page = rows.slice(0, limit);
  return {
    tasks: page.map(toTask),
    ...(rows.length > limit ? { nextCursor: encodeCursor(Number(page[page.length - 1].seq)) } : {}),
  };
}

/** Those of `ids` that someone asked to cancel, in the order asked. */
export async function cancelRequested(db: PgConnection, t: PgTables, ids: string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM ${t.tasks} WHERE id = ANY($1::text[]) AND cancel_requested_at_ms IS NOT NULL`,
    [ids],
    true,
  );
  const asked = new Set(rows.map((r) => r.id));
  return ids.filter((id) => asked.has(id));
}
