// Structured task logs: every history line also goes to the service's log as JSON, with the task id, operation,
// scale set, account, attempt and (when this replica accepted the task) the principal that submitted it.
import type { FastifyBaseLogger } from "fastify";
import type { TaskEventContext, TaskListener } from "../tasks/task-listener.ts";

const MAX_REMEMBERED = 10_000;

export class TaskLog {
  readonly #log: FastifyBaseLogger;
  readonly #principals = new Map<string, string>();

  constructor(log: FastifyBaseLogger) {
    this.#log = log;
  }

  /** The API accepted a task for this principal. */
  submitted(taskId: string, principal: string, operations: string[], created: boolean): void {
    if (created) {
      this.#principals.set(taskId, principal);
      // Bounded: the oldest go first (a Map iterates in insertion order).
      if (this.#principals.size > MAX_REMEMBERED) this.#principals.delete(this.#principals.keys().next().value!);
    }
    this.#log.info(
      { taskId, principal, operations, created },
      created ? "task submitted" : "task found by clientRequestId",
    );
  }

  #fields(ctx: TaskEventContext) {
    const principal = this.#principals.get(ctx.taskId);
    return {
      taskId: ctx.taskId,
      operation: ctx.operation,
      scaleSet: ctx.scaleSet,
      account: ctx.account,
      attempt: ctx.attempt,
      ...(principal ? { principal } : {}),
    };
  }

  listener(): TaskListener {
    return {
      history: (ctx, phase, status) => this.#log.info({ ...this.#fields(ctx), phase }, status),
      attemptEnded: (ctx, end) => {
        if (end.outcome === "succeeded") return;
        // A retry is the harness doing its work (warn); an attempt that ends the operation is a failure (error).
        const level = end.outcome === "failed" ? "error" : "warn";
        this.#log[level](
          {
            ...this.#fields(ctx),
            outcome: end.outcome,
            status: end.failure?.status,
            code: end.failure?.code,
            kind: end.failure?.kind,
          },
          `attempt ${end.attempt} ended: ${end.outcome}`,
        );
      },
      finished: (task, outcome) => {
        // By severity: a failed task needs someone to look (error); a canceled one was asked for (info).
        const level = outcome === "failed" ? "error" : "info";
        this.#log[level](
          {
            taskId: task.id,
            outcome,
            operations: task.operations.map((o) => o.name),
            principal: this.#principals.get(task.id),
          },
          `task ${outcome}`,
        );
        this.#principals.delete(task.id);
      },
    };
  }
}

/** One listener that tells all of them, and never lets one's error reach the task. */
export function combineListeners(...listeners: TaskListener[]): TaskListener {
  const each = <K extends keyof TaskListener>(key: K) =>
    ((...args: unknown[]) => {
      for (const o of listeners) {
        try {
          (o[key] as ((...a: unknown[]) => void) | undefined)?.(...args);
        } catch {
          /* watching never changes what a task does */
        }
      }
    }) as NonNullable<TaskListener[K]>;
  return {
    history: each("history"),
    attemptEnded: each("attemptEnded"),
    checkpoint: each("checkpoint"),
    queueWaited: each("queueWaited"),
    finished: each("finished"),
  };
}
