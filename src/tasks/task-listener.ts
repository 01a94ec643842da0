// What the task runner tells whoever watches it (metrics, structured logs). Every method is optional and must not
// throw: watching never changes what a task does.
import type { AttemptEnd, Checkpoint } from "../azure/harness/input.ts";
import type { Task } from "./task.ts";

export interface TaskEventContext {
  taskId: string;
  operation: string;
  /** account/resourceGroup/name, once the description is located. */
  scaleSet?: string;
  account?: string;
  /** The attempt running now (1-based), once one has started. */
  attempt?: number;
}

export interface TaskListener {
  /** A history line was written. */
  history?(ctx: TaskEventContext, phase: string, status: string): void;
  attemptEnded?(ctx: TaskEventContext, end: AttemptEnd): void;
  checkpoint?(ctx: TaskEventContext, checkpoint: Checkpoint): void;
  /** The operation waited this long for its turn on the scale set (0 when it did not wait). */
  queueWaited?(ctx: TaskEventContext, ms: number): void;
  /** The task reached a final state in this replica. */
  finished?(
    task: Pick<Task, "id" | "operations">,
    outcome: "succeeded" | "failed" | "canceled",
    failedOperation?: string,
  ): void;
}
