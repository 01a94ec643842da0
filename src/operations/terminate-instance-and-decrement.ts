// terminateInstanceAndDecrementServerGroup: Deck's "Terminate and shrink server group" on an instance, as Orca sends
// it (TerminateInstanceAndDecrementServerGroupTask.groovy l.38, l.78: the stage context whole, under this name). Deck's body
// (packages/core/src/instance/instance.write.service.ts l.247-270): `instance` (one id), `serverGroupName` and
// `asgName`, `region`, `credentials`, `adjustMinIfNecessary: true`, and `setMaxToNewDesired` when the group's min
// equals its max. clouddriver-azure has no such operation (nor terminateInstances, nor rebootInstances: its
// AzureOperation list is create, destroy, enable, disable, resize and the network resources); Clouddriver's meaning
// is its AWS one (TerminateInstanceAndDecrementAsgDescription): the instance is deleted and the group's size goes
// down by one, its min lowered with it when adjustMinIfNecessary, its max set to the new size when setMaxToNewDesired.
//
// Here: while the instance still runs, the recorded min and max are first written as asked (If-Match the read); then
// the instance is deleted with deleteInstances, which takes the capacity down by one: terminateInstances' delete
// without its restore of the capacity (and with the refusals of scaleDown's form: below the recorded min without
// adjustMinIfNecessary, a protected or locked instance).
import { Type } from "@sinclair/typebox";
import { plannerOf, wrapPlanner, type Planner } from "../azure/planner.ts";
import { isActionableInstance } from "../azure/scale-set-state.ts";
import { serverGroupFields } from "./description.ts";
import { defineOperation } from "./operation.ts";
import {
  capacityOf,
  recordedCapacity,
  recordedMin,
  TAG_MAX,
  withCapacityTags,
  type ServerGroupResult,
} from "./server-group-state.ts";
import { isNamed } from "./instance-location.ts";
import { terminatePlanner } from "./terminate-instances.ts";

export const TerminateInstanceAndDecrementDescription = Type.Object(
  {
    ...serverGroupFields,
    instance: Type.String({
      pattern: "^[A-Za-z0-9_-]{1,80}$",
      description:
        "the instance to delete: its id as Azure reports it, or its VM's name (Clouddriver's instance id, which Deck sends; a Flexible set's instance id is its VM's name)",
    }),
    asgName: Type.Optional(Type.String({ description: "Deck's copy of serverGroupName; ignored" })),
    adjustMinIfNecessary: Type.Optional(
      Type.Boolean({ description: "lower the recorded min with the size when it would be below it (Deck sends true)" }),
    ),
    setMaxToNewDesired: Type.Optional(Type.Boolean({ description: "set the recorded max to the new size" })),
  },
  { $id: "TerminateInstanceAndDecrementDescription", additionalProperties: true },
);

/** The recorded min and max the operation leaves, read while the instance is still there: undefined when unchanged. */
export function boundsAfter(
  vmss: Parameters<typeof recordedCapacity>[0],
  options: { adjustMinIfNecessary?: boolean; setMaxToNewDesired?: boolean },
): { min: number; max: number } | undefined {
  const newDesired = capacityOf(vmss) - 1;
  const min = recordedMin(vmss);
  const { max } = recordedCapacity(vmss);
  // Not lowered: the delete itself is refused (BelowMinimum), so nothing is written before it.
  if (!options.adjustMinIfNecessary && min !== undefined && min > newDesired) return undefined;
  const wantMin = min !== undefined && min > newDesired ? newDesired : min;
  const wantMax = options.setMaxToNewDesired ? newDesired : max;
  const recordedMax = vmss.tags?.[TAG_MAX];
  if (wantMin === min && (!options.setMaxToNewDesired || String(wantMax) === recordedMax)) return undefined;
  return { min: wantMin ?? Math.min(newDesired, wantMax), max: wantMax };
}

export const terminateInstanceAndDecrementServerGroup = defineOperation({
  name: "terminateInstanceAndDecrementServerGroup",
  summary:
    "Delete one instance and take the scale set's size down by one, lowering its recorded min if asked (Deck's terminate and shrink)",
  schema: TerminateInstanceAndDecrementDescription,
  describe: (d) => `terminate instance ${d.instance} of ${d.serverGroupName} and shrink it by one`,
  planner: (d, target, run): Planner<ServerGroupResult> => {
    const terminate = plannerOf(terminatePlanner([d.instance], target, run?.memory, { keepCapacity: false }));
    return wrapPlanner(terminate, {
      plan(snapshot) {
        const live = (snapshot.vms ?? []).some((vm) => isActionableInstance(vm) && isNamed(vm, new Set([d.instance])));
        const bounds = live ? boundsAfter(snapshot.vmss, d) : undefined;
        if (bounds)
          return {
            kind: "update",
            summary: `record min ${bounds.min} and max ${bounds.max} for the size after instance ${d.instance} is deleted (${capacityOf(snapshot.vmss)} → ${capacityOf(snapshot.vmss) - 1})`,
            patch: { tags: withCapacityTags(snapshot.vmss.tags, bounds.min, bounds.max) },
          };
        return terminate.plan(snapshot);
      },
    });
  },
});
