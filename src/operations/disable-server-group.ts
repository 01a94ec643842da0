// disableServerGroup: take a scale set out of traffic. Its backend pools are removed from the network profile and
// recorded in tags on the scale set, so enable restores exactly those; under a Manual upgrade policy the change is
// rolled out to the VMs, under Rolling and Automatic it is done once Azure's own rollout reached every VM. A scale
// set without pools is scaled to 0 and its capacity recorded instead. On a Flexible set, whose VMs each have a NIC of
// their own that a model change does not reach, every existing VM's NIC is then taken out of its pools itself.
import { Type } from "@sinclair/typebox";
import type { ScaleSetPlanner, StoppedInstancesAccepted } from "../azure/planner.ts";
import { serverGroupFields, type FieldProblem } from "./description.ts";
import { defineOperation } from "./operation.ts";
import { azureRolloutStep, azureRollsModelChanges, kindOf } from "./scale-set-kinds.ts";
import { nicWritesToPools, vmsOf } from "./flexible-nics.ts";
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
        "Orca's rolling red/black share to disable; only 100 (the whole group) is done here: below 100 is refused",
    }),
  },
  { $id: "DisableServerGroupDescription", additionalProperties: true },
);

/**
 * A partial disable (Orca's rolling red/black, RollingRedBlackStrategy.groovy l.207-222) is refused loudly, as
 * clouddriver-azure refuses it, rather than disabling the whole group where a share was asked.
 */
export function checkDisable(d: { desiredPercentage?: number }): FieldProblem[] {
  if (d.desiredPercentage === undefined || d.desiredPercentage === 100) return [];
  return [
    {
      field: "desiredPercentage",
      message: `${d.desiredPercentage} % cannot be honoured: a server group is disabled whole here (100, or leave it out); use the red/black or highlander strategy`,
    },
  ];
}

export const disableServerGroup = defineOperation({
  name: "disableServerGroup",
  summary: "Take a scale set out of traffic (remove its backend pools, or scale it to 0 when it has none)",
  schema: DisableServerGroupDescription,
  check: checkDisable,
  describe: (d) => `disable ${d.serverGroupName}`,
  planner: (_d, target): ScaleSetPlanner<ServerGroupResult> & StoppedInstancesAccepted => ({
    readsInstances: true,
    // An evicted Spot VM keeps no traffic either: reported, and no reason to leave the scale set in traffic.
    acceptsStopped: true,
    plan(snapshot) {
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
            mode === "pools"
              ? "out of traffic: no backend pools on the model or on any VM's NIC"
              : "disabled: capacity 0",
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
    },
    result: (snapshot) => serverGroupResult(snapshot, target),
  }),
});
