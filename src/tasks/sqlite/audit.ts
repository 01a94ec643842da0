// The audit trail on SQLite (src/tasks/audit.ts): an entry recorded inside the caller's transaction (a create, a
// cancel, a resume) or alone, the outcome a task's end writes into its open entries, a page of entries, and their
// retention.
import { newId } from "../ids.ts";
import type { SQLInputValue } from "node:sqlite";
import { decodeCursor, encodeCursor } from "../cursor.ts";
import { isAuditAction, type AuditEntry, type AuditPage, type AuditQuery, type NewAuditEntry } from "../audit.ts";
import { json, type Row, type SqliteDb } from "./db.ts";

/** Records an entry, in the caller's transaction if there is one. */
export function insertAudit(db: SqliteDb, input: NewAuditEntry): AuditEntry {
  const entry: AuditEntry = { ...structuredClone(input), id: newId() };
  const { id, ...stored } = entry;
  db.stmt("INSERT INTO audit_entries (id, time_ms, principal, task_id, entry) VALUES (?, ?, ?, ?, ?)").run(
    id,
    Math.round(entry.timeMs),
    entry.actor.name,
    entry.taskId ?? null,
    json(stored),
  );
  return entry;
}

export function recordAudit(db: SqliteDb, input: NewAuditEntry): AuditEntry {
  return db.write(() => insertAudit(db, input));
}

/** The task ended (inside the transaction that ends it): its accepted entries still open take its state. */
export function endAudit(db: SqliteDb, taskId: string, state: string, nowMs: number): void {
  db.stmt(
    `UPDATE audit_entries SET outcome = ?, outcome_at_ms = ?
     WHERE task_id = ? AND outcome IS NULL AND json_extract(entry, '$.decision') = 'accepted'`,
  ).run(state, nowMs, taskId);
}

export function settleAudit(db: SqliteDb, id: string, outcome: string): void {
  db.stmt("UPDATE audit_entries SET outcome = ?, outcome_at_ms = ? WHERE id = ? AND outcome IS NULL").run(
    outcome,
    Date.now(),
    id,
  );
}

function toEntry(row: Row): AuditEntry {
  const stored = JSON.parse(row.entry as string) as Omit<AuditEntry, "id">;
  const entry: AuditEntry = { ...stored, id: row.id as string };
  if (row.outcome !== null) {
    entry.outcome = row.outcome as string;
    entry.outcomeAtMs = Number(row.outcome_at_ms);
  }
  return entry;
}

/** A page, newest first. The time range uses its index; the other filters look into the entries it leaves. */
export function listAudit(db: SqliteDb, query: AuditQuery): AuditPage {
  const limit = Math.max(1, Math.min(500, Math.floor(query.limit) || 1));
  const where: string[] = [];
  const params: SQLInputValue[] = [];
  const add = (sql: string, value: SQLInputValue) => {
    where.push(sql);
    params.push(value);
  };
  const before = decodeCursor(query.cursor);
  if (before !== undefined) add("a.seq < ?", before);
  if (query.sinceMs !== undefined) add("a.time_ms >= ?", query.sinceMs);
  if (query.untilMs !== undefined) add("a.time_ms < ?", query.untilMs);
  if (query.principal !== undefined) add("a.principal = ?", query.principal);
  if (query.taskId !== undefined) add("a.task_id = ?", query.taskId);
  const target = (path: string, compare = "= ?") =>
    `EXISTS (SELECT 1 FROM json_each(a.entry, '$.targets') x WHERE json_extract(x.value, '${path}') ${compare})`;
  if (query.account !== undefined) add(target("$.account", "= ? COLLATE NOCASE"), query.account);
  if (query.serverGroup !== undefined) add(target("$.serverGroup"), query.serverGroup);
  if (query.operation !== undefined) {
    if (isAuditAction(query.operation)) add("json_extract(a.entry, '$.action') = ?", query.operation);
    else add(target("$.operation"), query.operation);
  }
  const rows = db
    .stmt(
      `SELECT a.seq, a.id, a.entry, a.outcome, a.outcome_at_ms FROM audit_entries a
       ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY a.seq DESC LIMIT ?`,
    )
    .all(...params, limit + 1) as Row[];
  const page = rows.slice(0, limit);
  return {
    entries: page.map(toEntry),
    ...(rows.length > limit ? { nextCursor: encodeCursor(Number(page[page.length - 1].seq)) } : {}),
  };
}

export function pruneAudit(db: SqliteDb, beforeMs: number): number {
  return Number(db.stmt("DELETE FROM audit_entries WHERE time_ms < ?").run(Math.floor(beforeMs)).changes);
}
