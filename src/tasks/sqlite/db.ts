// The handle every SQLite statement of the task store runs on: the database, its prepared statements (one per SQL
// text, kept), a write transaction, and how rows become tasks. SQLite stores JSON as TEXT.
import type { DatabaseSync, SQLInputValue, StatementSync } from "node:sqlite";
import type { HistoryEntry, Task, TaskState } from "../task.ts";
import { actorsOf } from "../audit.ts";

export type Row = Record<string, SQLInputValue | Uint8Array>;

/** The task columns, read from `tasks t`, with its history lines in order and its audit entries (who acted). */
export const COLUMNS = `t.seq, t.id, t.client_request_id, t.state, t.operations, t.operation_index, t.result_objects, t.failure,
  t.arm_calls, t.checkpoint, t.lease_owner, t.lease_expires_at_ms, t.created_at_ms, t.updated_at_ms, t.finished_at_ms,
  t.cancel_requested_at_ms, t.revision, t.targets, t.traceparent,
  (SELECT json_group_array(json_object('phase', h.phase, 'status', h.status, 'timeMs', h.time_ms) ORDER BY h.seq)
     FROM task_history h WHERE h.task_id = t.id) AS history,
  (SELECT json_group_array(json(a.entry) ORDER BY a.seq) FROM audit_entries a WHERE a.task_id = t.id) AS audit`;

/** The lease fence of a write: the owner (?) holds the task's lease at now (?), by this host's clock. */
export const FENCE = "lease_owner = ? AND lease_expires_at_ms > ?";

export function json(value: unknown): string {
  return JSON.stringify(value);
}

export function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class SqliteDb {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();

  constructor(db: DatabaseSync) {
    this.#db = db;
  }

  get isOpen(): boolean {
    return this.#db.isOpen;
  }

  /** The statement for this SQL, prepared once. */
  stmt(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /** Runs SQL that takes no parameters (a PRAGMA that sets a value). */
  exec(sql: string): void {
    this.#db.exec(sql);
  }

  /** Runs fn in a BEGIN IMMEDIATE transaction: it holds the write lock from the start, so it never has to upgrade. */
  write<T>(fn: () => T): T {
    this.#db.exec("BEGIN IMMEDIATE");
    try {
      const out = fn();
      this.#db.exec("COMMIT");
      return out;
    } catch (err) {
      if (this.#db.isTransaction) this.#db.exec("ROLLBACK");
      throw err;
    }
  }

  /** Appends a history line (inside the caller's transaction, or alone). */
  insertLine(id: string, entry: HistoryEntry): void {
    this.stmt("INSERT INTO task_history (task_id, phase, status, time_ms) VALUES (?, ?, ?, ?)").run(
      id,
      entry.phase,
      entry.status,
      entry.timeMs,
    );
  }

  close(): void {
    this.#db.close();
  }
}

export function toTask(row: Row): Task {
  const task: Task = {
    id: row.id as string,
    state: row.state as TaskState,
    operations: JSON.parse(row.operations as string) as Task["operations"],
    operationIndex: Number(row.operation_index),
    history: JSON.parse((row.history as string | null) ?? "[]") as Task["history"],
    resultObjects: JSON.parse(row.result_objects as string) as Task["resultObjects"],
    armCalls: Number(row.arm_calls),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    revision: Number(row.revision),
  };
  if (row.client_request_id !== null) task.clientRequestId = row.client_request_id as string;
  if (typeof row.targets === "string") task.targets = JSON.parse(row.targets) as Task["targets"];
  if (typeof row.traceparent === "string") task.traceparent = row.traceparent;
  if (row.failure !== null) task.failure = JSON.parse(row.failure as string) as Task["failure"];
  if (row.checkpoint !== null) task.checkpoint = JSON.parse(row.checkpoint as string) as Task["checkpoint"];
  if (row.lease_owner !== null) task.leaseOwner = row.lease_owner as string;
  if (row.lease_expires_at_ms !== null) task.leaseExpiresAtMs = Number(row.lease_expires_at_ms);
  if (row.finished_at_ms !== null) task.finishedAtMs = Number(row.finished_at_ms);
  if (row.cancel_requested_at_ms !== null) task.cancelRequestedAtMs = Number(row.cancel_requested_at_ms);
  if (typeof row.audit === "string" && row.audit !== "[]")
    Object.assign(task, actorsOf(JSON.parse(row.audit) as Parameters<typeof actorsOf>[0]));
  return task;
}
