// The task's states and the moves between them, in one table that the stores, the API and the status page read.
//
//   queued ──claim + first write──▶ running ──▶ succeeded | failed | canceled
//     │                                            ▲
//     └── canceled before it started, or ended by its first write (a run's first commit may also end it)
//   failed (retryable) ──POST /task/{id}:resume──▶ queued
//
// A running task whose replica died stays running until another claims it (its lease expired): that is a change of
// owner, not of state.

export const TASK_STATES = ["queued", "running", "succeeded", "failed", "canceled"] as const;

export type TaskState = (typeof TASK_STATES)[number];

/** Where a task may go from each state. */
export const TRANSITIONS: Readonly<Record<TaskState, readonly TaskState[]>> = {
  queued: ["running", "succeeded", "failed", "canceled"],
  running: ["succeeded", "failed", "canceled"],
  succeeded: [],
  // Only a retryable failure, and only on request (requeueRetryable).
  failed: ["queued"],
  canceled: [],
};

const FINISHED = ["succeeded", "failed", "canceled"] as const satisfies readonly TaskState[];

/** A state a task has ended in: complete for Orca, no lease, no scale set held, prunable. */
export type FinishedState = (typeof FINISHED)[number];

export const FINISHED_STATES: ReadonlySet<TaskState> = new Set(FINISHED);

/** States a replica may claim a task in (a running one only when its lease expired). */
export const CLAIMABLE_STATES: readonly TaskState[] = TASK_STATES.filter((s) => !FINISHED_STATES.has(s));

export function canMove(from: TaskState, to: TaskState): boolean {
  return from === to || TRANSITIONS[from].includes(to);
}

/**
 * The states a task may be in for a change to `to` to be applied (itself included): the SQL stores require it in
 * their UPDATE, so that the table holds in the statement that writes, whoever else writes at the same time.
 */
export function statesBefore(to: TaskState): TaskState[] {
  return TASK_STATES.filter((from) => canMove(from, to));
}

/** A store was asked for a move the table does not have: a bug of the caller's, refused, with nothing changed. */
export class IllegalMoveError extends Error {
  override name = "IllegalMoveError";
  constructor(id: string, from: TaskState, to: TaskState) {
    super(`task ${id}: no move from ${from} to ${to}`);
  }
}

/** "('succeeded', 'failed', 'canceled')": a state list for SQL, from the table (the values are fixed identifiers). */
export function sqlStateList(states: Iterable<TaskState>): string {
  return `(${[...states].map((s) => `'${s}'`).join(", ")})`;
}
