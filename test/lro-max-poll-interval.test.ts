// Azure's Retry-After is whole seconds (the simulator's too, however fast its clock). LRO_MAX_POLL_INTERVAL_MS caps
// the wait between polls of a write whatever Retry-After says, so the service notices the end of a simulated write
// that lasts milliseconds without waiting a whole second for it.
import t from "tap";
import { loadConfig } from "../src/startup-config.ts";
import { demo, startTestEnv, writesOf } from "./helpers/service.ts";

t.test("LRO_MAX_POLL_INTERVAL_MS: default 120 s, as set", async (t) => {
  t.equal(loadConfig({}).lroMaxPollIntervalMs, 120_000);
  t.equal(loadConfig({ LRO_MAX_POLL_INTERVAL_MS: "25" }).lroMaxPollIntervalMs, 25);
  t.throws(() => loadConfig({ LRO_MAX_POLL_INTERVAL_MS: "0" }));
});

t.test("a write advertised with Retry-After 1 is polled at the ceiling, not once a second", async (t) => {
  // 2 s of work: waiting Retry-After would mean at most two polls before its end; the tests' 25 ms ceiling, many.
  const env = await startTestEnv({ writeDurationMs: 2000 });
  t.teardown(() => env.close());
  const submitted = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 1, max: 5, desired: 4 } }),
  );
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.status.failed, false);
  const calls = await env.calls();
  const patch = writesOf(calls).find((c) => c.method === "PATCH")!;
  const during = calls.filter(
    (c) => c.time >= patch.time && c.time < patch.time + 2000 && c.path.includes("/operations/"),
  );
  t.ok(
    during.length >= 4,
    `polled ${during.length} times during the 2 s write, though each answer said Retry-After: 1`,
  );
});
