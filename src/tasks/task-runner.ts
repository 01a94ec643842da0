// Runs tasks: claims runnable ones from the store under a lease, runs their operations in order through the
// executeOp harness, checkpoints every step, and writes what happens into the task. Several replicas can share
// one store: a lease decides who runs a task, and a replica that loses the lease stops touching it.
import type { Config } from "../config.ts";
import type { AccountRegistry } from "../azure/accounts.ts";
import { describeArmFailure } from "../azure/arm-failure.ts";
import { observeArmResponses } from "../azure/arm-observer.ts";
import { executeOp, OperationFailedError, type Checkpoint } from "../azure/execute-op.ts";
import { ScaleSetQueue, scaleSetKey } from "../azure/scale-set-queue.ts";
import type { LocatedDescription, AnyOperation } from "../operations/operation.ts";
import type { ServerGroupResult } from "../operations/server-group-state.ts";
import type { OperationRequest, Task, TaskFailure } from "./task.ts";
import type { TaskChange, TaskStore } from "./task-store.ts";
import type { TaskEventContext, TaskObserver } from "./task-observer.ts";

export interface TaskRunnerDeps {
  store: TaskStore;
  accounts: AccountRegistry;
  operations: ReadonlyMap<string, AnyOperation>;
  config: Pick<Config, "retry" | "lroPollIntervalMs" | "tasks">;
  /** Metrics and structured logs. */
  observer?: TaskObserver;
  /** Where unexpected errors go (the service's logger). */
  onInternalError?: (err: unknown, taskId?: string) => void;
}

/** resizeServerGroup → RESIZE_SERVER_GROUP, the phase name Clouddriver would show. */
export function phaseOf(operation: string): string {
  return operation.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** This replica no longer holds the task's lease: another one runs it now. */
class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

interface ActiveTask {
  abort: AbortController;
  done: Promise<void>;
}

const PRUNE_EVERY_MS = 60_000;
const COMPLETED = "Orchestration completed.";

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #owner: string;
  readonly #active = new Map<string, ActiveTask>();
  readonly #queue = new ScaleSetQueue();
  #timer: NodeJS.Timeout | undefined;
  #ticking: Promise<void> | undefined;
  #tickAgain = false;
  #stopping = false;
  #lastPrune = 0;

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
    this.#owner = deps.config.tasks.replicaId;
  }

  get replicaId(): string {
    return this.#owner;
  }

  /** Tasks in flight in this process. */
  get active(): number {
    return this.#active.size;
  }

  /** Starts claiming work: at once, then every claimIntervalMs. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#deps.config.tasks.claimIntervalMs);
    void this.tick();
  }

  /** Creates the task (or finds the one with the same clientRequestId); a new one is claimed at once. */
  async submit(operations: OperationRequest[], clientRequestId?: string) {
    const { task, created } = await this.#deps.store.create({ operations, clientRequestId });
    if (created && this.#timer) void this.tick();
    return { task, created };
  }

  /** Renews the leases of running tasks, claims new ones up to the concurrency, prunes old ones now and then. */
  async tick(): Promise<void> {
    if (this.#ticking) {
      this.#tickAgain = true;
      return this.#ticking;
    }
    this.#ticking = (async () => {
      do {
        this.#tickAgain = false;
        try {
          await this.#tickOnce();
        } catch (err) {
          this.#deps.onInternalError?.(err);
        }
      } while (this.#tickAgain && !this.#stopping);
    })().finally(() => (this.#ticking = undefined));
    return this.#ticking;
  }

  async #tickOnce(): Promise<void> {
    const { store, config } = this.#deps;
    const { leaseMs, concurrency, retentionMs } = config.tasks;
    if (this.#active.size > 0) {
      const ids = [...this.#active.keys()];
      const held = new Set(await store.renew(this.#owner, ids, leaseMs));
      for (const id of ids) if (!held.has(id)) this.#active.get(id)?.abort.abort(new LeaseLostError(`lease on ${id} lost`));
    }
    if (this.#stopping) return;
    const room = concurrency - this.#active.size;
    if (room > 0) {
      for (const task of await store.claim(this.#owner, leaseMs, room)) {
        if (this.#active.has(task.id) || this.#stopping) continue;
        const abort = new AbortController();
        const done = this.#run(task, abort)
          .catch((err) => this.#deps.onInternalError?.(err, task.id))
          .finally(() => this.#active.delete(task.id));
        this.#active.set(task.id, { abort, done });
      }
    }
    if (Date.now() - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = Date.now();
      await store.prune(Date.now() - retentionMs);
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
    await this.#ticking;
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

  async #run(task: Task, abort: AbortController): Promise<void> {
    const { store, accounts, operations, config, observer } = this.#deps;
    const owner = this.#owner;
    const id = task.id;
    const ctx: TaskEventContext = { taskId: id, operation: task.operations[task.operationIndex]?.name ?? "" };
    const lost = () => abort.abort(new LeaseLostError(`lease on ${id} lost`));
    // History lines are chained so they land in order although the harness logs synchronously.
    let pending: Promise<void> = Promise.resolve();
    const record = (phase: string, status: string) => {
      observer?.history?.({ ...ctx }, phase, status);
      pending = pending.then(async () => {
        if (!(await store.appendHistory(owner, id, { phase, status, timeMs: Date.now() }))) lost();
      });
    };
    const change = async (c: TaskChange) => {
      await pending;
      if (!(await store.update(owner, id, c))) {
        lost();
        throw new LeaseLostError(`lease on ${id} lost`);
      }
    };
    let armCalls = task.armCalls;
    const countCalls = { onArmResponse: () => void armCalls++ };
    const results: ServerGroupResult[] = [...task.resultObjects];

    try {
      if (task.state === "queued") {
        await change({ state: "running" });
        record("INIT", `Initializing ${task.operations.length === 1 ? "operation" : `${task.operations.length} operations`}: ${task.operations.map((o) => o.name).join(", ")}`);
      } else {
        const phase = task.operationIndex < task.operations.length ? phaseOf(task.operations[task.operationIndex].name) : "ORCHESTRATION";
        record(phase, `Resumed by replica ${owner}: the replica that ran it stopped; continuing from its checkpoint`);
      }
      for (let i = task.operationIndex; i < task.operations.length; i++) {
        const request = task.operations[i];
        const phase = phaseOf(request.name);
        Object.assign(ctx, { operation: request.name, scaleSet: undefined, account: undefined, attempt: undefined });
        const resume = task.checkpoint?.operationIndex === i ? task.checkpoint.inFlight : undefined;
        let failure: TaskFailure | undefined;
        try {
          const op = operations.get(request.name);
          if (!op) throw new Error(`unknown operation ${request.name}`);
          const description = request.description as LocatedDescription;
          const resolved = accounts.resolve(description);
          if (!resolved.ok) throw new Error(resolved.problems.map((p) => `${p.field}: ${p.message}`).join("; "));
          const ref = resolved.ref;
          Object.assign(ctx, { scaleSet: `${ref.account}/${ref.resourceGroup}/${ref.name}`, account: ref.account });
          if (i !== task.operationIndex || task.state === "queued") {
            await change({ operationIndex: i });
            record(phase, `Starting: ${op.describe(description)} (account ${ref.account}, region ${ref.region}, resource group ${ref.resourceGroup})`);
          }
          const queuedAt = Date.now();
          const onCheckpoint = (c: Checkpoint) => {
            observer?.checkpoint?.({ ...ctx, attempt: c.attempt }, c);
            ctx.attempt = c.attempt;
            return change({ checkpoint: { operationIndex: i, attempt: c.attempt, ...(c.inFlight ? { inFlight: c.inFlight } : {}) }, armCalls });
          };
          const result = await this.#queue.run(
            scaleSetKey(ref),
            () => {
              observer?.queueWaited?.({ ...ctx }, Date.now() - queuedAt);
              return observeArmResponses(countCalls, () =>
                executeOp({
              gateway: accounts.gateway(ref),
              planner: op.planner(description, ref),
              retry: config.retry,
              lroPollIntervalMs: config.lroPollIntervalMs,
              log: (line) => record(phase, line),
              signal: abort.signal,
              resume,
              onAttemptEnd: (end) => {
                observer?.attemptEnded?.({ ...ctx, attempt: end.attempt }, end);
                ctx.attempt = end.attempt + 1;
              },
              onCheckpoint,
                }),
              );
            },
            (ahead) => record(phase, `queued: ${ahead} operation(s) of other tasks on ${ref.name} go first (one operation at a time per scale set)`),
            abort.signal,
          );
          results.push(result);
          record(phase, `Done: ${ref.name} has capacity ${result.capacity.desired} (min ${result.capacity.min}, max ${result.capacity.max})${result.disabled ? ", disabled" : ""}, as Azure confirmed`);
        } catch (err) {
          if (abort.signal.aborted) throw abort.signal.reason ?? err;
          if (err instanceof OperationFailedError) {
            failure = { operation: request.name, code: err.failure.code ?? err.failure.kind, message: err.message, retryable: err.retryable };
          } else {
            const f = describeArmFailure(err);
            failure = { operation: request.name, code: f.code ?? "InternalError", message: f.message, retryable: false };
            this.#deps.onInternalError?.(err, id);
          }
          record(phase, `Failed: ${failure.message}`);
        }
        if (failure) {
          await change({ resultObjects: results, armCalls, checkpoint: null, state: "failed", failure, finishedAtMs: Date.now() });
          observer?.finished?.(task, "failed", request.name);
          return;
        }
        await change({ resultObjects: results, armCalls, checkpoint: null, operationIndex: i + 1 });
      }
      // A replica that died after this line but before the state change left it behind: don't say it twice.
      if (task.history.at(-1)?.status !== COMPLETED) record("ORCHESTRATION", COMPLETED);
      await change({ state: "succeeded", finishedAtMs: Date.now(), armCalls });
      observer?.finished?.(task, "succeeded");
    } catch (err) {
      if (!abort.signal.aborted && !(err instanceof LeaseLostError)) throw err;
      // Interrupted (shutdown) or overtaken (lease lost): the checkpoint stays for whoever continues the task.
      await pending.catch(() => {});
      if (!(abort.signal.reason instanceof LeaseLostError)) {
        await store.update(owner, id, { armCalls }).catch(() => false);
        await store.release(owner, id);
      }
    }
  }
}
