// A rolling upgrade's allocation-failure stop travels with the task's checkpoint (ScaleSetPlanner.memory): a replica
// that takes the task over after a restart stops where the first one would have, instead of surging once more into
// the same shortage. The planner alone, on a scale set read as Azure answers (no clock, no server).
import t from "tap";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { rollingUpgradePlanner } from "../src/operations/rolling-upgrade.ts";
import { changeHash, TAG_UPGRADE_DESIRED, TAG_UPGRADE_MODEL } from "../src/operations/rolling-upgrade-model.ts";
import type { ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";
import { executeOp } from "../src/azure/execute-op.ts";
import type { Checkpoint } from "../src/azure/harness/input.ts";

const target = {
  account: "demo",
  subscriptionId: "00000000-0000-4000-8000-000000000001",
  resourceGroup: "demo-rg",
  region: "eastus",
  name: "web-v001",
};
const description = {
  credentials: "demo",
  region: "eastus",
  serverGroupName: "web-v001",
  sku: { name: "Standard_D4s_v3" },
  maxSurge: 2,
};
const origin = { taskId: "task-1" };

function vm(id: string, latest: boolean): VirtualMachineScaleSetVM {
  return {
    instanceId: id,
    provisioningState: "Succeeded",
    latestModelApplied: latest,
    timeCreated: new Date(1_700_000_000_000 + Number(id) * 1000),
    instanceView: { statuses: [{ code: "PowerState/running" }] },
  } as VirtualMachineScaleSetVM;
}

/** The model change applied and recorded, two of four instances replaced: the next step is a surge. */
function midUpgrade(): ScaleSetSnapshot {
  const hash = changeHash({ sku: description.sku });
  return {
    etag: '"7"',
    vmss: {
      location: "eastus",
      sku: { name: "Standard_D4s_v3", capacity: 4 },
      tags: { [TAG_UPGRADE_MODEL]: hash, [TAG_UPGRADE_DESIRED]: "4" },
    },
    vms: [vm("1", false), vm("2", false), vm("5", true), vm("6", true)],
  };
}

t.test("without memory the next step is a surge; with the stop remembered, the planner stops instead", async (t) => {
  const fresh = rollingUpgradePlanner(description, target, { origin });
  t.equal(fresh.memory?.(), undefined, "nothing to remember before it surged");
  const step = fresh.plan(midUpgrade());
  t.equal(step.kind, "update");
  t.match(step.summary, /surge 4 → 6/);
  t.same(fresh.memory?.(), { surged: true }, "it remembers that it surged");

  const failure = "Azure could not allocate 2 new instance(s) (7, 8) in batch 2/2";
  const takenOver = rollingUpgradePlanner(description, target, {
    origin,
    memory: { surged: true, allocationFailure: failure },
  });
  t.throws(() => takenOver.plan(midUpgrade()), {
    code: "AllocationFailed",
    message: new RegExp(`^${failure.replace(/[()]/g, "\\$&")}; the failed instance\\(s\\) were removed`),
  });
  t.same(takenOver.memory?.(), { surged: true, allocationFailure: failure });
  t.same(
    rollingUpgradePlanner(description, target, { origin, memory: "not a memory" }).memory?.(),
    undefined,
    "a checkpoint that holds something else is read as no memory",
  );
});

t.test("every checkpoint executeOp writes carries the planner's memory", async (t) => {
  const checkpoints: Checkpoint[] = [];
  const planner = {
    readsInstances: false,
    plan: () => ({ kind: "done" as const, summary: "nothing" }),
    result: () => "ok",
    memory: () => ({ remembered: 1 }),
  };
  const gateway = {
    ref: target,
    read: () =>
      Promise.resolve({
        etag: '"1"',
        vmss: { location: "eastus", provisioningState: "Succeeded", sku: { capacity: 1 } },
      } as never),
    withInstances: (s: ScaleSetSnapshot) => Promise.resolve({ ...s, vms: [] }),
    write: () => Promise.resolve(undefined),
    resume: async () => {},
  };
  await executeOp({
    gateway: gateway,
    planner: planner,
    retry: {
      maxAttempts: 1,
      deadlineMs: 10_000,
      conflictBaseDelayMs: 1,
      transientBaseDelayMs: 1,
      busyPollIntervalMs: 1,
      throttleDefaultDelayMs: 1,
      maxDelayMs: 1,
      busyReadShare: 1,
      scaleSetReadsPerMinute: 1000,
      scaleSetReadBurst: 36,
      maxRedrives: 0,
    },
    lroPollIntervalMs: 1,
    log: () => {},
    resume: { step: { kind: "update", summary: "a write accepted before a restart" }, poller: "{}" },
    onCheckpoint: (c) => void checkpoints.push(c),
  }).catch(() => {});
  t.ok(checkpoints.length > 0, "it checkpointed");
  t.ok(
    checkpoints.every((c) => (c.planner as { remembered?: number })?.remembered === 1),
    JSON.stringify(checkpoints),
  );
});
