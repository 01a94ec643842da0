// Runs tasks: claims runnable ones from the store under a lease, runs their operations in order through the
// executeOp harness, checkpoints every step, and writes what happens into the task. Several replicas can share
// one store: a lease decides who runs a task, and a replica that loses the lease stops touching it. The store
// also decides the order: it hands out one task at a time per scale set, in submission order (ordering.ts).
//
// When it claims: whenever it has a free slot and there may be work, that is on a submission here, when one of
// its tasks finishes, when the store says another replica made work (watch), and on the timer, which is only the
// fallback (and the moment leases are renewed and old tasks pruned).
import type { Config } from "../config.ts";
import type { AccountRegistry } from "../azure/accounts.ts";
import { describeArmFailure, failureLabel } from "../azure/arm-failure.ts";
import { isRetryableKind } from "../azure/retry-policy.ts";
import { observeArmResponses } from "../azure/arm-observer.ts";
import { executeOp, OperationCanceledError, OperationFailedError, type Checkpoint } from "../azure/execute-op.ts";
import { NAME_TAKEN, type LocatedDescription, type AnyOperation, type TaskOrigin } from "../operations/operation.ts";
import { describeResult, type OperationResult } from "../operations/server-group-state.ts";
import type { HistoryEntry, OperationRequest, Task, TaskCheckpoint, TaskFailure } from "./task.ts";
import type { TaskChange, TaskStore } from "./task-store.ts";
import { scaleSetKey } from "./ordering.ts";
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
  /** A run of the task here has ended (it finished, or stopped for another replica to go on): for ?wait. */
  onRunEnded?: (taskId: string) => void;
}

/** resizeServerGroup → RESIZE_SERVER_GROUP, the phase name Clouddriver would show. */
export function phaseOf(operation: string): string {
  return operation.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The history line of a canceled task: where it stopped, what was done and what was not. */
export function canceledLine(task: Pick<Task, "operations" | "operationIndex">, index: number, err: OperationCanceledError): string {
  const names = task.operations.map((o) => o.name);
  const done = [
    ...names.slice(0, index).map((n, i) => `${n} (operation ${i + 1})`),
    ...err.writesEnded.map((w) => `${w} (written and ended)`),
  ];
  const current = err.writesEnded.length > 0 ? `the rest of ${names[index]} (confirming it)` : names[index];
  const notDone = [`${current} (operation ${index + 1})`, ...names.slice(index + 1).map((n, i) => `${n} (operation ${index + i + 2})`)];
  return `Canceled on request, ${err.message.replace(/^canceled /, "")}. Done: ${done.length > 0 ? done.join("; ") : "nothing"}. Not done: ${notDone.join("; ")}`;
}

/** This replica no longer holds the task's lease: another one runs it now. */
class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

interface ActiveTask {
  /** Stops at once, even mid-write (shutdown, lease lost): the checkpoint stays for whoever goes on. */
  abort: AbortController;
  /** Stops at the next safe point and ends the task canceled (POST /task/{id}/cancel). */
  cancel: AbortController;
  done: Promise<void>;
}

const PRUNE_EVERY_MS = 60_000;
const COMPLETED = "Orchestration completed.";
/**
 * A failure while an operation chooses its scale set (the listing or the source read answered an error): the task
 * fails with Azure's error, retryable when the retry policy says a resume could succeed. Our own bugs stay what they are.
 */
function asOperationFailure(err: unknown): never {
  const failure = describeArmFailure(err);
  if (failure.kind === "programming" || err instanceof OperationFailedError) throw err;
  throw new OperationFailedError(`${failureLabel(failure)}: ${failure.message}`, failure, 1, isRetryableKind(failure.kind));
}

/** How often an operation that names its scale set may choose a name again after finding it taken. */
const MAX_NAMINGS = 3;

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #owner: string;
  readonly #active = new Map<string, ActiveTask>();
  #timer: NodeJS.Timeout | undefined;
  #unwatch: Promise<(() => Promise<void>) | undefined> | undefined;
  #claiming: Promise<void> | undefined;
  #claimAgain = false;
  /** A wake-up's claim waits for the end of this turn of the event loop (#wake). */
  #wakeScheduled = false;
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

  /** Starts claiming work: at once, on every wake-up, and every claimIntervalMs as the fallback. */
  start(): void {
    if (this.#timer) return;
    this.#timer = setInterval(() => void this.tick(), this.#deps.config.tasks.claimIntervalMs);
    this.#unwatch = this.#deps.store.watch
      ? this.#deps.store.watch(() => this.#wake()).catch((err) => {
          this.#deps.onInternalError?.(err);
          return undefined;
        })
      : undefined;
    void this.tick();
  }

  /** The scale sets a task names, in the store's terms (ordering.ts); one the accounts cannot resolve names none. */
  scaleSetsOf(operations: OperationRequest[]): string[] {
    const keys = new Set<string>();
    for (const o of operations) {
      const op = this.#deps.operations.get(o.name);
      const description = o.description as LocatedDescription;
      // A create is ordered by its cluster: two creates of one cluster would only race for the same next name.
      const resolved = this.#deps.accounts.resolve(op?.locator ? op.locator(description) : description);
      if (resolved.ok) keys.add(scaleSetKey(resolved.ref));
    }
    return [...keys];
  }

  /** Creates the task (or finds the one with the same clientRequestId); a new one is claimed at once if it can be. */
  async submit(operations: OperationRequest[], clientRequestId?: string, history?: HistoryEntry[]) {
    const { task, created } = await this.#deps.store.create({ operations, clientRequestId, scaleSets: this.scaleSetsOf(operations), ...(history ? { history } : {}) });
    if (created) this.#wake();
    return { task, created };
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
    try {
      await this.#renew();
    } catch (err) {
      this.#deps.onInternalError?.(err);
    }
    await this.#claim();
    if (!this.#stopping && Date.now() - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = Date.now();
      await this.#deps.store.prune(Date.now() - this.#deps.config.tasks.retentionMs).catch((err) => this.#deps.onInternalError?.(err));
    }
  }

  async #renew(): Promise<void> {
    if (this.#active.size === 0) return;
    const ids = [...this.#active.keys()];
    const held = new Set(await this.#deps.store.renew(this.#owner, ids, this.#deps.config.tasks.leaseMs));
    for (const id of ids) if (!held.has(id)) this.#active.get(id)?.abort.abort(new LeaseLostError(`lease on ${id} lost`));
    // A cancel asked of another replica reaches this one through the store.
    for (const id of await this.#deps.store.cancelRequested([...held])) this.cancel(id);
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
    const room = config.tasks.concurrency - this.#active.size;
    if (this.#stopping || room <= 0) return;
    for (const task of await store.claim(this.#owner, config.tasks.leaseMs, room)) {
      if (this.#active.has(task.id) || this.#stopping) continue;
      const abort = new AbortController();
      const cancel = new AbortController();
      if (task.cancelRequestedAtMs !== undefined) cancel.abort();
      const done = this.#run(task, abort, cancel.signal)
        .catch((err) => this.#deps.onInternalError?.(err, task.id))
        .finally(() => {
          this.#active.delete(task.id);
          this.#deps.onRunEnded?.(task.id);
          // A slot is free, and the task may have been what others on its scale sets waited for.
          this.#wake();
        });
      this.#active.set(task.id, { abort, cancel, done });
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

  async #run(task: Task, abort: AbortController, cancel: AbortSignal): Promise<void> {
    const { store, accounts, operations, config, observer } = this.#deps;
    const owner = this.#owner;
    const id = task.id;
    const ctx: TaskEventContext = { taskId: id, operation: task.operations[task.operationIndex]?.name ?? "" };
    const lost = () => abort.abort(new LeaseLostError(`lease on ${id} lost`));
    // One commit per step: history lines wait in a buffer and go with the next change, or on their own once the
    // lines logged together have all arrived (setImmediate). Every write goes through one chain, so they land in
    // order although the harness logs synchronously.
    let buffer: HistoryEntry[] = [];
    let chain: Promise<unknown> = Promise.resolve();
    let flushScheduled = false;
    let running = task.state !== "queued";
    const write = (c: TaskChange): Promise<boolean> => {
      const p = chain.then(() => {
        let full: TaskChange = buffer.length > 0 ? { ...c, history: buffer } : c;
        buffer = [];
        // The first write of a queued task marks it running.
        if (!running) full = { state: "running", ...full };
        if (Object.keys(full).length === 0) return true;
        return store.update(owner, id, full).then((ok) => {
          if (ok) running = true;
          return ok;
        });
      });
      chain = p.catch(() => {});
      return p;
    };
    const record = (phase: string, status: string) => {
      observer?.history?.({ ...ctx }, phase, status);
      buffer.push({ phase, status, timeMs: Date.now() });
      if (flushScheduled) return;
      flushScheduled = true;
      setImmediate(() => {
        flushScheduled = false;
        if (buffer.length === 0) return;
        write({}).then((ok) => ok || lost(), lost);
      });
    };
    const change = async (c: TaskChange) => {
      if (!(await write(c))) {
        lost();
        throw new LeaseLostError(`lease on ${id} lost`);
      }
    };
    let armCalls = task.armCalls;
    const countCalls = { onArmResponse: () => void armCalls++ };
    const results: OperationResult[] = [...task.resultObjects];
    // What a process taking over would find: no checkpoint means attempt 1 with nothing in flight, so writing that
    // would change nothing.
    let lastCheckpoint = JSON.stringify(task.checkpoint ?? null);

    try {
      if (task.state === "queued") {
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
        const last = i === task.operations.length - 1;
        let failure: TaskFailure | undefined;
        try {
          // Between operations is a safe point; a write of this operation still in flight is followed first.
          if (cancel.aborted && !resume) throw new OperationCanceledError(`canceled before ${request.name}`, []);
          const op = operations.get(request.name);
          if (!op) throw new Error(`unknown operation ${request.name}`);
          const description = request.description as LocatedDescription;
          const located = accounts.resolve(op.locator ? op.locator(description) : description);
          if (!located.ok) throw new Error(located.problems.map((p) => `${p.field}: ${p.message}`).join("; "));
          // Named by the located scale set (a create: its cluster) until prepare names the one it acts on.
          Object.assign(ctx, { scaleSet: `${located.ref.account}/${located.ref.resourceGroup}/${located.ref.name}`, account: located.ref.account });
          if (i !== task.operationIndex || task.state === "queued") {
            record(phase, `Starting: ${op.describe(description)} (account ${located.ref.account}, region ${located.ref.region}, resource group ${located.ref.resourceGroup})`);
          }
          // The time the task waited in the store's queue (behind earlier tasks on its scale sets, or for a slot).
          if (i === task.operationIndex && task.state === "queued") observer?.queueWaited?.({ ...ctx }, Date.now() - task.createdAtMs);
          const origin: TaskOrigin = { taskId: id, ...(task.clientRequestId !== undefined ? { clientRequestId: task.clientRequestId } : {}) };
          const onCheckpoint = (c: Checkpoint) => {
            observer?.checkpoint?.({ ...ctx, attempt: c.attempt }, c);
            ctx.attempt = c.attempt;
            const checkpoint: TaskCheckpoint = { operationIndex: i, attempt: c.attempt, ...(c.inFlight ? { inFlight: c.inFlight } : {}) };
            const same = JSON.stringify(checkpoint) === lastCheckpoint || (lastCheckpoint === "null" && c.attempt === 1 && !c.inFlight);
            if (same) return;
            lastCheckpoint = JSON.stringify(checkpoint);
            return change({ checkpoint, armCalls });
          };
          // An operation that names its scale set when it runs (create) does so now, from what Azure lists; a name
          // that turns out taken (another writer created it in between) is chosen again, a bounded number of times.
          const run = async (): Promise<OperationResult> => {
            const prepared = op.prepare
              ? await observeArmResponses(countCalls, () => op.prepare!(description, { accounts, origin, log: (line) => record(phase, line), signal: abort.signal })).catch(asOperationFailure)
              : undefined;
            const ref = prepared ? { ...located.ref, name: prepared.serverGroupName } : located.ref;
            Object.assign(ctx, { scaleSet: `${ref.account}/${ref.resourceGroup}/${ref.name}`, account: ref.account });
            // The store handed this task out only as the first on its scale sets: nothing else of ours writes them now.
            return observeArmResponses(countCalls, () =>
              executeOp({
                gateway: accounts.gateway(ref),
                planner: op.planner(description, ref, { origin, ...(prepared ? { prepared } : {}) }),
                retry: config.retry,
                lroPollIntervalMs: config.lroPollIntervalMs,
                log: (line) => record(phase, line),
                signal: abort.signal,
                cancel,
                resume,
                onAttemptEnd: (end) => {
                  observer?.attemptEnded?.({ ...ctx, attempt: end.attempt }, end);
                  ctx.attempt = end.attempt + 1;
                },
                onCheckpoint,
              }),
            );
          };
          let result: OperationResult;
          for (let naming = 1; ; naming++) {
            try {
              result = await run();
              break;
            } catch (err) {
              const taken = err instanceof OperationFailedError && err.failure.code === NAME_TAKEN && op.prepare !== undefined && naming < MAX_NAMINGS;
              if (!taken) throw err;
              record(phase, `${(err as Error).message}; choosing the name again`);
            }
          }
          results.push(result);
          record(phase, `Done: ${describeResult(result)}`);
        } catch (err) {
          if (abort.signal.aborted) throw abort.signal.reason ?? err;
          if (err instanceof OperationCanceledError) {
            record(phase, canceledLine(task, i, err));
            await change({ resultObjects: results, armCalls, checkpoint: null, state: "canceled", finishedAtMs: Date.now() });
            observer?.finished?.(task, "canceled", request.name);
            return;
          }
          if (err instanceof OperationFailedError) {
            // A scale set Azure could not confirm: its result says what Azure lists, never what was asked.
            if (err.result) results.push(err.result as OperationResult);
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
        lastCheckpoint = "null";
        if (last) {
          // The result and the end in one commit.
          record("ORCHESTRATION", COMPLETED);
          await change({ resultObjects: results, armCalls, checkpoint: null, operationIndex: i + 1, state: "succeeded", finishedAtMs: Date.now() });
          observer?.finished?.(task, "succeeded");
          return;
        }
        await change({ resultObjects: results, armCalls, checkpoint: null, operationIndex: i + 1 });
      }
      // Every operation was done before this run (a replica died before marking the task done). One that died
      // after writing the completion line left it behind: don't say it twice.
      if (task.history.at(-1)?.status !== COMPLETED) record("ORCHESTRATION", COMPLETED);
      await change({ state: "succeeded", finishedAtMs: Date.now(), armCalls });
      observer?.finished?.(task, "succeeded");
    } catch (err) {
      if (!abort.signal.aborted && !(err instanceof LeaseLostError)) throw err;
      // Interrupted (shutdown) or overtaken (lease lost): the checkpoint stays for whoever continues the task.
      await chain;
      if (!(abort.signal.reason instanceof LeaseLostError)) {
        await store.update(owner, id, { armCalls, ...(buffer.length > 0 ? { history: buffer } : {}) }).catch(() => false);
        await store.release(owner, id);
      }
    }
  }
}
