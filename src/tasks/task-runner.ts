// Runs tasks: claims runnable ones from the store under a lease, runs their operations in order through the
// executeOp harness, checkpoints every step, and writes what happens into the task. Several replicas can share
// one store: a lease decides who runs a task, and a replica that loses the lease stops touching it. The store
// also decides the order: it hands out one task at a time per scale set, in submission order (ordering.ts).
//
// When it claims: whenever it has a free slot and there may be work, that is on a submission here, when one of
// its tasks finishes, when the store says another replica made work (watch), and on the timer, which is only the
// fallback (and the moment leases are renewed and old tasks pruned).
//
// Its progress on Azure is part of a lease: a replica whose ARM calls go unanswered (azure/arm-link.ts judges it)
// stops claiming, hands back the tasks it holds past a bound (each with a line that says why) so that another replica
// goes on from their checkpoints, probes Azure every tick, and claims again once Azure answers.
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { LocatedDescription } from "../operations/operation.ts";
import { locate } from "../operations/locate.ts";
import type { HistoryEntry, OperationRequest, Task } from "./task.ts";
import { scaleSetKey } from "./ordering.ts";
import { ArmLinkDownError, LeaseLostError } from "./task-journal.ts";
import type { ArmLink, ArmLinkFacts } from "../azure/arm-link.ts";
import { TaskRun, type TaskRunDeps } from "./task-run.ts";
import { AcceptFirst } from "./accept-first.ts";
import { leaseDeadline, monotonicNow, TaskLease } from "./lease-deadline.ts";
import type { AuditConfig, NewAuditEntry } from "./audit.ts";
import { currentTraceparent } from "../tracing/spans.ts";

export { canceledLine, phaseOf } from "./task-outcome.ts";

export interface TasksConfig {
  /**
   * How long a claimed task stays ours without renewal; a dead replica's tasks are taken over after it.
   * @env TASK_LEASE_MS
   * @default `30000`
   */
  leaseMs: number;
  /**
   * How often leases are renewed and runnable tasks claimed; at most a third of leaseMs.
   * @env TASK_CLAIM_INTERVAL_MS
   * @default `1000`
   */
  claimIntervalMs: number;
  /**
   * Tasks run at once by one replica.
   * @env TASK_CONCURRENCY
   * @default `32`
   */
  concurrency: number;
  /**
   * Finished tasks are kept this long, then pruned.
   * @env TASK_RETENTION_MS
   * @default `604800000`
   */
  retentionMs: number;
  /**
   * On SIGTERM/SIGINT: how long to wait for tasks to checkpoint before exiting anyway.
   * @env SHUTDOWN_TIMEOUT_MS
   * @default `10000`
   */
  shutdownTimeoutMs: number;
  /**
   * This replica's name in leases.
   * @env REPLICA_ID
   * @default `<hostname>:<pid>`
   */
  replicaId: string;
  /**
   * ?wait=: how often the tasks waited on are polled in the store (one statement for them all), to notice one another
   * replica ended.
   * @env TASK_WAIT_POLL_MS
   * @default `500`
   */
  waitPollMs: number;
  /**
   * GET /task/{id}: answers kept, per task, until its revision changes (0: none).
   * @env TASK_BODY_CACHE_ENTRIES
   * @default `2000`
   */
  bodyCacheEntries: number;
  /**
   * Submissions get 429 while this many tasks wait to start (0: no limit).
   * @env TASK_BACKLOG_LIMIT
   * @default `10000`
   */
  backlogLimit: number;
  /**
   * Operations one task may hold; a longer list is a 400.
   * @env TASK_MAX_OPERATIONS
   * @default `50`
   */
  maxOperations: number;
}

/** An operation submitted, with where it acts when its submitter located it (the route that checked it). */
export type SubmittedOperation = OperationRequest & { target?: ScaleSetRef };

/** The keys of the scale sets targets name, once each (ordering.ts); a target not located names none. */
function scaleSetKeys(targets: readonly (ScaleSetRef | null)[]): string[] {
  return [...new Set(targets.flatMap((t) => (t ? [scaleSetKey(t)] : [])))];
}

export interface TaskRunnerDeps extends TaskRunDeps {
  config: TaskRunDeps["config"] & { tasks: TasksConfig; audit?: AuditConfig };
  /** A run of the task here has ended (it finished, or stopped for another replica to go on): for ?wait. */
  onRunEnded?: (taskId: string) => void;
  /** Asked before a task is created; throws to refuse it (backlog.ts: too many tasks wait already). */
  admit?: () => Promise<void>;
  /** What this replica's ARM calls met, and the judgement on it (azure/arm-link.ts); none: claims whatever happens. */
  armLink?: Pick<ArmLink, "judge" | "facts" | "config">;
}

/** The history line of a task handed back because Azure did not answer this replica. */
export function armLinkDownLine(owner: string, facts: ArmLinkFacts, nowMs: number): string {
  const silentS = facts.unansweredSinceMs === undefined ? 0 : (nowMs - facts.unansweredSinceMs) / 1000;
  return `Azure has not answered replica ${owner} for ${silentS.toFixed(1)} s (${facts.unansweredInARow} calls in a row without an answer): the task was handed back, for a replica that reaches Azure to go on from its last checkpoint`;
}

interface ActiveTask {
  /** Stops at once, even mid-write (shutdown, lease lost): the checkpoint stays for whoever goes on. */
  abort: AbortController;
  /** When the claim or renewal the store last confirmed was sent, by the monotonic clock (lease-deadline.ts). */
  leasedAtMs: number;
  /** The lease's local deadline: the run stops there whether or not the store answered. */
  lease: TaskLease;
  /** Stops at the next safe point and ends the task canceled (POST /task/{id}/cancel). */
  cancel: AbortController;
  done: Promise<void>;
}

const PRUNE_EVERY_MS = 60_000;

/** Whether a lease taken or renewed at leasedAtMs is renewed now: once a third of it has passed. */
export function leaseIsDue(leasedAtMs: number, nowMs: number, leaseMs: number): boolean {
  return nowMs - leasedAtMs >= leaseMs / 3;
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #owner: string;
  readonly #active = new Map<string, ActiveTask>();
  /** Submissions are answered before task work goes on (accept-first.ts). */
  readonly #acceptFirst: AcceptFirst;
  #timer: NodeJS.Timeout | undefined;
  #unwatch: Promise<(() => Promise<void>) | undefined> | undefined;
  #claiming: Promise<void> | undefined;
  #claimAgain = false;
  /** A wake-up's claim waits for the end of this turn of the event loop (#wake). */
  #wakeScheduled = false;
  #stopping = false;
  #lastPrune = 0;
  /** A probe of Azure under way while the link is judged down (one at a time). */
  #probing: Promise<void> | undefined;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
    this.#owner = deps.config.tasks.replicaId;
    this.#acceptFirst = deps.acceptFirst ?? new AcceptFirst();
  }

  get replicaId(): string {
    return this.#owner;
  }

  /** Tasks in flight in this process. */
  get active(): number {
    return this.#active.size;
  }

  /** Starts claiming work: at once, on every wake-up, and every claimIntervalMs as the fallback. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#deps.config.tasks.claimIntervalMs);
    this.#unwatch = this.#deps.store.watch
      ? this.#deps.store
          .watch(() => this.#wake())
          .catch((err) => {
            this.#deps.onInternalError?.(err);
            return undefined;
          })
      : undefined;
    void this.tick();
  }

  /** The scale sets a task names, in the store's terms (ordering.ts): the keys of its operations' targets. */
  scaleSetsOf(operations: SubmittedOperation[]): string[] {
    return scaleSetKeys(operations.map((o) => o.target ?? this.#locate(o)));
  }

  /**
   * Where an operation acts, when its submitter did not say (an operation the accounts cannot locate: null, located
   * when it runs). A create is located by its cluster: two creates of one cluster would only race for the same next
   * name.
   */
  #locate(o: OperationRequest): ScaleSetRef | null {
    const located = locate(this.#deps.accounts, this.#deps.operations.get(o.name), o.description as LocatedDescription);
    return located.ok ? located.ref : null;
  }

  /**
   * Creates the task (or finds the one with the same clientRequestId); a new one is claimed at once if it can be.
   * Each operation's target is stored with it, and orders it: as its submitter located it, or located here.
   * `audit`: the submission's entry, recorded with the task (not when an existing one is found).
   */
  async submit(
    operations: SubmittedOperation[],
    clientRequestId?: string,
    history?: HistoryEntry[],
    audit?: NewAuditEntry,
  ) {
    try {
      await this.#deps.admit?.();
    } catch (refusal) {
      // A repeat of a submission whose task exists is answered that task, never refused for the work it already made.
      const made =
        clientRequestId === undefined ? undefined : await this.#deps.store.findByClientRequestId(clientRequestId);
      if (made === undefined) throw refusal;
      return { task: made, created: false };
    }
    // Admitted: task work waits until this one is answered (refused ones hold nothing back).
    const answered = this.#acceptFirst.accepting();
    try {
      const targets = operations.map((o) => o.target ?? this.#locate(o));
      const traceparent = currentTraceparent();
      const { task, created } = await this.#deps.store.create({
        operations: operations.map(({ name, description }) => ({ name, description })),
        targets,
        clientRequestId,
        scaleSets: scaleSetKeys(targets),
        ...(history ? { history } : {}),
        ...(audit ? { audit } : {}),
        ...(traceparent ? { traceparent } : {}),
      });
      if (created) this.#wake();
      return { task, created };
    } finally {
      answered();
    }
  }

  /** Puts a failed, retryable task back in the queue, holding its scale sets again; claimed at once if it can be. */
  async requeue(task: Task, entry: HistoryEntry, audit?: NewAuditEntry): Promise<boolean> {
    // Held again by the targets stored at submission; a task stored before targets were is located again.
    const targets = task.operations.map((o, i) => task.targets?.[i] ?? this.#locate(o));
    const requeued = await this.#deps.store.requeueRetryable(task.id, entry, scaleSetKeys(targets), audit);
    if (requeued) this.#wake();
    return requeued;
  }

  /**
   * There may be work: claim if a slot is free. Wake-ups come in bursts (concurrent submissions, tasks ending
   * together, notifications), so the claim waits for the end of this turn of the event loop and serves them all.
   */
  #wake(): void {
    if (this.#wakeScheduled) return;
    this.#wakeScheduled = true;
    setImmediate(() => {
      this.#wakeScheduled = false;
      if (!this.#timer || this.#stopping || this.#active.size >= this.#deps.config.tasks.concurrency) return;
      void this.#claim();
    });
  }

  /** The timer: renews the leases of running tasks, claims, prunes old tasks now and then. */
  async tick(): Promise<void> {
    this.#actOnArmLink();
    try {
      await this.#renew();
    } catch (err) {
      this.#deps.onInternalError?.(err);
    }
    await this.#claim();
    if (!this.#stopping && Date.now() - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = Date.now();
      await this.#deps.store
        .prune(Date.now() - this.#deps.config.tasks.retentionMs)
        .catch((err) => this.#deps.onInternalError?.(err));
      // The audit trail has a retention of its own, longer than the tasks' by default.
      const audit = this.#deps.config.audit;
      if (audit)
        await this.#deps.store
          .pruneAudit(Date.now() - audit.retentionMs)
          .catch((err) => this.#deps.onInternalError?.(err));
    }
  }

  /**
   * Renews the leases a third of which has passed (two thirds or more stay; config keeps the timer at no more than a
   * third of a lease): a task of a few seconds, most of them, never needs a write for it. A cancel asked of another
   * replica reaches this one through the store: looked for every tick.
   */
  async #renew(): Promise<void> {
    if (this.#active.size === 0) return;
    const { leaseMs } = this.#deps.config.tasks;
    // Sent now: a lease the store extends in answer ends no earlier than this plus leaseMs.
    const sentAt = monotonicNow();
    const due = [...this.#active]
      .filter(([, a]) => a.lease.live && leaseIsDue(a.leasedAtMs, sentAt, leaseMs))
      .map(([id]) => id);
    if (due.length > 0) {
      const held = new Set(await this.#deps.store.renew(this.#owner, due, leaseMs));
      for (const id of due) {
        const active = this.#active.get(id);
        if (!active) continue;
        if (held.has(id)) {
          active.leasedAtMs = sentAt;
          active.lease.renewed(sentAt, leaseMs);
        } else active.abort.abort(new LeaseLostError(`lease on ${id} lost`));
      }
    }
    const running = [...this.#active].filter(([, a]) => !a.abort.signal.aborted).map(([id]) => id);
    for (const id of await this.#deps.store.cancelRequested(running)) this.cancel(id);
  }

  /**
   * What the judgement on this replica's link to Azure asks: hand back the tasks held (each stops at once, mid-call if
   * need be, and its journal writes why and releases its lease), and, while claims are stopped, probe Azure so that
   * its first answer lets them start again (no task here makes a call by then).
   */
  #actOnArmLink(): void {
    const link = this.#deps.armLink;
    if (!link || this.#stopping) return;
    const now = Date.now();
    const judgement = link.judge(now);
    if (judgement.release)
      for (const [id, a] of this.#active)
        if (!a.abort.signal.aborted)
          a.abort.abort(new ArmLinkDownError(id, armLinkDownLine(this.#owner, link.facts, now)));
    if (!judgement.claim && this.#probing === undefined)
      this.#probing = this.#probeAzure().finally(() => (this.#probing = undefined));
  }

  /** One cheap GET per account (accounts.probe), bounded by a read's deadline: armLinkPolicy hears what it meets. */
  async #probeAzure(): Promise<void> {
    const { accounts, armLink } = this.#deps;
    const timeoutMs = armLink?.config.readTimeoutMs ?? 10_000;
    await Promise.all(accounts.names().map((name) => accounts.probe(name, timeoutMs)));
  }

  /** Whether the judgement on this replica's link to Azure lets it claim (no link watched: always). */
  #mayClaim(): boolean {
    return this.#deps.armLink?.judge(Date.now()).claim ?? true;
  }

  /** Asks the task, if it runs here, to stop at its next safe point; the store holds the request for other replicas. */
  cancel(id: string): void {
    this.#active.get(id)?.cancel.abort();
  }

  /** One claim at a time; a wake-up during a claim makes it claim again once done. */
  #claim(): Promise<void> {
    if (this.#claiming) {
      this.#claimAgain = true;
      return this.#claiming;
    }
    this.#claiming = (async () => {
      do {
        this.#claimAgain = false;
        try {
          await this.#claimOnce();
        } catch (err) {
          this.#deps.onInternalError?.(err);
        }
      } while (this.#claimAgain && !this.#stopping);
    })().finally(() => (this.#claiming = undefined));
    return this.#claiming;
  }

  async #claimOnce(): Promise<void> {
    const { store, config } = this.#deps;
    if (this.#stopping || config.tasks.concurrency - this.#active.size <= 0 || !this.#mayClaim()) return;
    // Submissions first: a claim starts task work, and the burst that woke it is still being accepted.
    const turn = this.#acceptFirst.turn();
    if (turn) await turn;
    const room = config.tasks.concurrency - this.#active.size;
    if (this.#stopping || room <= 0) return;
    // Sent now: the leases the store grants in answer end no earlier than this plus leaseMs (lease-deadline.ts).
    const leasedAtMs = monotonicNow();
    const deadline = leaseDeadline(leasedAtMs, config.tasks.leaseMs);
    for (const task of await store.claim(this.#owner, config.tasks.leaseMs, room)) {
      if (this.#active.has(task.id) || this.#stopping) continue;
      // A claim answered after the lease it granted had ended here: left for the next claim, of whoever makes it.
      if (monotonicNow() >= deadline) continue;
      const abort = new AbortController();
      const cancel = new AbortController();
      if (task.cancelRequestedAtMs !== undefined) cancel.abort();
      // At the deadline the run stops at once, mid-call if need be: another replica may claim the task from then on.
      const lease = new TaskLease(task.id, deadline, (expired) => {
        if (!abort.signal.aborted) abort.abort(expired);
      });
      const done = this.#run(task, abort, cancel.signal, lease)
        .catch((err) => this.#deps.onInternalError?.(err, task.id))
        .finally(() => {
          lease.stop();
          this.#active.delete(task.id);
          this.#deps.onRunEnded?.(task.id);
          // A slot is free, and the task may have been what others on its scale sets waited for.
          this.#wake();
        });
      this.#active.set(task.id, { abort, leasedAtMs, lease, cancel, done });
    }
  }

  /**
   * Stops claiming, interrupts the tasks in flight (each keeps its checkpoint and gives its lease back, so another
   * replica, or this one after a restart, continues them), and waits for them up to timeoutMs.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.#stopping = true;
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    const unwatch = await this.#unwatch;
    this.#unwatch = undefined;
    await unwatch?.().catch(() => {});
    await this.#claiming;
    for (const a of this.#active.values()) a.abort.abort(new Error("shutting down"));
    const all = Promise.allSettled([...this.#active.values()].map((a) => a.done));
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([all, new Promise((r) => (timer = setTimeout(r, timeoutMs)))]);
    clearTimeout(timer);
  }

  /** Resolves when no task is in flight here (tests). */
  async idle(): Promise<void> {
    while (this.#active.size > 0) await Promise.allSettled([...this.#active.values()].map((a) => a.done));
  }

  async #run(task: Task, abort: AbortController, cancel: AbortSignal, lease: TaskLease): Promise<void> {
    // Its states and moves: task-run.ts; what it writes: task-journal.ts; what it decides: task-outcome.ts.
    const deps = { ...this.#deps, acceptFirst: this.#acceptFirst };
    return new TaskRun(deps, this.#owner, task, abort, cancel, lease).run();
  }
}
