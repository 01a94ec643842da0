// Reading tasks on SQLite: one by id, its revision alone, a page of a list (newest first, with a cursor), and which
// of a process's tasks someone asked to cancel.
import type { SQLInputValue } from "node:sqlite";
import type { Task, TaskState } from "../task.ts";
import type { TaskPage, TaskQuery, TaskRevision } from "../task-store.ts";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { listOrderSql } from "../ordering.ts";
import { COLUMNS, json, type Row, type SqliteDb, toTask } from "./db.ts";

export function getTask(db: SqliteDb, id: string): Task | undefined {
  const row = db.stmt(`SELECT ${COLUMNS} FROM tasks t WHERE t.id = ?`).get(id) as Row | undefined;
  return row ? toTask(row) : undefined;
}

export function getTaskByClientRequestId(db: SqliteDb, clientRequestId: string): Task | undefined {
  const row = db.stmt(`SELECT ${COLUMNS} FROM tasks t WHERE t.client_request_id = ?`).get(clientRequestId) as
    Row | undefined;
  return row ? toTask(row) : undefined;
}

export function revision(db: SqliteDb, id: string): number | undefined {
  const row = db.stmt("SELECT revision FROM tasks WHERE id = ?").get(id) as { revision: number } | undefined;
  return row ? Number(row.revision) : undefined;
}

/** Where each of `ids` stands (TaskStore.revisions): one statement, the ids as a JSON array. */
export function revisions(db: SqliteDb, ids: readonly string[]): Map<string, TaskRevision> {
  const rows = db
    .stmt("SELECT id, revision, state FROM tasks WHERE id IN (SELECT value FROM json_each(?))")
    .all(JSON.stringify(ids)) as { id: string; revision: number; state: TaskState }[];
  return new Map(rows.map((r) => [r.id, { revision: Number(r.revision), state: r.state }]));
}

/** A page, newest first; nextCursor (the last task's seq) only when another matching task exists. */
export function list(db: SqliteDb, query: TaskQuery): TaskPage {
  const limit = Math.max(1, Math.min(500, Math.floor(query.limit) || 1));
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  const before = decodeCursor(query.cursor);
  if (before !== undefined) {
    where.push("t.seq < ?");
    params.push(before);
  }
  if (query.state) {
    where.push("t.state = ?");
    params.push(query.state);
  }
  // No index serves these: json_each scans the operations of the tasks the other conditions leave.
  if (query.operation) {
    where.push("EXISTS (SELECT 1 FROM json_each(t.operations) o WHERE json_extract(o.value, '$.name') = ?)");
    params.push(query.operation);
  }
  if (query.serverGroup) {
    where.push(
      "EXISTS (SELECT 1 FROM json_each(t.operations) o WHERE json_extract(o.value, '$.description.serverGroupName') = ?)",
    );
    params.push(query.serverGroup);
  }
  const sql = `SELECT ${COLUMNS} FROM tasks t ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY ${listOrderSql("t")} LIMIT ?`;
  const rows = db.stmt(sql).all(...params, limit + 1) as Row[];
  const page = rows.slice(0, limit);
  return {
    tasks: page.map(toTask),
    ...(rows.length > limit ? { nextCursor: encodeCursor(Number(page[page.length - 1].seq)) } : {}),
  };
}

/** Those of `ids` that someone asked to cancel, in the order asked. */
export function cancelRequested(db: SqliteDb, ids: string[]): string[] {
  if (ids.length === 0) return [];
  const rows = db
    .stmt("SELECT id FROM tasks WHERE id IN (SELECT value FROM json_each(?)) AND cancel_requested_at_ms IS NOT NULL")
    .all(json(ids)) as { id: string }[];
  const asked = new Set(rows.map((r) => r.id));
  return ids.filter((id) => asked.has(id));
}
