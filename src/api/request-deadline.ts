// Each request's deadline for the task store (tasks/request-deadline.ts): TASK_STORE_REQUEST_DEADLINE_MS from its
// arrival, the time it waited unread on a held-up event loop included (arrival.ts). Set once the body is read (the async context of the hooks before it is the socket's, not the request's),
// counted from when the request arrived; the store calls the request makes are bounded by it, so its answer comes
// within it, 503 TaskStoreUnavailable with Retry-After when the store could not answer in time.
import type { FastifyInstance } from "fastify";
import { withRequestDeadline } from "../tasks/request-deadline.ts";

export function installRequestDeadlines(app: FastifyInstance, deadlineMs: number): void {
  if (deadlineMs <= 0) return;
  // A callback, not a promise: what follows runs inside it, in the deadline's async context.
  app.addHook("preValidation", (request, reply, done) => {
    // From its arrival: when the event loop was held up, before it was read (arrival.ts).
    const readAtMs = performance.now() - reply.elapsedTime;
    const atMs = Math.min(readAtMs, request.arrivedAtMs || readAtMs) + deadlineMs;
    withRequestDeadline(
      atMs,
      () => reply.raw.writableEnded,
      () => done(),
      atMs - deadlineMs,
    );
  });
}
