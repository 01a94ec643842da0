// ?wait= costs the others nothing: GET /task/{id} throughput for other clients while WAITERS requests are held on a
// task that does not end, against the same throughput with none held, measured one after the other in one run.
import { Agent, request } from "undici";

export const WAITERS = 200;

/** Holds `count` GET {taskUrl}?wait=60 requests open; resolves once they are all sent; release() aborts them. */
export function holdWaiters(taskUrl: string, count: number): Promise<{ release: () => Promise<void> }> {
  const agent = new Agent({ connections: count, pipelining: 1 });
  const controller = new AbortController();
  const held = Array.from({ length: count }, () =>
    request(`${taskUrl}?wait=60`, { dispatcher: agent, signal: controller.signal }).then(
      (res) => res.body.text(),
      () => undefined,
    ),
  );
  return Promise.resolve({
    async release() {
      controller.abort();
      await Promise.all(held);
      await agent.close();
    },
  });
}
