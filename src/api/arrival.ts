// When a request arrived: fastify sees it when the event loop reads it, which is later than it came when the loop was
// held up (a long synchronous stretch, a CPU that cannot keep up). Its arrival is put back by how long the loop was
// held (observability/event-loop.ts), so that its deadline (request-deadline.ts) counts the time it queued, and a
// request that has already waited past what a caller waits for is shed (overload.ts) instead of served late.
import type { FastifyInstance } from "fastify";
import type { EventLoopLag } from "../observability/event-loop.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** performance.now() when it arrived, as far as can be known: when read, less how long the loop was held. */
    arrivedAtMs: number;
  }
}

/** Sets each request's arrivedAtMs as the first thing done with it; the lag is timed from the app's ready to its close. */
export function installArrivalTimes(app: FastifyInstance, lag: EventLoopLag): void {
  app.decorateRequest("arrivedAtMs", 0);
  app.addHook("onRequest", (request, _reply, done) => {
    request.arrivedAtMs = performance.now() - lag.heldMs();
    done();
  });
  app.addHook("onReady", (done) => {
    lag.start();
    done();
  });
  app.addHook("onClose", (_app, done) => {
    lag.stop();
    done();
  });
}
