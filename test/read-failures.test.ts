// How a read served to Orca (or to a person) answers a failure: Azure's failures by the one classification
// (src/azure/arm-failure.ts) and the one HTTP answer (src/api/failure-answers.ts httpErrorOf); transient ones read
// again through observe() by the retry policy's rules; 501 read once and answered 502; a bug of ours a 500 that is
// logged as an internal error, never a 503 "try again".
import t from "tap";
import { Writable } from "node:stream";
import { request } from "undici";
import { describeArmFailure } from "../src/azure/arm-failure.ts";
import { observe } from "../src/azure/observe.ts";
import { OperationFailedError } from "../src/azure/execute-op.ts";
import { ScaleSetReads } from "../src/azure/read-cache.ts";
import { loadConfig } from "../src/config.ts";
import { callsFor, startTestEnv } from "./helpers/service.ts";

const logs: Record<string, any>[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of String(chunk).split("\n").filter(Boolean)) logs.push(JSON.parse(line));
    done();
  },
});
const env = await startTestEnv({ writeDurationMs: 60, logger: { level: "error", stream: logStream } });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
  await env.simControl("DELETE", "/_sim/calls");
  // Every read below asks Azure: nothing is answered from the read cache.
  for (const serverGroupName of ["web-prod-v001", "web-prod-v002"]) await env.api("POST", "/cache/azure/ServerGroup", { account: "demo", region: "eastus", serverGroupName });
  logs.length = 0;
});

async function fault(f: Record<string, unknown>) {
  const res = await env.simControl("POST", "/_sim/faults", f);
  if (res.status >= 300) throw new Error(`fault rejected: ${JSON.stringify(res.body)}`);
}

const scaleSetGets = async (name: string) => callsFor(await env.calls(), name).filter((c) => c.method === "GET" && /virtualMachineScaleSets\/[^/]+$/i.test(c.path));

t.test("a bug of ours inside a read route answers 500 and is logged as an internal error, not 503 'try again'", async (t) => {
  // The bug: the route's mapping code meets a snapshot it does not expect, and throws a TypeError. Before, the
  // route's catch took that for an Azure failure and answered 503 AzureUnavailable, and nothing was logged.
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
});

t.test("Azure answering 501 is read once and answered 502: asking again cannot change it", async (t) => {
  await fault({ method: "GET", pathContains: "virtualMachineScaleSets/web-prod-v002", status: 501, code: "NotImplemented", count: 10 });
  const res = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v002");
  t.equal(res.status, 502, JSON.stringify(res.body));
  t.match(res.body, { error: "AzureError", message: /NotImplemented|501|not implemented/i });
  t.equal((await scaleSetGets("web-prod-v002")).length, 1, "one GET: 501 is not retried");
  const direct = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002");
  t.equal(direct.status, 502, "the same answer on our own read route");
  t.equal(logs.length, 0, "an Azure failure is not an internal error");
});

t.test("a transient failure of a read is read again: a dropped connection, a 503", async (t) => {
  await fault({ action: "dropConnection", method: "GET", pathContains: "virtualMachineScaleSets/web-prod-v001", count: 1 });
  const dropped = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  t.equal(dropped.status, 200, JSON.stringify(dropped.body));
  t.equal((await scaleSetGets("web-prod-v001")).length, 2, "read again once");
  await fault({ method: "GET", pathContains: "virtualMachineScaleSets/web-prod-v002", status: 503, code: "ServiceUnavailable", count: 1 });
  const unavailable = await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002");
  t.equal(unavailable.status, 200, JSON.stringify(unavailable.body));
  t.equal((await scaleSetGets("web-prod-v002")).length, 2, "read again once");
});

t.test("a read that keeps failing transiently answers 503 once its few attempts are spent", async (t) => {
  await fault({ method: "GET", pathContains: "virtualMachineScaleSets/web-prod-v001", status: 503, code: "ServiceUnavailable", count: 100 });
  const res = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  t.equal(res.status, 503, JSON.stringify(res.body));
  t.match(res.body, { error: "AzureUnavailable" });
  t.equal((await scaleSetGets("web-prod-v001")).length, 3, "the read profile's three attempts");
  const raw = await request(`${env.baseUrl}/serverGroups/demo/eastus/web-prod-v001`);
  await raw.body.dump();
  t.equal(raw.statusCode, 503);
  t.equal(raw.headers["retry-after"], "5", "a dependency's outage says when to ask again");
  await fault({ method: "GET", pathContains: "virtualMachineScaleSets/web-prod-v002", status: 429, code: "TooManyRequests", retryAfterSeconds: 42, count: 100 });
  const throttled = await request(`${env.baseUrl}/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002`);
  await throttled.body.dump();
  t.equal(throttled.statusCode, 503);
  t.equal(throttled.headers["retry-after"], "42", "or when Azure asked us to");
});

t.test("observe(): the retry policy's rules, and a bug of ours as it is", async (t) => {
  const retry = { ...loadConfig({ SIMULATOR_URL: "https://127.0.0.1:1" }).retry, maxAttempts: 3 };
  const noWait = async () => {};
  const failing = (err: unknown) => {
    let calls = 0;
    return { read: async () => { calls++; throw err; }, calls: () => calls };
  };
  for (const [status, code, attempts] of [[501, "NotImplemented", 1], [505, "HttpVersionNotSupported", 1], [400, "InvalidParameter", 1], [404, "ResourceNotFound", 1], [500, "InternalServerError", 3], [503, "ServiceUnavailable", 3], [429, "TooManyRequests", 3]] as const) {
    const f = failing(Object.assign(new Error(code), { name: "RestError", statusCode: status, code }));
    const err = await observe(f.read, { retry, wait: noWait }).catch((e) => e);
    t.type(err, OperationFailedError, `${status}`);
    t.equal(f.calls(), attempts, `${status} ${code}: ${attempts} attempt(s)`);
    t.equal(err.retryable, attempts > 1, `${status}: retryable ${attempts > 1}`);
    t.equal(describeArmFailure(err), err.failure, "classified once: the failure it carries is read back, not guessed again");
  }
  const bug = failing(new TypeError("Cannot read properties of undefined (reading 'sku')"));
  await t.rejects(observe(bug.read, { retry, wait: noWait }), TypeError, "rethrown as it is");
  t.equal(bug.calls(), 1, "never retried");
  let n = 0;
  t.equal(await observe(async () => (++n < 3 ? Promise.reject(Object.assign(new Error("reset"), { code: "ECONNRESET" })) : "read"), { retry, wait: noWait }), "read", "answered on the third attempt");
});
