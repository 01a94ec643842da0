// Creating tasks on PostgreSQL: one statement for a batch of creates (the tasks, their scale sets, each one's line
// saying whom it waits for, and a NOTIFY sent at commit that wakes the other replicas). Per create, a statement's
// round trip, planning, commit and the NOTIFY's turn at commit cost more than its rows, so the creates asked for in
// one turn of the event loop share one (create-queue.ts). Each is created as if alone, in the order asked.
import { newId } from "../ids.ts";
import pg from "pg";
import type { HistoryEntry, Task } from "../task.ts";
import { taskJustBeforeSql, WAITING_FORMAT, WAITING_ITEM_FORMAT, WAITING_PHASE } from "../ordering.ts";
import type { PgConnection } from "./connection.ts";
import { jsonParam, NOW_MS, type PgTables, textParam, toTask } from "./tables.ts";
import { actorsOf, type NewAuditEntry } from "../audit.ts";
import { auditRow } from "./audit.ts";
import {
  CreateOutcomeUnknownError,
  RequestDeadlineError,
  StoreCallTimeoutError,
  storeOutageReason,
} from "../store-outage.ts";

/** A create waiting for its statement: the input as it was when create was called, as it will be stored. */
export interface PendingCreate {
  clientRequestId: string | undefined;
  operations: Task["operations"];
  /** Where each operation acts (Task.targets); none located: undefined. */
  targets?: Task["targets"];
  /** Task.traceparent. */
  traceparent?: string;
  /** Deduplicated. */
  scaleSets: string[];
  history: HistoryEntry[];
  /** The submission's audit entry, recorded with the task when it is created. */
  audit?: NewAuditEntry;
  /** performance.now() when it was asked for. */
  askedAtMs: number;
  /** performance.now() by which it is answered (create-queue.ts); none: whenever the database answers. */
  deadlineAtMs?: number;
  /** Whose deadline that is: its request's, or the call's bound. */
  deadlineIs?: "request" | "call";
  /** waiting for its statement (undefined too); sent (its outcome is the database's); dropped at its deadline. */
  state?: "waiting" | "sent" | "dropped";
  resolve: (result: { task: Task; created: boolean }) => void;
  reject: (err: unknown) => void;
}

/**
 * A create's deadline passed. Still waiting: dropped, never to be sent, and failed as an outage (nothing was done).
 * Sent: failed with CreateOutcomeUnknownError, as its statement may still commit.
 */
export function expire(c: PendingCreate): void {
  const waitedMs = performance.now() - c.askedAtMs;
  const late =
    c.deadlineIs === "request"
      ? new RequestDeadlineError("create", c.state === "sent", waitedMs)
      : new StoreCallTimeoutError("create", Math.round(waitedMs));
  if (c.state === "sent") {
    c.reject(unknownOutcome(c, late));
    return;
  }
  c.state = "dropped";
  c.reject(late);
}

function unknownOutcome(c: PendingCreate, err: unknown): CreateOutcomeUnknownError {
  return new CreateOutcomeUnknownError(storeOutageReason(err) ?? "Unknown", c.clientRequestId, err);
}

/**
 * Whether a statement that failed after it was sent left nothing written: the database said why it refused it (a
 * SQLSTATE outside connection failures: a statement timeout, a constraint). A connection that died, a client-side
 * bound that passed, leave its commit unknown.
 */
function failedForSure(err: unknown): boolean {
  if (!(err instanceof pg.DatabaseError) || typeof err.code !== "string") return false;
  return !/^08/.test(err.code) && !["57P01", "57P02", "57P03"].includes(err.code);
}

/**
 * The batch create. Parameters: the creates in the order asked, as parallel arrays (unnest, whose row count the
 * planner reads off the array: with jsonb_array_elements' default guess of 100 rows per call the plan looked costly
 * enough to be JIT-compiled, 70 ms per statement): $1 ids, $2 clientRequestIds, $3 operations; their scale sets
 * ($4 the create's position from 1, $5 the key) and history lines ($6 position, $7 phase, $8 status, $9 time, in
 * order); then $10-$12 the waiting line's phase and formats, $13 its time, $14 the NOTIFY channel; $15 and $16 the
 * creates' audit entries (id, jsonb without the task id; null for none), recorded for the tasks created; $17 their
 * targets (jsonb, null for none); $18 their traceparents (null for none).
 *
 * Identity values follow the ORDER BY, so creation order is the order asked. The statement sees the scale sets as
 * they were before it, so a create's predecessor in the same batch comes from the batch itself (lag). A task's
 * history lines come after its waiting line: reading the waiting count makes that insert run first.
 */
export function createSql(t: PgTables): string {
  return `WITH input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[], $17::jsonb[], $18::text[])
        WITH ORDINALITY AS i(id, client_request_id, operations, targets, traceparent, n)
    ), ins AS (
      INSERT INTO ${t.tasks} (id, client_request_id, state, operations, targets, traceparent, created_at_ms, updated_at_ms)
      SELECT id, client_request_id, 'queued', operations, targets, traceparent, ${NOW_MS}, ${NOW_MS} FROM input ORDER BY n
      ON CONFLICT (client_request_id) DO NOTHING
      RETURNING seq, id, created_at_ms
    ), mine AS (
      SELECT ins.seq, ins.id, k.scale_set
      FROM unnest($4::int[], $5::text[]) AS k(n, scale_set) JOIN input USING (n) JOIN ins USING (id)
    ), keys AS (
      INSERT INTO ${t.scaleSets} (task_seq, scale_set) SELECT seq, scale_set FROM mine
    ), ahead AS (
      SELECT m.id, m.scale_set, coalesce(
        lag(m.id) OVER (PARTITION BY m.scale_set ORDER BY m.seq),
        ${taskJustBeforeSql(t, "m.scale_set", "m.seq")}) AS ahead_id
      FROM mine m
    ), first AS (
      INSERT INTO ${t.ready} (task_seq)
      SELECT seq FROM ins WHERE NOT EXISTS (SELECT 1 FROM ahead a WHERE a.id = ins.id AND a.ahead_id IS NOT NULL)
    ), woken AS (
      INSERT INTO ${t.wakes} (scale_set)
      SELECT DISTINCT scale_set FROM ahead WHERE ahead_id IS NOT NULL ORDER BY scale_set
    ), waiting AS (
      INSERT INTO ${t.history} (task_id, phase, status, time_ms)
      SELECT id, $10, format($11, string_agg(format($12, ahead_id, scale_set), ', ' ORDER BY scale_set)), $13
      FROM ahead WHERE ahead_id IS NOT NULL GROUP BY id
      RETURNING task_id, status
    ), lines AS (
      INSERT INTO ${t.history} (task_id, phase, status, time_ms)
      SELECT ins.id, h.phase, h.status, h.time_ms
      FROM unnest($6::int[], $7::text[], $8::text[], $9::bigint[]) WITH ORDINALITY AS h(n, phase, status, time_ms, line)
        JOIN input USING (n) JOIN ins USING (id), (SELECT count(*) FROM waiting) w
      ORDER BY h.line
    ), audited AS (
      INSERT INTO ${t.audit} (id, time_ms, principal, task_id, entry)
      SELECT a.audit_id, (a.e->>'timeMs')::bigint, a.e->'actor'->>'name', ins.id, a.e || jsonb_build_object('taskId', ins.id)
      FROM unnest($15::text[], $16::jsonb[]) WITH ORDINALITY AS a(audit_id, e, n) JOIN input USING (n) JOIN ins USING (id)
      WHERE a.e IS NOT NULL
    ), notified AS (
      SELECT pg_notify($14, '') FROM (SELECT 1 FROM ins LIMIT 1) any_created
    )
    SELECT ins.id, ins.created_at_ms, w.status AS waiting, (SELECT count(*) FROM notified) AS notified
    FROM ins LEFT JOIN waiting w ON w.task_id = ins.id`;
}

/** The batch create's prepared statement: planning its ten parts cost more than a batch's rows. */
const CREATE_STATEMENT_NAME = "vmss_ops_create_tasks";

/** What the statement wrote for a create: none when its clientRequestId was taken. */
interface CreatedRow {
  id: string;
  created_at_ms: string;
  waiting: string | null;
}

/** The statement prepared once per store (createSql), where it runs, and what it names. */
export interface CreateStatement {
  db: PgConnection;
  t: PgTables;
  sql: string;
}

/**
 * Creates the batch, in one statement. A create whose clientRequestId is taken gets the task that has it. If the
 * statement fails, each create is sent again alone, so that one bad create fails by itself. Only the creates still
 * waiting when a connection is in hand go (create-queue.ts: one past its deadline is dropped); those are `sent`.
 */
export async function createBatch(s: CreateStatement, batch: PendingCreate[], attempt = 0): Promise<void> {
  let sent = firstOfEachRequest(batch.filter((c) => (c.state ?? "waiting") === "waiting"));
  const timeMs = Date.now();
  const build = () => {
    const ids = sent.map(() => newId());
    const audits = sent.map((c) => (c.audit ? auditRow(c.audit) : undefined));
    const params = [
      ...createParams(s.t, sent, ids, timeMs),
      audits.map((a) => a?.id ?? null),
      audits.map((a) => a?.json ?? null),
      sent.map((c) => (c.targets ? jsonParam(c.targets) : null)),
      sent.map((c) => c.traceparent ?? null),
    ];
    return { ids, audits, params };
  };
  let built = build();
  let wentOut = false;
  // Once a connection is in hand: the creates whose deadline passed while the statement waited for it are dropped
  // (never sent), the parameters made again for the others, and those marked sent.
  const beforeSend = () => {
    const now = performance.now();
    for (const c of batch)
      if ((c.state ?? "waiting") === "waiting" && c.deadlineAtMs !== undefined && c.deadlineAtMs <= now) expire(c);
    const still = sent.filter((c) => (c.state ?? "waiting") === "waiting");
    if (still.length === 0) return false;
    if (still.length < sent.length) {
      sent = still;
      const rebuilt = build();
      built.params.splice(0, built.params.length, ...rebuilt.params);
      built = { ...rebuilt, params: built.params };
    }
    for (const c of batch) if ((c.state ?? "waiting") === "waiting") c.state = "sent";
    wentOut = true;
    return true;
  };
  // The statement may wait for a connection until the last of its creates' deadlines.
  const deadlines = batch.map((c) => c.deadlineAtMs);
  const deadlineAtMs = deadlines.includes(undefined) ? undefined : Math.max(...(deadlines as number[]));
  let rows: CreatedRow[];
  try {
    ({ rows } = await s.db.query<CreatedRow>(s.sql, built.params, false, CREATE_STATEMENT_NAME, {
      ...(deadlineAtMs !== undefined ? { deadlineAtMs } : {}),
      beforeSend,
    }));
  } catch (err) {
    // Never sent (no connection in time, every create dropped meanwhile): nothing was done.
    if (!wentOut && !sent.some((c) => c.state === "sent")) {
      for (const c of sent) c.reject(err);
      return;
    }
    // Sent, and then the connection died or the client stopped waiting: it may have committed.
    if (!failedForSure(err)) {
      for (const c of sent) c.reject(unknownOutcome(c, err));
      return;
    }
    // The statement failed as a whole (nothing was written): each alone, in order, so that one bad create fails by
    // itself.
    if (sent.length === 1) sent[0].reject(err);
    else
      for (const c of sent) {
        c.state = "waiting";
        await createBatch(s, [c], attempt);
      }
    return;
  }
  const { ids, audits } = built;
  const inserted = new Map(rows.map((r) => [r.id, r]));
  const taken: PendingCreate[] = [];
  sent.forEach((c, i) => {
    const row = inserted.get(ids[i]);
    const audit = audits[i];
    if (row)
      c.resolve({
        task: { ...createdTask(c, row, timeMs), ...(audit ? actorsOf([audit.entry]) : {}) },
        created: true,
      });
    else taken.push(c);
  });
  if (taken.length > 0) await resolveTaken(s, taken, attempt);
}

/** The same clientRequestId twice in one batch: the first is created (or found), the others get its task. */
function firstOfEachRequest(batch: PendingCreate[]): PendingCreate[] {
  const first = new Map<string, PendingCreate>();
  const sent: PendingCreate[] = [];
  for (const c of batch) {
    const earlier = c.clientRequestId !== undefined ? first.get(c.clientRequestId) : undefined;
    if (earlier) {
      const { resolve, reject } = earlier;
      earlier.resolve = (r) => (resolve(r), c.resolve({ task: structuredClone(r.task), created: false }));
      earlier.reject = (err) => (reject(err), c.reject(err));
      continue;
    }
    if (c.clientRequestId !== undefined) first.set(c.clientRequestId, c);
    sent.push(c);
  }
  return sent;
}

/** The parameters of createSql, in its order. */
function createParams(t: PgTables, sent: PendingCreate[], ids: string[], timeMs: number): unknown[] {
  return [
    ids,
    sent.map((c) => c.clientRequestId ?? null),
    sent.map((c) => jsonParam(c.operations)),
    sent.flatMap((c, i) => c.scaleSets.map(() => i + 1)),
    sent.flatMap((c) => c.scaleSets),
    sent.flatMap((c, i) => c.history.map(() => i + 1)),
    sent.flatMap((c) => c.history.map((h) => textParam(h.phase))),
    sent.flatMap((c) => c.history.map((h) => textParam(h.status))),
    sent.flatMap((c) => c.history.map((h) => Math.round(h.timeMs))),
    WAITING_PHASE,
    WAITING_FORMAT,
    WAITING_ITEM_FORMAT,
    timeMs,
    t.channel,
  ];
}

/** What was just written, without reading it back (jsonb may reorder keys; callers compare structurally). */
function createdTask(c: PendingCreate, row: CreatedRow, timeMs: number): Task {
  const createdAtMs = Number(row.created_at_ms);
  const task: Task = {
    id: row.id,
    state: "queued",
    operations: c.operations,
    ...(c.targets ? { targets: c.targets } : {}),
    ...(c.traceparent ? { traceparent: c.traceparent } : {}),
    operationIndex: 0,
    history: [...(row.waiting !== null ? [{ phase: WAITING_PHASE, status: row.waiting, timeMs }] : []), ...c.history],
    resultObjects: [],
    armCalls: 0,
    createdAtMs,
    updatedAtMs: createdAtMs,
    revision: 1,
  };
  if (c.clientRequestId !== undefined) task.clientRequestId = c.clientRequestId;
  return task;
}

/**
 * Creates whose clientRequestId was taken. ON CONFLICT waited for a concurrent insert of the same clientRequestId to
 * commit, then did nothing; this SELECT (a new statement, a new snapshot) sees that row. One pruned in between is
 * created again.
 */
async function resolveTaken(s: CreateStatement, taken: PendingCreate[], attempt: number): Promise<void> {
  try {
    const { rows: found } = await s.db.query(
      `SELECT ${s.t.columns} FROM ${s.t.tasks} t WHERE t.client_request_id = ANY($1::text[])`,
      [taken.map((c) => c.clientRequestId)],
      true,
    );
    const byRequest = new Map(found.map((r) => [r.client_request_id as string, r]));
    const gone = taken.filter((c) => {
      const row = byRequest.get(c.clientRequestId!);
      if (row) c.resolve({ task: toTask(row), created: false });
      return !row;
    });
    if (gone.length === 0) return;
    if (attempt < 3) {
      for (const c of gone) c.state = "waiting";
      return createBatch(s, gone, attempt + 1);
    }
    for (const c of gone)
      c.reject(new Error(`create: clientRequestId ${c.clientRequestId} conflicts, but no task has it`));
  } catch (err) {
    // Another create holds the clientRequestId: the task exists, and the request repeated with it finds it.
    for (const c of taken) c.reject(unknownOutcome(c, err));
  }
}
