// resizeServerGroup: set the scale set's capacity, and record min and max as tags so later operations honour them.
// When an Azure Monitor autoscale setting targets the scale set, min and max are its bounds (Spinnaker's AWS
// semantics): the profile in force gets {minimum: min, maximum: max, default: desired} first, then the scale set its
// capacity, so that Azure's evaluation (about once a minute) keeps the capacity where the resize put it.
//
// Orca merges a resize stage's capacity with the current one (ScaleExactResizeStrategy.groovy l.51-77): a group at
// {min 2, max 2} resized to {desired 1} arrives as {min 2, max 2, desired 1}. clouddriver-azure resizes to desired;
// so does this, and records min lowered to desired, so the bounds stay consistent.
import { Type } from "@sinclair/typebox";
import { Capacity, checkCapacityOrder, InstanceCount, serverGroupFields, type FieldProblem } from "./description.ts";
import { RefusalError } from "../azure/arm-failure.ts";
import { kindOf } from "../azure/scale-set-state.ts";
import { SINGLE_PLACEMENT_GROUP_MAX_VMS } from "./create/scale-set-model.ts";
import { planAutoscaleBounds } from "./autoscale-bounds.ts";
import { defineOperation } from "./operation.ts";
import {
  capacityOf,
  disabledMode,
  recordedCapacity,
  sameTags,
  serverGroupResult,
  TAG_DISABLED_CAPACITY,
  withCapacityTags,
} from "./server-group-state.ts";

export const ResizeServerGroupDescription = Type.Object(
  {
    ...serverGroupFields,
    capacity: Type.Optional(Type.Ref(Capacity)),
    targetSize: Type.Optional({ ...InstanceCount, description: "the desired size; min and max widen to include it" }),
  },
  { $id: "ResizeServerGroupDescription", additionalProperties: true },
);

/** The capacity to resize to: desired, with a min above it lowered to it (Orca's merged resize). */
export function mergedCapacity(capacity: { min: number; max: number; desired: number }): {
  min: number;
  max: number;
  desired: number;
} {
  return { ...capacity, min: Math.min(capacity.min, capacity.desired) };
}

export const resizeServerGroup = defineOperation({
  name: "resizeServerGroup",
  summary: "Set a scale set's capacity (and record min and max)",
  schema: ResizeServerGroupDescription,
  check(d) {
    const problems: FieldProblem[] = [];
    if (!d.capacity && d.targetSize === undefined)
      problems.push({ field: "capacity", message: "capacity or targetSize is required" });
    if (d.capacity) problems.push(...checkCapacityOrder(mergedCapacity(d.capacity)));
    if (d.capacity && d.targetSize !== undefined && d.targetSize !== d.capacity.desired) {
      problems.push({
        field: "targetSize",
        message: `targetSize (${d.targetSize}) contradicts capacity.desired (${d.capacity.desired})`,
      });
    }
    return problems;
  },
  describe: (d) =>
    `resize ${d.serverGroupName} to ${d.capacity?.desired ?? d.targetSize}${d.capacity && d.capacity.min > d.capacity.desired ? ` (min ${d.capacity.min} lowered to ${d.capacity.desired})` : ""}`,
  planner: (d, target) => ({
    readsInstances: false,
    readsAutoscale: true,
    plan({ vmss, autoscale }) {
      const current = recordedCapacity(vmss);
      const t = d.targetSize ?? d.capacity!.desired;
      const want = d.capacity
        ? mergedCapacity(d.capacity)
        : { min: Math.min(current.min, t), max: Math.max(current.max, t), desired: t };
      // Placement groups are Uniform's: a Flexible set spreads its VMs by fault domains, up to 1,000.
      if (
        want.desired > SINGLE_PLACEMENT_GROUP_MAX_VMS &&
        vmss.singlePlacementGroup !== false &&
        kindOf(vmss).orchestration === "Uniform"
      ) {
        // Azure would refuse the write (409 OperationNotAllowed): say so now, with what to change, not mid-pipeline.
        throw new RefusalError(
          "SinglePlacementGroupLimit",
          `${target.name} has a single placement group, which holds at most ${SINGLE_PLACEMENT_GROUP_MAX_VMS} instances: it cannot be resized to ${want.desired}. ` +
            `Set singlePlacementGroup to false on the scale set (Azure allows true → false, never back), or deploy a new server group with a max above ${SINGLE_PLACEMENT_GROUP_MAX_VMS} (vmss-ops creates those with several placement groups).`,
        );
      }
      if (disabledMode(vmss) === "capacity") {
        // Disabled by scaling to 0: the new size is what enable will restore; scaling up now would re-enable it.
        const tags = {
          ...withCapacityTags(vmss.tags, want.min, want.max),
          [TAG_DISABLED_CAPACITY]: String(want.desired),
        };
        if (sameTags(vmss.tags, tags))
          return { kind: "done", summary: `disabled (scaled to 0); enable will restore capacity ${want.desired}` };
        return {
          kind: "update",
          summary: `disabled (scaled to 0): record capacity ${want.desired} for enable to restore`,
          patch: { tags },
        };
      }
      // The bounds first: a capacity outside the setting's old bounds would be undone by its next evaluation.
      const bounds = planAutoscaleBounds(autoscale, want, Date.now());
      if (bounds) return bounds;
      const tags = withCapacityTags(vmss.tags, want.min, want.max);
      const now = capacityOf(vmss);
      if (now === want.desired && sameTags(vmss.tags, tags)) {
        return {
          kind: "done",
          summary: `capacity ${now} (min ${want.min}, max ${want.max})${autoscale ? `; autoscale setting ${autoscale.name ?? ""} holds the same bounds` : ""}`,
        };
      }
      return {
        kind: "update",
        summary: `set capacity ${now} → ${want.desired} (min ${want.min}, max ${want.max})`,
        patch: { sku: { ...vmss.sku, capacity: want.desired }, tags },
      };
    },
    result: (snapshot) => serverGroupResult(snapshot, target),
  }),
});
