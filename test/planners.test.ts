// Each operation's planner on recorded-shape snapshots (test/fixtures/azure-recordings): a pure function of the state
// just read, so each case is one snapshot in and one step out.
import t from "tap";
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import type { ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";
import { disableServerGroup } from "../src/operations/disable-server-group.ts";
import { enableServerGroup } from "../src/operations/enable-server-group.ts";
import { resizeServerGroup } from "../src/operations/resize-server-group.ts";
import { scaleDown } from "../src/operations/scale-down.ts";
import { serverGroupResult } from "../src/operations/server-group-state.ts";
import { terminateInstances } from "../src/operations/terminate-instances.ts";
import { recordedSnapshot } from "./helpers/recorded-shapes.ts";
import type { Json } from "../testkit/json.ts";
import { stepOfKind } from "./helpers/steps.ts";

const ref = {
  account: "demo",
  subscriptionId: "00000000-0000-0000-0000-000000000000",
  resourceGroup: "rgname",
  name: "virtualmachinescaleset16842a5e",
  region: "eastus",
};
const where = { credentials: "demo", region: "eastus", serverGroupName: ref.name };
const POOL =
  "/subscriptions/00000000-0000-0000-0000-000000000000/resourceGroups/rgname/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/be";

/** The recorded scale set (capacity 1, one NIC "testPC" with one IP configuration "testPC"), with changes. */
function snapshot(changes: Partial<VirtualMachineScaleSet>, vmStates: string[] = ["Succeeded"]): ScaleSetSnapshot {
  return recordedSnapshot(changes, vmStates);
}

/** The same, behind a load balancer: the pool on the model and on every VM's network configuration. */
function behindPool(
  changes: Partial<VirtualMachineScaleSet> = {},
  vmStates: string[] = ["Succeeded"],
): ScaleSetSnapshot {
  const s = snapshot(changes, vmStates);
  s.vmss.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0].ipConfigurations![0].loadBalancerBackendAddressPools =
    [{ id: POOL }];
  for (const vm of s.vms ?? [])
    vm.networkProfileConfiguration!.networkInterfaceConfigurations![0].ipConfigurations![0].loadBalancerBackendAddressPools =
      [{ id: POOL }];
  return s;
}

const sku = (capacity: number) => ({ name: "Standard_D1_v2", tier: "Standard", capacity });

t.test("resize: a write to the new capacity with min and max recorded; done when both are there", async (t) => {
  const planner = resizeServerGroup.planner({ ...where, capacity: { min: 1, max: 5, desired: 3 } }, ref);
  const step = planner.plan(snapshot({}));
  t.equal(step.kind, "update");
  t.match(step, {
    summary: "set capacity 1 → 3 (min 1, max 5)",
    patch: {
      sku: { capacity: 3, name: "Standard_D1_v2" },
      tags: { "vmss-ops.min": "1", "vmss-ops.max": "5", azsecpack: "nonprod" },
    },
  });
  const there = snapshot({
    sku: sku(3),
    tags: { ...snapshot({}).vmss.tags, "vmss-ops.min": "1", "vmss-ops.max": "5" },
  });
  t.equal(planner.plan(there).kind, "done");
});

t.test(
  "resize of a scale set disabled by scaling to 0 records the size for enable, and does not scale it up",
  async (t) => {
    const planner = resizeServerGroup.planner({ ...where, targetSize: 4 }, ref);
    const step = planner.plan(
      snapshot({ sku: sku(0), tags: { "vmss-ops.disabled": "capacity", "vmss-ops.disabled-capacity": "1" } }, []),
    );
    t.match(step, { kind: "update", patch: { tags: { "vmss-ops.disabled-capacity": "4" } } });
    t.equal(stepOfKind(step, "update").patch.sku, undefined, "no capacity change");
  },
);

t.test("scaleDown lowers, never raises", async (t) => {
  const down = scaleDown.planner({ ...where, capacity: { min: 0, max: 0, desired: 0 } }, ref);
  t.match(down.plan(snapshot({ sku: sku(1) })), {
    kind: "update",
    summary: "lower capacity 1 → 0",
    patch: { sku: { capacity: 0 } },
  });
  const notUp = scaleDown.planner({ ...where, capacity: { min: 0, max: 5, desired: 5 } }, ref);
  const step = notUp.plan(snapshot({ sku: sku(1) }));
  t.equal((step.kind === "update" ? step.patch.sku?.capacity : undefined) ?? 1, 1, "capacity stays 1");
});

t.test(
  "disable takes the pools out and records them; then rolls them out to the VMs under Manual; then done",
  async (t) => {
    const planner = disableServerGroup.planner(where, ref);
    const first = planner.plan(behindPool());
    t.equal(first.kind, "update");
    const patch: Json = stepOfKind(first, "update").patch;
    t.same(
      patch.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0].ipConfigurations[0]
        .loadBalancerBackendAddressPools,
      [],
    );
    t.equal(patch.tags["vmss-ops.disabled"], "pools");
    // After the model change, the recorded VM still has the pool (Manual upgrade policy): roll it out.
    const modelChanged = behindPool({ tags: patch.tags });
    modelChanged.vmss.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0].ipConfigurations![0].loadBalancerBackendAddressPools =
      [];
    t.match(planner.plan(modelChanged), { kind: "manualUpgrade", instanceIds: ["0"] });
    const rolledOut = snapshot({ tags: patch.tags });
    t.equal(planner.plan(rolledOut).kind, "done");
  },
);

t.test("disable without pools scales to 0 and records the capacity; enable restores it", async (t) => {
  const step = disableServerGroup.planner(where, ref).plan(snapshot({ sku: sku(1) }));
  t.match(step, {
    kind: "update",
    patch: { sku: { capacity: 0 }, tags: { "vmss-ops.disabled": "capacity", "vmss-ops.disabled-capacity": "1" } },
  });
  const disabled = snapshot({ sku: sku(0), tags: stepOfKind(step, "update").patch.tags }, []);
  t.match(enableServerGroup.planner(where, ref).plan(disabled), {
    kind: "update",
    summary: "restore capacity 0 → 1",
    patch: { sku: { capacity: 1 } },
  });
});

t.test(
  "terminate deletes only live instances, skips deleting ones, then restores the capacity; scaleDown refuses to go below min",
  async (t) => {
    const planner = terminateInstances.planner({ ...where, instanceIds: ["0", "1", "7"] }, ref);
    const s = snapshot({ sku: sku(3) }, ["Succeeded", "Deleting", "Succeeded"]);
    t.match(planner.plan(s), { kind: "deleteInstances", instanceIds: ["0"], summary: /3 → 2, then back to 3/ });
    // Ours still being deleted: wait; gone: the capacity read before the delete written back.
    t.match(planner.plan(snapshot({ sku: sku(2) }, ["Deleting"])), { kind: "wait" });
    t.match(planner.plan(snapshot({ sku: sku(1) }, [])), { kind: "update", patch: { sku: { capacity: 3 } } });
    t.match(planner.plan(snapshot({ sku: sku(3) }, [])), { kind: "done" });
    // Never refused for the recorded min: the capacity comes back.
    const atMin = snapshot({ sku: sku(1), tags: { "vmss-ops.min": "1" } }, ["Succeeded"]);
    t.match(terminateInstances.planner({ ...where, instanceIds: ["0"] }, ref).plan(atMin), {
      kind: "deleteInstances",
    });
    const shrink = scaleDown.planner({ ...where, instanceIds: ["0", "1", "7"] }, ref);
    t.match(shrink.plan(s), { kind: "deleteInstances", instanceIds: ["0"], summary: /3 → 2\)/ });
    t.throws(() => shrink.plan(atMin), { code: "BelowMinimum" });
    t.match(shrink.plan(snapshot({ sku: sku(1) }, ["Deleting"])), { kind: "done" });
  },
);

t.test(
  "results report what Azure lists: confirmed, or the running instances when the scale set is Failed",
  async (t) => {
    const ok = serverGroupResult(snapshot({ sku: sku(2) }, ["Succeeded", "Succeeded"]), ref);
    t.same(
      { desired: ok.capacity.desired, instances: ok.instanceCount, confirmed: ok.confirmed },
      { desired: 2, instances: 2, confirmed: undefined },
    );
    const failed = serverGroupResult(
      snapshot({ sku: sku(3), provisioningState: "Failed" }, ["Succeeded", "Failed", "Creating"]),
      ref,
    );
    t.same(
      {
        desired: failed.capacity.desired,
        instances: failed.instanceCount,
        confirmed: failed.confirmed,
        requested: failed.requestedCapacity,
      },
      { desired: 1, instances: 1, confirmed: false, requested: 3 },
    );
  },
);
