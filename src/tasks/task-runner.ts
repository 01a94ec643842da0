// Runs a task's operations in order through the executeOp harness, and writes what happens into the task.
import type { Config } from "../config.ts";
import type { AccountRegistry } from "../azure/accounts.ts";
import { describeArmFailure } from "../azure/arm-failure.ts";
import { observeArmResponses } from "../azure/arm-observer.ts";
import { executeOp, OperationFailedError } from "../azure/execute-op.ts";
import type { LocatedDescription, AnyOperation } from "../operations/operation.ts";
import type { ServerGroupResult } from "../operations/server-group-state.ts";
import type { OperationRequest, TaskFailure } from "./task.ts";
import type { TaskStore } from "./task-store.ts";

export interface TaskRunnerDeps {
  store: TaskStore;
  accounts: AccountRegistry;
  operations: ReadonlyMap<string, AnyOperation>;
  config: Pick<Config, "retry" | "lroPollIntervalMs">;
  /** Where unexpected errors go (the service's logger). */
  onInternalError?: (err: unknown, taskId: string) => void;
}

/** resizeServerGroup → RESIZE_SERVER_GROUP, the phase name Clouddriver would show. */
export function phaseOf(operation: string): string {
  return operation.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

export class TaskRunner {
  readonly #deps: TaskRunnerDeps;
  readonly #running = new Map<string, Promise<void>>();

  constructor(deps: TaskRunnerDeps) {
    this.#deps = deps;
  }

  /** Creates the task (or finds the one with the same clientRequestId) and starts it if it is new. */
  async submit(operations: OperationRequest[], clientRequestId?: string) {
    const { task, created } = await this.#deps.store.create({ operations, clientRequestId });
    if (created) this.#start(task.id);
    return { task, created };
  }

  /** Tasks in flight in this process. */
  get active(): number {
    return this.#running.size;
  }

  /** Resolves when every task started so far has ended. */
  async idle(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running.values()]);
  }

  #start(taskId: string): void {
    const run = this.#run(taskId)
      .catch((err) => this.#deps.onInternalError?.(err, taskId))
      .finally(() => this.#running.delete(taskId));
    this.#running.set(taskId, run);
  }

  async #run(taskId: string): Promise<void> {
    const { store, accounts, operations, config } = this.#deps;
    const task = await store.get(taskId);
    if (!task) return;
    // History writes are chained so they land in order even though the harness logs synchronously.
    let pending: Promise<void> = Promise.resolve();
    const record = (phase: string, status: string) => {
      pending = pending.then(() => store.appendHistory(taskId, { phase, status, timeMs: Date.now() }));
    };
    let armCalls = task.armCalls;
    const countCalls = { onArmResponse: () => void armCalls++ };

    await store.update(taskId, { state: "running" });
    record("INIT", `Initializing ${task.operations.length === 1 ? "operation" : `${task.operations.length} operations`}: ${task.operations.map((o) => o.name).join(", ")}`);
    const results: ServerGroupResult[] = [];
    for (let i = 0; i < task.operations.length; i++) {
      const request = task.operations[i];
      const phase = phaseOf(request.name);
      let failure: TaskFailure | undefined;
      try {
        const op = operations.get(request.name);
        if (!op) throw new Error(`unknown operation ${request.name}`);
        const description = request.description as LocatedDescription;
        const resolved = accounts.resolve(description);
        if (!resolved.ok) throw new Error(resolved.problems.map((p) => `${p.field}: ${p.message}`).join("; "));
        const ref = resolved.ref;
        await store.update(taskId, { operationIndex: i });
        record(phase, `Starting: ${op.describe(description)} (account ${ref.account}, region ${ref.region}, resource group ${ref.resourceGroup})`);
        const result = await observeArmResponses(countCalls, () =>
          executeOp({
            gateway: accounts.gateway(ref),
            planner: op.planner(description, ref),
            retry: config.retry,
            lroPollIntervalMs: config.lroPollIntervalMs,
            log: (line) => record(phase, line),
          }),
        );
        results.push(result);
        record(phase, `Done: ${ref.name} has capacity ${result.capacity.desired} (min ${result.capacity.min}, max ${result.capacity.max})${result.disabled ? ", disabled" : ""}, as Azure confirmed`);
      } catch (err) {
        if (err instanceof OperationFailedError) {
          failure = { operation: request.name, code: err.failure.code ?? err.failure.kind, message: err.message, retryable: err.retryable };
        } else {
          const f = describeArmFailure(err);
          failure = { operation: request.name, code: f.code ?? "InternalError", message: f.message, retryable: false };
          this.#deps.onInternalError?.(err, taskId);
        }
        record(phase, `Failed: ${failure.message}`);
      }
      await pending;
      await store.update(taskId, { resultObjects: results, armCalls });
      if (failure) {
        await store.update(taskId, { state: "failed", failure, finishedAtMs: Date.now() });
        return;
      }
    }
    record("ORCHESTRATION", "Orchestration completed.");
    await pending;
    await store.update(taskId, { state: "succeeded", finishedAtMs: Date.now(), armCalls });
  }
}
