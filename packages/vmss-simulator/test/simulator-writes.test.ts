// Writes in the simulator on a hand-moved clock: failures that persist, allocation failures, Canceled operations,
// the switchable modes for concurrent writes, rolling upgrades and the time factor. Nothing sleeps.
import t from "tap";
import { computeClient } from "./helpers/compute-client.ts";
import { SimulatorControl, type RawResponse, startSimulator } from "vmss-simulator";
import { HAND_CLOCK_START as START, startHandClockSimulator } from "./helpers/hand-clock-simulator.ts";

let clock = START;
const { sim, control } = await startHandClockSimulator(t, () => clock);
const client = computeClient(sim);
const vmss = client.virtualMachineScaleSets;

const RG = "demo-rg";
const WEB = "web-prod-v001";
const ARM_VMSS = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test-token" };
const Q = "?api-version=2026-04-01";
/** Every write takes 30 s of the simulator's clock in these tests. */
const WRITE_MS = 30_000;

t.beforeEach(async () => {
  clock = START;
  await control.reset();
  await control.setConfig({
    timeScale: 1,
    writeDurationMs: WRITE_MS,
    writeDurationsMs: {},
    concurrentWrites: "conflict",
    conflictWindowSeconds: 10,
  });
});

function arm(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<RawResponse> {
  return control.request(method, `${path}${path.includes("?") ? "&" : "?"}api-version=2026-04-01`, {
    headers: { ...AUTH, ...headers },
    ...(body !== undefined ? { body } : {}),
  });
}

function poll(
  res: RawResponse,
  which: "azure-asyncoperation" | "location" = "azure-asyncoperation",
): Promise<RawResponse> {
  const url = new URL(String(res.headers[which]));
  return control.request("GET", `${url.pathname}${url.search}`, { headers: AUTH });
}

async function vmStates(name = WEB): Promise<[string, string][]> {
  const res = await arm("GET", `${ARM_VMSS}/${name}/virtualMachines`);
  return (res.body as { value: { instanceId: string; properties: { provisioningState: string } }[] }).value.map(
    (vm) => [vm.instanceId, vm.properties.provisioningState],
  );
}

async function scaleSet(name = WEB) {
  const res = await arm("GET", `${ARM_VMSS}/${name}`);
  return res.body as {
    etag: string;
    sku: { capacity: number };
    tags?: Record<string, string>;
    properties: { provisioningState: string };
  };
}

t.test(
  "allocationFailed: the requested capacity stays, missing VMs are listed Failed, the scale set stays Failed until a write succeeds",
  async (t) => {
    await control.addFault({ action: "allocationFailed", method: "PATCH", pathContains: WEB, allocatable: 1 });
    const accepted = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { sku: { capacity: 6 } });
    t.equal(accepted.status, 200);
    t.same(await vmStates(), [
      ["0", "Succeeded"],
      ["1", "Succeeded"],
      ["2", "Succeeded"],
      ["3", "Creating"],
      ["4", "Creating"],
      ["5", "Creating"],
    ]);
    t.equal((await control.calls()).find((c) => c.method === "PATCH")?.fault, "allocationFailed");

    clock += WRITE_MS;
    const status = await poll(accepted);
    t.match(status.body, {
      status: "Failed",
      error: { code: "AllocationFailed", message: /^Allocation failed\. We do not have sufficient capacity/ },
    });
    t.same(
      await vmStates(),
      [
        ["0", "Succeeded"],
        ["1", "Succeeded"],
        ["2", "Succeeded"],
        ["3", "Succeeded"],
        ["4", "Failed"],
        ["5", "Failed"],
      ],
      "one VM allocated, two Failed",
    );
    const failed = await scaleSet();
    t.equal(failed.sku.capacity, 6, "the model keeps the requested capacity: the model alone is no confirmation");
    t.equal(failed.properties.provisioningState, "Failed");
    t.equal(failed.etag, (accepted.body as { etag: string }).etag, "the ETag it got at acceptance");
    const location = await poll(accepted, "azure-asyncoperation");
    t.equal(location.status, 200, "the status URL answers 200 with the Failed status");

    clock += 3_600_000;
    t.equal((await scaleSet()).properties.provisioningState, "Failed", "Failed persists");
    t.equal(
      (await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { retry: "1" } }, { "if-match": failed.etag })).status,
      200,
      "a Failed scale set takes writes",
    );
    t.same(
      (await vmStates()).map(([, s]) => s),
      ["Succeeded", "Succeeded", "Succeeded", "Succeeded", "Creating", "Creating"],
      "a later write allocates the Failed VMs again",
    );
    clock += WRITE_MS;
    t.equal((await scaleSet()).properties.provisioningState, "Succeeded", "and Succeeded once it completes");
    t.same(
      (await vmStates()).map(([, s]) => s),
      ["Succeeded", "Succeeded", "Succeeded", "Succeeded", "Succeeded", "Succeeded"],
    );
  },
);

t.test("allocationFailed is taken only by a write that adds VMs", async (t) => {
  await control.addFault({ action: "allocationFailed", method: "*", pathContains: WEB });
  await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { a: "b" } });
  clock += WRITE_MS;
  t.equal((await scaleSet()).properties.provisioningState, "Succeeded");
  t.equal((await control.faults()).length, 1, "still pending");
  await arm("PATCH", `${ARM_VMSS}/${WEB}`, { sku: { capacity: 4 } });
  clock += WRITE_MS;
  t.equal((await scaleSet()).properties.provisioningState, "Failed");
  t.same(await vmStates(), [
    ["0", "Succeeded"],
    ["1", "Succeeded"],
    ["2", "Succeeded"],
    ["3", "Failed"],
  ]);
});

t.test("concurrentWrites conflict (default): 409 for as long as the write runs", async (t) => {
  t.equal((await control.getConfig()).concurrentWrites, "conflict");
  const first = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "1" } });
  clock += WRITE_MS - 1;
  const second = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "2" } });
  t.equal(second.status, 409);
  t.match(second.body, { error: { code: "ConflictingConcurrentWriteNotAllowed" } });
  clock += 1;
  t.equal((await poll(first)).body && (await poll(first)).status, 200);
  t.equal(
    (await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "2" } })).status,
    200,
    "accepted once the first completed",
  );
});

t.test(
  "concurrentWrites preempt: the newer write is accepted, the one in flight ends Canceled (OperationPreempted)",
  async (t) => {
    await control.setConfig({ concurrentWrites: "preempt" });
    const first = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { sku: { capacity: 5 } });
    clock += 1000;
    const second = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { sku: { capacity: 4 } });
    t.equal(second.status, 200);
    const canceled = await poll(first);
    t.equal(canceled.status, 200);
    t.same(Object.keys(canceled.body as object), ["startTime", "endTime", "status", "error", "name"]);
    t.match(canceled.body, {
      status: "Canceled",
      error: {
        code: "OperationPreempted",
        message: "Operation execution has been preempted by a more recent operation.",
      },
    });
    const location = await control.request(
      "GET",
      `${new URL(String(first.headers["azure-asyncoperation"])).pathname}${Q}&monitor=true`,
      { headers: AUTH },
    );
    t.equal(location.status, 409, "its Location URL answers with the error");
    t.equal((await poll(second)).body && ((await poll(second)).body as { status: string }).status, "InProgress");
    t.same(
      await vmStates(),
      [
        ["0", "Succeeded"],
        ["1", "Succeeded"],
        ["2", "Succeeded"],
        ["3", "Creating"],
        ["4", "Deleting"],
      ],
      "the newer write takes over the VMs",
    );
    clock += WRITE_MS;
    t.same(await vmStates(), [
      ["0", "Succeeded"],
      ["1", "Succeeded"],
      ["2", "Succeeded"],
      ["3", "Succeeded"],
    ]);
    t.equal((await scaleSet()).properties.provisioningState, "Succeeded");
  },
);

t.test("concurrentWrites conflictThenPreempt: 409 during the window, preemption after it", async (t) => {
  await control.setConfig({ concurrentWrites: "conflictThenPreempt", conflictWindowSeconds: 10 });
  const first = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "1" } });
  clock += 9_999;
  t.equal((await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "2" } })).status, 409, "inside the window");
  clock += 1;
  t.equal((await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "2" } })).status, 200, "after it");
  t.match((await poll(first)).body, { status: "Canceled", error: { code: "OperationPreempted" } });

  // the window is Azure seconds, scaled by timeScale: 1 s at 0.1
  await control.setConfig({ timeScale: 0.1 });
  clock += 999;
  t.equal((await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "3" } })).status, 409, "999 ms into the write");
  clock += 1;
  t.equal((await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { n: "3" } })).status, 200, "1 s into it");
});

t.test("the SDK: a Canceled operation throws Error('Operation was canceled')", async (t) => {
  await control.setConfig({ concurrentWrites: "preempt" });
  const poller = vmss.update(RG, WEB, { tags: { mine: "1" } }, { updateIntervalInMs: 10 });
  await poller.submitted();
  await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { theirs: "1" } });
  await t.rejects(poller.pollUntilDone(), { message: "Operation was canceled" });
});

t.test("preemptOperation fault: another writer's write preempts the operation halfway", async (t) => {
  await control.addFault({
    action: "preemptOperation",
    method: "PATCH",
    pathContains: WEB,
    change: { tags: { by: "another-writer" } },
  });
  const mine = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { by: "me" } });
  const myEtag = (mine.body as { etag: string }).etag;
  clock += WRITE_MS / 2 - 1;
  t.match((await poll(mine)).body, { status: "InProgress" });
  clock += 1;
  t.match((await poll(mine)).body, { status: "Canceled", error: { code: "OperationPreempted" } });
  const now = await scaleSet();
  t.same(now.tags, { by: "another-writer" });
  t.not(now.etag, myEtag, "the other writer's write has its own ETag");
  t.equal(now.properties.provisioningState, "Updating", "the other writer's write is in flight");
  const versions = (await control.request("GET", `/_sim/scaleSets/${RG}/${WEB}/versions`)).body as { source: string }[];
  t.same(
    versions.slice(-2).map((v) => v.source),
    ["arm", "outOfBandChange"],
  );
  clock += WRITE_MS;
  t.equal((await scaleSet()).properties.provisioningState, "Succeeded");
});

t.test(
  "Rolling upgrade policy: VMs move to the new model in batches (maxBatchInstancePercent, default 20%)",
  async (t) => {
    await control.putScaleSet(RG, "roll-v001", { capacity: 10, upgradePolicy: "Rolling" });
    const current = (await arm("GET", `${ARM_VMSS}/roll-v001`)).body as {
      properties: { virtualMachineProfile: { osProfile: Record<string, unknown> } };
    };
    const osProfile = { ...current.properties.virtualMachineProfile.osProfile, customData: "bmV3" };
    await arm("PATCH", `${ARM_VMSS}/roll-v001`, { properties: { virtualMachineProfile: { osProfile } } });
    const applied = async () => {
      const res = await arm("GET", `${ARM_VMSS}/roll-v001/virtualMachines`);
      return (res.body as { value: { properties: { latestModelApplied: boolean } }[] }).value.filter(
        (vm) => vm.properties.latestModelApplied,
      ).length;
    };
    t.equal(await applied(), 0, "at acceptance no VM has the new model");
    clock += WRITE_MS / 5;
    t.equal(await applied(), 2, "one batch of 2 (20% of 10) after a fifth of the write");
    clock += WRITE_MS / 5;
    t.equal(await applied(), 4);
    clock += (WRITE_MS * 3) / 5;
    t.equal(await applied(), 10, "all at completion");
  },
);

t.test("If-None-Match takes only *; the not-active instanceId 400 names one id", async (t) => {
  const bad = await arm(
    "PUT",
    `${ARM_VMSS}/${WEB}`,
    { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 1 } },
    { "if-none-match": '"1"' },
  );
  t.equal(bad.status, 400);
  t.match(bad.body, { error: { code: "InvalidParameter", target: "If-None-Match" } });
  const exists = await arm(
    "PUT",
    `${ARM_VMSS}/${WEB}`,
    { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 1 } },
    { "if-none-match": "*" },
  );
  t.equal(exists.status, 412);
  const created = await arm(
    "PUT",
    `${ARM_VMSS}/fresh-v001`,
    { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 1 } },
    { "if-none-match": "*" },
  );
  t.equal(created.status, 201);

  const notActive = await arm("POST", `${ARM_VMSS}/${WEB}/delete`, { instanceIds: ["1", "8", "9"] });
  t.equal(notActive.status, 400);
  t.match(notActive.body, {
    error: {
      message: "The provided instanceId 8 is not an active Virtual Machine Scale Set VM instanceId.",
      target: "instanceIds",
    },
  });
});

t.test(
  "timeScale scales Azure's durations and Retry-After values; writeDurationsMs sets one kind's duration",
  async (t) => {
    await control.setConfig({ timeScale: 0.1, writeDurationMs: null });
    const create = await arm("PUT", `${ARM_VMSS}/scaled-v001`, {
      location: "eastus",
      sku: { name: "Standard_D2s_v3", capacity: 1 },
    });
    t.equal(create.headers["retry-after"], "1", "10 s × 0.1");
    t.equal(
      (await poll(create)).headers["retry-after"],
      "7",
      "first poll after a create: 61 s × 0.1 = 6.1, rounded up to whole seconds (RFC 9110 delay-seconds)",
    );
    t.equal((await poll(create)).headers["retry-after"], "3", "later polls: 30 s × 0.1");
    const inFlight = (await control.getScaleSet(RG, "scaled-v001")).inFlight!;
    t.equal(inFlight.completesAt - inFlight.startedAt, 3000, "Azure's 30 s create × 0.1");
    clock += 3000;
    t.match((await poll(create)).body, { status: "Succeeded" });

    await control.setConfig({ writeDurationsMs: { delete: 123 } });
    await arm("DELETE", `${ARM_VMSS}/scaled-v001`);
    const del = (await control.getScaleSet(RG, "scaled-v001")).inFlight!;
    t.equal(del.completesAt - del.startedAt, 123);

    await control.setConfig({ timeScale: 1 });
    const patch = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { x: "y" } });
    t.equal(patch.headers["retry-after"], "10", "Azure's value at time factor 1");
    await control.setConfig({ timeScale: 0.001 });
    clock += WRITE_MS;
    const tiny = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { x: "z" } });
    t.equal(
      tiny.headers["retry-after"],
      "1",
      "below a second: 1, never a fraction or 0 (Python's azure-core reads it with int())",
    );
  },
);

t.test("throttling is on by default, at the default time factor a minute of refill takes 6 s", async (t) => {
  const fresh = await startSimulator({ port: 0, seed: true, now: () => clock });
  t.teardown(() => fresh.close());
  const freshControl = new SimulatorControl(fresh);
  t.teardown(() => freshControl.close());
  const config = await freshControl.getConfig();
  t.equal(config.timeScale, 0.1);
  t.equal(config.throttling.enabled, true);
  const path = `/subscriptions/${fresh.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}${Q}`;
  for (let i = 0; i < 36; i++) t.equal((await freshControl.request("GET", path, { headers: AUTH })).status, 200);
  const refused = await freshControl.request("GET", path, { headers: AUTH });
  t.equal(refused.status, 429, "the 37th GET of a scale set in a burst");
  clock += 500;
  t.equal(
    (await freshControl.request("GET", path, { headers: AUTH })).status,
    200,
    "12 per Azure minute = one every 0.5 s at 0.1",
  );
  const list = `/subscriptions/${fresh.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}/virtualMachines${Q}`;
  for (let i = 0; i < 30; i++) t.equal((await freshControl.request("GET", list, { headers: AUTH })).status, 200);
  t.equal((await freshControl.request("GET", list, { headers: AUTH })).status, 429, "the 31st VM list");
});
