// Where tasks live, behind one interface: in memory (one replica, lost on restart), SQLite (embedded, durable) and
// PostgreSQL (several replicas). All pass the same suite (test/task-store-suite.ts).
//
// Leases: a replica runs a task only while it holds the task's lease. claim() takes runnable tasks (queued, or
// running with an expired lease: their replica died), renew() extends leases while work goes on, and every write
// about a running task is fenced by the owner: a replica that lost its lease can no longer change the task.
import type { HistoryEntry, Task, TaskCheckpoint, TaskState } from "./task.ts";
import type { AuditEntry, AuditPage, AuditQuery, NewAuditEntry } from "./audit.ts";
import type { DurationSample } from "../azure/write-durations.ts";

/** A task's revision and state (TaskStore.revisions). */
export interface TaskRevision {
  revision: number;
  state: TaskState;
}

export interface NewTask {
  clientRequestId?: string;
  operations: Task["operations"];
  /** Where each operation acts, as located at submission (Task.targets). */
  targets?: Task["targets"];
  /**
   * Keys of the scale sets the operations touch (scaleSetKey). Tasks that share one run one at a time, in the order
   * they were created. Omitted or empty: the task waits for nobody and nobody waits for it.
   */
  scaleSets?: string[];
  /** Lines the task starts with, after the one saying whom it waits for (a cluster operation's selection). */
  history?: HistoryEntry[];
  /** The submission's audit entry: recorded with the task, in its transaction, when the task is created (not found). */
  audit?: NewAuditEntry;
  /** The submission's span (Task.traceparent). */
  traceparent?: string;
}

export interface TaskQuery {
  /** Page size, 1..500. */
  limit: number;
  state?: TaskState;
  /** Tasks that include this operation name. */
  operation?: string;
  /** Tasks that touch this server group (description.serverGroupName). */
  serverGroup?: string;
  /** From a previous page's nextCursor. */
  cursor?: string;
}

export interface TaskPage {
  /** Newest first. */
  tasks: Task[];
  /** Present when there may be more: pass it as cursor. */
  nextCursor?: string;
}

/** What a running task may change, always fenced by the lease owner. */
export type TaskChange = Partial<
  Pick<Task, "state" | "operationIndex" | "resultObjects" | "failure" | "armCalls" | "finishedAtMs">
> & {
  /** null clears it. */
  checkpoint?: TaskCheckpoint | null;
  /** Lines appended to the history in the same commit, in this order. */
  history?: HistoryEntry[];
};

/**
 * What a cancel request did: `canceled`, a queued task nobody had started ended at once; `requested`, a task that
 * runs (or was claimed) carries the request for its lease holder, who stops at the next safe point; `finished`, it
 * had already ended (nothing changed); `missing`, no such task.
 */
export type CancelOutcome = { outcome: "canceled" | "requested" | "finished"; task: Task } | { outcome: "missing" };

/** The history line for each outcome of a cancel request. */
export interface CancelLines {
  /** A queued task nobody had started: it ends canceled at once. */
  canceled: HistoryEntry;
  /** A task that runs: its lease holder is asked to stop. */
  requested: HistoryEntry;
}

/** Tasks waiting for a runner (queued, no lease): how many, and since when the oldest waits. */
export interface Backlog {
  queued: number;
  /** createdAtMs of the oldest queued task (the store's clock); absent when none waits. */
  oldestQueuedAtMs?: number;
  /**
   * How long the oldest queued task has waited, by the store's clock alone (its now less its createdAtMs): a
   * replica's clock, ahead or behind the store's, adds nothing to it. Absent when none waits.
   */
  oldestQueuedForMs?: number;
}

export interface TaskStore {
  /**
   * Creates a queued task, or returns the one already created with the same clientRequestId (created: false). A
   * task created behind unfinished ones on its scale sets gets a first history line naming them (waitingEntry).
   */
  create(input: NewTask): Promise<{ task: Task; created: boolean }>;
  /**
   * The store answers each create by its deadline itself (the request's, or the call's bound): one not yet sent fails
   * as an outage and is never sent; one sent whose answer has not come fails with CreateOutcomeUnknownError (the task
   * may exist: its clientRequestId finds it). Stores whose creates answer at once (memory, SQLite) leave it out.
   */
  readonly answersCreatesByDeadline?: boolean;
  /**
   * Its calls wait for a server (PostgreSQL): each call a request makes is bounded by the request's deadline, and one
   * that cannot start before it is not made (request-deadline.ts). Stores that answer in-process at once (memory,
   * SQLite, whose calls cannot be cut anyway) leave it out: for them a deadline could only refuse work they would do at
   * once, as a request slowed by a busy process reached them.
   */
  readonly boundedByRequestDeadlines?: boolean;
  /** What the store found at open that an operator should know (PostgreSQL without autovacuum): logged at start. */
  readonly openWarnings?: readonly string[];
  get(id: string): Promise<Task | undefined>;
  /** The task created with this clientRequestId, if any: what a repeated submission answers before anything else. */
  findByClientRequestId(clientRequestId: string): Promise<Task | undefined>;
  /**
   * The task's revision, without reading the task: it grows with every change get() would show (state, history,
   * results, checkpoint, cancel request), whoever made it, and stays through lease changes alone. Readers keep what
   * they built from a task for as long as its revision is the same.
   */
  revision(id: string): Promise<number | undefined>;
  /**
   * Where several tasks stand, in one call (one statement on PostgreSQL): each one's revision (as revision()) and
   * state, without reading the tasks. Tasks that do not exist are absent. What a poll of the tasks held reads are
   * waiting on needs to tell which moved and which ended (task-waiter.ts).
   */
  revisions(ids: readonly string[]): Promise<Map<string, TaskRevision>>;
  list(query: TaskQuery): Promise<TaskPage>;

  /**
   * Takes up to `limit` runnable tasks for `owner` (queued ones, oldest first, and running ones whose lease has
   * expired) that go first on each of their scale sets, leases them until now + leaseMs, and returns them. Two
   * owners never get the same task, and never two tasks that share a scale set.
   */
  claim(owner: string, leaseMs: number, limit: number): Promise<Task[]>;
  /** Extends the leases `owner` still holds among `ids`; returns those ids. */
  renew(owner: string, ids: string[], leaseMs: number): Promise<string[]>;
  /** Gives a lease back (shutdown): the task stays as it is and another replica may claim it at once. */
  release(owner: string, id: string): Promise<void>;

  /** Appends to history if `owner` holds the lease; false otherwise. */
  appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean>;
  /** Applies a change if `owner` holds the lease; false otherwise. A finished state also ends the lease. */
  update(owner: string, id: string, change: TaskChange): Promise<boolean>;

  /**
   * Puts a task that failed with a retryable failure back in the queue (Clouddriver's `POST /task/{id}:resume`):
   * state queued, failure, finish time and checkpoint cleared, `entry` appended to its history. Operations that
   * succeeded keep their results; the next claim runs the failed operation again, from a fresh read. False when
   * the task is not failed-and-retryable (or does not exist); nothing changes then. It takes its place again on
   * `scaleSets` (as create's: what its operations name) in submission order: it waits for tasks that started, and
   * unstarted tasks submitted after it wait for it.
   */
  requeueRetryable(id: string, entry: HistoryEntry, scaleSets: string[], audit?: NewAuditEntry): Promise<boolean>;

  /**
   * Asks to cancel a task (POST /task/{id}/cancel). The request is stored, so whichever replica holds the task's
   * lease, now or after a crash, sees it. The line for what happened goes into the history when something changed
   * (the task ended, or the request was recorded the first time). `audit` is recorded unless the task is missing
   * or had finished.
   */
  requestCancel(id: string, lines: CancelLines, audit?: NewAuditEntry): Promise<CancelOutcome>;
  /** Those of `ids` (tasks this replica runs) that someone asked to cancel. */
  cancelRequested(ids: string[]): Promise<string[]>;

  /**
   * Calls onWork when another process may have made work claimable here (a task created, or one finished that others
   * waited for). Stores that cannot tell (memory, SQLite) leave it out: the runner's timer is the fallback. Returns
   * the unsubscribe.
   */
  watch?(onWork: () => void): Promise<() => Promise<void>>;

  /** The queued tasks, counted (backlog metrics, /ready, admission control). */
  backlog?(): Promise<Backlog>;

  /**
   * The audit trail (audit.ts). `audit` given to create, requeueRetryable and requestCancel is recorded in the same
   * transaction as the change, and only when there was one (a task created, requeued, canceled or asked to stop):
   * the change and its entry exist together or not at all. A task's end writes its state as the outcome of its
   * entries still open, in the transaction that ends it. recordAudit records an entry alone (a refusal, a forwarded
   * write), settleAudit writes such an entry's outcome once.
   */
  recordAudit(entry: NewAuditEntry): Promise<AuditEntry>;
  settleAudit(id: string, outcome: string): Promise<void>;
  /** A page of entries, newest first. */
  listAudit(query: AuditQuery): Promise<AuditPage>;
  /** Deletes entries recorded before `beforeMs` (AUDIT_RETENTION_DAYS, apart from the tasks' retention); returns how many. */
  pruneAudit(beforeMs: number): Promise<number>;

  /** Deletes finished tasks that finished before `finishedBeforeMs`; returns how many. */
  prune(finishedBeforeMs: number): Promise<number>;
  /**
   * A write that changes bytes on disk and nothing any task or reader sees, for readiness to ask "can the store be
   * written?" where a read would answer yes (SQLite on a full disk reads on and refuses every write). Stores whose
   * reads and writes fail together (a network link) need none.
   */
  probeWrite?(): Promise<void>;

  /**
   * Azure's durations of writes, by kind, kept for every replica: the most recent DURATIONS_KEPT of each. A replica
   * adds those it saw end and reads what all saw (duration-sharing.ts), so that one that has not run a kind yet, or
   * has just started, still polls a write where it can be expected to have ended. Oldest first.
   */
  shareWriteDurations(samples: readonly DurationSample[]): Promise<void>;
  sharedWriteDurations(): Promise<Map<string, number[]>>;
  close(): Promise<void>;
}
