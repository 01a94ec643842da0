// Tasks in PostgreSQL: durable, shared by several replicas. The store holds the pool and the schema's names; each
// statement is a function of its own in src/tasks/pg/ (docs/task-stores.md lists where each lives). Every method but
// requestCancel is one round trip (claim: the claim lock, then SELECT … FOR UPDATE SKIP LOCKED inside an UPDATE, in
// one simple query), so no transaction spans a network round trip. Creates asked for together share one statement.
//
// Clock: every lease time (claim, renew, the fence on writes) and createdAtMs/updatedAtMs come from the database's
// clock (now()), never a replica's, so replicas with skewed clocks still agree on who holds a lease. Times the
// caller passes in (history timeMs, finishedAtMs, prune's finishedBeforeMs) are stored and compared as given.
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
import { TaskStoreOpenError } from "./migrations.ts";
import { PgConnection, type PgPoolOptions, redactConnectionString } from "./pg/connection.ts";
import { migrate } from "./pg/migrate.ts";
import { readVacuumSettings, vacuumWarnings } from "./pg/vacuum-settings.ts";
import { pgTables, type PgTables } from "./pg/tables.ts";
import { PgCreateQueue } from "./pg/create-queue.ts";
import { PgUpdateQueue } from "./pg/update-queue.ts";
import { cancelRequested, getTask, getTaskByClientRequestId, list, revision, revisions } from "./pg/read.ts";
import { claim } from "./pg/claim.ts";
import { release, renew } from "./pg/lease.ts";
import { appendHistory, update } from "./pg/journal.ts";
import { requestCancel, requeueRetryable } from "./pg/cancel.ts";
import { backlog } from "./pg/backlog.ts";
import { shareWriteDurations, sharedWriteDurations } from "./pg/write-durations.ts";
import type { DurationSample } from "../azure/write-durations.ts";
import { prune } from "./pg/prune.ts";
import { EndNotifier, watch } from "./pg/watch.ts";
import { listAudit, pruneAudit, recordAudit, settleAudit } from "./pg/audit.ts";
import type { AuditEntry, AuditPage, AuditQuery, NewAuditEntry } from "./audit.ts";

export { redactConnectionString } from "./pg/connection.ts";

export interface PostgresTaskStoreOptions extends PgPoolOptions {
  /** Schema that holds the tables (created if missing); default public. Tests use one of their own. */
  schema?: string;
  /**
   * Each create is answered within this long, or by its request's deadline if that comes first (default: by the
   * request's deadline only): one not yet sent then is dropped, never sent, and fails as an outage ("nothing was
   * done"); one sent fails with CreateOutcomeUnknownError (the task may exist). The service gives it
   * TASK_STORE_CALL_TIMEOUT_MS.
   */
  createTimeoutMs?: number;
}

export class PostgresTaskStore implements TaskStore {
  readonly #db: PgConnection;
  readonly #t: PgTables;
  readonly #creates: PgCreateQueue;
  /** The writes of running tasks that do not end them, a statement shared (update-queue.ts). */
  readonly updates: PgUpdateQueue;
  readonly #ended: EndNotifier;
  /** Where, for messages: the redacted URL and schema. */
  readonly where: string;
  /** What the server was found to be at open that an operator should know (autovacuum off): the service logs them. */
  readonly openWarnings: readonly string[];

  /** Creates are answered by their deadline here (pg/create-queue.ts), which knows whether each was sent. */
  readonly answersCreatesByDeadline = true;
  /** Its calls wait for the server: a request's deadline bounds them. */
  readonly boundedByRequestDeadlines = true;

  private constructor(
    db: PgConnection,
    t: PgTables,
    where: string,
    createTimeoutMs: number | undefined,
    openWarnings: string[],
  ) {
    this.#db = db;
    this.openWarnings = openWarnings;
    this.#t = t;
    this.#creates = new PgCreateQueue(db, t, createTimeoutMs);
    this.#ended = new EndNotifier(db, t);
    this.updates = new PgUpdateQueue(db, t, this.#ended);
    this.where = where;
  }

  /**
   * Connects, and creates or migrates the schema under an advisory lock (replicas starting together migrate once).
   * Fails with a TaskStoreOpenError naming the database (password redacted) when it cannot connect, when the schema
   * is newer than this code, or when the schema holds a tasks table that is not ours.
   */
  static async open(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
    const schema = options.schema ?? "public";
    const where = `PostgreSQL ${redactConnectionString(options.connectionString)}, schema ${schema}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new TaskStoreOpenError(`task store schema name "${schema}" is not a plain identifier (letters, digits, _)`);
    }
    let warnings: string[] = [];
    const db = await PgConnection.open(options, where, async (client) => {
      await migrate(client, schema, where);
      warnings = vacuumWarnings(await readVacuumSettings(client, schema), where);
    });
    return new PostgresTaskStore(db, pgTables(schema), where, options.createTimeoutMs, warnings);
  }

  /**
   * Creates the task. Creates asked for in one turn of the event loop (concurrent submissions) go to the database as
   * one statement, one commit and one NOTIFY (pg/create.ts). Each is created as if alone, in the order asked.
   */
  async create(input: NewTask): Promise<{ task: Task; created: boolean }> {
    return this.#creates.add(input);
  }

  get(id: string): Promise<Task | undefined> {
    return getTask(this.#db, this.#t, id);
  }

  findByClientRequestId(clientRequestId: string): Promise<Task | undefined> {
    return getTaskByClientRequestId(this.#db, this.#t, clientRequestId);
  }

  revision(id: string): Promise<number | undefined> {
    return revision(this.#db, this.#t, id);
  }

  revisions(ids: readonly string[]): Promise<Map<string, TaskRevision>> {
    return revisions(this.#db, this.#t, ids);
  }

  list(query: TaskQuery): Promise<TaskPage> {
    return list(this.#db, this.#t, query);
  }

  claim(owner: string, leaseMs: number, limit: number): Promise<Task[]> {
    return claim(this.#db, this.#t, owner, leaseMs, limit);
  }

  renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    return renew(this.#db, this.#t, owner, ids, leaseMs);
  }

  release(owner: string, id: string): Promise<void> {
    return release(this.#db, this.#t, owner, id);
  }

  appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean> {
    return appendHistory(this.#db, this.#t, owner, id, entry);
  }

  update(owner: string, id: string, change: TaskChange): Promise<boolean> {
    return update(this.#db, this.#t, owner, id, change, this.updates);
  }

  watch(onWork: () => void): Promise<() => Promise<void>> {
    return watch(this.#db.connectionString, this.#t, onWork);
  }

  requeueRetryable(id: string, entry: HistoryEntry, scaleSets: string[], audit?: NewAuditEntry): Promise<boolean> {
    return requeueRetryable(this.#db, this.#t, id, entry, scaleSets, audit);
  }

  requestCancel(id: string, lines: CancelLines, audit?: NewAuditEntry): Promise<CancelOutcome> {
    return requestCancel(this.#db, this.#t, id, lines, audit);
  }

  recordAudit(entry: NewAuditEntry): Promise<AuditEntry> {
    return recordAudit(this.#db, this.#t, entry);
  }

  settleAudit(id: string, outcome: string): Promise<void> {
    return settleAudit(this.#db, this.#t, id, outcome);
  }

  listAudit(query: AuditQuery): Promise<AuditPage> {
    return listAudit(this.#db, this.#t, query);
  }

  pruneAudit(beforeMs: number): Promise<number> {
    return pruneAudit(this.#db, this.#t, beforeMs);
  }

  cancelRequested(ids: string[]): Promise<string[]> {
    return cancelRequested(this.#db, this.#t, ids);
  }

  backlog(): Promise<Backlog> {
    return backlog(this.#db, this.#t);
  }

  shareWriteDurations(samples: readonly DurationSample[]): Promise<void> {
    return shareWriteDurations(this.#db, this.#t, samples);
  }

  sharedWriteDurations(): Promise<Map<string, number[]>> {
    return sharedWriteDurations(this.#db, this.#t);
  }

  prune(finishedBeforeMs: number): Promise<number> {
    return prune(this.#db, this.#t, finishedBeforeMs);
  }

  async close(): Promise<void> {
    // Creates already asked for are sent, not dropped.
    await this.#creates.drain();
    await this.updates.drain();
    await this.#ended.drain();
    await this.#db.end();
  }
}
