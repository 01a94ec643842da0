// disableServerGroup: take a scale set out of traffic. Its backend pools are removed from the network profile and
// recorded in tags on the scale set, so enable restores exactly those; under a Manual upgrade policy the change is
// rolled out to the VMs, under Rolling and Automatic it is done once Azure's own rollout reached every VM. A scale
// set without pools is scaled to 0 and its capacity recorded instead. On a Flexible set, whose VMs each have a NIC of
// their own that a model change does not reach, every existing VM's NIC is then taken out of its pools itself.
// With desiredPercentage below 100 (Orca's rolling red/black) only a share of a Flexible set's VMs leaves the pools:
// partial-disable.ts.
import { Type } from "@sinclair/typebox";
import type { LeavesAutoscale, PlannedStep, ScaleSetPlanner, StoppedInstancesAccepted } from "../azure/planner.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { serverGroupFields } from "./description.ts";
import { defineOperation } from "./operation.ts";
import { azureRolloutStep, azureRollsModelChanges, kindOf } from "./scale-set-kinds.ts";
import { nicWritesToPools, vmsOf } from "./flexible-nics.ts";
import { instancesOutOfTraffic, isPartial, planPartialDisable } from "./partial-disable.ts";
import {
  capacityOf,
  disabledMode,
  isManualUpgrade,
  isParked,
  nicsWithPools,
  readPoolsRecord,
  serverGroupResult,
  type ServerGroupResult,
  trafficPools,
  unionPools,
  vmsBehindModel,
  withCapacityRecord,
  withPoolsRecord,
} from "./server-group-state.ts";

export const DisableServerGroupDescription = Type.Object(
  {
    ...serverGroupFields,
    desiredPercentage: Type.Optional({
      ...Type.Integer({ minimum: 0, maximum: 100 }),
      description:
        "Orca's rolling red/black share to take out of traffic: below 100, that share of a Flexible set's VMs leaves the backend pools (each VM's NIC) and the group stays enabled, the VMs named in the result's instanceIdsToDisable; a Uniform set's under upgrade policy Manual: that share of instances, each its own network configuration without the pools (Automatic or Rolling: refused, PartialDisableUniform). 100, or left out: the whole group",
    }),
  },
  { $id: "DisableServerGroupDescription", additionalProperties: true },
);

export const disableServerGroup = defineOperation({
  name: "disableServerGroup",
  summary: "Take a scale set out of traffic (remove its backend pools, or scale it to 0 when it has none)",
  schema: DisableServerGroupDescription,
  describe: (d) => `disable ${d.serverGroupName}`,
  planner: (d, target): ScaleSetPlanner<ServerGroupResult> & StoppedInstancesAccepted & LeavesAutoscale => ({
    readsInstances: true,
    // An evicted Spot VM keeps no traffic either: reported, and no reason to leave the scale set in traffic.
    acceptsStopped: true,
    // A share out of traffic leaves the group serving: its autoscale setting is not suspended.
    leavesAutoscale: isPartial(d.desiredPercentage),
    plan: (snapshot) =>
      isPartial(d.desiredPercentage)
        ? planPartialDisable(snapshot, target, d.desiredPercentage)
        : planWholeDisable(snapshot, target),
    result: (snapshot) => disableResult(snapshot, target, d.desiredPercentage),
  }),
});

/** The server group as Azure confirmed it; after a partial disable, with the instances serving nothing named for Orca. */
function disableResult(
  snapshot: ScaleSetSnapshot,
  target: ScaleSetRef,
  desiredPercentage: number | null | undefined,
): ServerGroupResult {
  const result = serverGroupResult(snapshot, target);
  return isPartial(desiredPercentage) ? { ...result, instanceIdsToDisable: instancesOutOfTraffic(snapshot) } : result;
}

/** The whole group out of traffic: its pools (model, then instances or NICs), or its capacity when it has none. */
function planWholeDisable(snapshot: ScaleSetSnapshot, target: ScaleSetRef): PlannedStep {
  const { vmss } = snapshot;
  const mode = disabledMode(vmss);
  const pools = trafficPools(vmss);
  if (mode === undefined && isParked(vmss)) {
    // Disabled the clouddriver-azure way, by a parking pool: no traffic reaches it. Taking the parking pool out
    // would change nothing, and enable could only put it back.
    return {
      kind: "done",
      summary: `out of traffic already: only in parking pool(s) ${pools.map((p) => p.id.split("/").at(-1)).join(", ")} (disabled the clouddriver-azure way)`,
    };
  }
  if (pools.length > 0) {
    // Pools present while recorded as disabled means someone re-added some: keep both in the record.
    const record = mode === "pools" ? unionPools(readPoolsRecord(vmss, target), pools) : pools;
    return {
      kind: "update",
      summary: `remove ${pools.length} backend pool(s) (${pools.map((p) => p.id.split("/").slice(-3).join("/")).join(", ")}) and record them in tags`,
      patch: {
        virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nicsWithPools(vmss, []) } },
        tags: withPoolsRecord(vmss.tags, record, target),
      },
    };
  }
  if (mode === undefined) {
    const capacity = capacityOf(vmss);
    return {
      kind: "update",
      summary: `no backend pools: scale ${capacity} → 0, recording capacity ${capacity} for enable`,
      patch: { sku: { ...vmss.sku, capacity: 0 }, tags: withCapacityRecord(vmss.tags, capacity) },
    };
  }
  if (mode === "capacity" && capacityOf(vmss) > 0) {
    return {
      kind: "update",
      summary: `scaled up while disabled: scale ${capacityOf(vmss)} → 0 again`,
      patch: { sku: { ...vmss.sku, capacity: 0 } },
    };
  }
  if (kindOf(vmss).orchestration === "Flexible") {
    // Out of traffic only once no VM's NIC is in a pool: Azure moves none of them for a model change.
    const nics = mode === "pools" ? nicWritesToPools(snapshot, []) : [];
    if (nics.length > 0)
      return {
        kind: "nicPools",
        summary: `take the NIC(s) of VM(s) ${vmsOf(nics)} out of their backend pools (Flexible: each VM's own NIC)`,
        nics,
      };
    return {
      kind: "done",
      summary:
        mode === "pools" ? "out of traffic: no backend pools on the model or on any VM's NIC" : "disabled: capacity 0",
    };
  }
  if (mode === "pools" && azureRollsModelChanges(vmss)) {
    // Azure rolls the change out itself: out of traffic only once every instance took it.
    const rollout = azureRolloutStep(
      snapshot,
      vmsBehindModel(snapshot),
      "the removal of the backend pools",
      target.name,
    );
    if (rollout) return rollout;
  }
  const behind = mode === "pools" && isManualUpgrade(vmss) ? vmsBehindModel(snapshot) : [];
  if (behind.length > 0) {
    return {
      kind: "manualUpgrade",
      summary: `roll the change out to instance(s) ${behind.join(", ")} (upgrade policy Manual)`,
      instanceIds: behind,
    };
  }
  return {
    kind: "done",
    summary:
      mode === "pools" ? "out of traffic: no backend pools on the model or the instances" : "disabled: capacity 0",
  };
}
