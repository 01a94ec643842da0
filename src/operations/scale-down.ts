// scaleDown: lower the capacity (to 0 unless a capacity is given, as Orca's scale-down stage sends). Never raises it.
// An autoscale setting that targets the scale set gets the same bounds first (as resize writes them: min, max, and
// desired as its default), so that Azure keeps the group where it was scaled down: at 0, a maximum of 0.
import { Type } from "@sinclair/typebox";
import { Capacity, checkCapacityOrder, serverGroupFields } from "./description.ts";
import { planAutoscaleBounds } from "./autoscale-bounds.ts";
import { defineOperation } from "./operation.ts";
import { checkInstanceIds, InstanceIds, terminatePlanner } from "./terminate-instances.ts";
import {
  capacityOf,
  disabledMode,
  readCapacityRecord,
  sameTags,
  serverGroupResult,
  TAG_DISABLED_CAPACITY,
  withCapacityTags,
} from "./server-group-state.ts";

export const ScaleDownDescription = Type.Object(
  {
    ...serverGroupFields,
    capacity: Type.Optional({ ...Type.Ref(Capacity), description: "defaults to min 0, max 0, desired 0" }),
    instanceIds: Type.Optional({
      ...InstanceIds,
      description: "scale down by deleting exactly these instances (as terminateInstances, without replacing them)",
    }),
  },
  { $id: "ScaleDownDescription", additionalProperties: true },
);

export const scaleDown = defineOperation({
  name: "scaleDown",
  summary: "Lower a scale set's capacity (to 0 by default); never raises it",
  schema: ScaleDownDescription,
  check: (d) => [
    ...(d.capacity ? checkCapacityOrder(d.capacity) : []),
    ...(d.instanceIds ? checkInstanceIds(d.instanceIds) : []),
    ...(d.instanceIds && d.capacity
      ? [{ field: "instanceIds", message: "give either instanceIds or capacity, not both" }]
      : []),
  ],
  describe: (d) =>
    d.instanceIds
      ? `scale ${d.serverGroupName} down by deleting instance(s) ${d.instanceIds.join(", ")}`
      : `scale ${d.serverGroupName} down to ${d.capacity?.desired ?? 0}`,
  planner: (d, target, run) =>
    d.instanceIds
      ? terminatePlanner(d.instanceIds, target, run?.memory, { keepCapacity: false })
      : {
          readsInstances: false,
          readsAutoscale: true,
          plan({ vmss, autoscale }) {
            const requested = d.capacity ?? { min: 0, max: 0, desired: 0 };
            const now = capacityOf(vmss);
            const desired = Math.min(now, requested.desired);
            const bounds = { min: Math.min(requested.min, desired), max: Math.max(requested.max, desired), desired };
            const setting = planAutoscaleBounds(autoscale, bounds, Date.now());
            if (setting) return setting;
            let tags = withCapacityTags(vmss.tags, bounds.min, bounds.max);
            if (disabledMode(vmss) === "capacity") {
              // Enable must not bring back more than this scale-down allows.
              const restore = Math.min(readCapacityRecord(vmss) ?? 0, requested.desired);
              tags = { ...tags, [TAG_DISABLED_CAPACITY]: String(restore) };
            }
            if (now === desired && sameTags(vmss.tags, tags)) {
              return { kind: "done", summary: `capacity ${now}, at or below ${requested.desired}` };
            }
            return {
              kind: "update",
              summary:
                now === desired ? `capacity stays ${now}; record min and max` : `lower capacity ${now} → ${desired}`,
              patch: { sku: { ...vmss.sku, capacity: desired }, tags },
            };
          },
          result: (snapshot) => serverGroupResult(snapshot, target),
        },
});
