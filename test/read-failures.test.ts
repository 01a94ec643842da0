// How a read served to Orca (or to a person) answers a failure: Azure's failures by the one classification
// (src/azure/arm-failure.ts) and the one HTTP answer (src/api/failure-answers.ts httpErrorOf); transient ones read
// again through observe() by the retry policy's rules; 501 read once and answered 502; a bug of ours a 500 that is
// logged as an internal error, never a 503 "try again".
import t from "tap";
import { request } from "undici";
import { describeArmFailure } from "../src/azure/arm-failure.ts";
import { observe } from "../src/azure/observe.ts";
import { GaveUpError } from "../src/azure/harness/failures.ts";
import { ScaleSetReads } from "../src/azure/read-cache.ts";
import { readRetry } from "../src/azure/retry-policy.ts";
import { loadConfig } from "../src/startup-config.ts";
import { callsFor, startTestEnv } from "./helpers/service.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import type { Json } from "../testkit/json.ts";

const { stream: logStream, lines: logs } = jsonLogLines<Record<string, Json>>();
// A short deadline: a read keeps retrying Azure's "not now" (5xx, 429, no answer) until its deadline (readRetry).
const env = await startTestEnv({
  writeDurationMs: 60,
  logger: { level: "error", stream: logStream },
  env: { RETRY_DEADLINE_MS: "3000" },
});
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
  await env.simControl("DELETE", "/_sim/calls");
  // Every read below asks Azure: nothing is answered from the read cache.
  for (const serverGroupName of ["web-prod-v001", "web-prod-v002"])
    await env.api("POST", "/cache/azure/ServerGroup", { account: "demo", region: "eastus", serverGroupName });
  logs.length = 0;
});

async function fault(f: Record<string, unknown>) {
  const res = await env.simControl("POST", "/_sim/faults", f);
  if (res.status >= 300) throw new Error(`fault rejected: ${JSON.stringify(res.body)}`);
}

const scaleSetGets = async (name: string) =>
  callsFor(await env.calls(), name).filter(
    (c) => c.method === "GET" && /virtualMachineScaleSets\/[^/]+$/i.test(c.path),
  );

t.test(
  "a bug of ours inside a read route answers 500 and is logged as an internal error, not 503 'try again'",
  async (t) => {
    // The bug: the route's mapping code meets a snapshot it does not expect, and throws a TypeError. Before, the
    // route's catch took that for an Azure failure and answered 503 AzureUnavailable, and nothing was logged.
    // eslint-disable-next-line @typescript-eslint/unbound-method -- kept to be called with the reads as `this`, below
    const real = ScaleSetReads.prototype.snapshot;
    ScaleSetReads.prototype.snapshot = async function (this: ScaleSetReads, ref) {
      const fresh = await real.call(this, ref);
      return { ...fresh, value: { ...fresh.value, vmss: undefined as never } };
    };
    t.teardown(() => void (ScaleSetReads.prototype.snapshot = real));
    const res = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
    t.equal(res.status, 500, JSON.stringify(res.body));
    t.match(res.body, { error: "InternalError" });
    const logged = logs.filter((l) => l.msg === "unhandled error");
    t.equal(logged.length, 1, "logged once");
    t.match(logged[0]?.err, { type: "TypeError" });
  },
);

t.test("Azure answering 501 is read once and answered 502: asking again cannot change it", async (t) => {
  await fault({
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v002",
    status: 501,
    code: "NotImplemented",
    count: 10,
  });
  const res = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v002");
  t.equal(res.status, 502, JSON.stringify(res.body));
  t.match(res.body, { error: "AzureError", message: /NotImplemented|501|not implemented/i });
  t.equal((await scaleSetGets("web-prod-v002")).length, 1, "one GET: 501 is not retried");
  const direct = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002");
  t.equal(direct.status, 502, "the same answer on our own read route");
  t.equal(logs.length, 0, "an Azure failure is not an internal error");
});

t.test("a transient failure of a read is read again: a dropped connection, a 503", async (t) => {
  await fault({
    action: "dropConnection",
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    count: 1,
  });
  const dropped = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  t.equal(dropped.status, 200, JSON.stringify(dropped.body));
  t.equal((await scaleSetGets("web-prod-v001")).length, 2, "read again once");
  await fault({
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v002",
    status: 503,
    code: "ServiceUnavailable",
    count: 1,
  });
  const unavailable = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002");
  t.equal(unavailable.status, 200, JSON.stringify(unavailable.body));
  t.equal((await scaleSetGets("web-prod-v002")).length, 2, "read again once");
});

t.test("a read that keeps failing transiently answers 503, with Retry-After, once its deadline is spent", async (t) => {
  await fault({
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    status: 503,
    code: "ServiceUnavailable",
    count: 1000,
  });
  const res = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  t.equal(res.status, 503, JSON.stringify(res.body));
  t.match(res.body, { error: "AzureUnavailable" });
  t.ok((await scaleSetGets("web-prod-v001")).length > 1, "read again until the read's deadline");
  const raw = await request(`${env.baseUrl}/serverGroups/demo/eastus/web-prod-v001`);
  await raw.body.dump();
  t.equal(raw.statusCode, 503);
  t.equal(raw.headers["retry-after"], "5", "a dependency's outage says when to ask again");
  await fault({
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v002",
    status: 429,
    code: "TooManyRequests",
    retryAfterSeconds: 42,
    count: 100,
  });
  const throttled = await request(`${env.baseUrl}/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002`);
  await throttled.body.dump();
  t.equal(throttled.statusCode, 503);
  t.equal(throttled.headers["retry-after"], "42", "or when Azure asked us to");
});

t.test("observe(): the retry policy's rules, and a bug of ours as it is", async (t) => {
  const config = loadConfig({ SIMULATOR_URL: "https://127.0.0.1:1" });
  const retry = readRetry(config.retry, config.readRetry);
  // A clock that the waits move on: no real time passes, and the read's deadline still ends the retries.
  const fakeTime = () => {
    let now = 0;
    const wait = (ms: number) => {
      now += ms;
      return Promise.resolve();
    };
    return { now: () => now, wait, random: () => 0.5 };
  };
  const failing = (err: unknown) => {
    let calls = 0;
    return {
      read: async () => {
        calls++;
        throw err;
      },
      calls: () => calls,
    };
  };
  for (const [status, code, retried] of [
    [501, "NotImplemented", false],
    [505, "HttpVersionNotSupported", false],
    [400, "InvalidParameter", false],
    [404, "ResourceNotFound", false],
    [500, "InternalServerError", true],
    [503, "ServiceUnavailable", true],
    [429, "TooManyRequests", true],
  ] as const) {
    const f = failing(Object.assign(new Error(code), { name: "RestError", statusCode: status, code }));
    const time = fakeTime();
    const err = await observe(f.read, { retry, ...time }).catch((e) => e);
    t.type(err, GaveUpError, `${status}`);
    if (retried)
      t.ok(
        f.calls() > 1 && time.now() <= retry.deadlineMs,
        `${status} ${code}: read again, within the read's deadline (${f.calls()} reads)`,
      );
    else t.equal(f.calls(), 1, `${status} ${code}: read once`);
    t.equal(err.retryable, retried, `${status}: retryable ${retried}`);
    t.equal(
      describeArmFailure(err),
      err.failure,
      "classified once: the failure it carries is read back, not guessed again",
    );
  }
  const bug = failing(new TypeError("Cannot read properties of undefined (reading 'sku')"));
  await t.rejects(observe(bug.read, { retry, ...fakeTime() }), TypeError, "rethrown as it is");
  t.equal(bug.calls(), 1, "never retried");
  let n = 0;
  t.equal(
    await observe(
      async () => (++n < 3 ? Promise.reject(Object.assign(new Error("reset"), { code: "ECONNRESET" })) : "read"),
      { retry, ...fakeTime() },
    ),
    "read",
    "answered on the third attempt",
  );
});
