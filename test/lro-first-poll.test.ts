// Azure's Retry-After counts from its answer to the write: the first poll is due that long after the write was
// accepted, however long the checkpoint that records it takes to commit (a PostgreSQL commit on a loaded machine:
// tens of ms, each write of a deploy). Waiting the whole interval after the commit noticed every write's end late by
// the commit's time.
import t from "tap";
import type { OperationState, PollerLike } from "@azure/core-lro";
import { runLongRunning } from "../src/azure/long-running.ts";

/** A poller whose write was accepted at once and ends at its first poll; the times of its polls. */
function fakePoller(polls: number[]): PollerLike<OperationState<string>, string> {
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

t.test("the first poll is the interval after acceptance, not after the checkpoint's commit", async (t) => {
  const INTERVAL_MS = 500;
  const COMMIT_MS = 500;
  const polls: number[] = [];
  let acceptedAt = 0;
  const result = await runLongRunning(
    () => {
      acceptedAt = Date.now();
      return fakePoller(polls);
    },
    {
      defaultPollIntervalMs: INTERVAL_MS,
      maxPollIntervalMs: INTERVAL_MS,
      onAccepted: () => new Promise((resolve) => setTimeout(resolve, COMMIT_MS)),
    },
  );
  t.equal(result, "ok");
  t.equal(polls.length, 1);
  const after = polls[0] - acceptedAt;
  t.ok(after >= COMMIT_MS, `polled after the checkpoint committed (${after} ms)`);
  // Interval + commit would be 1000 ms; 850 leaves a loaded machine's late timer 350 ms.
  t.ok(after < INTERVAL_MS + COMMIT_MS - 150, `first poll ${after} ms after acceptance (interval ${INTERVAL_MS} ms)`);
});

t.test("a checkpoint longer than the interval: the first poll right after it", async (t) => {
  const polls: number[] = [];
  let committedAt = 0;
  await runLongRunning(() => fakePoller(polls), {
    defaultPollIntervalMs: 200,
    maxPollIntervalMs: 200,
    onAccepted: () =>
      new Promise<void>((resolve) =>
        setTimeout(() => {
          committedAt = Date.now();
          resolve();
        }, 400),
      ),
  });
  const after = polls[0] - committedAt;
  t.ok(after < 150, `first poll ${after} ms after the commit, not the interval (200 ms) after it`);
});
