// The decisions of a task's run, without its I/O (task-run.ts acts on them): how an operation ended, the lines
// that say so, whether a taken name is chosen again, which checkpoints are worth a write, and what the task
// writes after each operation — the next operation, or its end in one of task-state.ts's finished states.
import { describeArmFailure, failureLabel } from "../azure/arm-failure.ts";
import { CanceledOnRequestError, GaveUpError } from "../azure/harness/failures.ts";
import { NAME_TAKEN } from "../operations/operation.ts";
import { ACCOUNT_CONFIGURATION_CHANGED } from "../operations/locate.ts";
import type { OperationResult } from "../operations/server-group-state.ts";
import type { Task, TaskCheckpoint, TaskFailure } from "./task.ts";
import type { FinishedState } from "./task-state.ts";
import type { TaskChange } from "./task-store.ts";

export const COMPLETED = "Orchestration completed.";

/** resizeServerGroup → RESIZE_SERVER_GROUP, the phase name Clouddriver would show. */
export function phaseOf(operation: string): string {
  return operation.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toUpperCase();
}

/** The history line of a canceled task: where it stopped, what was done and what was not. */
export function canceledLine(
  task: Pick<Task, "operations" | "operationIndex">,
  index: number,
  err: CanceledOnRequestError,
): string {
  const names = task.operations.map((o) => o.name);
  const done = [
    ...names.slice(0, index).map((n, i) => `${n} (operation ${i + 1})`),
    ...err.writesEnded.map((w) => `${w} (written and ended)`),
  ];
  const current = err.writesEnded.length > 0 ? `the rest of ${names[index]} (confirming it)` : names[index];
  const notDone = [
    `${current} (operation ${index + 1})`,
    ...names.slice(index + 1).map((n, i) => `${n} (operation ${index + i + 2})`),
  ];
  return `Canceled on request, ${err.message.replace(/^canceled /, "")}. Done: ${done.length > 0 ? done.join("; ") : "nothing"}. Not done: ${notDone.join("; ")}`;
}

/** The first line of a run: a new task's operations, or whose checkpoint a replica goes on from. */
export function openingLine(
  task: Pick<Task, "state" | "operations" | "operationIndex">,
  replica: string,
): { phase: string; status: string } {
  if (task.state === "queued") {
    return {
      phase: "INIT",
      status: `Initializing ${task.operations.length === 1 ? "operation" : `${task.operations.length} operations`}: ${task.operations.map((o) => o.name).join(", ")}`,
    };
  }
  const phase =
    task.operationIndex < task.operations.length ? phaseOf(task.operations[task.operationIndex].name) : "ORCHESTRATION";
  return {
    phase,
    status: `Resumed by replica ${replica}: the replica that ran it stopped; continuing from its checkpoint`,
  };
}

/**
 * How one operation ended. An interruption (shutdown, lease lost) is not among them: the run stops there and the
 * task does not end.
 */
export type OperationOutcome =
  | { kind: "done"; result: OperationResult }
  /** `result`: what Azure lists of a scale set it could not confirm; `internal`: an error of ours, not Azure's. */
  | { kind: "failed"; failure: TaskFailure; result?: OperationResult; internal?: true }
  | { kind: "canceled"; error: CanceledOnRequestError };

/** The outcome of an operation that threw `err`: canceled at a safe point, failed with Azure's error, or with ours. */
export function outcomeOfError(err: unknown, operation: string): Exclude<OperationOutcome, { kind: "done" }> {
  if (err instanceof CanceledOnRequestError) return { kind: "canceled", error: err };
  if (err instanceof GaveUpError) {
    const failure = {
      operation,
      code: err.failure.code ?? err.failure.kind,
      message: err.message,
      retryable: err.retryable,
    };
    // A scale set Azure could not confirm: its result says what Azure lists, never what was asked.
    return { kind: "failed", failure, ...(err.result ? { result: err.result as OperationResult } : {}) };
  }
  const f = describeArmFailure(err);
  return {
    kind: "failed",
    failure: { operation, code: f.code ?? "InternalError", message: f.message, retryable: false },
    internal: true,
  };
}

/** The line that closes an operation that did not succeed. */
export function unfinishedLine(
  outcome: Exclude<OperationOutcome, { kind: "done" }>,
  task: Pick<Task, "operations" | "operationIndex">,
  index: number,
): string {
  return outcome.kind === "canceled" ? canceledLine(task, index, outcome.error) : `Failed: ${outcome.failure.message}`;
}

/**
 * A failure while an operation chooses its scale set (the listing or the source read answered an error): the task
 * fails with Azure's error, retryable when the retry policy says a resume could succeed. Our own bugs stay what they are.
 */
export function asOperationFailure(err: unknown): never {
  const failure = describeArmFailure(err);
  if (failure.kind === "programming" || err instanceof GaveUpError) throw err;
  throw new GaveUpError(`${failureLabel(failure)}: ${failure.message}`, failure, 1);
}

/**
 * The accounts configuration changed since the task was submitted, so that an operation's scale set can no longer be
 * acted on as located (`what`: the change): the task fails with a code that says so, not as an error of ours, and
 * not retryable (a resume would find the same configuration).
 */
export function accountsChanged(what: string): GaveUpError {
  const message = `the accounts configuration changed since the task was submitted: ${what}`;
  return new GaveUpError(message, { kind: "terminal", code: ACCOUNT_CONFIGURATION_CHANGED, message }, 0);
}

/** How often an operation that names its scale set may choose a name again after finding it taken. */
export const MAX_NAMINGS = 3;

/** Whether naming `naming` (1-based) of an operation that names its scale set (`prepares`) is followed by another. */
export function chooseNameAgain(err: unknown, prepares: boolean, naming: number): boolean {
  return err instanceof GaveUpError && err.failure.code === NAME_TAKEN && prepares && naming < MAX_NAMINGS;
}

/**
 * How a checkpoint is written: not at all (the store holds it already), at once, or with the next write of the
 * task (TaskJournal.recordChange).
 */
export type CheckpointWrite = "unchanged" | "now" | "withNextWrite";

/**
 * Which checkpoints are written, and how: it holds the checkpoint a process taking over would find, so that only a
 * checkpoint that changes it is written. No checkpoint means attempt 1 with nothing in flight, so writing that would
 * change nothing.
 */
export class CheckpointWrites {
  #json: string;
  #checkpoint: TaskCheckpoint | undefined;

  constructor(checkpoint: TaskCheckpoint | undefined) {
    this.#json = JSON.stringify(checkpoint ?? null);
    this.#checkpoint = checkpoint;
  }

  /** Whether `next` changes what is stored; when it does, it is taken as stored (the caller writes it). */
  changedBy(next: TaskCheckpoint): boolean {
    return this.writeOf(next) !== "unchanged";
  }

  /**
   * How `next` is written; unless unchanged, it is taken as stored (the caller writes it). The end of the write in
   * flight, with nothing else changed, waits for the next write: a process that took over from the checkpoint
   * before it would follow that write to its end again, which sends nothing but polls, and then read afresh.
   */
  writeOf(next: TaskCheckpoint): CheckpointWrite {
    const json = JSON.stringify(next);
    if (json === this.#json || (this.#json === "null" && next.attempt === 1 && !next.inFlight)) return "unchanged";
    const before = this.#checkpoint;
    this.#json = json;
    this.#checkpoint = next;
    const writeEnded =
      before?.inFlight !== undefined &&
      next.inFlight === undefined &&
      before.operationIndex === next.operationIndex &&
      before.attempt === next.attempt &&
      JSON.stringify(before.planner) === JSON.stringify(next.planner);
    return writeEnded ? "withNextWrite" : "now";
  }

  /** The write that closed an operation cleared it. */
  cleared(): void {
    this.#json = "null";
    this.#checkpoint = undefined;
  }
}

/** How a task ends: in one of task-state.ts's finished states (from queued or running), and why when it failed. */
export type TaskEnd =
  { state: Exclude<FinishedState, "failed"> } | { state: Extract<FinishedState, "failed">; failure: TaskFailure };

/** Whether the task ends after an operation with this outcome (and how), or goes on to the next one. */
export function endAfter(outcome: OperationOutcome, last: boolean): TaskEnd | undefined {
  switch (outcome.kind) {
    case "done":
      return last ? { state: "succeeded" } : undefined;
    case "failed":
      return { state: "failed", failure: outcome.failure };
    case "canceled":
      return { state: "canceled" };
  }
}

/** What the task has gathered so far: the results of its operations and the ARM calls they made. */
export interface Gathered {
  resultObjects: OperationResult[];
  armCalls: number;
}

/**
 * The write that closes operation `index`: the results, the checkpoint cleared, and either the move to the next
 * operation or the task's end. A success ends with the result in the same commit.
 */
export function changeAfter(
  index: number,
  end: TaskEnd | undefined,
  { resultObjects, armCalls }: Gathered,
  nowMs: number,
): TaskChange {
  if (!end) return { resultObjects, armCalls, checkpoint: null, operationIndex: index + 1 };
  switch (end.state) {
    case "succeeded":
      return {
        resultObjects,
        armCalls,
        checkpoint: null,
        operationIndex: index + 1,
        state: "succeeded",
        finishedAtMs: nowMs,
      };
    case "failed":
      return { resultObjects, armCalls, checkpoint: null, state: "failed", failure: end.failure, finishedAtMs: nowMs };
    case "canceled":
      return { resultObjects, armCalls, checkpoint: null, state: "canceled", finishedAtMs: nowMs };
  }
}

/** The write that ends a task whose operations were all done before this run (its results are already stored). */
export function changeWhenAllDone(armCalls: number, nowMs: number): TaskChange {
  return { state: "succeeded", finishedAtMs: nowMs, armCalls };
}
