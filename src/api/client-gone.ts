// A held request (?wait=) must cost nothing once its client has gone: this signal aborts when the connection closes
// before the answer was sent, so the waiter is dropped at once.
import type { FastifyReply } from "fastify";
import type { TaskWaiter } from "../tasks/task-waiter.ts";
import type { Task } from "../tasks/task.ts";
import { withoutRequestDeadline } from "../tasks/request-deadline.ts";

export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableEnded) controller.abort();
  });
  return controller.signal;
}

/**
 * The task once it has ended, or as it is when `waitMs` has passed or the client went away (TaskWaiter.waitForEnd).
 * The hold the caller asked for is outside the request's store deadline (tasks/request-deadline.ts): each read it
 * makes is bounded by a store call's own bound. `read`: the task as the route has just read (or created) it, where the
 * wait starts from.
 */
export function heldUntilEnd(
  waiter: TaskWaiter,
  id: string,
  waitMs: number,
  reply: FastifyReply,
  read?: Task,
): Promise<Task | undefined> {
  return withoutRequestDeadline(() => waiter.waitForEnd(id, waitMs, clientGoneSignal(reply), read));
}
