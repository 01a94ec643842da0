// A held request (?wait=) must cost nothing once its client has gone: this signal aborts when the connection closes
// before the answer was sent, so the waiter is dropped at once.
import type { FastifyReply } from "fastify";

export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const controller = new AbortController();
  reply.raw.once("close", () => {
    if (!reply.raw.writableEnded) controller.abort();
  });
  return controller.signal;
}
