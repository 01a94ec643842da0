// The retries of the tasks this replica runs, as the harness reports them (status and code of each), for the status
// page. The attempt a task is in is not kept here: the page reads it from the task's history, which every replica
// shares and which counts attempts as the harness does (src/ui/task-timeline.ts).
import type { TaskListener } from "../tasks/task-listener.ts";

export interface RetryRecord {
  attempt: number;
  operation: string;
  /** HTTP status, or the failure kind when there was none (network, operationFailedTransient…). */
  status: string;
  code?: string;
  atMs: number;
}

export interface TaskProgressView {
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
      e = { retries: [] };
      this.#tasks.set(taskId, e);
      if (this.#tasks.size > MAX_TASKS) this.#tasks.delete(this.#tasks.keys().next().value!);
    }
    return e;
  }

  listener(): TaskListener {
    return {
      attemptEnded: (ctx, end) => {
        if (end.outcome !== "retry") return;
        const e = this.#entry(ctx.taskId);
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
