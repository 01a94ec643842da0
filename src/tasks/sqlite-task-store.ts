// Tasks in an embedded SQLite file (<dataDir>/tasks.db) through Node's built-in node:sqlite: durable across
// restarts, one host. The store holds the database; each statement is a function of its own in src/tasks/sqlite/
// (docs/task-stores.md lists where each lives). Several processes may share the file (WAL mode, busy_timeout);
// every write is one statement or a BEGIN IMMEDIATE transaction, so writers are serialized by SQLite's write lock.
// Times come from this host's clock (Date.now()): all processes sharing the file share it.
//
// node:sqlite is synchronous: every method is async only so that a failure (a busy timeout, say) is a rejection.
import type { HistoryEntry, Task } from "./task.ts";
import type {
  Backlog,
  CancelLines,
  CancelOutcome,
  NewTask,
  TaskChange,
  TaskPage,
  TaskQuery,
  TaskRevision,
  TaskStore,
} from "./task-store.ts";
import { SqliteDb } from "./sqlite/db.ts";
import { openDatabase } from "./sqlite/open.ts";
import { SqliteCreateQueue } from "./sqlite/create.ts";
import { cancelRequested, getTask, getTaskByClientRequestId, list, revision, revisions } from "./sqlite/read.ts";
import { claim } from "./sqlite/claim.ts";
import { release, renew } from "./sqlite/lease.ts";
import { appendHistory, update } from "./sqlite/journal.ts";
import { requestCancel, requeueRetryable } from "./sqlite/cancel.ts";
import { backlog } from "./sqlite/backlog.ts";
import { shareWriteDurations, sharedWriteDurations } from "./sqlite/write-durations.ts";
import type { DurationSample } from "../azure/write-durations.ts";
import { prune } from "./sqlite/prune.ts";
import { probeWrite } from "./sqlite/probe.ts";
import { listAudit, pruneAudit, recordAudit, settleAudit } from "./sqlite/audit.ts";
import type { AuditEntry, AuditPage, AuditQuery, NewAuditEntry } from "./audit.ts";

export interface SqliteTaskStoreOptions {
  /** The directory that holds tasks.db (created if missing). */
  dataDir: string;
  /** How long a write waits for another process's write lock before failing (default 5000). */
  busyTimeoutMs?: number;
}

/* eslint-disable @typescript-eslint/require-await -- the TaskStore interface is asynchronous and SQLite answers at
   once; `async` stays, so that what it throws reaches callers (and store-outage.ts) as a rejected promise. */
export class SqliteTaskStore implements TaskStore {
  readonly #db: SqliteDb;
  readonly #creates: SqliteCreateQueue;
  /** The file, for messages. */
  readonly path: string;

  private constructor(db: SqliteDb, path: string) {
    this.#db = db;
    this.#creates = new SqliteCreateQueue(db);
    this.path = path;
  }

  /**
   * Opens (creating if needed) <dataDir>/tasks.db and brings its schema up to date. Fails with a TaskStoreOpenError
   * naming the path when the directory cannot be created or written, when tasks.db is not a SQLite database (corrupt,
   * or another kind of file) or belongs to something else, or when its schema is newer than this code. It never
   * deletes, truncates or rewrites a file it cannot use.
   */
  static async open(options: SqliteTaskStoreOptions): Promise<SqliteTaskStore> {
    const { db, path } = openDatabase(options.dataDir, options.busyTimeoutMs ?? 5000);
    return new SqliteTaskStore(new SqliteDb(db), path);
  }

  /**
   * Creates the task. Creates asked for in one turn of the event loop (concurrent submissions) share one
   * transaction (sqlite/create.ts). Each is created as if alone, in the order asked.
   */
  async create(input: NewTask): Promise<{ task: Task; created: boolean }> {
    return this.#creates.add(input);
  }

  async get(id: string): Promise<Task | undefined> {
    return getTask(this.#db, id);
  }

  async findByClientRequestId(clientRequestId: string): Promise<Task | undefined> {
    return getTaskByClientRequestId(this.#db, clientRequestId);
  }

  async revision(id: string): Promise<number | undefined> {
    return revision(this.#db, id);
  }

  async revisions(ids: readonly string[]): Promise<Map<string, TaskRevision>> {
    return revisions(this.#db, ids);
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    return list(this.#db, query);
  }

  async claim(owner: string, leaseMs: number, limit: number): Promise<Task[]> {
    return claim(this.#db, owner, leaseMs, limit);
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    return renew(this.#db, owner, ids, leaseMs);
  }

  async release(owner: string, id: string): Promise<void> {
    release(this.#db, owner, id);
  }

  async appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean> {
    return appendHistory(this.#db, owner, id, entry);
  }

  async update(owner: string, id: string, change: TaskChange): Promise<boolean> {
    return update(this.#db, owner, id, change);
  }

  async requeueRetryable(
    id: string,
    entry: HistoryEntry,
    scaleSets: string[],
    audit?: NewAuditEntry,
  ): Promise<boolean> {
    return requeueRetryable(this.#db, id, entry, scaleSets, audit);
  }

  async requestCancel(id: string, lines: CancelLines, audit?: NewAuditEntry): Promise<CancelOutcome> {
    return requestCancel(this.#db, id, lines, audit);
  }

  async cancelRequested(ids: string[]): Promise<string[]> {
    return cancelRequested(this.#db, ids);
  }

  async backlog(): Promise<Backlog> {
    return backlog(this.#db);
  }

  async shareWriteDurations(samples: readonly DurationSample[]): Promise<void> {
    shareWriteDurations(this.#db, samples);
  }

  async sharedWriteDurations(): Promise<Map<string, number[]>> {
    return sharedWriteDurations(this.#db);
  }

  async prune(finishedBeforeMs: number): Promise<number> {
    return prune(this.#db, finishedBeforeMs);
  }

  async recordAudit(entry: NewAuditEntry): Promise<AuditEntry> {
    return recordAudit(this.#db, entry);
  }

  async settleAudit(id: string, outcome: string): Promise<void> {
    settleAudit(this.#db, id, outcome);
  }

  async listAudit(query: AuditQuery): Promise<AuditPage> {
    return listAudit(this.#db, query);
  }

  async pruneAudit(beforeMs: number): Promise<number> {
    return pruneAudit(this.#db, beforeMs);
  }

  async probeWrite(): Promise<void> {
    probeWrite(this.#db);
  }

  async close(): Promise<void> {
    // Creates already asked for are committed, not dropped.
    if (this.#db.isOpen) this.#creates.commit();
    if (this.#db.isOpen) this.#db.close();
  }
}
/* eslint-enable @typescript-eslint/require-await */
