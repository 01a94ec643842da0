// A long-running write's poller for tests of the poll schedule (src/azure/long-running.ts): accepted at once, it ends
// at its first poll, and records when each poll came.
import type { OperationState, PollerLike } from "@azure/core-lro";

export function fakePoller(polls: number[]): PollerLike<OperationState<string>, string> {
  let done = false;
  return {
    get isDone() {
      return done;
    },
    submitted: async () => {},
    serialize: async () => "{}",
    poll: async () => {
      polls.push(Date.now());
      done = true;
    },
    get result() {
      return "ok";
    },
  } as unknown as PollerLike<OperationState<string>, string>;
}
