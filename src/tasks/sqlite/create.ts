// Creating tasks on SQLite. The creates asked for in one turn of the event loop (concurrent submissions) share one
// transaction, committed once the turn's I/O has been handled: a commit costs about as much as the inserts of a
// whole batch. Each is created as if alone, in the order asked.
import { newId } from "../ids.ts";
import type { HistoryEntry, Task } from "../task.ts";
import type { NewTask } from "../task-store.ts";
import { type TaskAhead, taskJustBeforeSql, waitingEntry } from "../ordering.ts";
import { COLUMNS, json, message, type Row, type SqliteDb, toTask } from "./db.ts";
import { actorsOf, type NewAuditEntry } from "../audit.ts";
import { insertAudit } from "./audit.ts";

/** A create waiting for its commit: the input as it was when create was called. */
interface PendingCreate {
  clientRequestId: string | null;
  /** JSON. */
  operations: string;
  /** JSON, or null: none located (Task.targets). */
  targets: string | null;
  /** Task.traceparent, or null. */
  traceparent: string | null;
  /** Deduplicated. */
  scaleSets: string[];
  history: HistoryEntry[];
  audit: NewAuditEntry | undefined;
  resolve: (result: { task: Task; created: boolean }) => void;
  reject: (err: unknown) => void;
}

export class SqliteCreateQueue {
  readonly #db: SqliteDb;
  /** Creates waiting for the commit at the end of this turn of the event loop. */
  #pending: PendingCreate[] = [];

  constructor(db: SqliteDb) {
    this.#db = db;
  }

  add(input: NewTask): Promise<{ task: Task; created: boolean }> {
    // Taken now: the caller may change its objects while the create waits for the commit.
    const pending: PendingCreate = {
      clientRequestId: input.clientRequestId || null,
      operations: json(input.operations),
      targets: input.targets ? json(input.targets) : null,
      traceparent: input.traceparent ?? null,
      scaleSets: [...new Set(input.scaleSets ?? [])],
      history: (input.history ?? []).map((h) => ({ ...h })),
      audit: input.audit && structuredClone(input.audit),
      resolve: () => {},
      reject: () => {},
    };
    const done = new Promise<{ task: Task; created: boolean }>((resolve, reject) =>
      Object.assign(pending, { resolve, reject }),
    );
    this.#pending.push(pending);
    if (this.#pending.length === 1) setImmediate(() => this.commit());
    return done;
  }

  /** Commits the creates waiting, in one transaction; if that fails, each in its own, so one bad create fails alone. */
  commit(): void {
    const batch = this.#pending;
    if (batch.length === 0) return;
    this.#pending = [];
    let results: { task: Task; created: boolean }[];
    try {
      results = this.#db.write(() => batch.map((c) => createOne(this.#db, c)));
    } catch (err) {
      // Another process kept the write lock past the busy timeout: each alone would wait as long again.
      if (batch.length === 1 || /locked|busy/i.test(message(err))) {
        for (const c of batch) c.reject(err);
        return;
      }
      for (const c of batch) {
        try {
          c.resolve(this.#db.write(() => createOne(this.#db, c)));
        } catch (err) {
          c.reject(err);
        }
      }
      return;
    }
    batch.forEach((c, i) => c.resolve(results[i]));
  }
}

/** One create, inside the caller's transaction: the task, or the one that has its clientRequestId. */
function createOne(db: SqliteDb, input: PendingCreate): { task: Task; created: boolean } {
  const now = Date.now();
  const id = newId();
  const inserted = db
    .stmt(
      `INSERT INTO tasks (id, client_request_id, state, operations, targets, traceparent, created_at_ms, updated_at_ms)
       VALUES (?, ?, 'queued', ?, ?, ?, ?, ?) ON CONFLICT (client_request_id) DO NOTHING RETURNING seq`,
    )
    .get(id, input.clientRequestId, input.operations, input.targets, input.traceparent, now, now) as
    { seq: number } | undefined;
  if (!inserted) {
    const row = db
      .stmt(`SELECT ${COLUMNS} FROM tasks t WHERE t.client_request_id = ?`)
      .get(input.clientRequestId) as Row;
    return { task: toTask(row), created: false };
  }
  const ahead = holdScaleSets(db, inserted.seq, input.scaleSets);
  const waiting = waitingEntry(ahead, now);
  const lines = [...(waiting ? [waiting] : []), ...input.history];
  for (const h of lines) db.insertLine(id, h);
  // What was just written, without reading it back.
  const task: Task = {
    id,
    state: "queued",
    operations: JSON.parse(input.operations) as Task["operations"],
    ...(input.targets !== null ? { targets: JSON.parse(input.targets) as Task["targets"] } : {}),
    ...(input.traceparent !== null ? { traceparent: input.traceparent } : {}),
    operationIndex: 0,
    history: lines.map((h) => ({ ...h })),
    resultObjects: [],
    armCalls: 0,
    createdAtMs: now,
    updatedAtMs: now,
    revision: 1,
  };
  if (input.clientRequestId) task.clientRequestId = input.clientRequestId;
  // Its audit entry, in the task's transaction: the task never exists without it.
  if (input.audit) Object.assign(task, actorsOf([insertAudit(db, { ...input.audit, taskId: id })]));
  return { task, created: true };
}

/**
 * The new task names its scale sets; returns, per scale set, the unfinished task just before it. First on all of
 * them, it is a candidate at once (task_ready); otherwise the end of the task ahead wakes it.
 */
function holdScaleSets(db: SqliteDb, seq: number, scaleSets: string[]): TaskAhead[] {
  const ahead: TaskAhead[] = [];
  for (const key of scaleSets) {
    const before = db
      .stmt(`SELECT ${taskJustBeforeSql({ tasks: "tasks", scaleSets: "task_scale_sets" }, "?1", "?2")} AS id`)
      .get(key, seq) as { id: string | null } | undefined;
    if (before?.id) ahead.push({ taskId: before.id, scaleSet: key });
    db.stmt("INSERT INTO task_scale_sets (task_seq, scale_set) VALUES (?, ?)").run(seq, key);
  }
  if (ahead.length === 0) db.stmt("INSERT INTO task_ready (task_seq) VALUES (?)").run(seq);
  return ahead;
}
