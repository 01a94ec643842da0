// The simulator's Compute throttling: token buckets per scale set and per subscription, 429 OperationNotAllowed with
// Retry-After and x-ms-ratelimit-remaining-resource. Most tests run on a hand-moved clock, so refills need no sleeping.
import t from "tap";
import { computeClient } from "./helpers/compute-client.ts";
import { SimulatorControl, type RawResponse, startSimulator } from "vmss-simulator";
import { AZURE_POLICIES, bucketName, parseThrottlingUpdate, ThrottlingConfigError } from "../src/throttling.ts";
import {
  fullBucket,
  levelAt,
  msUntilToken,
  remainingOf,
  retryAfterSeconds,
  take,
  type Bucket,
  type BucketLimit,
} from "../src/token-bucket.ts";
import { waitFor } from "./helpers/wait-for.ts";

const START = Date.parse("2026-03-01T12:00:00.000Z");
let clock = START;
const sim = await startSimulator({ port: 0, seed: true, writeDurationMs: 0, timeScale: 1, now: () => clock });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const client = computeClient({ url: sim.url, caPem: sim.caPem, subscriptionId: sim.subscriptionId });
const vmss = client.virtualMachineScaleSets;
const fast = { updateIntervalInMs: 10 };

const RG = "demo-rg";
const WEB = "web-prod-v001";
const WEB2 = "web-prod-v002";
const SUB = sim.subscriptionId;
const ARM_VMSS = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test-token" };
const Q = "?api-version=2026-04-01";

const LOW_RES = "Microsoft.Compute/GetVMScaleSetResource";
const LOW_SUB = "Microsoft.Compute/GetVMScaleSetSubscriptionMaximum";
const UPD_RES = "Microsoft.Compute/VMScaleSetActionsResource";
const UPD_SUB = "Microsoft.Compute/VMScaleSetActionsSubscriptionMaximum";
const MESSAGE = "The server rejected the request because too many requests have been received for this subscription.";

t.beforeEach(async () => {
  clock = START;
  await control.setConfig({ writeDurationMs: 0, timeScale: 1, throttling: { enabled: false, scale: 1, policies: {} } });
  await control.reset();
});

function raw(method: string, path: string, body?: unknown): Promise<RawResponse> {
  return control.request(method, `${path}${path.includes("?") ? "&" : "?"}api-version=2026-04-01`, {
    headers: AUTH,
    ...(body !== undefined ? { body } : {}),
  });
}

/** `Name;count,Name;count` → { Name: count } */
function parseRemaining(value: unknown): Record<string, number> {
  t.type(value, "string", "x-ms-ratelimit-remaining-resource is present");
  const out: Record<string, number> = {};
  for (const part of String(value).split(",")) {
    const m = /^(Microsoft\.Compute\/\w+);(\d+)$/.exec(part);
    t.ok(m, `header part "${part}" is <source RP>/<policy>;<count>`);
    // the VM-charge parts of writes are checked in simulator-fidelity.test.ts
    if (m && !/VMScaleSetBatchedVMRequests|VmssQueuedVMOperations/.test(m[1])) out[m[1]] = Number(m[2]);
  }
  return out;
}

function restError(err: unknown) {
  return err as {
    name?: string;
    statusCode?: number;
    code?: string;
    response?: { headers: { get(name: string): string | undefined } };
  };
}

// ---- the pure bucket math ----

t.test("bucket math: full start, linear refill capped at burst, clock going backwards adds nothing", async (t) => {
  const limit: BucketLimit = { burst: 12, refillPerMinute: 4 };
  const b = fullBucket(limit, 1000);
  t.same(b, { tokens: 12, at: 1000 });
  const empty: Bucket = { tokens: 0, at: 0 };
  t.equal(levelAt(empty, limit, 15_000), 1, "4 per minute: one token every 15 s, exactly");
  t.equal(levelAt(empty, limit, 7_500), 0.5);
  t.equal(levelAt(empty, limit, 10 * 60_000), 12, "capped at burst");
  t.equal(levelAt({ tokens: 3, at: 5000 }, limit, 1000), 3, "time before `at` adds nothing");
  t.equal(remainingOf(0.9999999999999), 1, "float noise just under a whole token counts as the token");
  t.equal(remainingOf(0.5), 0);
  t.equal(msUntilToken(0, limit), 15_000);
  t.equal(msUntilToken(0.5, { burst: 36, refillPerMinute: 12 }), 2_500);
  t.equal(msUntilToken(1, limit), 0);
  t.equal(msUntilToken(0, { burst: 12, refillPerMinute: 4 * 1000 }), 15, "scale 1000");
  t.equal(retryAfterSeconds(15_000), 15);
  t.equal(retryAfterSeconds(15_001), 16, "rounded up");
  t.equal(retryAfterSeconds(15), 1, "at least 1");
  t.equal(retryAfterSeconds(0), 1);
});

t.test("bucket math: take is all-or-nothing and a refused request takes no token (no debt)", async (t) => {
  const resource: BucketLimit = { burst: 2, refillPerMinute: 60 };
  const subscription: BucketLimit = { burst: 10, refillPerMinute: 600 };
  let buckets = [fullBucket(resource, 0), fullBucket(subscription, 0)];
  const limits = [resource, subscription];
  let r = take(buckets, limits, 0);
  t.same([r.allowed, r.remaining, r.empty, r.retryAfterMs], [true, [1, 9], [], 0]);
  r = take(r.buckets, limits, 0);
  t.same([r.allowed, r.remaining], [true, [0, 8]]);
  buckets = r.buckets;
  for (let i = 0; i < 5; i++) {
    r = take(buckets, limits, 0);
    t.same(
      [r.allowed, r.remaining, r.empty, r.retryAfterMs],
      [false, [0, 8], [0], 1000],
      "refused: nothing taken from either bucket",
    );
    buckets = r.buckets;
  }
  r = take(buckets, limits, 999);
  t.equal(r.allowed, false, "999 ms: not yet a whole token");
  t.equal(r.retryAfterMs, 1, "the wait counts from the level now");
  r = take(r.buckets, limits, 1000);
  t.same([r.allowed, r.remaining], [true, [0, 9]], "one token after 1 s: five refused requests made no debt");

  // both empty: the longest wait
  const both = take(
    [
      { tokens: 0, at: 0 },
      { tokens: 0.5, at: 0 },
    ],
    [resource, { burst: 10, refillPerMinute: 1 }],
    0,
  );
  t.same([both.allowed, both.empty, both.retryAfterMs], [false, [0, 1], 30_000]);
  t.throws(() => take([fullBucket(resource, 0)], [], 0), RangeError);
});

t.test(
  "bucket math: Azure's worked example (burst 12, refill 4/min, requests per minute 0, 8, 0, 13, 5, 0)",
  async (t) => {
    // compute-throttling-limits: throttled 0, 0, 0, 1, 1, 0; tokens at the end of each minute 12, 4, 8, 0, 0, 4
    const limit: BucketLimit = { burst: 12, refillPerMinute: 4 };
    let bucket = fullBucket(limit, 0);
    const throttled: number[] = [];
    const endTokens: number[] = [];
    [0, 8, 0, 13, 5, 0].forEach((requests, minute) => {
      const now = minute * 60_000;
      let refused = 0;
      for (let i = 0; i < requests; i++) {
        const r = take([bucket], [limit], now);
        bucket = r.buckets[0];
        if (!r.allowed) refused++;
      }
      throttled.push(refused);
      endTokens.push(remainingOf(levelAt(bucket, limit, now)));
    });
    t.same(throttled, [0, 0, 0, 1, 1, 0]);
    t.same(endTokens, [12, 4, 8, 0, 0, 4]);
  },
);

t.test("config parsing: figures, scale and policies are validated", async (t) => {
  t.same(parseThrottlingUpdate({ enabled: true }), { enabled: true });
  t.same(parseThrottlingUpdate({ scale: 0.5, policies: { vmscalesetactions: { resource: { burst: 3 } } } }), {
    scale: 0.5,
    policies: { VMScaleSetActions: { resource: { burst: 3 } } },
  });
  for (const bad of [
    null,
    [],
    { enabled: "yes" },
    { scale: 0 },
    { scale: -1 },
    { scale: 2_000_000 },
    { other: 1 },
    { policies: [] },
    { policies: { Nope: {} } },
    { policies: { VMScaleSetActions: { resource: { burst: 0 } } } },
    { policies: { VMScaleSetActions: { resource: { burst: 1.5 } } } },
    { policies: { VMScaleSetActions: { resource: { refillPerMinute: 0 } } } },
    { policies: { VMScaleSetActions: { resource: { other: 1 } } } },
    { policies: { VMScaleSetActions: { region: {} } } },
    { policies: { GetOperation: { resource: { burst: 0 } } } },
  ]) {
    t.throws(() => parseThrottlingUpdate(bad), ThrottlingConfigError, JSON.stringify(bad));
  }
  t.equal(bucketName("VMScaleSetActions", "resource"), UPD_RES);
  t.same(AZURE_POLICIES.VMScaleSetActions.resource, { burst: 12, refillPerMinute: 4 });
  t.same(AZURE_POLICIES.GetVMScaleSet.resource, { burst: 36, refillPerMinute: 12 });
});

// ---- the simulator ----

t.test("on by default with Azure's figures and ARM's read budget; throttling: false switches it off", async (t) => {
  const fresh = await startSimulator({ port: 0, seed: true, writeDurationMs: 0 });
  t.teardown(() => fresh.close());
  const freshControl = new SimulatorControl(fresh);
  t.teardown(() => freshControl.close());
  t.same((await freshControl.getConfig()).throttling, { enabled: true, scale: 1, policies: {} });
  const got = await freshControl.request(
    "GET",
    `/subscriptions/${fresh.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}${Q}`,
    { headers: AUTH },
  );
  t.equal(got.status, 200);
  t.equal(
    got.headers["x-ms-ratelimit-remaining-resource"],
    `${LOW_SUB};2399,${LOW_RES};35`,
    "as recorded (update[3]): subscription bucket first",
  );
  t.equal(got.headers["x-ms-ratelimit-remaining-subscription-reads"], "11999");

  const off = await startSimulator({ port: 0, seed: true, writeDurationMs: 0, throttling: false });
  t.teardown(() => off.close());
  const offControl = new SimulatorControl(off);
  t.teardown(() => offControl.close());
  t.equal((await offControl.throttling()).enabled, false);
  for (let i = 0; i < 50; i++) {
    const res = await offControl.request(
      "GET",
      `/subscriptions/${off.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}${Q}`,
      { headers: AUTH },
    );
    t.equal(res.status, 200);
    t.equal(res.headers["x-ms-ratelimit-remaining-resource"], undefined);
  }
  t.same((await offControl.throttling()).buckets, []);
});

t.test("GETs: the 37th in a burst on one scale set gets 429, another scale set is still served", async (t) => {
  const config = await control.setConfig({ throttling: { enabled: true } });
  t.same(config.throttling, { enabled: true, scale: 1, policies: {} });

  for (let i = 1; i <= 36; i++) {
    const res = await raw("GET", `${ARM_VMSS}/${WEB}`);
    t.equal(res.status, 200);
    t.same(
      parseRemaining(res.headers["x-ms-ratelimit-remaining-resource"]),
      { [LOW_RES]: 36 - i, [LOW_SUB]: 2400 - i },
      `GET ${i}: both counts go down`,
    );
  }
  const refused = await raw("GET", `${ARM_VMSS}/${WEB}`);
  t.equal(refused.status, 429);
  t.equal(refused.headers["retry-after"], "5", "12 per minute: the next token in 5 s");
  t.same(
    parseRemaining(refused.headers["x-ms-ratelimit-remaining-resource"]),
    { [LOW_RES]: 0, [LOW_SUB]: 2364 },
    "the 429 took no token",
  );
  t.match(refused.body, {
    error: {
      code: "OperationNotAllowed",
      message: MESSAGE,
      details: [{ code: "TooManyRequests", target: LOW_RES }],
      innererror: { internalErrorCode: "TooManyRequestsReceived" },
    },
  });
  const detail = JSON.parse((refused.body as { error: { details: { message: string }[] } }).error.details[0].message);
  t.same(detail, {
    operationGroup: LOW_RES,
    startTime: new Date(START).toISOString(),
    endTime: new Date(START + 5000).toISOString(),
    allowedRequestCount: 36,
  });

  // the SDK: a RestError with statusCode 429 and the headers readable from err.response.headers
  const err = restError(
    await vmss.get(RG, WEB).then(
      () => undefined,
      (e: unknown) => e,
    ),
  );
  t.equal(err.name, "RestError");
  t.equal(err.statusCode, 429);
  t.equal(err.code, "OperationNotAllowed");
  t.equal(err.response?.headers.get("retry-after"), "5");
  t.match(err.response?.headers.get("x-ms-ratelimit-remaining-resource"), `${LOW_SUB};2364,${LOW_RES};0`);

  // per scale set: web-prod-v002 has its own bucket, the subscription bucket is shared
  const other = await raw("GET", `${ARM_VMSS}/${WEB2}`);
  t.equal(other.status, 200);
  t.same(parseRemaining(other.headers["x-ms-ratelimit-remaining-resource"]), { [LOW_RES]: 35, [LOW_SUB]: 2363 });
  t.equal((await vmss.get(RG, "batch-v001")).name, "batch-v001");

  // the call log shows the 429s
  const statuses = (await control.calls()).filter((c) => c.path.endsWith(WEB)).map((c) => c.status);
  t.same(statuses.slice(-3), [200, 429, 429]);

  // GET /_sim/throttling: the levels
  const snapshot = await control.throttling();
  t.equal(snapshot.enabled, true);
  t.same(snapshot.policies.GetVMScaleSet, {
    resource: { burst: 36, refillPerMinute: 12 },
    subscription: { burst: 2400, refillPerMinute: 800 },
  });
  const web = snapshot.buckets.find((b) => b.name === LOW_RES && b.resource === `${RG}/${WEB}`);
  t.match(web, {
    policy: "GetVMScaleSet",
    scope: "resource",
    subscriptionId: SUB,
    burst: 36,
    remaining: 0,
    tokens: 0,
    msUntilToken: 5000,
  });
  const sub = snapshot.buckets.find((b) => b.name === LOW_SUB);
  t.match(sub, { scope: "subscription", resource: null, remaining: 2362 });
});

t.test("refill on the simulator's clock: Retry-After is when the next token is there", async (t) => {
  await control.setThrottling({ enabled: true });
  for (let i = 0; i < 36; i++) await vmss.get(RG, WEB);
  await t.rejects(vmss.get(RG, WEB), { name: "RestError", statusCode: 429 });
  clock += 4_999;
  const early = await raw("GET", `${ARM_VMSS}/${WEB}`);
  t.equal(early.status, 429, "not yet");
  t.equal(early.headers["retry-after"], "1", "1 ms left, rounded up to a second");
  clock += 1;
  t.equal((await vmss.get(RG, WEB)).name, WEB, "a token after 5 s");
  await t.rejects(vmss.get(RG, WEB), { name: "RestError", statusCode: 429 }, "and only one");
  clock += 60_000;
  for (let i = 0; i < 12; i++)
    t.equal((await raw("GET", `${ARM_VMSS}/${WEB}`)).status, 200, `a minute later: 12 tokens (${i + 1})`);
  t.equal((await raw("GET", `${ARM_VMSS}/${WEB}`)).status, 429);
  clock += 3_600_000;
  const full = await raw("GET", `${ARM_VMSS}/${WEB}`);
  t.equal(
    parseRemaining(full.headers["x-ms-ratelimit-remaining-resource"])[LOW_RES],
    35,
    "an hour later: full (36), capped, minus this one",
  );
});

t.test(
  "writes: the 13th update of a scale set gets 429; PUT and PATCH share the bucket, instance actions the subscription's",
  async (t) => {
    await control.setThrottling({ enabled: true });
    const etag = (await vmss.get(RG, WEB)).etag;
    const writes: [string, string, unknown][] = [
      ["PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "1" } }],
      ["PUT", `${ARM_VMSS}/${WEB}`, { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 3 } }],
    ];
    for (let i = 1; i <= 11; i++) {
      const [method, path, body] = writes[(i - 1) % writes.length];
      const res = await raw(method, path, body);
      t.ok(res.status === 200 || res.status === 202, `${method} ${i} accepted (${res.status})`);
      t.same(
        parseRemaining(res.headers["x-ms-ratelimit-remaining-resource"]),
        { [UPD_RES]: 12 - i, [UPD_SUB]: 1500 - i },
        `write ${i}`,
      );
    }
    // the 12th through the SDK: accepted; its LRO polls and final GET are charged to other policies
    await vmss.update(RG, WEB, { tags: { n: "12" } }, fast).pollUntilDone();
    const before = await vmss.get(RG, WEB);
    t.not(before.etag, etag);

    const err = restError(
      await vmss
        .update(RG, WEB, { tags: { n: "13" } }, fast)
        .pollUntilDone()
        .then(
          () => undefined,
          (e: unknown) => e,
        ),
    );
    t.equal(err.statusCode, 429, "the 13th write is refused");
    t.equal(err.code, "OperationNotAllowed");
    t.equal(err.response?.headers.get("retry-after"), "15", "4 per minute: a token every 15 s");
    t.equal(err.response?.headers.get("x-ms-ratelimit-remaining-resource"), `${UPD_SUB};1488,${UPD_RES};0`);
    const after = await vmss.get(RG, WEB);
    t.equal(after.etag, before.etag, "a refused write is not applied");
    t.same(after.tags, { n: "12" });
    // py[39], py[48]: manualupgrade and delete report only the subscription bucket of VMScaleSetActions
    const upgrade = await raw("POST", `${ARM_VMSS}/${WEB}/manualupgrade`, { instanceIds: ["0"] });
    t.equal(upgrade.status, 202, "manualupgrade is not held by the scale set's bucket");
    t.same(parseRemaining(upgrade.headers["x-ms-ratelimit-remaining-resource"]), { [UPD_SUB]: 1487 });

    // other scale sets can still be written; a GET is another policy
    await vmss.update(RG, WEB2, { tags: { other: "yes" } }, fast).pollUntilDone();
    t.equal((await raw("GET", `${ARM_VMSS}/${WEB}`)).status, 200);

    clock += 15_000;
    await vmss.update(RG, WEB, { tags: { n: "after-15s" } }, fast).pollUntilDone();
    t.same((await vmss.get(RG, WEB)).tags, { n: "after-15s" }, "one write 15 s later");
    t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 429);
  },
);

t.test("every request that reaches the throttling step is charged, whatever the route then answers", async (t) => {
  await control.setThrottling({ enabled: true, policies: { VMScaleSetActions: { resource: { burst: 2 } } } });
  const stale = await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { a: "b" } });
  t.equal(stale.status, 200);
  const precondition = await control.request("PATCH", `${ARM_VMSS}/${WEB}${Q}`, {
    headers: { ...AUTH, "if-match": '"999"' },
    body: { tags: {} },
  });
  t.equal(precondition.status, 412, "412 …");
  t.same(
    parseRemaining(precondition.headers["x-ms-ratelimit-remaining-resource"]),
    { [UPD_RES]: 0, [UPD_SUB]: 1498 },
    "… still took a token and says so",
  );
  t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 429);

  const missing = await raw("GET", `${ARM_VMSS}/no-such-set`);
  t.equal(missing.status, 404);
  t.same(parseRemaining(missing.headers["x-ms-ratelimit-remaining-resource"]), { [LOW_RES]: 35, [LOW_SUB]: 2399 });

  // requests refused before the throttling step (authentication, api-version) or on no known route are not charged
  t.equal((await control.request("GET", `${ARM_VMSS}/${WEB}${Q}`)).status, 401);
  t.equal((await control.request("GET", `${ARM_VMSS}/${WEB}`, { headers: AUTH })).status, 400);
  const unknown = await raw("GET", `/subscriptions/${SUB}/providers/Microsoft.Compute/somethingElse`);
  t.equal(unknown.status, 501, "not simulated");
  t.equal(unknown.headers["x-ms-ratelimit-remaining-resource"], undefined);
  const snapshot = await control.throttling();
  t.equal(
    snapshot.buckets.find((b) => b.name === LOW_RES && b.resource === `${RG}/${WEB}`),
    undefined,
    "web-prod-v001's GET bucket untouched",
  );
});

t.test("the subscription bucket binds across scale sets", async (t) => {
  await control.setThrottling({ enabled: true, policies: { GetVMScaleSet: { subscription: { burst: 40 } } } });
  for (let i = 0; i < 36; i++) t.equal((await raw("GET", `${ARM_VMSS}/${WEB}`)).status, 200);
  for (let i = 0; i < 4; i++)
    t.equal((await raw("GET", `${ARM_VMSS}/${WEB2}`)).status, 200, `web-prod-v002 GET ${i + 1}`);
  const refused = await raw("GET", `${ARM_VMSS}/${WEB2}`);
  t.equal(refused.status, 429, "web-prod-v002 still has 32 tokens, but the subscription has none");
  t.same(parseRemaining(refused.headers["x-ms-ratelimit-remaining-resource"]), { [LOW_RES]: 32, [LOW_SUB]: 0 });
  t.match(refused.body, {
    error: { code: "OperationNotAllowed", details: [{ code: "TooManyRequests", target: LOW_SUB }] },
  });
  t.equal(refused.headers["retry-after"], "1", "800 per minute: 75 ms, rounded up to 1 s");
  await t.rejects(
    vmss.get(RG, "batch-v001"),
    { name: "RestError", statusCode: 429 },
    "every scale set in the subscription",
  );
  const webRefused = await raw("GET", `${ARM_VMSS}/${WEB}`);
  t.match(
    webRefused.body,
    { error: { details: [{ target: LOW_SUB }, { target: LOW_RES }] } },
    "both empty: both named",
  );
  t.equal(webRefused.headers["retry-after"], "5", "the longest wait");
  clock += 75;
  t.equal((await raw("GET", `${ARM_VMSS}/${WEB2}`)).status, 200, "75 ms later the subscription has a token");
});

t.test("other policies: creates, VM lists and gets, scale-set lists, operation polls", async (t) => {
  await control.setThrottling({ enabled: true });
  const create = await raw("PUT", `${ARM_VMSS}/new-v001`, {
    location: "eastus",
    sku: { name: "Standard_D2s_v3", capacity: 1 },
  });
  t.equal(create.status, 201);
  t.same(parseRemaining(create.headers["x-ms-ratelimit-remaining-resource"]), {
    "Microsoft.Compute/CreateVMScaleSetResource": 11,
    "Microsoft.Compute/CreateVMScaleSetSubscriptionMaximum": 374,
  });
  const replace = await raw("PUT", `${ARM_VMSS}/new-v001`, {
    location: "eastus",
    sku: { name: "Standard_D2s_v3", capacity: 2 },
  });
  t.same(
    parseRemaining(replace.headers["x-ms-ratelimit-remaining-resource"]),
    { [UPD_RES]: 11, [UPD_SUB]: 1499 },
    "a PUT on an existing scale set is an update",
  );

  const vms = await raw("GET", `${ARM_VMSS}/${WEB}/virtualMachines`);
  t.same(parseRemaining(vms.headers["x-ms-ratelimit-remaining-resource"]), {
    "Microsoft.Compute/HighCostGetVMScaleSetResource": 29,
    "Microsoft.Compute/HighCostGetVMScaleSetSubscriptionMaximum": 1079,
  });
  const vm = await raw("GET", `${ARM_VMSS}/${WEB}/virtualMachines/0`);
  t.same(parseRemaining(vm.headers["x-ms-ratelimit-remaining-resource"]), {
    "Microsoft.Compute/GetVMScaleSetVMResource": 35,
    "Microsoft.Compute/GetVMScaleSetVMSubscriptionMaximum": 5999,
  });
  const list = await raw("GET", ARM_VMSS);
  t.same(
    parseRemaining(list.headers["x-ms-ratelimit-remaining-resource"]),
    { "Microsoft.Compute/HighCostGetVMScaleSetSubscriptionMaximum": 1078 },
    "lists: subscription only",
  );
  const listAll = await raw("GET", `/subscriptions/${SUB}/providers/Microsoft.Compute/virtualMachineScaleSets`);
  t.same(parseRemaining(listAll.headers["x-ms-ratelimit-remaining-resource"]), {
    "Microsoft.Compute/HighCostGetVMScaleSetSubscriptionMaximum": 1077,
  });

  const patch = await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { a: "b" } });
  const statusUrl = new URL(String(patch.headers["azure-asyncoperation"]));
  const poll = await control.request("GET", `${statusUrl.pathname}${statusUrl.search}`, { headers: AUTH });
  t.equal(poll.status, 200);
  t.same(
    parseRemaining(poll.headers["x-ms-ratelimit-remaining-resource"]),
    { "Microsoft.Compute/GetOperationResource": 44, "Microsoft.Compute/GetOperationSubscriptionMaximum": 14999 },
    "status polls: per operation and per subscription (update[1])",
  );

  // the SDK's VM pager: every page is a call
  await control.setConfig({ vmPageSize: 1 });
  const ids: string[] = [];
  for await (const v of client.virtualMachineScaleSetVMs.list(RG, WEB)) ids.push(v.instanceId ?? "?");
  t.same(ids, ["0", "1", "2"]);
  const snapshot = await control.throttling();
  t.match(
    snapshot.buckets.find(
      (b) => b.name === "Microsoft.Compute/HighCostGetVMScaleSetResource" && b.resource === `${RG}/${WEB}`,
    ),
    { remaining: 26 },
  );
  await control.setConfig({ vmPageSize: 50 });
});

t.test("scale multiplies every refill rate; a new scale keeps the levels", async (t) => {
  await control.setThrottling({ enabled: true, scale: 1000 });
  for (let i = 0; i < 12; i++) t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 200);
  const refused = await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} });
  t.equal(refused.status, 429);
  t.equal(refused.headers["retry-after"], "1", "15 ms, rounded up to a second");
  clock += 15;
  t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 200, "15 ms later at scale 1000");

  await control.setThrottling({ scale: 1 });
  t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 429, "the level was kept (empty)");
  clock += 15;
  t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 429, "and refills at 4/min now");
  const config = await control.getConfig();
  t.same(config.throttling, { enabled: true, scale: 1, policies: {} });
});

t.test("scale on the real clock: a test refills in milliseconds", async (t) => {
  const real = await startSimulator({ port: 0, seed: true, writeDurationMs: 0, timeScale: 1 });
  t.teardown(() => real.close());
  const realControl = new SimulatorControl(real);
  t.teardown(() => realControl.close());
  const realClient = computeClient({ url: real.url, caPem: real.caPem, subscriptionId: real.subscriptionId });
  await realControl.setThrottling({ enabled: true });
  for (let i = 0; i < 12; i++)
    await realClient.virtualMachineScaleSets.update(RG, WEB, { tags: { i: String(i) } }, fast).pollUntilDone();
  await t.rejects(realClient.virtualMachineScaleSets.update(RG, WEB, { tags: {} }, fast).pollUntilDone(), {
    name: "RestError",
    statusCode: 429,
  });
  await realControl.setThrottling({ scale: 6000 }); // 4/min → 400 per second: a token every 2.5 ms
  // The bound is the assertion here: at 4/min a token takes 15 s, so a write taken within 5 s (loaded machine or
  // not) was let through by the scaled refill.
  await waitFor(
    async () => {
      try {
        await realClient.virtualMachineScaleSets.update(RG, WEB, { tags: { refilled: "yes" } }, fast).pollUntilDone();
        return true;
      } catch (err) {
        if ((err as { statusCode?: number }).statusCode === 429) return false;
        throw err;
      }
    },
    { what: "a token refilled at 400 per second", timeoutMs: 5_000, intervalMs: 5 },
  );
  t.same((await realClient.virtualMachineScaleSets.get(RG, WEB)).tags, { refilled: "yes" });
});

t.test("control API: config validation, reset refills the buckets and keeps the config, switching off", async (t) => {
  const initial = await control.getConfig();
  for (const bad of [
    { throttling: true },
    { throttling: { enabled: 1 } },
    { throttling: { scale: 0 } },
    { throttling: { policies: { VMScaleSetActions: { resource: { burst: -1 } } } } },
    { throttling: { policies: { GetOperation: { resource: { burst: 0 } } } } },
    { throttling: { enabled: true }, vmPageSize: 0 },
    { vmPageSize: 7, throttling: { enabled: true, bogus: 1 } },
  ]) {
    const res = await control.request("PUT", "/_sim/config", { body: bad });
    t.equal(res.status, 400, JSON.stringify(bad));
    t.match(res.body, { error: { code: "BadRequest", message: /\S/ } });
  }
  t.same(await control.getConfig(), initial, "refused PUTs changed nothing");

  const config = await control.setConfig({
    throttling: { enabled: true, policies: { VMScaleSetActions: { resource: { burst: 1, refillPerMinute: 1 } } } },
  });
  t.same(config.throttling, {
    enabled: true,
    scale: 1,
    policies: { VMScaleSetActions: { resource: { burst: 1, refillPerMinute: 1 } } },
  });
  t.same((await control.throttling()).policies.VMScaleSetActions, {
    resource: { burst: 1, refillPerMinute: 1 },
    subscription: { burst: 1500, refillPerMinute: 500 },
  });
  t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 200);
  const refused = await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} });
  t.equal(refused.status, 429);
  t.equal(refused.headers["retry-after"], "60");

  await control.reset();
  t.same((await control.throttling()).buckets, [], "reset: every bucket full again");
  t.equal((await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} })).status, 200, "a token after reset");
  t.equal((await control.getConfig()).throttling?.enabled, true, "reset keeps the config");

  await control.setThrottling({ enabled: false });
  const off = await raw("PATCH", `${ARM_VMSS}/${WEB}`, { tags: {} });
  t.equal(off.status, 200, "off: nothing is throttled");
  t.equal(off.headers["x-ms-ratelimit-remaining-resource"], undefined, "and no header");
  t.same((await control.throttling()).buckets, []);
  t.same(
    (await control.getConfig()).throttling,
    { enabled: false, scale: 1, policies: { VMScaleSetActions: { resource: { burst: 1, refillPerMinute: 1 } } } },
    "overrides are kept while off",
  );
  await control.setThrottling({ policies: {} });
  t.same((await control.getConfig()).throttling, { enabled: false, scale: 1, policies: {} }, "back at Azure's figures");
});

t.test(
  "ARM's budget on every answer under a subscription: the subscription, resource group, provider and network reads report their reads left; spent by another caller, 429 SubscriptionRequestsThrottled",
  async (t) => {
    await control.setThrottling({ enabled: true });
    const R = "?api-version=2022-12-01";
    const reads = async (path: string) => {
      const res = await control.request("GET", path, { headers: AUTH });
      t.equal(res.status, 200, path);
      return res.headers["x-ms-ratelimit-remaining-subscription-reads"];
    };
    t.equal(await reads(`/subscriptions/${SUB}${R}`), "11999", "the subscription");
    t.equal(await reads(`/subscriptions/${SUB}/resourceGroups/${RG}${R}`), "11998", "a resource group");
    t.equal(await reads(`/subscriptions/${SUB}/providers/Microsoft.Compute${R}`), "11997", "a provider");
    t.equal(
      await reads(`/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Network/loadBalancers/${WEB}-lb${Q}`),
      "11996",
      "a Microsoft.Network read, from the same budget",
    );
    t.equal(await reads(`${ARM_VMSS}/${WEB}${Q}`), "11995", "and a Compute read");
    const missing = await control.request("GET", `/subscriptions/${SUB}/resourceGroups/no-such-rg${R}`, {
      headers: AUTH,
    });
    t.equal(missing.status, 404);
    t.equal(missing.headers["x-ms-ratelimit-remaining-subscription-reads"], "11994", "a 404 is charged too");
    t.equal(await reads(`/subscriptions${R}`), undefined, "the tenant's list of subscriptions is not a subscription's");

    t.same(await control.spendArmBudget("reads", 11_900), { budget: "reads", remaining: 94 });
    t.equal(await reads(`/subscriptions/${SUB}${R}`), "93", "the real count: another caller's reads are gone");
    await control.spendArmBudget("reads", 1_000_000);
    const refused = await control.request("GET", `/subscriptions/${SUB}${R}`, { headers: AUTH });
    t.equal(refused.status, 429);
    t.equal((refused.body as { error: { code: string } }).error.code, "SubscriptionRequestsThrottled");
    t.equal(refused.headers["retry-after"], "1", "one read back in 0.3 s of Azure's clock (200 a minute)");
    clock += 300;
    t.equal(await reads(`/subscriptions/${SUB}${R}`), "0", "after Retry-After: served, the one token taken");

    const bad = await control.request("POST", "/_sim/throttling/spend", { body: { budget: "lists", tokens: 1 } });
    t.equal(bad.status, 400);
    t.match(
      (bad.body as { error: { message: string } }).error.message,
      /"budget" must be "reads", "writes" or "deletes"/,
    );
  },
);
