// Azure's Retry-After counts from its answer to the write: the first poll is due that long after the write was
// accepted, however long the checkpoint that records it takes to commit (a PostgreSQL commit on a loaded machine:
// tens of ms, each write of a deploy). Waiting the whole interval after the commit noticed every write's end late by
// the commit's time.
import t from "tap";
import { runLongRunning } from "../src/azure/long-running.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { fakePoller } from "./helpers/fake-poller.ts";

t.test("the first poll is the interval after acceptance, not after the checkpoint's commit", async (t) => {
  // The commit is held until the interval has passed since acceptance: then the poll is due at once. Had the interval
  // counted from the commit, it would come a whole interval after it, and a timer never fires early.
  const INTERVAL_MS = 3000;
  const polls: number[] = [];
  let acceptedAt = 0;
  let committedAt = 0;
  const result = await runLongRunning(
    () => {
      acceptedAt = Date.now();
      return fakePoller(polls);
    },
    {
      defaultPollIntervalMs: INTERVAL_MS,
      maxPollIntervalMs: INTERVAL_MS,
      onAccepted: async () => {
        await waitFor(() => Date.now() - acceptedAt >= INTERVAL_MS, {
          what: "the poll interval to pass while the checkpoint commits",
        });
        committedAt = Date.now();
      },
    },
  );
  t.equal(result, "ok");
  t.equal(polls.length, 1);
  t.ok(polls[0] >= committedAt, "polled once the checkpoint committed, never before");
  t.ok(
    polls[0] - committedAt < INTERVAL_MS,
    `first poll ${polls[0] - committedAt} ms after the commit, which came ${committedAt - acceptedAt} ms after acceptance (interval ${INTERVAL_MS} ms)`,
  );
});
