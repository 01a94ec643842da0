// The audit trail on PostgreSQL (src/tasks/audit.ts): an entry recorded alone, in the statement of a create or a
// resume, or in a cancel's transaction; the outcome a task's end writes into its open entries (in the statement that
// ends it: endAuditSql); a page of entries; their retention.
import { newId } from "../ids.ts";
import type pg from "pg";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { isAuditAction, type AuditEntry, type AuditPage, type AuditQuery, type NewAuditEntry } from "../audit.ts";
import type { PgConnection } from "./connection.ts";
import { jsonParam, NOW_MS, type PgTables, type Row, textParam } from "./tables.ts";

/** An entry as it is stored: its id apart, the rest as the entry column's jsonb. */
export function auditRow(input: NewAuditEntry): { id: string; entry: AuditEntry; json: string } {
  const entry: AuditEntry = { ...structuredClone(input), id: newId() };
  const { id, ...stored } = entry;
  return { id, entry, json: jsonParam(stored) };
}

/** The INSERT of one entry ($1 id, $2 its jsonb); the time, principal and task id are read off the jsonb. */
export function insertAuditSql(t: PgTables, id: string, json: string, source = ""): string {
  return `INSERT INTO ${t.audit} (id, time_ms, principal, task_id, entry)
    SELECT ${id}, (e->>'timeMs')::bigint, e->'actor'->>'name', e->>'taskId', e FROM (SELECT ${json}::jsonb AS e) x${source}`;
}

/** Records an entry alone. */
export async function recordAudit(db: PgConnection, t: PgTables, input: NewAuditEntry): Promise<AuditEntry> {
  const row = auditRow(input);
  await db.query(insertAuditSql(t, "$1", "$2"), [row.id, row.json], false);
  return row.entry;
}

/** Records an entry inside the caller's transaction. */
export async function insertAudit(client: pg.PoolClient, t: PgTables, input: NewAuditEntry): Promise<void> {
  const row = auditRow(input);
  await client.query(insertAuditSql(t, "$1", "$2"), [row.id, row.json]);
}

/**
 * The part of a statement that ends a task: its accepted entries still open take its state. `done` is the CTE that
 * returns the task's id; `state` the parameter that holds its state.
 */
export function endAuditSql(t: PgTables, done: string, state: string): string {
  return `UPDATE ${t.audit} a SET outcome = ${state}, outcome_at_ms = ${NOW_MS} FROM ${done}
    WHERE a.task_id = ${done}.id AND a.outcome IS NULL AND a.entry->>'decision' = 'accepted'`;
}

export async function settleAudit(db: PgConnection, t: PgTables, id: string, outcome: string): Promise<void> {
  await db.query(
    `UPDATE ${t.audit} SET outcome = $2, outcome_at_ms = ${NOW_MS} WHERE id = $1 AND outcome IS NULL`,
    [id, textParam(outcome)],
    true,
  );
}

function toEntry(row: Row): AuditEntry {
  const entry: AuditEntry = { ...(row.entry as Omit<AuditEntry, "id">), id: row.id as string };
  if (row.outcome !== null) {
    entry.outcome = row.outcome as string;
    entry.outcomeAtMs = Number(row.outcome_at_ms);
  }
  return entry;
}

/** A page, newest first. The time range uses its index; the other filters look into the entries it leaves. */
export async function listAudit(db: PgConnection, t: PgTables, query: AuditQuery): Promise<AuditPage> {
  const limit = Math.max(1, Math.min(500, Math.floor(query.limit) || 1));
  const where: string[] = [];
  const params: unknown[] = [];
  const param = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const before = decodeCursor(query.cursor);
  if (before !== undefined) where.push(`a.seq < ${param(before)}::bigint`);
  if (query.sinceMs !== undefined) where.push(`a.time_ms >= ${param(Math.floor(query.sinceMs))}::bigint`);
  if (query.untilMs !== undefined) where.push(`a.time_ms < ${param(Math.floor(query.untilMs))}::bigint`);
  if (query.principal !== undefined) where.push(`a.principal = ${param(textParam(query.principal))}`);
  if (query.taskId !== undefined) where.push(`a.task_id = ${param(textParam(query.taskId))}`);
  const target = (condition: string) =>
    `EXISTS (SELECT 1 FROM jsonb_array_elements(a.entry->'targets') x WHERE ${condition})`;
  if (query.account !== undefined)
    where.push(target(`lower(x->>'account') = lower(${param(textParam(query.account))})`));
  if (query.serverGroup !== undefined) where.push(target(`x->>'serverGroup' = ${param(textParam(query.serverGroup))}`));
  if (query.operation !== undefined) {
    if (isAuditAction(query.operation)) where.push(`a.entry->>'action' = ${param(query.operation)}`);
    else where.push(target(`x->>'operation' = ${param(textParam(query.operation))}`));
  }
  const { rows } = await db.query(
    `SELECT a.seq, a.id, a.entry, a.outcome, a.outcome_at_ms FROM ${t.audit} a
     ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY a.seq DESC LIMIT ${param(limit + 1)}`,
    params,
    true,
  );
  const page = rows.slice(0, limit);
  return {
    entries: page.map(toEntry),
    ...(rows.length > limit ? { nextCursor: encodeCursor(Number(page[page.length - 1].seq)) } : {}),
  };
}

export async function pruneAudit(db: PgConnection, t: PgTables, beforeMs: number): Promise<number> {
  const { rowCount } = await db.query(
    `DELETE FROM ${t.audit} WHERE time_ms < $1::bigint`,
    [Math.floor(beforeMs)],
    true,
  );
  return rowCount ?? 0;
}
