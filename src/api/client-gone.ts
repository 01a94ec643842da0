// A held request (?wait=) must cost nothing once its client has gone: this signal aborts when the connection closes
// before the answer was sent, so the waiter is dropped at once.
import type { FastifyReply } from "fastify";
import type { TaskWaiter } from "../tasks/task-waiter.ts";
import { toClouddriverTask, type Task } from "../tasks/task.ts";
import { withHeldRequestDeadline } from "../tasks/request-deadline.ts";
import { storeOutageReason } from "../tasks/store-outage.ts";

export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableEnded) controller.abort();
  });
  return controller.signal;
}

/**
 * The task once it has ended, or as it is when `waitMs` has passed since the request arrived or the client went away
 * (TaskWaiter.hold). The hold is part of the request: the request's deadline (tasks/request-deadline.ts) is extended
 * to cover it, max(the hold, the deadline's span) from the request's arrival, and the read after the hold is given
 * what is left of it (tasks/held-read.ts); past it, a TaskStoreUnavailableError (503 with Retry-After). `read`: the
 * task as the route has just read (or created) it, where the hold starts from.
 */
export function heldUntilEnd(
  waiter: TaskWaiter,
  id: string,
  waitMs: number,
  reply: FastifyReply,
  read?: Task,
): Promise<Task | undefined> {
  const signal = clientGoneSignal(reply);
  return withHeldRequestDeadline(waitMs, (bounds) =>
    bounds === undefined ? waiter.waitForEnd(id, waitMs, signal, read) : waiter.hold(id, { ...bounds, signal, read }),
  );
}

/**
 * The answer to a submission whose task exists (created, or found by its clientRequestId): 202 with its reference;
 * with ?wait=, 200 with the task once it has ended or the hold is over, or 202 with its reference when the store did
 * not confirm the task by the hold's deadline: the task exists (poll it), so not the 503 that says nothing was done.
 */
export async function answerSubmitted(
  waiter: TaskWaiter,
  task: Task,
  wait: number | undefined,
  reply: FastifyReply,
  ignoredFields: string[],
) {
  const ref = () =>
    reply.code(202).send({ kind: "taskRef", id: task.id, resourceUri: `/task/${task.id}`, ignoredFields });
  if (wait === undefined) return ref();
  let ended: Task | undefined = task;
  try {
    if (wait > 0) ended = await heldUntilEnd(waiter, task.id, wait * 1000, reply, task);
  } catch (err) {
    if (storeOutageReason(err) === undefined) throw err;
    return ref();
  }
  return reply.code(200).send(toClouddriverTask(ended ?? task));
}
