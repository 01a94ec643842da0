import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { OperationResult } from "../operations/server-group-state.ts";

// The task model: what a caller polls. Internally a task has a state machine that can grow (canceled is already
// a state); externally it is Clouddriver's task shape, which Orca understands.

import { FINISHED_STATES, type TaskState } from "./task-state.ts";

export { FINISHED_STATES, type TaskState };

export interface OperationRequest {
  /** Operation name, e.g. resizeServerGroup. */
  name: string;
  description: Record<string, unknown>;
}

export interface HistoryEntry {
  phase: string;
  status: string;
  timeMs: number;
}

export interface TaskFailure {
  operation: string;
  code: string;
  message: string;
  /** Sending the same request again later could succeed. */
  retryable: boolean;
}

/** Where a running task is, so that another process can go on from there after a crash. */
export interface TaskCheckpoint {
  operationIndex: number;
  attempt: number;
  /** A write Azure accepted and that has not ended: what it was, and its serialized poller (absolute URLs). */
  inFlight?: {
    step: {
      kind:
        | "update"
        | "manualUpgrade"
        | "deleteInstances"
        | "restartInstances"
        | "repairs"
        | "delete"
        | "create"
        | "nicPools"
        | "autoscale";
      summary: string;
      [key: string]: unknown;
    };
    poller: string;
  };
  /** What the operation's planner learned that a process taking over must know (ScaleSetPlanner.memory). */
  planner?: unknown;
}

/** Who acted on a task, and when: from its audit entries (audit.ts). */
export interface TaskActor {
  name: string;
  via: string;
  subject?: string;
  issuer?: string;
  application?: string;
  spinnakerUser?: string;
  timeMs: number;
}

export interface Task {
  id: string;
  clientRequestId?: string;
  state: TaskState;
  operations: OperationRequest[];
  /**
   * Where each operation acts, located once, at submission (a create: its cluster's scale set, until it names its
   * own): the store orders the task by these and the run acts on them. null: not located then (located when it
   * runs). Absent on a task stored before targets were.
   */
  targets?: (ScaleSetRef | null)[];
  /** Index of the operation running now (or last run). */
  operationIndex: number;
  history: HistoryEntry[];
  resultObjects: OperationResult[];
  failure?: TaskFailure;
  /** ARM requests made for this task, all attempts and polls included. */
  armCalls: number;
  checkpoint?: TaskCheckpoint;
  /** The replica that runs it now, and until when (absent when nobody does). */
  leaseOwner?: string;
  leaseExpiresAtMs?: number;
  /** Someone asked to cancel it while it ran: its runner stops at the next safe point (task-runner.ts). */
  cancelRequestedAtMs?: number;
  createdAtMs: number;
  updatedAtMs: number;
  finishedAtMs?: number;
  /** Grows with every change to what is shown here except the lease (TaskStore.revision). */
  revision: number;
  /** Who submitted it, who first asked to cancel it, who last resumed it (while their audit entries are kept). */
  submittedBy?: TaskActor;
  canceledBy?: TaskActor;
  resumedBy?: TaskActor;
}

export interface TaskExceptionResult {
  type: "EXCEPTION";
  operation: string;
  cause: string;
  message: string;
}

/** The task as Clouddriver serializes it (Orca reads status.completed, status.failed and status.retryable). */
export interface ClouddriverTask {
  /** Which answer this is, beside a submission's other answers (taskRef, dryRun). */
  kind: "task";
  id: string;
  startTimeMs: number;
  endTimeMs?: number;
  status: { phase: string; status: string; complete: boolean; completed: boolean; failed: boolean; retryable: boolean };
  history: { phase: string; status: string }[];
  resultObjects: (OperationResult | TaskExceptionResult)[];
  state: TaskState;
  clientRequestId?: string;
  operations: string[];
  armCalls: number;
  submittedBy?: TaskActor;
  canceledBy?: TaskActor;
  resumedBy?: TaskActor;
}

export function toClouddriverTask(task: Task): ClouddriverTask {
  const last = task.history[task.history.length - 1];
  const finished = FINISHED_STATES.has(task.state);
  const failed = task.state === "failed" || task.state === "canceled";
  const resultObjects = task.failure
    ? [
        ...task.resultObjects,
        {
          type: "EXCEPTION" as const,
          operation: task.failure.operation,
          cause: task.failure.code,
          message: task.failure.message,
        },
      ]
    : task.resultObjects;
  return {
    kind: "task",
    id: task.id,
    startTimeMs: task.createdAtMs,
    ...(task.finishedAtMs !== undefined ? { endTimeMs: task.finishedAtMs } : {}),
    status: {
      phase: last?.phase ?? "INIT",
      status: last?.status ?? "",
      complete: finished,
      completed: finished,
      failed,
      retryable: task.failure?.retryable ?? false,
    },
    history: task.history.map(({ phase, status }) => ({ phase, status })),
    resultObjects,
    state: task.state,
    ...(task.clientRequestId ? { clientRequestId: task.clientRequestId } : {}),
    operations: task.operations.map((o) => o.name),
    armCalls: task.armCalls,
    ...(task.submittedBy ? { submittedBy: task.submittedBy } : {}),
    ...(task.canceledBy ? { canceledBy: task.canceledBy } : {}),
    ...(task.resumedBy ? { resumedBy: task.resumedBy } : {}),
  };
}
