// The simulator's kinds and features (src/kinds.ts) on a hand-moved clock: a Rolling set's rolling-upgrade
// status and a rollout Azure stops halfway, the AutomaticRepairs orchestration service, Spot evictions, instance
// protection, and the control routes that give a scale set these. Nothing sleeps.
import t from "tap";
import type { RawResponse } from "vmss-simulator";
import { HAND_CLOCK_START as START, startHandClockSimulator } from "./helpers/hand-clock-simulator.ts";
import type { Json } from "./helpers/json.ts";

let clock = START;
const { sim, control } = await startHandClockSimulator(t, () => clock);

const RG = "demo-rg";
const WEB = "web-prod-v001";
const ARM_VMSS = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const WRITE_MS = 30_000;

t.beforeEach(async () => {
  clock = START;
  await control.reset();
  await control.setConfig({
    timeScale: 1,
    writeDurationMs: WRITE_MS,
    writeDurationsMs: {},
    concurrentWrites: "conflict",
  });
});

function arm(method: string, path: string, body?: unknown): Promise<RawResponse> {
  return control.request(method, `${path}${path.includes("?") ? "&" : "?"}api-version=2026-04-01`, {
    headers: { authorization: "Bearer test" },
    ...(body !== undefined ? { body } : {}),
  });
}

function poll(res: RawResponse): Promise<RawResponse> {
  const url = new URL(String(res.headers["azure-asyncoperation"]));
  return control.request("GET", `${url.pathname}${url.search}`, { headers: { authorization: "Bearer test" } });
}

async function vms(name: string) {
  const res = await arm("GET", `${ARM_VMSS}/${name}/virtualMachines?$expand=instanceView`);
  return (res.body as { value: Json[] }).value;
}

/** A profile change that reaches the VMs (new custom data). */
async function changeProfile(name: string): Promise<RawResponse> {
  const current = (await arm("GET", `${ARM_VMSS}/${name}`)).body as Json;
  const osProfile = { ...current.properties.virtualMachineProfile.osProfile, customData: "bmV3" };
  return arm("PATCH", `${ARM_VMSS}/${name}`, { properties: { virtualMachineProfile: { osProfile } } });
}

t.test(
  "rollingUpgrades/latest: 404 before any; RollingForward with progress while the write runs; Completed after",
  async (t) => {
    await control.putScaleSet(RG, "roll-v001", { capacity: 10, upgradePolicy: "Rolling" });
    const none = await arm("GET", `${ARM_VMSS}/roll-v001/rollingUpgrades/latest`);
    t.equal(none.status, 404);
    t.match(none.body, { error: { code: "NotFound" } });

    await changeProfile("roll-v001");
    clock += (WRITE_MS * 2) / 5;
    const midway = await arm("GET", `${ARM_VMSS}/roll-v001/rollingUpgrades/latest`);
    t.equal(midway.status, 200);
    t.match(midway.body, {
      id: `${ARM_VMSS}/roll-v001/rollingUpgrades/latest`,
      name: "roll-v001",
      type: "Microsoft.Compute/virtualMachineScaleSets/rollingUpgrades",
      properties: {
        runningStatus: { code: "RollingForward", lastAction: "Start" },
        progress: { successfulInstanceCount: 4, failedInstanceCount: 0 },
      },
    });
    clock += WRITE_MS;
    t.match((await arm("GET", `${ARM_VMSS}/roll-v001/rollingUpgrades/latest`)).body, {
      properties: { runningStatus: { code: "Completed" }, progress: { successfulInstanceCount: 10 } },
    });

    await control.putScaleSet(RG, "manual-v001", { capacity: 2 });
    await changeProfile("manual-v001");
    t.equal(
      (await arm("GET", `${ARM_VMSS}/manual-v001/rollingUpgrades/latest`)).status,
      404,
      "a Manual set has no rolling upgrade",
    );
  },
);

t.test(
  "failRollout: Azure stops the rollout after half its batches; the write fails with the fault's error; the rest keep the old model",
  async (t) => {
    await control.putScaleSet(RG, "roll-v002", { capacity: 10, upgradePolicy: "Rolling" });
    await control.addFault({
      action: "failRollout",
      method: "PATCH",
      pathContains: "roll-v002",
      code: "UpgradePolicyBreached",
      message: "too many unhealthy",
    });
    const accepted = await changeProfile("roll-v002");
    t.equal(accepted.status, 200);
    clock += WRITE_MS;
    t.match((await poll(accepted)).body, {
      status: "Failed",
      error: { code: "UpgradePolicyBreached", message: "too many unhealthy" },
    });
    const applied = (await vms("roll-v002")).filter((vm) => vm.properties.latestModelApplied).length;
    t.equal(applied, 4, "2 of 5 batches of 2 (half, rounded down)");
    t.match((await arm("GET", `${ARM_VMSS}/roll-v002/rollingUpgrades/latest`)).body, {
      properties: {
        runningStatus: { code: "Faulted" },
        progress: { successfulInstanceCount: 4, failedInstanceCount: 6 },
        error: { code: "UpgradePolicyBreached", message: "too many unhealthy" },
      },
    });
    t.equal((await control.calls()).find((c) => c.method === "PATCH")?.fault, "failRollout");
  },
);

t.test(
  "rolloutAfterWrite: the write completes with no VM moved; the rollout moves them afterwards; failRollout faults it, not the write",
  async (t) => {
    await control.putScaleSet(RG, "roll-v003", { capacity: 10, upgradePolicy: "Rolling" });
    t.equal(
      (await control.request("PUT", `/_sim/scaleSets/${RG}/roll-v003/kind`, { body: { rolloutAfterWrite: true } }))
        .status,
      200,
    );
    const accepted = await changeProfile("roll-v003");
    clock += WRITE_MS / 2;
    t.equal(
      (await vms("roll-v003")).filter((vm) => vm.properties.latestModelApplied).length,
      0,
      "nothing moves during the write",
    );
    clock += WRITE_MS / 2;
    t.match((await poll(accepted)).body, { status: "Succeeded" });
    t.match((await arm("GET", `${ARM_VMSS}/roll-v003/rollingUpgrades/latest`)).body, {
      properties: { runningStatus: { code: "RollingForward" }, progress: { successfulInstanceCount: 0 } },
    });
    clock += (WRITE_MS * 3) / 5;
    t.equal(
      (await vms("roll-v003")).filter((vm) => vm.properties.latestModelApplied).length,
      6,
      "three batches of two after three fifths",
    );
    clock += WRITE_MS;
    t.match((await arm("GET", `${ARM_VMSS}/roll-v003/rollingUpgrades/latest`)).body, {
      properties: { runningStatus: { code: "Completed" }, progress: { successfulInstanceCount: 10 } },
    });

    await control.addFault({
      action: "failRollout",
      method: "PATCH",
      pathContains: "roll-v003",
      code: "UpgradePolicyBreached",
      message: "too many unhealthy",
    });
    const current = (await arm("GET", `${ARM_VMSS}/roll-v003`)).body as Json;
    const osProfile = { ...current.properties.virtualMachineProfile.osProfile, customData: "dGhyZWU=" };
    const second = await arm("PATCH", `${ARM_VMSS}/roll-v003`, {
      properties: { virtualMachineProfile: { osProfile } },
    });
    clock += WRITE_MS;
    t.match((await poll(second)).body, { status: "Succeeded" }, "the write itself succeeds");
    clock += WRITE_MS;
    t.match((await arm("GET", `${ARM_VMSS}/roll-v003/rollingUpgrades/latest`)).body, {
      properties: {
        runningStatus: { code: "Faulted" },
        progress: { successfulInstanceCount: 4, failedInstanceCount: 6 },
        error: { code: "UpgradePolicyBreached" },
      },
    });
    t.equal(
      (await vms("roll-v003")).filter((vm) => vm.properties.latestModelApplied).length,
      4,
      "half the batches (rounded down), then it stopped",
    );
  },
);

t.test(
  "automatic repairs: the instance view's orchestration service, suspended and resumed; refused where not enabled",
  async (t) => {
    const view = await arm("GET", `${ARM_VMSS}/${WEB}/instanceView`);
    t.equal(view.status, 200);
    t.equal(
      (view.body as Json).orchestrationServices,
      undefined,
      "repairs not enabled: no orchestration service listed",
    );
    const refused = await arm("POST", `${ARM_VMSS}/${WEB}/setOrchestrationServiceState`, {
      serviceName: "AutomaticRepairs",
      action: "Suspend",
    });
    t.equal(refused.status, 400);
    t.match(refused.body, { error: { code: "OperationNotAllowed" } });

    const kind = await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/kind`, {
      body: { automaticRepairs: true },
    });
    t.match(kind, { status: 200, body: { automaticRepairs: "Running" } });
    const state = async () =>
      ((await arm("GET", `${ARM_VMSS}/${WEB}/instanceView`)).body as Json).orchestrationServices;
    t.same(await state(), [{ serviceName: "AutomaticRepairs", serviceState: "Running" }]);
    t.equal(
      (
        await arm("POST", `${ARM_VMSS}/${WEB}/setOrchestrationServiceState`, {
          serviceName: "AutomaticRepairs",
          action: "Suspend",
        })
      ).status,
      200,
    );
    t.same(await state(), [{ serviceName: "AutomaticRepairs", serviceState: "Suspended" }]);
    t.equal(
      (
        await arm("POST", `${ARM_VMSS}/${WEB}/setOrchestrationServiceState`, {
          serviceName: "AutomaticRepairs",
          action: "Resume",
        })
      ).status,
      200,
    );
    t.same(await state(), [{ serviceName: "AutomaticRepairs", serviceState: "Running" }]);
    const bad = await arm("POST", `${ARM_VMSS}/${WEB}/setOrchestrationServiceState`, {
      serviceName: "AutomaticRepairs",
      action: "Pause",
    });
    t.match(bad, { status: 400, body: { error: { code: "InvalidParameter", target: "action" } } });
    t.match(
      (await arm("GET", `${ARM_VMSS}/${WEB}`)).body,
      { properties: { automaticRepairsPolicy: { enabled: true } } },
      "the model shows the policy",
    );
  },
);

t.test("Spot evictions: deallocated, still listed and Succeeded; only Spot sets are evicted", async (t) => {
  await control.addFault({
    action: "evictSpot",
    method: "GET",
    pathContains: `${WEB}/virtualMachines`,
    evictions: 2,
  });
  t.ok(
    (await vms(WEB)).every((vm) =>
      vm.properties.instanceView.statuses.some((s: Json) => s.code === "PowerState/running"),
    ),
    "not Spot: the fault is used up, nothing evicted",
  );

  await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/kind`, { body: { spot: true } });
  t.match((await arm("GET", `${ARM_VMSS}/${WEB}`)).body, {
    properties: { virtualMachineProfile: { priority: "Spot", evictionPolicy: "Deallocate" } },
  });
  await control.addFault({
    action: "evictSpot",
    method: "GET",
    pathContains: `${WEB}/virtualMachines`,
    evictions: 2,
  });
  const listed = await vms(WEB);
  const power = listed.map((vm) => [
    vm.instanceId,
    vm.properties.provisioningState,
    vm.properties.instanceView.statuses.find((s: Json) => s.code.startsWith("PowerState/")).code,
  ]);
  t.same(power, [
    ["0", "Succeeded", "PowerState/deallocated"],
    ["1", "Succeeded", "PowerState/deallocated"],
    ["2", "Succeeded", "PowerState/running"],
  ]);
  const evicted = await control.request("POST", `/_sim/scaleSets/${RG}/${WEB}/evict`, { body: {} });
  t.same(evicted.body, { evicted: ["2"] });
  t.equal(
    ((await arm("GET", `${ARM_VMSS}/${WEB}`)).body as Json).sku.capacity,
    3,
    "Azure still counts them in the capacity",
  );

  const bad = await control.request("POST", "/_sim/faults", {
    body: { action: "respond", method: "GET", pathContains: "", status: 500, code: "X", evictions: 1 },
  });
  t.match(bad, { status: 400, body: { error: { message: /"evictions" is only for action "evictSpot"/ } } });
});

t.test("instance protection: set through the control API, shown on the VM as Azure shows it", async (t) => {
  const res = await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/virtualMachines/1/protection`, {
    body: { protectFromScaleSetActions: true },
  });
  t.match(res, { status: 200, body: { instanceId: "1", protectionPolicy: { protectFromScaleSetActions: true } } });
  const one = (await arm("GET", `${ARM_VMSS}/${WEB}/virtualMachines/1`)).body as Json;
  t.same(one.properties.protectionPolicy, { protectFromScaleSetActions: true });
  t.equal(
    ((await arm("GET", `${ARM_VMSS}/${WEB}/virtualMachines/0`)).body as Json).properties.protectionPolicy,
    undefined,
  );
  t.equal(
    (await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/virtualMachines/9/protection`, { body: {} })).status,
    404,
  );
  t.equal(
    (
      await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/virtualMachines/1/protection`, {
        body: { protectFromScaleIn: "yes" },
      })
    ).status,
    400,
  );
});

t.test("the kind control route: Flexible on the model; unknown fields and values refused", async (t) => {
  const res = await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/kind`, {
    body: { orchestrationMode: "Flexible" },
  });
  t.match(res, { status: 200, body: { orchestrationMode: "Flexible" } });
  t.match((await arm("GET", `${ARM_VMSS}/${WEB}`)).body, { properties: { orchestrationMode: "Flexible" } });
  t.equal(
    (await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/kind`, { body: { orchestrationMode: "Mixed" } }))
      .status,
    400,
  );
  t.equal((await control.request("PUT", `/_sim/scaleSets/${RG}/${WEB}/kind`, { body: { color: "red" } })).status, 400);
  t.equal((await control.request("PUT", `/_sim/scaleSets/${RG}/nope/kind`, { body: {} })).status, 404);
});
