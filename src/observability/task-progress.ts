// Attempts and retries of the tasks this replica runs, as the harness reports them: what the status page shows
// next to a task (a task run by another replica shows the attempt of its last checkpoint instead).
import type { TaskObserver } from "../tasks/task-observer.ts";

export interface RetryRecord {
  attempt: number;
  operation: string;
  /** HTTP status, or the failure kind when there was none (network, operationFailedTransient…). */
  status: string;
  code?: string;
  atMs: number;
}

export interface TaskProgressView {
  /** The attempt running now, or the last one. */
  attempt: number;
  retries: RetryRecord[];
}

const MAX_TASKS = 5000;
const MAX_RETRIES_KEPT = 50;

export class TaskProgress {
  readonly #tasks = new Map<string, TaskProgressView>();

  get(taskId: string): TaskProgressView | undefined {
    return this.#tasks.get(taskId);
  }

  #entry(taskId: string): TaskProgressView {
    let e = this.#tasks.get(taskId);
    if (!e) {
      e = { attempt: 1, retries: [] };
      this.#tasks.set(taskId, e);
      if (this.#tasks.size > MAX_TASKS) this.#tasks.delete(this.#tasks.keys().next().value!);
    }
    return e;
  }

  observer(): TaskObserver {
    return {
      checkpoint: (ctx, c) => {
        this.#entry(ctx.taskId).attempt = c.attempt;
      },
      attemptEnded: (ctx, end) => {
        const e = this.#entry(ctx.taskId);
        e.attempt = end.attempt;
        if (end.outcome !== "retry") return;
        e.attempt = end.attempt + 1;
        e.retries.push({
          attempt: end.attempt,
          operation: ctx.operation,
          status: end.failure?.status !== undefined ? String(end.failure.status) : (end.failure?.kind ?? "error"),
          ...(end.failure?.code ? { code: end.failure.code } : {}),
          atMs: Date.now(),
        });
        if (e.retries.length > MAX_RETRIES_KEPT) e.retries.shift();
      },
    };
  }
}
