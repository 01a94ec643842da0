// Tasks in an embedded SQLite file (<dataDir>/tasks.db) through Node's built-in node:sqlite: durable across
// restarts, one host. Several processes may share the file (WAL mode, busy_timeout); every write is one statement
// or a BEGIN IMMEDIATE transaction, so writers are serialized by SQLite's write lock. Times come from this host's
// clock (Date.now()): all processes sharing the file share it. See docs/task-stores.md.
import { accessSync, constants, mkdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { randomUUID } from "node:crypto";
import { DatabaseSync, type SQLInputValue, type StatementSync } from "node:sqlite";
import { FINISHED_STATES, type HistoryEntry, type Task, type TaskState } from "./task.ts";
import type { Backlog, CancelLines, CancelOutcome, NewTask, TaskChange, TaskPage, TaskQuery, TaskStore } from "./task-store.ts";
import { type Migration, pendingMigrations, SQLITE_MIGRATIONS, TaskStoreOpenError } from "./migrations.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { CLAIMABLE_STATES, canMove, IllegalMoveError, sqlStateList, statesBefore } from "./task-state.ts";
import { type TaskAhead, waitingEntry } from "./ordering.ts";

export interface SqliteTaskStoreOptions {
  /** The directory that holds tasks.db (created if missing). */
  dataDir: string;
  /** How long a write waits for another process's write lock before failing (default 5000). */
  busyTimeoutMs?: number;
}

type Row = Record<string, SQLInputValue | Uint8Array>;

const FINISHED_SQL = sqlStateList(FINISHED_STATES);
const CLAIMABLE_SQL = sqlStateList(CLAIMABLE_STATES);

const COLUMNS = `t.seq, t.id, t.client_request_id, t.state, t.operations, t.operation_index, t.result_objects, t.failure,
  t.arm_calls, t.checkpoint, t.lease_owner, t.lease_expires_at_ms, t.created_at_ms, t.updated_at_ms, t.finished_at_ms,
  t.cancel_requested_at_ms, t.revision,
  (SELECT json_group_array(json_object('phase', h.phase, 'status', h.status, 'timeMs', h.time_ms) ORDER BY h.seq)
     FROM task_history h WHERE h.task_id = t.id) AS history`;

/** Running, or leased: it goes before tasks that have not started (src/tasks/ordering.ts). */
const started = (t: string) => `(${t}.state = 'running' OR ${t}.lease_owner IS NOT NULL)`;

/**
 * Some unfinished task goes before t on a scale set t names (task_scale_sets only holds unfinished tasks), written so
 * that its cost does not grow with the queue behind t. A task that has not started waits for any earlier task on the
 * scale set (the first row of an index range on (scale_set, task_seq)) and for any started one (the scale sets of
 * the started tasks, all in task_ready, collected once per claim); a started task only for an earlier started one.
 * CROSS JOIN keeps SQLite's join order: from task_ready, never from an index of every queued task.
 */
const BLOCKED = `EXISTS (
  SELECT 1 FROM task_scale_sets mine
  WHERE mine.task_seq = t.seq AND CASE WHEN ${started("t")}
    THEN EXISTS (SELECT 1 FROM task_scale_sets o JOIN tasks u ON u.seq = o.task_seq
                 WHERE o.scale_set = mine.scale_set AND o.task_seq < t.seq AND ${started("u")})
    ELSE (SELECT min(o.task_seq) FROM task_scale_sets o WHERE o.scale_set = mine.scale_set) < t.seq
      OR mine.scale_set IN (
        SELECT o.scale_set FROM task_ready r CROSS JOIN tasks u ON u.seq = r.task_seq CROSS JOIN task_scale_sets o ON o.task_seq = r.task_seq
        WHERE u.state IN ${CLAIMABLE_SQL} AND ${started("u")}) END)`;

/** A create waiting for its commit: the input as it was when create was called. */
interface PendingCreate {
  clientRequestId: string | null;
  /** JSON. */
  operations: string;
  /** Deduplicated. */
  scaleSets: string[];
  history: HistoryEntry[];
  resolve: (result: { task: Task; created: boolean }) => void;
  reject: (err: unknown) => void;
}

function json(value: unknown): string {
  return JSON.stringify(value);
}

function toTask(row: Row): Task {
  const task: Task = {
    id: row.id as string,
    state: row.state as TaskState,
    operations: JSON.parse(row.operations as string),
    operationIndex: Number(row.operation_index),
    history: JSON.parse((row.history as string | null) ?? "[]"),
    resultObjects: JSON.parse(row.result_objects as string),
    armCalls: Number(row.arm_calls),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    revision: Number(row.revision),
  };
  if (row.client_request_id !== null) task.clientRequestId = row.client_request_id as string;
  if (row.failure !== null) task.failure = JSON.parse(row.failure as string);
  if (row.checkpoint !== null) task.checkpoint = JSON.parse(row.checkpoint as string);
  if (row.lease_owner !== null) task.leaseOwner = row.lease_owner as string;
  if (row.lease_expires_at_ms !== null) task.leaseExpiresAtMs = Number(row.lease_expires_at_ms);
  if (row.finished_at_ms !== null) task.finishedAtMs = Number(row.finished_at_ms);
  if (row.cancel_requested_at_ms !== null) task.cancelRequestedAtMs = Number(row.cancel_requested_at_ms);
  return task;
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export class SqliteTaskStore implements TaskStore {
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  /** Creates waiting for the commit at the end of this turn of the event loop (create). */
  #pendingCreates: PendingCreate[] = [];
  /** The file, for messages. */
  readonly path: string;

  private constructor(db: DatabaseSync, path: string) {
    this.#db = db;
    this.path = path;
  }

  /**
   * Opens (creating if needed) <dataDir>/tasks.db and brings its schema up to date. Fails with a TaskStoreOpenError
   * naming the path when the directory cannot be created or written, when tasks.db is not a SQLite database (corrupt,
   * or another kind of file) or belongs to something else, or when its schema is newer than this code. It never
   * deletes, truncates or rewrites a file it cannot use.
   */
  static async open(options: SqliteTaskStoreOptions): Promise<SqliteTaskStore> {
    const dir = resolve(options.dataDir);
    const path = join(dir, "tasks.db");
    const existing = statSync(dir, { throwIfNoEntry: false });
    if (existing && !existing.isDirectory()) {
      throw new TaskStoreOpenError(`the data directory ${dir} (DATA_DIR) for the task store exists but is not a directory`);
    }
    try {
      mkdirSync(dir, { recursive: true });
    } catch (err) {
      throw new TaskStoreOpenError(`cannot create the data directory ${dir} (DATA_DIR) for the task store: ${message(err)}`);
    }
    try {
      // SQLite creates tasks.db-wal and tasks.db-shm next to the file: the directory must be writable too.
      accessSync(dir, constants.W_OK | constants.X_OK);
    } catch (err) {
      throw new TaskStoreOpenError(`the data directory ${dir} (DATA_DIR) is not writable, so the task store cannot use ${path}: ${message(err)}`);
    }
    let exists = false;
    try {
      const st = statSync(path);
      exists = true;
      if (!st.isFile()) throw new TaskStoreOpenError(`${path} is not a regular file, so it cannot hold the task store`);
      accessSync(path, constants.R_OK | constants.W_OK);
    } catch (err) {
      if (err instanceof TaskStoreOpenError) throw err;
      if (exists) throw new TaskStoreOpenError(`the task store ${path} is not readable and writable by this process: ${message(err)}`);
    }

    let db: DatabaseSync;
    try {
      db = new DatabaseSync(path, { timeout: options.busyTimeoutMs ?? 5000 });
    } catch (err) {
      throw new TaskStoreOpenError(`cannot open the task store ${path}: ${message(err)}`);
    }
    try {
      // The first read checks the file header; nothing is written before it succeeds.
      try {
        db.prepare("SELECT count(*) AS n FROM sqlite_schema").get();
      } catch (err) {
        if (/not a database|malformed|corrupt/i.test(message(err))) {
          throw new TaskStoreOpenError(
            `${path} is not a usable SQLite database (${message(err)}): it may be corrupt or another kind of file. ` +
              `It was left as it is: move it away (or restore it from a backup) to start the task store again`,
          );
        }
        throw err;
      }
      // Refuse a database that is not ours or is too new before anything writes to it (WAL mode changes the header).
      SqliteTaskStore.#inspect(db, path);
      SqliteTaskStore.#setWal(db);
      db.exec("PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON;");
      SqliteTaskStore.#migrate(db, path);
    } catch (err) {
      try {
        db.close();
      } catch {
        // already failing
      }
      if (err instanceof TaskStoreOpenError) throw err;
      throw new TaskStoreOpenError(`cannot open the task store ${path}: ${message(err)}`);
    }
    return new SqliteTaskStore(db, path);
  }

  static #setWal(db: DatabaseSync): void {
    // Two processes opening a new file at once may race on the journal mode; the loser sees the winner's WAL.
    // The switch needs an exclusive lock and SQLite does not run the busy handler for it: SQLITE_BUSY comes back at
    // once while the other process converts the file, so it is retried here like a non-WAL answer.
    for (let i = 0; ; i++) {
      let mode: string | undefined;
      try {
        mode = (db.prepare("PRAGMA journal_mode = WAL").get() as { journal_mode: string } | undefined)?.journal_mode;
      } catch (err) {
        if (!/locked|busy/i.test(message(err)) || i >= 100) throw err;
      }
      if (mode === "wal") return;
      if (i >= 100) throw new Error(`could not switch to WAL mode (journal_mode is ${mode})`);
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    }
  }

  /** Reads what the file holds (no writes): throws if it is not a task store, or one newer than this code. */
  static #inspect(db: DatabaseSync, path: string): Migration[] {
    const tables = (db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as { name: string }[]).map((r) => r.name);
    if (tables.length > 0 && !tables.includes("schema_migrations")) {
      throw new TaskStoreOpenError(
        `${path} is a SQLite database but not a vmss-ops task store (it has tables ${tables.join(", ")} and no schema_migrations); it was left as it is`,
      );
    }
    const current = tables.length === 0 ? 0 : Number((db.prepare("SELECT coalesce(max(version), 0) AS v FROM schema_migrations").get() as { v: number }).v);
    return pendingMigrations(SQLITE_MIGRATIONS, current, path);
  }

  static #migrate(db: DatabaseSync, path: string): void {
    db.exec("BEGIN IMMEDIATE");
    try {
      // Again under the write lock: another process may have migrated since #inspect.
      const pending = SqliteTaskStore.#inspect(db, path);
      if (pending.length > 0) {
        db.exec("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)");
      }
      for (const m of pending) {
        db.exec(m.sql);
        db.prepare("INSERT INTO schema_migrations (version, description, applied_at_ms) VALUES (?, ?, ?)").run(m.version, m.description, Date.now());
      }
      db.exec("COMMIT");
    } catch (err) {
      db.exec("ROLLBACK");
      throw err;
    }
  }

  #stmt(sql: string): StatementSync {
    let s = this.#statements.get(sql);
    if (!s) {
      s = this.#db.prepare(sql);
      this.#statements.set(sql, s);
    }
    return s;
  }

  /** Runs fn in a BEGIN IMMEDIATE transaction: it holds the write lock from the start, so it never has to upgrade. */
  #write<T>(fn: () => T): T {
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

  #byId(id: string): Task | undefined {
    const row = this.#stmt(`SELECT ${COLUMNS} FROM tasks t WHERE t.id = ?`).get(id) as Row | undefined;
    return row ? toTask(row) : undefined;
  }

  /**
   * Creates the task. Creates asked for in one turn of the event loop (concurrent submissions) share one
   * transaction, committed once the turn's I/O has been handled: a commit costs about as much as the inserts of a
   * whole batch. Each is created as if alone, in the order asked.
   */
  async create(input: NewTask): Promise<{ task: Task; created: boolean }> {
    // Taken now: the caller may change its objects while the create waits for the commit.
    const pending: PendingCreate = {
      clientRequestId: input.clientRequestId || null,
      operations: json(input.operations),
      scaleSets: [...new Set(input.scaleSets ?? [])],
      history: (input.history ?? []).map((h) => ({ ...h })),
      resolve: () => {},
      reject: () => {},
    };
    const done = new Promise<{ task: Task; created: boolean }>((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.#pendingCreates.push(pending);
    if (this.#pendingCreates.length === 1) setImmediate(() => this.#commitCreates());
    return done;
  }

  /** Commits the creates waiting, in one transaction; if that fails, each in its own, so one bad create fails alone. */
  #commitCreates(): void {
    const batch = this.#pendingCreates;
    if (batch.length === 0) return;
    this.#pendingCreates = [];
    let results: { task: Task; created: boolean }[];
    try {
      results = this.#write(() => batch.map((c) => this.#createOne(c)));
    } catch (err) {
      // Another process kept the write lock past the busy timeout: each alone would wait as long again.
      if (batch.length === 1 || /locked|busy/i.test(message(err))) {
        for (const c of batch) c.reject(err);
        return;
      }
      for (const c of batch) {
        try {
          c.resolve(this.#write(() => this.#createOne(c)));
        } catch (err) {
          c.reject(err);
        }
      }
      return;
    }
    batch.forEach((c, i) => c.resolve(results[i]));
  }

  /** One create, inside the caller's transaction. */
  #createOne(input: PendingCreate): { task: Task; created: boolean } {
    const now = Date.now();
    const id = randomUUID();
    const inserted = this.#stmt(
      `INSERT INTO tasks (id, client_request_id, state, operations, created_at_ms, updated_at_ms)
       VALUES (?, ?, 'queued', ?, ?, ?) ON CONFLICT (client_request_id) DO NOTHING RETURNING seq`,
    ).get(id, input.clientRequestId, input.operations, now, now) as { seq: number } | undefined;
    if (!inserted) {
      const row = this.#stmt(`SELECT ${COLUMNS} FROM tasks t WHERE t.client_request_id = ?`).get(input.clientRequestId) as Row;
      return { task: toTask(row), created: false };
    }
    const ahead: TaskAhead[] = [];
    for (const key of input.scaleSets) {
      const before = this.#stmt(
        `SELECT u.id FROM task_scale_sets s JOIN tasks u ON u.seq = s.task_seq
         WHERE s.scale_set = ? AND s.task_seq < ? ORDER BY s.task_seq DESC LIMIT 1`,
      ).get(key, inserted.seq) as { id: string } | undefined;
      if (before) ahead.push({ taskId: before.id, scaleSet: key });
      this.#stmt("INSERT INTO task_scale_sets (task_seq, scale_set) VALUES (?, ?)").run(inserted.seq, key);
    }
    // First on all its scale sets: a claim may take it at once. Otherwise the end of the task ahead wakes it.
    if (ahead.length === 0) this.#stmt("INSERT INTO task_ready (task_seq) VALUES (?)").run(inserted.seq);
    const waiting = waitingEntry(ahead, now);
    const lines = [...(waiting ? [waiting] : []), ...input.history];
    const insertLine = this.#stmt("INSERT INTO task_history (task_id, phase, status, time_ms) VALUES (?, ?, ?, ?)");
    for (const h of lines) insertLine.run(id, h.phase, h.status, h.timeMs);
    // What was just written, without reading it back.
    const task: Task = {
      id,
      state: "queued",
      operations: JSON.parse(input.operations),
      operationIndex: 0,
      history: lines.map((h) => ({ ...h })),
      resultObjects: [],
      armCalls: 0,
      createdAtMs: now,
      updatedAtMs: now,
      revision: 1,
    };
    if (input.clientRequestId) task.clientRequestId = input.clientRequestId;
    return { task, created: true };
  }

  async get(id: string): Promise<Task | undefined> {
    return this.#byId(id);
  }

  async revision(id: string): Promise<number | undefined> {
    const row = this.#stmt("SELECT revision FROM tasks WHERE id = ?").get(id) as { revision: number } | undefined;
    return row ? Number(row.revision) : undefined;
  }

  async list(query: TaskQuery): Promise<TaskPage> {
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
    if (query.operation) {
      where.push("EXISTS (SELECT 1 FROM json_each(t.operations) o WHERE json_extract(o.value, '$.name') = ?)");
      params.push(query.operation);
    }
    if (query.serverGroup) {
      where.push("EXISTS (SELECT 1 FROM json_each(t.operations) o WHERE json_extract(o.value, '$.description.serverGroupName') = ?)");
      params.push(query.serverGroup);
    }
    const sql = `SELECT ${COLUMNS} FROM tasks t ${where.length ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY t.seq DESC LIMIT ?`;
    const rows = this.#stmt(sql).all(...params, limit + 1) as Row[];
    const page = rows.slice(0, limit);
    return {
      tasks: page.map(toTask),
      ...(rows.length > limit ? { nextCursor: encodeCursor(Number(page[page.length - 1].seq)) } : {}),
    };
  }

  async claim(owner: string, leaseMs: number, limit: number): Promise<Task[]> {
    if (limit <= 0) return [];
    return this.#write(() => {
      const now = Date.now();
      // The scale sets whose first task may have changed (a task ended, or came back): their first by submission
      // order may go first now. Started tasks are in task_ready already (they were claimed from it).
      this.#stmt(
        `INSERT OR IGNORE INTO task_ready (task_seq)
         SELECT head FROM (SELECT (SELECT o.task_seq FROM task_scale_sets o WHERE o.scale_set = w.scale_set
                                   ORDER BY o.task_seq LIMIT 1) AS head FROM task_wakes w)
         WHERE head IS NOT NULL`,
      ).run();
      this.#stmt("DELETE FROM task_wakes").run();
      const claimed = this.#stmt(
        `UPDATE tasks SET lease_owner = ?, lease_expires_at_ms = ?
         WHERE seq IN (SELECT t.seq FROM task_ready r CROSS JOIN tasks t ON t.seq = r.task_seq
                       WHERE t.state IN ${CLAIMABLE_SQL} AND (t.lease_expires_at_ms IS NULL OR t.lease_expires_at_ms <= ?)
                         AND NOT ${BLOCKED}
                       ORDER BY t.seq LIMIT ?)
         RETURNING seq, id`,
      ).all(owner, now + leaseMs, now, limit) as { seq: number; id: string }[];
      // RETURNING comes in no particular order: oldest first.
      return claimed.sort((a, b) => a.seq - b.seq).map((r) => this.#byId(r.id)!);
    });
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    return this.#write(() => {
      const now = Date.now();
      const stmt = this.#stmt(
        "UPDATE tasks SET lease_expires_at_ms = ? WHERE id = ? AND lease_owner = ? AND lease_expires_at_ms > ?",
      );
      return ids.filter((id) => Number(stmt.run(now + leaseMs, id, owner, now).changes) === 1);
    });
  }

  async release(owner: string, id: string): Promise<void> {
    this.#stmt(
      "UPDATE tasks SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = ? AND lease_owner = ? AND lease_expires_at_ms > ?",
    ).run(id, owner, Date.now());
  }

  async appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean> {
    return this.#write(() => {
      const now = Date.now();
      const held = this.#stmt(
        "UPDATE tasks SET updated_at_ms = ?, revision = revision + 1 WHERE id = ? AND lease_owner = ? AND lease_expires_at_ms > ?",
      ).run(now, id, owner, now);
      if (Number(held.changes) !== 1) return false;
      this.#stmt("INSERT INTO task_history (task_id, phase, status, time_ms) VALUES (?, ?, ?, ?)").run(id, entry.phase, entry.status, entry.timeMs);
      return true;
    });
  }

  async update(owner: string, id: string, change: TaskChange): Promise<boolean> {
    const now = Date.now();
    const sets: string[] = ["updated_at_ms = ?", "revision = revision + 1"];
    const params: SQLInputValue[] = [now];
    const set = (column: string, value: SQLInputValue) => {
      sets.push(`${column} = ?`);
      params.push(value);
    };
    if (change.state !== undefined) set("state", change.state);
    if (change.operationIndex !== undefined) set("operation_index", change.operationIndex);
    if (change.resultObjects !== undefined) set("result_objects", json(change.resultObjects));
    if (change.failure !== undefined) set("failure", json(change.failure));
    else if ("failure" in change) set("failure", null);
    if (change.armCalls !== undefined) set("arm_calls", change.armCalls);
    if (change.finishedAtMs !== undefined) set("finished_at_ms", change.finishedAtMs);
    if (change.checkpoint !== undefined) set("checkpoint", change.checkpoint === null ? null : json(change.checkpoint));
    const finished = change.state !== undefined && FINISHED_STATES.has(change.state);
    if (finished) sets.push("lease_owner = NULL", "lease_expires_at_ms = NULL");
    // A change of state applies only from a state the table allows (task-state.ts), in the statement itself.
    const allowed = change.state !== undefined ? ` AND state IN ${sqlStateList(statesBefore(change.state))}` : "";
    const sql = `UPDATE tasks SET ${sets.join(", ")} WHERE id = ? AND lease_owner = ? AND lease_expires_at_ms > ?${allowed} RETURNING seq`;
    const history = change.history ?? [];
    if (!finished && history.length === 0) {
      if (this.#stmt(sql).get(...params, id, owner, now) !== undefined) return true;
      return this.#refusedMove(owner, id, change.state, now);
    }
    return this.#write(() => {
      const row = this.#stmt(sql).get(...params, id, owner, now) as { seq: number } | undefined;
      if (!row) return this.#refusedMove(owner, id, change.state, now);
      const insert = this.#stmt("INSERT INTO task_history (task_id, phase, status, time_ms) VALUES (?, ?, ?, ?)");
      for (const h of history) insert.run(id, h.phase, h.status, h.timeMs);
      // A finished task no longer holds its scale sets: the next task on each may be claimed.
      if (finished) this.#free(row.seq);
      return true;
    });
  }

  /** A task that ended frees its scale sets, and wakes them: the next claim looks at the first task of each. */
  #free(seq: number): void {
    this.#stmt("INSERT OR IGNORE INTO task_wakes (scale_set) SELECT scale_set FROM task_scale_sets WHERE task_seq = ?").run(seq);
    this.#stmt("DELETE FROM task_scale_sets WHERE task_seq = ?").run(seq);
    this.#stmt("DELETE FROM task_ready WHERE task_seq = ?").run(seq);
  }

  /**
   * An update changed nothing: false when the lease is not held (the fence), IllegalMoveError when it is and the
   * task is in a state the table has no move from to `to`.
   */
  #refusedMove(owner: string, id: string, to: TaskState | undefined, now: number): false {
    if (to === undefined) return false;
    const held = this.#stmt("SELECT state FROM tasks WHERE id = ? AND lease_owner = ? AND lease_expires_at_ms > ?").get(id, owner, now) as { state: TaskState } | undefined;
    if (held && !canMove(held.state, to)) throw new IllegalMoveError(id, held.state, to);
    return false;
  }

  async requeueRetryable(id: string, entry: HistoryEntry, scaleSets: string[]): Promise<boolean> {
    return this.#write(() => {
      const now = Date.now();
      const requeued = this.#stmt(
        `UPDATE tasks SET state = 'queued', failure = NULL, finished_at_ms = NULL, checkpoint = NULL, lease_owner = NULL,
           lease_expires_at_ms = NULL, updated_at_ms = ?, revision = revision + 1
         WHERE id = ? AND state = 'failed' AND json_extract(failure, '$.retryable') = 1 RETURNING seq`,
      ).get(now, id) as { seq: number } | undefined;
      if (!requeued) return false;
      this.#stmt("INSERT INTO task_history (task_id, phase, status, time_ms) VALUES (?, ?, ?, ?)").run(id, entry.phase, entry.status, entry.timeMs);
      // Unfinished again: it holds its scale sets again, at its place in submission order.
      const hold = this.#stmt("INSERT OR IGNORE INTO task_scale_sets (task_seq, scale_set) VALUES (?, ?)");
      const wake = this.#stmt("INSERT OR IGNORE INTO task_wakes (scale_set) VALUES (?)");
      for (const key of new Set(scaleSets)) {
        hold.run(requeued.seq, key);
        wake.run(key);
      }
      this.#stmt("INSERT OR IGNORE INTO task_ready (task_seq) VALUES (?)").run(requeued.seq);
      return true;
    });
  }

  async requestCancel(id: string, lines: CancelLines): Promise<CancelOutcome> {
    return this.#write(() => {
      const now = Date.now();
      const row = this.#stmt("SELECT seq, state, lease_owner, lease_expires_at_ms, cancel_requested_at_ms FROM tasks WHERE id = ?").get(id) as Row | undefined;
      if (!row) return { outcome: "missing" as const };
      if (FINISHED_STATES.has(row.state as TaskState)) return { outcome: "finished" as const, task: this.#byId(id)! };
      const leased = row.lease_owner !== null && Number(row.lease_expires_at_ms) > now;
      const line = (entry: HistoryEntry) => this.#stmt("INSERT INTO task_history (task_id, phase, status, time_ms) VALUES (?, ?, ?, ?)").run(id, entry.phase, entry.status, entry.timeMs);
      if (row.state === "queued" && !leased) {
        this.#stmt(
          `UPDATE tasks SET state = 'canceled', cancel_requested_at_ms = ?, finished_at_ms = ?, updated_at_ms = ?, revision = revision + 1,
             lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = ?`,
        ).run(now, now, now, id);
        this.#free(Number(row.seq));
        line(lines.canceled);
        return { outcome: "canceled" as const, task: this.#byId(id)! };
      }
      if (row.cancel_requested_at_ms === null) {
        this.#stmt("UPDATE tasks SET cancel_requested_at_ms = ?, updated_at_ms = ?, revision = revision + 1 WHERE id = ?").run(now, now, id);
        line(lines.requested);
      }
      return { outcome: "requested" as const, task: this.#byId(id)! };
    });
  }

  async cancelRequested(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = this.#stmt("SELECT id FROM tasks WHERE id IN (SELECT value FROM json_each(?)) AND cancel_requested_at_ms IS NOT NULL").all(json(ids)) as { id: string }[];
    const asked = new Set(rows.map((r) => r.id));
    return ids.filter((id) => asked.has(id));
  }

  async backlog(): Promise<Backlog> {
    const row = this.#stmt("SELECT count(*) AS n, min(created_at_ms) AS oldest FROM tasks WHERE state = 'queued' AND lease_owner IS NULL").get() as { n: number | bigint; oldest: number | bigint | null };
    return row.oldest === null ? { queued: Number(row.n) } : { queued: Number(row.n), oldestQueuedAtMs: Number(row.oldest) };
  }

  async prune(finishedBeforeMs: number): Promise<number> {
    // History rows go with their task (ON DELETE CASCADE).
    const result = this.#stmt(
      `DELETE FROM tasks WHERE state IN ${FINISHED_SQL} AND coalesce(finished_at_ms, updated_at_ms) < ?`,
    ).run(finishedBeforeMs);
    return Number(result.changes);
  }

  async close(): Promise<void> {
    // Creates already asked for are committed, not dropped.
    if (this.#db.isOpen) this.#commitCreates();
    if (this.#db.isOpen) this.#db.close();
  }
}
