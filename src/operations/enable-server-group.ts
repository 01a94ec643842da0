// enableServerGroup: the reverse of disable. Restores the recorded backend pools (and rolls them out under a
// Manual upgrade policy; under Rolling and Automatic it is done once Azure's own rollout reached every VM), or the
// recorded capacity when disable had scaled the set to 0. On a Flexible set, every existing VM's NIC is then put back
// into the model's pools itself (a model change reaches only new VMs).
import { Type } from "@sinclair/typebox";
import { RefusalError } from "../azure/arm-failure.ts";
import type { ScaleSetPlanner, StoppedInstancesAccepted } from "../azure/planner.ts";
import { serverGroupFields } from "./description.ts";
import { defineOperation } from "./operation.ts";
import { azureRolloutStep, azureRollsModelChanges, kindOf } from "./scale-set-kinds.ts";
import { nicWritesToPools, vmsOf } from "./flexible-nics.ts";
import {
  capacityOf,
  disabledMode,
  isManualUpgrade,
  isParked,
  ownNamedPools,
  nicsWithPools,
  readCapacityRecord,
  readPoolsRecord,
  recordedCapacity,
  serverGroupResult,
  type ServerGroupResult,
  trafficPools,
  unionPools,
  vmsBehindModel,
  withoutDisabledRecord,
} from "./server-group-state.ts";

export const EnableServerGroupDescription = Type.Object(
  { ...serverGroupFields },
  { $id: "EnableServerGroupDescription", additionalProperties: true },
);

export const enableServerGroup = defineOperation({
  name: "enableServerGroup",
  summary: "Put a scale set back into traffic, exactly as disable took it out",
  schema: EnableServerGroupDescription,
  describe: (d) => `enable ${d.serverGroupName}`,
  planner: (_d, target): ScaleSetPlanner<ServerGroupResult> & StoppedInstancesAccepted => ({
    readsInstances: true,
    acceptsStopped: true,
    plan(snapshot) {
      const { vmss } = snapshot;
      const mode = disabledMode(vmss);
      if (mode === undefined && isParked(vmss)) {
        // Parked by clouddriver-azure: which pool it served from is not recorded on the scale set, so there is
        // nothing to restore; saying "in traffic" would be false.
        throw new RefusalError(
          "ParkedByClouddriver",
          `${target.name} is only in parking pool(s) (${trafficPools(vmss)
            .map((p) => p.id.split("/").at(-1))
            .join(
              ", ",
            )}): it was disabled the clouddriver-azure way and records no pool to return to; enable it where it was disabled, or put its pool back on the scale set`,
        );
      }
      if (mode === "pools") {
        const pools = unionPools(trafficPools(vmss), readPoolsRecord(vmss, target));
        return {
          kind: "update",
          summary: `restore ${pools.length} backend pool(s) recorded by disable`,
          patch: {
            virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nicsWithPools(vmss, pools) } },
            tags: withoutDisabledRecord(vmss.tags),
          },
        };
      }
      if (mode === "capacity") {
        const now = capacityOf(vmss);
        // Someone may have scaled it since; never shrink a live scale set on enable.
        const restore = now > 0 ? now : (readCapacityRecord(vmss) ?? recordedCapacity(vmss).min);
        return {
          kind: "update",
          summary: `restore capacity ${now} → ${restore}`,
          patch: { sku: { ...vmss.sku, capacity: restore }, tags: withoutDisabledRecord(vmss.tags) },
        };
      }
      if (kindOf(vmss).orchestration === "Flexible") {
        // A model without pools gives no NIC a pool to be in: nothing of theirs is taken away on an enable.
        const nics = trafficPools(vmss).length > 0 ? nicWritesToPools(snapshot, trafficPools(vmss)) : [];
        if (nics.length > 0)
          return {
            kind: "nicPools",
            summary: `put the NIC(s) of VM(s) ${vmsOf(nics)} into the model's ${trafficPools(vmss).length} backend pool(s) (Flexible: each VM's own NIC)`,
            nics,
          };
        return {
          kind: "done",
          summary: `in traffic: capacity ${capacityOf(vmss)}, every VM's NIC in the model's ${trafficPools(vmss).length} backend pool(s)`,
        };
      }
      if (azureRollsModelChanges(vmss) && trafficPools(vmss).length > 0) {
        const rollout = azureRolloutStep(snapshot, vmsBehindModel(snapshot), "the restored backend pools", target.name);
        if (rollout) return rollout;
      }
      const behind = isManualUpgrade(vmss) && trafficPools(vmss).length > 0 ? vmsBehindModel(snapshot) : [];
      if (behind.length > 0) {
        return {
          kind: "manualUpgrade",
          summary: `roll the backend pools out to instance(s) ${behind.join(", ")} (upgrade policy Manual)`,
          instanceIds: behind,
        };
      }
      // A pool named after the scale set is clouddriver-azure's layout: its load balancer's rules, not the scale set,
      // decide whether traffic reaches it, and they are not read here. Say so rather than claim more.
      const rulesDecide =
        ownNamedPools(vmss, target.name).length > 0
          ? "; its load-balancer rules are not checked (clouddriver-azure layout)"
          : "";
      return {
        kind: "done",
        summary: `in traffic: capacity ${capacityOf(vmss)}, ${trafficPools(vmss).length} backend pool(s)${rulesDecide}`,
      };
    },
    result: (snapshot) => serverGroupResult(snapshot, target),
  }),
});
