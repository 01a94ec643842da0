// What every PostgreSQL statement of the task store names: its schema's tables (schema-qualified, so one database
// can hold several stores: the tests use a schema each), the columns a task is read with, the NOTIFY channel, the
// database's clock, and how values become parameters and rows become tasks.
import type { HistoryEntry, Task, TaskState } from "../task.ts";
import { actorsOf, type AuditEntry } from "../audit.ts";

export interface PgTables {
  schema: string;
  tasks: string;
  history: string;
  scaleSets: string;
  ready: string;
  wakes: string;
  audit: string;
  /** Azure's write durations by kind, shared by the replicas (write-durations.ts). */
  durations: string;
  /** The task columns, read from `tasks t`, with its history lines in order and its audit entries (who acted). */
  columns: string;
  /** NOTIFY channel of this schema: "work may be claimable". */
  channel: string;
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function pgTables(schema: string): PgTables {
  const q = (table: string) => `${quoteIdent(schema)}.${table}`;
  return {
    schema,
    tasks: q("tasks"),
    history: q("task_history"),
    scaleSets: q("task_scale_sets"),
    ready: q("task_ready"),
    wakes: q("task_wakes"),
    audit: q("audit_entries"),
    durations: q("write_durations"),
    columns: `t.seq, t.id, t.client_request_id, t.state, t.operations, t.operation_index, t.result_objects, t.failure,
      t.arm_calls, t.checkpoint, t.lease_owner, t.lease_expires_at_ms, t.created_at_ms, t.updated_at_ms, t.finished_at_ms,
      t.cancel_requested_at_ms, t.revision, t.targets, t.traceparent,
      (SELECT json_agg(json_build_object('phase', h.phase, 'status', h.status, 'timeMs', h.time_ms) ORDER BY h.seq)
         FROM ${q("task_history")} h WHERE h.task_id = t.id) AS history,
      (SELECT json_agg(a.entry ORDER BY a.seq) FROM ${q("audit_entries")} a WHERE a.task_id = t.id) AS audit`,
    channel: `vmss_ops_work_${schema}`.slice(0, 63),
  };
}

/**
 * The database's clock in epoch milliseconds; constant within a statement. Every lease time (claim, renew, the fence
 * on writes) and createdAtMs/updatedAtMs come from it, never from a replica's clock, so replicas with skewed clocks
 * still agree on who holds a lease.
 */
export const NOW_MS = "(floor(extract(epoch from now()) * 1000))::bigint";

/** The lease fence of a write: `owner` holds the task's lease, by the database's clock. */
export const fenceSql = (owner: string): string => `lease_owner = ${owner} AND lease_expires_at_ms > ${NOW_MS}`;

export type Row = Record<string, unknown>;

/**
 * PostgreSQL cannot store U+0000 in text or jsonb (other JSON round-trips exactly): it becomes U+FFFD, so a request
 * or a message that carries one is stored instead of failing. Only a \u0000 escape is touched, not an escaped
 * backslash followed by "u0000".
 */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}

export function textParam(value: string): string;
export function textParam(value: string | undefined): string | undefined;
export function textParam(value: string | undefined): string | undefined {
  return value?.replace(/\0/g, "\ufffd");
}

/** A history line's parameters: phase, status, time. */
export function lineParams(entry: HistoryEntry): [string, string, number] {
  return [textParam(entry.phase), textParam(entry.status), Math.round(entry.timeMs)];
}

/** A whole number as SQL text, for the statements that cannot take parameters. */
export function integerLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(Math.round(value));
}

export function toTask(row: Row): Task {
  const task: Task = {
    id: row.id as string,
    state: row.state as TaskState,
    operations: row.operations as Task["operations"],
    operationIndex: Number(row.operation_index),
    history: (row.history as HistoryEntry[] | null) ?? [],
    resultObjects: row.result_objects as Task["resultObjects"],
    armCalls: Number(row.arm_calls),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    revision: Number(row.revision),
  };
  if (row.client_request_id !== null) task.clientRequestId = row.client_request_id as string;
  if (Array.isArray(row.targets)) task.targets = row.targets as Task["targets"];
  if (typeof row.traceparent === "string") task.traceparent = row.traceparent;
  if (row.failure !== null) task.failure = row.failure as Task["failure"];
  if (row.checkpoint !== null) task.checkpoint = row.checkpoint as Task["checkpoint"];
  if (row.lease_owner !== null) task.leaseOwner = row.lease_owner as string;
  if (row.lease_expires_at_ms !== null) task.leaseExpiresAtMs = Number(row.lease_expires_at_ms);
  if (row.finished_at_ms !== null) task.finishedAtMs = Number(row.finished_at_ms);
  if (row.cancel_requested_at_ms !== null) task.cancelRequestedAtMs = Number(row.cancel_requested_at_ms);
  if (Array.isArray(row.audit)) Object.assign(task, actorsOf(row.audit as AuditEntry[]));
  return task;
}
