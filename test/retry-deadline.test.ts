// Retry budgets counted in time: a burst of 429 and 503 on one scale set, answered with short Retry-After hints,
// lasting longer than maxAttempts such answers would span, must not fail the task when it clears within the
// deadline. (Counted in attempts alone, eight "Retry-After: 1" answers spanned eight seconds and the task failed.)
import t from "tap";
import { callsFor, demo, startTestEnv } from "./helpers/service.ts";

const BURST_MS = 20_000;

t.setTimeout(180_000);
// Deadline 90 s, 8 attempts: the burst outlasts eight 1 s hints by far and clears well within the deadline.
const env = await startTestEnv({ writeDurationMs: 80, env: { RETRY_MAX_ATTEMPTS: "8", RETRY_DEADLINE_MS: "90000" } });
t.teardown(() => env.close());

t.test(`a ${BURST_MS / 1000} s burst of 429 then 503 on one scale set: the task succeeds after it`, async (t) => {
  // Oldest fault first: six 429s, then 503s until the burst is cleared; both with "Retry-After: 1".
  for (const [status, code, count] of [
    [429, "TooManyRequests", 6],
    [503, "ServiceUnavailable", 100_000],
  ] as const) {
    const res = await env.simControl("POST", "/_sim/faults", {
      method: "*",
      pathContains: "web-prod-v001",
      status,
      code,
      count,
      retryAfterSeconds: 1,
    });
    t.equal(res.status < 300, true, `fault ${status} set`);
  }
  const submitted = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 0, max: 20, desired: 4 } }),
  );
  t.equal(submitted.status, 202);
  const started = Date.now();
  // The burst: it ends when the test clears the faults, BURST_MS after the task started meeting it.
  while (Date.now() - started < BURST_MS) {
    const task = (await env.api("GET", `/task/${submitted.body.id}`)).body;
    if (!t.equal(task.status.completed, false, "still retrying during the burst"))
      t.bailout(JSON.stringify(task.history));
    await new Promise((r) => setTimeout(r, 1000));
  }
  await env.simControl("DELETE", "/_sim/faults");
  const burstMs = Date.now() - started;
  const cleared = Date.now();
  const task = await env.waitForTask(submitted.body.id, 60_000);
  t.comment(`measured: the task succeeded ${Date.now() - cleared} ms after a ${burstMs} ms burst cleared`);
  t.equal(task.state, "succeeded", JSON.stringify(task.history.slice(-3)));
  const answered = callsFor(await env.calls(), "web-prod-v001").map((c) => c.status);
  t.equal(answered.filter((s) => s === 429).length, 6, "the 429s were met");
  const failedAttempts = answered.filter((s) => s === 429 || s === 503).length;
  t.ok(
    failedAttempts > 8,
    `more failed attempts than maxAttempts (${failedAttempts}): the deadline, not the count, bounded them`,
  );
  t.ok(
    failedAttempts <= Math.ceil(burstMs / 1000) + 1,
    `each hint of 1 s honoured: no more than one attempt a second (${failedAttempts})`,
  );
  t.ok(
    task.history.some((h: { status: string }) => /^attempt 9: 503/.test(h.status)),
    "the history counts on past maxAttempts",
  );
});
