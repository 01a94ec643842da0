// Tasks in memory: one replica, lost on restart. The reference for the TaskStore contract (same suite as the others).
import { newId } from "./ids.ts";
import { FINISHED_STATES, type HistoryEntry, type Task } from "./task.ts";
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
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { bySubmission, goesBefore, waitingEntry } from "./ordering.ts";
import { canMove, IllegalMoveError } from "./task-state.ts";
import { MemoryAuditTrail } from "./memory-audit-trail.ts";
import type { AuditEntry, AuditPage, AuditQuery, NewAuditEntry } from "./audit.ts";
import { keptDurations, samplesByKind, type DurationSample } from "../azure/write-durations.ts";

type Stored = Task & { seq: number; scaleSets: string[] };

function matches(task: Task, q: TaskQuery): boolean {
  if (q.state && task.state !== q.state) return false;
  if (q.operation && !task.operations.some((o) => o.name === q.operation)) return false;
  if (q.serverGroup && !task.operations.some((o) => o.description.serverGroupName === q.serverGroup)) return false;
  return true;
}

/* eslint-disable @typescript-eslint/require-await -- the TaskStore interface is asynchronous and this store answers at
   once; `async` stays, so that what it throws reaches callers (and store-outage.ts) as a rejected promise. */
export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Stored>(); // insertion order = creation order
  readonly #durations = new Map<string, number[]>();
  /** Unfinished tasks by scale set key. */
  readonly #unfinished = new Map<string, Set<Stored>>();
  readonly #byClientRequestId = new Map<string, string>();
  /** Unfinished tasks, in seq order (claim looks at these only, never at the finished ones). */
  #open = new Set<Stored>();
  /** A requeued task rejoined #open out of seq order: sort before the next claim. */
  #openUnsorted = false;
  #finishedCount = 0;
  readonly #retention: number;
  readonly #now: () => number;
  #seq = 0;
  readonly #audit = new MemoryAuditTrail();

  /** retention: how many finished tasks to keep; the oldest finished ones go first. */
  constructor(retention = 10_000, now: () => number = Date.now) {
    this.#retention = retention;
    this.#now = now;
  }

  #public(task: Stored): Task {
    const { seq: _seq, scaleSets: _scaleSets, ...rest } = task;
    return { ...structuredClone(rest), ...this.#audit.actorsOf(task.id) };
  }

  #held(owner: string, id: string): Stored | undefined {
    const task = this.#tasks.get(id);
    if (!task || task.leaseOwner !== owner || (task.leaseExpiresAtMs ?? 0) <= this.#now()) return undefined;
    return task;
  }

  async create(input: NewTask): Promise<{ task: Task; created: boolean }> {
    if (input.clientRequestId) {
      const existing = this.#byClientRequestId.get(input.clientRequestId);
      const task = existing ? this.#tasks.get(existing) : undefined;
      if (task) return { task: this.#public(task), created: false };
    }
    const now = this.#now();
    const scaleSets = [...new Set(input.scaleSets ?? [])];
    const ahead = [];
    for (const key of scaleSets) {
      let last: Stored | undefined;
      for (const u of this.#unfinished.get(key) ?? []) if (!last || u.seq > last.seq) last = u;
      if (last) ahead.push({ taskId: last.id, scaleSet: key });
    }
    const waiting = waitingEntry(ahead, now);
    const task: Stored = {
      id: newId(),
      ...(input.clientRequestId ? { clientRequestId: input.clientRequestId } : {}),
      state: "queued",
      operations: structuredClone(input.operations),
      ...(input.targets ? { targets: structuredClone(input.targets) } : {}),
      ...(input.traceparent ? { traceparent: input.traceparent } : {}),
      operationIndex: 0,
      history: [...(waiting ? [waiting] : []), ...structuredClone(input.history ?? [])],
      resultObjects: [],
      armCalls: 0,
      createdAtMs: now,
      updatedAtMs: now,
      revision: 1,
      seq: ++this.#seq,
      scaleSets,
    };
    this.#tasks.set(task.id, task);
    if (input.audit) this.#audit.record({ ...input.audit, taskId: task.id });
    this.#open.add(task);
    this.#hold(task);
    if (input.clientRequestId) this.#byClientRequestId.set(input.clientRequestId, task.id);
    return { task: this.#public(task), created: true };
  }

  async get(id: string): Promise<Task | undefined> {
    const task = this.#tasks.get(id);
    return task ? this.#public(task) : undefined;
  }

  async findByClientRequestId(clientRequestId: string): Promise<Task | undefined> {
    const id = this.#byClientRequestId.get(clientRequestId);
    return id === undefined ? undefined : this.get(id);
  }

  async revision(id: string): Promise<number | undefined> {
    return this.#tasks.get(id)?.revision;
  }

  async revisions(ids: readonly string[]): Promise<Map<string, TaskRevision>> {
    const found = new Map<string, TaskRevision>();
    for (const id of ids) {
      const task = this.#tasks.get(id);
      if (task) found.set(id, { revision: task.revision, state: task.state });
    }
    return found;
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const before = decodeCursor(query.cursor);
    const out: Task[] = [];
    let last: number | undefined;
    for (const task of [...this.#tasks.values()].reverse()) {
      if (before !== undefined && task.seq >= before) continue;
      if (!matches(task, query)) continue;
      if (out.length === query.limit) return { tasks: out, nextCursor: encodeCursor(last!) };
      out.push(this.#public(task));
      last = task.seq;
    }
    return { tasks: out };
  }

  async claim(owner: string, leaseMs: number, limit: number): Promise<Task[]> {
    const now = this.#now();
    const out: Task[] = [];
    if (this.#openUnsorted) {
      this.#open = new Set([...this.#open].sort(bySubmission));
      this.#openUnsorted = false;
    }
    // The first task of each scale set, found once per claim: a claim costs one pass over the unfinished tasks,
    // not one pass per task over its scale sets' queues.
    const firstOf = new Map<string, Stored | undefined>();
    for (const task of this.#open) {
      if (out.length >= limit) break;
      if (task.leaseOwner && (task.leaseExpiresAtMs ?? 0) > now) continue;
      if (!this.#first(task, firstOf)) continue;
      task.leaseOwner = owner;
      task.leaseExpiresAtMs = now + leaseMs;
      out.push(this.#public(task));
    }
    return out;
  }

  /** Whether the task goes first on every scale set it names. */
  #first(task: Stored, firstOf: Map<string, Stored | undefined>): boolean {
    for (const key of task.scaleSets) {
      if (!firstOf.has(key)) {
        let first: Stored | undefined;
        for (const u of this.#unfinished.get(key) ?? []) if (!first || goesBefore(u, first)) first = u;
        firstOf.set(key, first);
      }
      if (firstOf.get(key) !== task) return false;
    }
    return true;
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    const held: string[] = [];
    for (const id of ids) {
      const task = this.#held(owner, id);
      if (!task) continue;
      task.leaseExpiresAtMs = this.#now() + leaseMs;
      held.push(id);
    }
    return held;
  }

  async release(owner: string, id: string): Promise<void> {
    const task = this.#held(owner, id);
    if (!task) return;
    delete task.leaseOwner;
    delete task.leaseExpiresAtMs;
  }

  async appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean> {
    const task = this.#held(owner, id);
    if (!task) return false;
    task.history.push({ ...entry });
    this.#changed(task, this.#now());
    return true;
  }

  /** Every change a reader sees goes through here (TaskStore.revision). */
  #changed(task: Stored, now: number): void {
    task.updatedAtMs = now;
    task.revision++;
  }

  async update(owner: string, id: string, change: TaskChange): Promise<boolean> {
    const task = this.#held(owner, id);
    if (!task) return false;
    if (change.state && !canMove(task.state, change.state)) throw new IllegalMoveError(id, task.state, change.state);
    const { checkpoint, history, ...rest } = structuredClone(change);
    Object.assign(task, rest);
    this.#changed(task, this.#now());
    if (history) task.history.push(...history);
    if (checkpoint === null) delete task.checkpoint;
    else if (checkpoint !== undefined) task.checkpoint = checkpoint;
    if (change.state && FINISHED_STATES.has(change.state)) this.#finished(task);
    return true;
  }

  /** An unfinished task holds its scale sets: later tasks on them wait for it (#first). */
  #hold(task: Stored): void {
    for (const key of task.scaleSets) {
      let set = this.#unfinished.get(key);
      if (!set) this.#unfinished.set(key, (set = new Set()));
      set.add(task);
    }
  }

  /** A finished task holds no lease and no scale set: the next task on each may be claimed. */
  #finished(task: Stored): void {
    this.#audit.ended(task.id, task.state, this.#now());
    delete task.leaseOwner;
    delete task.leaseExpiresAtMs;
    this.#open.delete(task);
    this.#finishedCount++;
    for (const key of task.scaleSets) {
      const set = this.#unfinished.get(key);
      set?.delete(task);
      if (set?.size === 0) this.#unfinished.delete(key);
    }
    this.#pruneToRetention();
  }

  async requestCancel(id: string, lines: CancelLines, audit?: NewAuditEntry): Promise<CancelOutcome> {
    const task = this.#tasks.get(id);
    if (!task) return { outcome: "missing" };
    if (FINISHED_STATES.has(task.state)) return { outcome: "finished", task: this.#public(task) };
    const now = this.#now();
    if (audit) this.#audit.record({ ...audit, taskId: id });
    const leased = task.leaseOwner !== undefined && (task.leaseExpiresAtMs ?? 0) > now;
    if (task.state === "queued" && !leased) {
      Object.assign(task, { state: "canceled", cancelRequestedAtMs: now, finishedAtMs: now });
      this.#changed(task, now);
      task.history.push({ ...lines.canceled });
      this.#finished(task);
      return { outcome: "canceled", task: this.#public(task) };
    }
    if (task.cancelRequestedAtMs === undefined) {
      task.cancelRequestedAtMs = now;
      this.#changed(task, now);
      task.history.push({ ...lines.requested });
    }
    return { outcome: "requested", task: this.#public(task) };
  }

  async cancelRequested(ids: string[]): Promise<string[]> {
    return ids.filter((id) => this.#tasks.get(id)?.cancelRequestedAtMs !== undefined);
  }

  async requeueRetryable(
    id: string,
    entry: HistoryEntry,
    scaleSets: string[],
    audit?: NewAuditEntry,
  ): Promise<boolean> {
    const task = this.#tasks.get(id);
    if (!task || task.state !== "failed" || task.failure?.retryable !== true) return false;
    if (audit) this.#audit.record({ ...audit, taskId: id });
    // Unfinished again: it holds its scale sets again, at its place in submission order.
    task.scaleSets = [...new Set(scaleSets)];
    this.#hold(task);
    this.#open.add(task);
    this.#openUnsorted = true;
    this.#finishedCount--;
    task.state = "queued";
    delete task.failure;
    delete task.finishedAtMs;
    delete task.checkpoint;
    delete task.leaseOwner;
    delete task.leaseExpiresAtMs;
    task.history.push({ ...entry });
    this.#changed(task, this.#now());
    return true;
  }

  async shareWriteDurations(samples: readonly DurationSample[]): Promise<void> {
    for (const [kind, ms] of samplesByKind(samples))
      this.#durations.set(kind, keptDurations(this.#durations.get(kind) ?? [], ms));
  }

  async sharedWriteDurations(): Promise<Map<string, number[]>> {
    return new Map([...this.#durations].map(([kind, ms]) => [kind, [...ms]]));
  }

  async backlog(): Promise<Backlog> {
    let queued = 0;
    let oldest: number | undefined;
    for (const t of this.#tasks.values()) {
      if (t.state !== "queued" || t.leaseOwner !== undefined) continue;
      queued++;
      if (oldest === undefined || t.createdAtMs < oldest) oldest = t.createdAtMs;
    }
    return oldest === undefined
      ? { queued }
      : { queued, oldestQueuedAtMs: oldest, oldestQueuedForMs: Math.max(0, this.#now() - oldest) };
  }

  async prune(finishedBeforeMs: number): Promise<number> {
    let removed = 0;
    for (const [id, t] of this.#tasks) {
      if (FINISHED_STATES.has(t.state) && (t.finishedAtMs ?? t.updatedAtMs) < finishedBeforeMs) {
        this.#delete(id, t);
        removed++;
      }
    }
    return removed;
  }

  async recordAudit(entry: NewAuditEntry): Promise<AuditEntry> {
    return this.#audit.record(entry);
  }

  async settleAudit(id: string, outcome: string): Promise<void> {
    this.#audit.settle(id, outcome, this.#now());
  }

  async listAudit(query: AuditQuery): Promise<AuditPage> {
    return this.#audit.list(query);
  }

  async pruneAudit(beforeMs: number): Promise<number> {
    return this.#audit.prune(beforeMs);
  }

  async close(): Promise<void> {}

  #delete(id: string, t: Task): void {
    this.#tasks.delete(id);
    if (FINISHED_STATES.has(t.state)) this.#finishedCount--;
    if (t.clientRequestId) this.#byClientRequestId.delete(t.clientRequestId);
  }

  /** Memory is bounded by count too: the oldest finished tasks go first. */
  #pruneToRetention(): void {
    if (this.#finishedCount <= this.#retention) return;
    for (const [id, t] of this.#tasks) {
      if (this.#finishedCount <= this.#retention) break;
      if (!FINISHED_STATES.has(t.state)) continue;
      this.#delete(id, t);
    }
  }
}
/* eslint-enable @typescript-eslint/require-await */
