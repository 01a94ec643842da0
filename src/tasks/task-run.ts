// One run of a task in this replica, from its claim to its end: its operations in order from where the task
// stands, each located, prepared and run through the executeOp harness, then the task's final write.
//
//   opening line ─▶ operation i ──done──▶ operation i+1 … ──done, last──▶ succeeded
//                        ├──failed──▶ failed
//                        └──canceled──▶ canceled
//   from anywhere: interrupted, by the shutdown (the task is handed over) or a lost lease (it is left alone)
//
// The decisions are task-outcome.ts's, the writes task-journal.ts's; this file acts on them.
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { RetryConfig } from "../azure/retry-policy.ts";
import { listenToArmResponses } from "../azure/arm-listeners.ts";
import { armWaitLine } from "../azure/arm-budget/budget.ts";
import { RefusalError } from "../azure/arm-failure.ts";
import { executeOp } from "../azure/execute-op.ts";
import { CanceledOnRequestError } from "../azure/harness/failures.ts";
import type { Checkpoint } from "../azure/harness/input.ts";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { AnyOperation, LocatedDescription, TaskOrigin } from "../operations/operation.ts";
import { changeSinceLocated, locate } from "../operations/locate.ts";
import { describeResult, type OperationResult } from "../operations/server-group-state.ts";
import type { Task, TaskCheckpoint } from "./task.ts";
import type { TaskStore } from "./task-store.ts";
import type { TaskEventContext, TaskListener } from "./task-listener.ts";
import { interruptionOf, TaskJournal } from "./task-journal.ts";
import {
  contextOfTraceparent,
  currentTraceparent,
  inSpan,
  linkTo,
  markStopped,
  SpanKind,
  traceIdOf,
} from "../tracing/spans.ts";
import type { AcceptFirst } from "./accept-first.ts";
import { LeaseExpiredError, type TaskLease } from "./lease-deadline.ts";
import {
  accountsChanged,
  asOperationFailure,
  changeAfter,
  changeWhenAllDone,
  chooseNameAgain,
  COMPLETED,
  endAfter,
  openingLine,
  outcomeOfError,
  phaseOf,
  CheckpointWrites,
  unfinishedLine,
  type OperationOutcome,
  type Gathered,
  type TaskEnd,
} from "./task-outcome.ts";

/** What a run needs; the runner's own dependencies add to these (TaskRunnerDeps). */
export interface TaskRunDeps {
  store: TaskStore;
  accounts: AccountRegistry;
  operations: ReadonlyMap<string, AnyOperation>;
  config: {
    retry: RetryConfig;
    lroPollIntervalMs: number;
    lroMaxPollIntervalMs: number;
    /** A lease lost is handed back within leaseMs, tried every claimIntervalMs (TasksConfig). */
    tasks: { leaseMs: number; claimIntervalMs: number };
  };
  /** Metrics and structured logs. */
  listener?: TaskListener;
  /** Where unexpected errors go (the service's logger). */
  onInternalError?: (err: unknown, taskId?: string) => void;
  /** Submissions are answered before task work goes on: each ARM call of the run waits its turn (accept-first.ts). */
  acceptFirst?: AcceptFirst;
}

/** An operation of the task, located: what each naming of it runs with. */
interface LocatedOperation {
  op: AnyOperation;
  description: LocatedDescription;
  /** The scale set the description locates (a create: its cluster, until prepare names one). */
  ref: ScaleSetRef;
  origin: TaskOrigin;
  /** A write accepted before a restart, to follow to its end first. */
  resume: TaskCheckpoint["inFlight"];
  /** The planner's memory from the checkpoint of an earlier run of this operation. */
  memory?: unknown;
}

export class TaskRun {
  readonly #deps: TaskRunDeps;
  readonly #owner: string;
  readonly #task: Task;
  /** Shutdown or lease lost: stops at once, even mid-write. */
  readonly #interrupt: AbortSignal;
  /** Cancel on request: stops at the next safe point. */
  readonly #cancel: AbortSignal;
  readonly #journal: TaskJournal;
  /** The lease's local deadline, checked before every call that acts for the task (lease-deadline.ts). */
  readonly #lease: Pick<TaskLease, "check" | "live"> | undefined;
  /** What the listener is told each event is about; it follows the run. */
  readonly #eventContext: TaskEventContext;
  readonly #results: OperationResult[];
  readonly #checkpointWrites: CheckpointWrites;
  #armCalls: number;
  /** This run's span (tracing on): in the checkpoints it writes, for a process taking over to link to. */
  #traceparent: string | undefined;
  /** Told of this task's ARM calls: each counted, its waits for the budget said, none sent past the lease. */
  readonly #armCallListener = {
    onArmResponse: () => void this.#armCalls++,
    // A call of this task waits for the ARM budget: the task says so.
    onArmWait: (wait: { budget: string; waitMs: number }) =>
      this.#log(phaseOf(this.#eventContext.operation), armWaitLine(wait)),
    // Each ARM call is a step of task work: submissions being accepted go first (accept-first.ts). Past the lease's
    // local deadline no call is sent: the check throws, and has stopped the run.
    beforeArmCall: () => {
      this.#lease?.check();
      const turn = this.#deps.acceptFirst?.turn();
      return turn?.then(() => this.#lease?.check());
    },
  };

  constructor(
    deps: TaskRunDeps,
    owner: string,
    task: Task,
    interrupt: AbortController,
    cancel: AbortSignal,
    lease?: Pick<TaskLease, "check" | "live">,
  ) {
    this.#deps = deps;
    this.#lease = lease;
    this.#owner = owner;
    this.#task = task;
    this.#interrupt = interrupt.signal;
    this.#cancel = cancel;
    this.#journal = new TaskJournal({
      store: deps.store,
      owner,
      taskId: task.id,
      running: task.state !== "queued",
      interrupt,
      handBackWithinMs: deps.config.tasks.leaseMs,
      handBackEveryMs: deps.config.tasks.claimIntervalMs,
      ...(lease ? { leaseLive: () => lease.live } : {}),
    });
    this.#eventContext = { taskId: task.id, operation: task.operations[task.operationIndex]?.name ?? "" };
    this.#results = [...task.resultObjects];
    this.#checkpointWrites = new CheckpointWrites(task.checkpoint);
    this.#armCalls = task.armCalls;
  }

  /**
   * The run, as a span of the task's trace (its submission's): a run that takes over from a replica that stopped is
   * linked to the span of the run that wrote the checkpoint it continues from.
   */
  run(): Promise<void> {
    const task = this.#task;
    const resumed = task.state !== "queued";
    return inSpan(
      `run ${task.operations.map((o) => o.name).join(", ")}`,
      {
        kind: SpanKind.CONSUMER,
        parent: contextOfTraceparent(task.traceparent),
        links: resumed ? linkTo(task.checkpoint?.traceparent, { "vmss.link": "resumed from" }) : [],
        attributes: { "vmss.task.id": task.id, "vmss.replica": this.#owner, "vmss.task.resumed": resumed },
      },
      async (span) => {
        this.#traceparent = currentTraceparent();
        await this.#runOperations();
        if (this.#interrupt.aborted) markStopped(span, `stopped here: ${String(this.#interrupt.reason)}`);
      },
    );
  }

  async #runOperations(): Promise<void> {
    const task = this.#task;
    try {
      const opening = openingLine(task, this.#owner);
      const traceId = traceIdOf(task.traceparent);
      this.#log(opening.phase, traceId ? `${opening.status} (trace ${traceId})` : opening.status);
      for (let i = task.operationIndex; i < task.operations.length; i++) {
        const outcome = await this.#operation(i);
        const end = endAfter(outcome, i === task.operations.length - 1);
        if (end) return await this.#end(i, end);
        this.#checkpointWrites.cleared();
        await this.#journal.change(changeAfter(i, undefined, this.#gathered(), Date.now()));
      }
      // Every operation was done before this run (a replica died before marking the task done). One that died
      // after writing the completion line left it behind: don't say it twice.
      if (task.history.at(-1)?.status !== COMPLETED) this.#log("ORCHESTRATION", COMPLETED);
      await this.#journal.change(changeWhenAllDone(this.#armCalls, Date.now()));
      this.#deps.listener?.finished?.(task, "succeeded");
    } catch (err) {
      const why = interruptionOf(this.#interrupt, err);
      if (!why) throw err;
      // Said now: the store has not confirmed a renewal in time, and nothing more is written for the task here.
      if (this.#interrupt.reason instanceof LeaseExpiredError)
        this.#deps.onInternalError?.(this.#interrupt.reason, task.id);
      // Said now, while the store is down: the line in the task's history waits for the store to answer.
      if (why === "storeFailed") this.#deps.onInternalError?.(this.#interrupt.reason ?? err, task.id);
      await this.#journal.interrupted(why, this.#armCalls);
    }
  }

  /** The task's final write after operation `index`, then the listener told. */
  async #end(index: number, end: TaskEnd): Promise<void> {
    // The result and the end in one commit.
    if (end.state === "succeeded") this.#log("ORCHESTRATION", COMPLETED);
    await this.#journal.change(changeAfter(index, end, this.#gathered(), Date.now()));
    if (end.state === "succeeded") this.#deps.listener?.finished?.(this.#task, "succeeded");
    else this.#deps.listener?.finished?.(this.#task, end.state, this.#task.operations[index].name);
  }

  /** Runs operation `index` to its outcome, closed by a line that says it; throws only when the run is interrupted. */
  async #operation(index: number): Promise<OperationOutcome> {
    const { operations } = this.#task;
    const request = operations[index];
    const phase = phaseOf(request.name);
    Object.assign(this.#eventContext, {
      operation: request.name,
      scaleSet: undefined,
      account: undefined,
      attempt: undefined,
    });
    try {
      const result = await this.#perform(index, phase);
      this.#results.push(result);
      this.#log(phase, `Done: ${describeResult(result)}`);
      return { kind: "done", result };
    } catch (err) {
      if (this.#interrupt.aborted) throw this.#interrupt.reason ?? err;
      const outcome = outcomeOfError(err, request.name);
      if (outcome.kind === "failed" && outcome.result) this.#results.push(outcome.result);
      if (outcome.kind === "failed" && outcome.internal) this.#deps.onInternalError?.(err, this.#task.id);
      this.#log(phase, unfinishedLine(outcome, this.#task, index));
      return outcome;
    }
  }

  /** Locates operation `index`, says it starts, and runs it; throws how it ended otherwise. */
  async #perform(index: number, phase: string): Promise<OperationResult> {
    const { operations, listener } = this.#deps;
    const task = this.#task;
    const request = task.operations[index];
    const resume = task.checkpoint?.operationIndex === index ? task.checkpoint.inFlight : undefined;
    // Between operations is a safe point; a write of this operation still in flight is followed first, and an
    // operation a replica before this one had started ends in the harness, which undoes what it holds (repairs).
    const started = task.checkpoint?.operationIndex === index;
    if (this.#cancel.aborted && !resume && !started)
      throw new CanceledOnRequestError(`canceled before ${request.name}`, []);
    const op = operations.get(request.name);
    // A replica of another version accepted it (a rolling deploy): not a bug of ours, and nothing was written.
    if (!op)
      throw new RefusalError(
        "UnknownOperation",
        `this replica has no operation ${request.name} (the task was accepted by a replica of another version); nothing was written: run it again once every replica has it`,
      );
    const description = request.description as LocatedDescription;
    const target = this.#target(index, op, description);
    // Named by the located scale set (a create: its cluster) until prepare names the one it acts on.
    this.#actingOn(target);
    // An operation a replica before this one started said so already.
    if (index !== task.operationIndex || task.state === "queued") {
      this.#log(
        phase,
        `Starting: ${op.describe(description)} (account ${target.account}, region ${target.region}, resource group ${target.resourceGroup})`,
      );
    }
    // The time the task waited in the store's queue (behind earlier tasks on its scale sets, or for a slot).
    if (index === task.operationIndex && task.state === "queued")
      listener?.queueWaited?.(
        { ...this.#eventContext },
        queueWaitMs(task, this.#deps.config.tasks.leaseMs, Date.now()),
      );
    const origin: TaskOrigin = {
      taskId: task.id,
      ...(task.clientRequestId !== undefined ? { clientRequestId: task.clientRequestId } : {}),
    };
    // An operation that names its scale set when it runs (create) does so now, from what Azure lists; a name
    // that turns out taken (another writer created it in between) is chosen again, a bounded number of times.
    const memory = task.checkpoint?.operationIndex === index ? task.checkpoint.planner : undefined;
    const operation: LocatedOperation = {
      op,
      description,
      ref: target,
      origin,
      resume,
      ...(memory !== undefined ? { memory } : {}),
    };
    for (let naming = 1; ; naming++) {
      try {
        return await this.#execute(index, phase, operation);
      } catch (err) {
        if (!chooseNameAgain(err, op.prepare !== undefined, naming)) throw err;
        this.#log(phase, `${(err as Error).message}; choosing the name again`);
      }
    }
  }

  /**
   * Where operation `index` acts: the scale set located at submission, which the store ordered the task by, unless
   * the accounts no longer reach it as located; a task stored before targets were is located now.
   */
  #target(index: number, op: AnyOperation, description: LocatedDescription): ScaleSetRef {
    const { accounts } = this.#deps;
    const stored = this.#task.targets?.[index];
    if (stored) {
      const change = changeSinceLocated(accounts, stored);
      if (change)
        throw accountsChanged(
          `${change}; the task located ${stored.name} in account ${stored.account}, subscription ${stored.subscriptionId}, region ${stored.region}, resource group ${stored.resourceGroup}`,
        );
      return stored;
    }
    const located = locate(accounts, op, description);
    if (!located.ok) throw accountsChanged(located.problems.map((p) => `${p.field}: ${p.message}`).join("; "));
    return located.ref;
  }

  /** One naming of operation `index`: prepare (when it names its scale set), then the harness. */
  async #execute(
    index: number,
    phase: string,
    { op, description, ref: locatedRef, origin, resume, memory }: LocatedOperation,
  ): Promise<OperationResult> {
    const { accounts, config, listener } = this.#deps;
    const log = (line: string) => this.#log(phase, line);
    const prepared = op.prepare
      ? await listenToArmResponses(this.#armCallListener, () =>
          op.prepare!(description, { accounts, origin, log, signal: this.#interrupt }),
        ).catch(asOperationFailure)
      : undefined;
    const ref = prepared ? { ...locatedRef, name: prepared.serverGroupName } : locatedRef;
    this.#actingOn(ref);
    // The store handed this task out only as the first on its scale sets: nothing else of ours writes them now.
    return listenToArmResponses(this.#armCallListener, () =>
      executeOp({
        gateway: accounts.gateway(ref),
        planner: op.planner(description, ref, {
          origin,
          ...(prepared ? { prepared } : {}),
          ...(memory !== undefined ? { memory } : {}),
        }),
        retry: config.retry,
        lroPollIntervalMs: config.lroPollIntervalMs,
        lroMaxPollIntervalMs: config.lroMaxPollIntervalMs,
        log,
        signal: this.#interrupt,
        cancel: this.#cancel,
        ...(this.#lease ? { beforeWrite: () => this.#lease!.check() } : {}),
        resume,
        onAttemptEnd: (end) => {
          listener?.attemptEnded?.({ ...this.#eventContext, attempt: end.attempt }, end);
          // The lines after it are the next attempt's only when there is one ("Done" is the last attempt's).
          this.#eventContext.attempt = end.outcome === "retry" ? end.attempt + 1 : end.attempt;
        },
        onCheckpoint: (c) => this.#checkpoint(index, c),
      }),
    );
  }

  /** Where operation `index` stands; written when it tells a process taking over something new. */
  #checkpoint(index: number, c: Checkpoint): Promise<void> | undefined {
    this.#deps.listener?.checkpoint?.({ ...this.#eventContext, attempt: c.attempt }, c);
    this.#eventContext.attempt = c.attempt;
    const checkpoint: TaskCheckpoint = {
      operationIndex: index,
      attempt: c.attempt,
      ...(c.inFlight ? { inFlight: c.inFlight } : {}),
      ...(c.planner !== undefined ? { planner: c.planner } : {}),
      ...(this.#traceparent ? { traceparent: this.#traceparent } : {}),
    };
    const write = this.#checkpointWrites.writeOf(checkpoint);
    if (write === "unchanged") return;
    if (write === "withNextWrite") {
      this.#journal.recordChange({ checkpoint, armCalls: this.#armCalls });
      return;
    }
    return this.#journal.change({ checkpoint, armCalls: this.#armCalls });
  }

  #actingOn(ref: ScaleSetRef): void {
    Object.assign(this.#eventContext, {
      scaleSet: `${ref.account}/${ref.resourceGroup}/${ref.name}`,
      account: ref.account,
    });
  }

  #gathered(): Gathered {
    return { resultObjects: this.#results, armCalls: this.#armCalls };
  }

  #log(phase: string, status: string): void {
    this.#deps.listener?.history?.({ ...this.#eventContext }, phase, status);
    this.#journal.record(phase, status);
  }
}

/**
 * How long a task waited in the store's queue before this claim, on the store's clock alone: the claim set its lease
 * to the store's now + leaseMs, and its creation time is the store's too. A replica's own clock, skewed from the
 * database's, would add its skew (30 s read for a task queued 2 s on a replica 30 s ahead).
 */
export function queueWaitMs(
  task: { createdAtMs: number; leaseExpiresAtMs?: number },
  leaseMs: number,
  nowMs: number,
): number {
  const claimedAtMs = task.leaseExpiresAtMs !== undefined ? task.leaseExpiresAtMs - leaseMs : nowMs;
  return Math.max(0, claimedAtMs - task.createdAtMs);
}
