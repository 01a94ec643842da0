// Azure's throttling, end to end: a 429 is waited out as Retry-After says, and the budget Azure reports is kept.
import t from "tap";
import { demo, startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

// RETRY_MAX_DELAY_MS caps Retry-After too: high enough here that Azure's Retry-After is honoured as sent.
const env = await startTestEnv({ writeDurationMs: 30, env: { RETRY_MAX_DELAY_MS: "10000" } });
t.teardown(() => env.close());

async function resize(desired: number) {
  const res = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 0, max: 9, desired } }),
  );
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return env.waitForTask(res.body.id);
}

t.test("a throttled write waits Retry-After and then succeeds; the remaining budget is recorded", async (t) => {
  // One write token per scale set, refilled at one a second (0.06 per Azure minute at the test helpers' time factor 0.001).
  const cfg = await env.simControl("PUT", "/_sim/config", {
    throttling: { enabled: true, policies: { VMScaleSetActions: { resource: { burst: 1, refillPerMinute: 0.06 } } } },
  });
  t.equal(cfg.status, 200, JSON.stringify(cfg.body));
  const first = await resize(4);
  t.equal(first.status.failed, false, JSON.stringify(first.history));
  const second = await resize(5);
  t.equal(second.status.failed, false, JSON.stringify(second.history));
  t.ok(
    second.history.some((h: Json) => /429 OperationNotAllowed, retrying in 1 s/.test(h.status)),
    JSON.stringify(second.history),
  );
  const patches = (await env.calls()).filter((c) => c.method === "PATCH");
  t.same(
    patches.map((p) => p.status),
    [200, 429, 200],
    "the 429'd write was sent again only after the wait",
  );

  const budget = (await env.api("GET", "/azure/rateLimits")).body.entries as {
    scope: string;
    policy: string;
    remaining: number;
  }[];
  const forSet = budget.filter((e) => e.scope.endsWith("virtualmachinescalesets/web-prod-v001"));
  t.ok(
    forSet.some((e) => /VMScaleSetActions/i.test(e.policy)),
    `the write budget is recorded: ${JSON.stringify(budget)}`,
  );
  t.ok(
    forSet.some((e) => /GetVMScaleSet/i.test(e.policy) && e.remaining > 0),
    "and the read budget",
  );
  await env.simControl("PUT", "/_sim/config", { throttling: { enabled: false } });
});
