// The harness under injected faults: what is retried, what is final, and that every attempt re-reads.
import t from "tap";
import { callsFor, demo, startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

// RETRY_MAX_DELAY_MS bounds the computed backoff; a Retry-After (the 1 s below) is honoured as sent.
const env = await startTestEnv({ writeDurationMs: 80, env: { RETRY_MAX_ATTEMPTS: "6", RETRY_MAX_DELAY_MS: "2000" } });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

async function resize(name: string, desired: number) {
  const res = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo(name, { capacity: { min: 0, max: 20, desired } }),
  );
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return env.waitForTask(res.body.id);
}

async function fault(f: Record<string, unknown>) {
  const res = await env.simControl("POST", "/_sim/faults", f);
  if (res.status >= 300) throw new Error(`fault rejected: ${JSON.stringify(res.body)}`);
}

async function capacity(name: string): Promise<number> {
  return (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.vmss.sku.capacity;
}

/** Each write must follow its own fresh GET of the scale set: read-modify-write inside the retry. */
function assertEveryWriteFollowsARead(
  t: { ok(v: unknown, ...rest: [string]): unknown },
  calls: { method: string; path: string }[],
) {
  let readSinceWrite = false;
  for (const c of calls) {
    if (c.method === "GET" && !/\/virtualMachines(\/|$)/i.test(c.path)) readSinceWrite = true;
    if (c.method === "PATCH") {
      t.ok(readSinceWrite, `PATCH at ${calls.indexOf(c)} follows a fresh GET`);
      readSinceWrite = false;
    }
  }
}

for (const [status, code] of [
  [409, "ConflictingConcurrentWriteNotAllowed"],
  [408, "RequestTimeout"],
  [500, "InternalServerError"],
  [503, "ServiceUnavailable"],
] as const) {
  t.test(`${status} on the write is retried, re-reading each time, until the fault clears`, async (t) => {
    await fault({ method: "PATCH", pathContains: "web-prod-v001", status, code, count: 2 });
    const task = await resize("web-prod-v001", 5);
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    t.equal(await capacity("web-prod-v001"), 5);
    const calls = callsFor(await env.calls(), "web-prod-v001");
    const patches = calls.filter((c) => c.method === "PATCH");
    t.same(
      patches.map((p) => p.status),
      [status, status, 200],
    );
    assertEveryWriteFollowsARead(t, calls);
    t.ok(
      task.history.some((h: Json) => h.status.includes(`attempt 1/6: ${status} ${code}, retrying in`)),
      JSON.stringify(task.history),
    );
    t.ok(task.history.some((h: Json) => h.status.startsWith("attempt 3/6:")));
  });
}

t.test("a 5xx on the read is retried too", async (t) => {
  await fault({
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    status: 502,
    code: "BadGateway",
    count: 2,
  });
  const task = await resize("web-prod-v001", 4);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.equal(await capacity("web-prod-v001"), 4);
});

t.test("404 fails the task after exactly one read and no write", async (t) => {
  await env.simControl("DELETE", "/_sim/calls");
  const task = await resize("no-such-vmss", 3);
  t.equal(task.status.failed, true);
  t.equal(task.status.retryable, false);
  const calls = await env.calls();
  t.equal(calls.length, 1, JSON.stringify(calls));
  t.match(calls[0], { method: "GET", status: 404 });
  t.same(writesOf(calls), []);
  const exception = task.resultObjects.find((r: Json) => r.type === "EXCEPTION");
  t.match(exception, { cause: "ResourceNotFound", operation: "resizeServerGroup" });
  t.match(task.history.at(-1).status, /^Failed: 404 ResourceNotFound/);
});

t.test("a long-running operation that fails with a transient code is run again from a fresh read", async (t) => {
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v001",
    action: "failOperation",
    code: "OperationPreempted",
    message: "Preempted.",
    count: 1,
  });
  const task = await resize("web-prod-v001", 6);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.equal(await capacity("web-prod-v001"), 6);
  t.ok(
    task.history.some((h: Json) => /operation failed OperationPreempted, retrying/.test(h.status)),
    JSON.stringify(task.history),
  );
});

t.test("a long-running operation that fails for good fails the task", async (t) => {
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v001",
    action: "failOperation",
    code: "QuotaExceeded",
    message: "Not enough cores.",
    count: 1,
  });
  const task = await resize("web-prod-v001", 9);
  t.equal(task.status.failed, true);
  t.equal(task.status.retryable, false);
  // Azure does not roll back: the model keeps the requested 9 and the scale set is Failed. The task says so, and
  // reports no capacity: 9 never ran.
  const sim = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v001")).body;
  t.equal(sim.vmss.sku.capacity, 9, "the requested capacity stays in the model");
  t.equal(sim.vmss.properties.provisioningState, "Failed");
  t.same(
    task.resultObjects.filter((r: Json) => r.type === "serverGroup"),
    [],
    "no capacity reported",
  );
  t.match(task.resultObjects.at(-1), { type: "EXCEPTION", cause: "QuotaExceeded" });
});

t.test("a dropped connection is retried", async (t) => {
  await fault({ method: "PATCH", pathContains: "web-prod-v001", action: "dropConnection", count: 1 });
  const task = await resize("web-prod-v001", 2);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.equal(await capacity("web-prod-v001"), 2);
  t.ok(
    task.history.some((h: Json) => /network error/.test(h.status)),
    JSON.stringify(task.history),
  );
});

t.test("429 waits as long as Retry-After says", async (t) => {
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v001",
    status: 429,
    code: "TooManyRequests",
    count: 1,
    retryAfterSeconds: 1,
  });
  const task = await resize("web-prod-v001", 5);
  t.equal(task.status.failed, false);
  t.ok(
    task.history.some((h: Json) => h.status.includes("429 TooManyRequests, retrying in 1 s")),
    JSON.stringify(task.history),
  );
});

t.test("when retries run out the task fails, says so, and is marked retryable", async (t) => {
  await fault({
    method: "PATCH",
    pathContains: "web-prod-v001",
    status: 409,
    code: "ConflictingConcurrentWriteNotAllowed",
    count: 100,
  });
  const task = await resize("web-prod-v001", 5);
  t.equal(task.status.failed, true);
  t.equal(task.status.retryable, true);
  const patches = (await env.calls()).filter((c) => c.method === "PATCH");
  t.equal(patches.length, 6, "maxAttempts writes, no more: the SDK does not retry behind the harness");
  t.match(
    task.history.at(-2).status,
    /attempt 6\/6: 409 ConflictingConcurrentWriteNotAllowed: .*gave up after 6 attempts/,
  );
  await env.simControl("DELETE", "/_sim/faults");
});
