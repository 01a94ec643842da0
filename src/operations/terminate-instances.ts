// terminateInstances: delete named instances with deleteInstances (on a Flexible set, by VM name). Those already gone
// or being deleted are skipped; a batch that would take the scale set below its recorded min, that names a protected
// instance (Flexible: a VM under a management lock), or (Flexible) names a VM that is not one of the set's, is refused; the capacity reported comes from a read
// made after Azure completed the delete, never from arithmetic on what was asked.
import { Type } from "@sinclair/typebox";
import { RefusalError } from "../azure/arm-failure.ts";
import { isActionableInstance, kindOf } from "../azure/scale-set-state.ts";
import type { Remembering, ScaleSetPlanner, StoppedInstancesAccepted } from "../azure/planner.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import { ScaleSetName, serverGroupFields, type FieldProblem } from "./description.ts";
import { instanceLocationProblems, isNamed, locateByInstances, unconfirmedInstances } from "./instance-location.ts";
import { defineOperation } from "./operation.ts";
import { refuseLocked, refuseProtected } from "./scale-set-kinds.ts";
import { capacityOf, recordedMin, serverGroupResult, type ServerGroupResult } from "./server-group-state.ts";

export const InstanceIds = Type.Array(
  Type.String({
    pattern: "^[A-Za-z0-9_-]{1,80}$",
    description:
      "an instance id as Azure reports it (e.g. 3), or the VM's name (web-prod-v001_3: Clouddriver's instance id, which Deck sends); on a Flexible scale set, the VM's name (e.g. web-prod-v001_0a1b2c3d)",
  }),
  { minItems: 1, maxItems: 1000, description: "instances to delete" },
);

/** An instance action's scale set: named, or read from the VM names it acts on (Deck's one-instance actions). */
export const InstancesServerGroupName = Type.Optional({
  ...ScaleSetName,
  description:
    "the scale set; may be left out when instanceIds are VM names ({scale set}_{id}, as Deck's one-instance actions send them): the scale set is then read from the name and confirmed on Azure before the task is created",
});

export const TerminateInstancesDescription = Type.Object(
  { ...serverGroupFields, serverGroupName: InstancesServerGroupName, instanceIds: InstanceIds },
  { $id: "TerminateInstancesDescription", additionalProperties: true },
);

export function checkInstanceIds(ids: string[], field = "instanceIds"): FieldProblem[] {
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  return dupes.length > 0 ? [{ field, message: `lists ${[...new Set(dupes)].join(", ")} more than once` }] : [];
}

/**
 * A Flexible set's VMs are named, and its batch delete takes their names: a name that is not one of its VMs is a
 * mistake (another scale set's VM, a typo), refused before anything is deleted. Only on the first read: once every
 * name was seen listed (kept in the task's checkpoint), a name gone later is one this task deleted.
 */
function refuseUnknownVms(listed: Set<string | undefined>, instanceIds: string[], name: string): void {
  const unknown = instanceIds.filter((id) => !listed.has(id));
  if (unknown.length === 0) return;
  throw new RefusalError(
    "NotAnInstance",
    `${unknown.join(", ")} ${unknown.length === 1 ? "is not a VM" : "are not VMs"} of the Flexible scale set ${name} (its VMs: ${[...listed].join(", ") || "none"}); nothing was deleted. Name its VMs as Azure lists them`,
  );
}

/** Shared with scaleDown's instanceIds form. `memory`: what an earlier run of the same task checkpointed. */
export function terminatePlanner(
  instanceIds: string[],
  target: ScaleSetRef,
  memory?: unknown,
): ScaleSetPlanner<ServerGroupResult> & StoppedInstancesAccepted & Remembering {
  const wanted = new Set(instanceIds);
  let namesSeen = (memory as { namesSeen?: unknown } | undefined)?.namesSeen === true;
  return {
    readsInstances: true,
    // Its goal is that these instances be gone: another one Azure evicted is reported, not a reason to fail.
    acceptsStopped: true,
    memory: () => (namesSeen ? { namesSeen } : undefined),
    plan(snapshot) {
      const vms = snapshot.vms ?? [];
      if (!namesSeen && kindOf(snapshot.vmss).orchestration === "Flexible") {
        refuseUnknownVms(new Set(vms.map((vm) => vm.instanceId)), instanceIds, target.name);
        namesSeen = true;
      }
      const live = vms.filter((vm) => isActionableInstance(vm) && isNamed(vm, wanted));
      if (live.length === 0) {
        const deleting = vms.filter((vm) => vm.instanceId !== undefined && isNamed(vm, wanted)).length;
        return {
          kind: "done",
          summary:
            deleting > 0
              ? `instance(s) still listed are being deleted already; capacity ${capacityOf(snapshot.vmss)}`
              : `none of ${instanceIds.join(", ")} exists (deleted already, or never created); capacity ${capacityOf(snapshot.vmss)}`,
        };
      }
      // A protected instance (Flexible: a locked VM) is refused before anything is written, the whole batch with it.
      refuseProtected(live, target.name);
      refuseLocked(live, snapshot.locks, target.name);
      const capacity = capacityOf(snapshot.vmss);
      const min = recordedMin(snapshot.vmss);
      if (min !== undefined && capacity - live.length < min) {
        throw new RefusalError(
          "BelowMinimum",
          `deleting ${live.length} instance(s) would leave ${capacity - live.length}, below the recorded min of ${min}; resize min first`,
        );
      }
      const ids = live.map((vm) => vm.instanceId!);
      const skipped = instanceIds.length - ids.length;
      return {
        kind: "deleteInstances",
        summary: `delete instance(s) ${ids.join(", ")} (capacity ${capacity} → ${capacity - ids.length})${skipped > 0 ? `; ${skipped} already gone or deleting` : ""}`,
        instanceIds: ids,
      };
    },
    result: (snapshot) => serverGroupResult(snapshot, target),
  };
}

export const terminateInstances = defineOperation({
  name: "terminateInstances",
  summary: "Delete named instances of a scale set (never below its recorded min)",
  schema: TerminateInstancesDescription,
  check: (d) => [...checkInstanceIds(d.instanceIds), ...instanceLocationProblems(d)],
  locator: locateByInstances,
  confirmLocated: (d, target, { accounts, retry, signal }) =>
    unconfirmedInstances(accounts, target, d.instanceIds, retry, signal),
  describe: (d) => `terminate instance(s) ${d.instanceIds.join(", ")} of ${d.serverGroupName}`,
  planner: (d, target, run) => terminatePlanner(d.instanceIds, target, run?.memory),
});
