// terminateInstances: replace named instances, keeping the scale set's capacity, as Orca's TerminateInstances stage
// does on every other provider (the group replaces what is terminated; terminateInstanceAndDecrementServerGroup is
// the one that shrinks). Here: delete them with deleteInstances (on a Flexible set, by VM name), then write the
// capacity read before the delete back (If-Match), so that Azure creates new instances in their place; done when
// Azure lists that many running. The new instances have new ids and names, so both of Orca's waits end
// (TerminatingInstanceSupport.groovy l.81-124: the instance no longer in the server group, or no longer found by the
// search Deck's one-instance terminate relies on). A reimage would keep the name: the search would find it forever.
//
// Those already gone or being deleted are skipped; a batch that names a protected instance (Flexible: a VM under a
// management lock), or (Flexible) names a VM that is not one of the set's, is refused. The capacity reported comes
// from a read made after Azure completed the writes, never from arithmetic on what was asked. scaleDown's instanceIds
// form and terminateInstanceAndDecrementServerGroup use the same planner without the restore (they shrink), and keep
// the refusal of a batch that would go below the recorded min.
import { Type } from "@sinclair/typebox";
import { RefusalError } from "../azure/arm-failure.ts";
import { isActionableInstance, kindOf } from "../azure/scale-set-state.ts";
import type { PlannedStep, Remembering, ScaleSetPlanner, StoppedInstancesAccepted } from "../azure/planner.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
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
  { minItems: 1, maxItems: 1000, description: "instances to terminate" },
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

/** What the planner keeps across attempts and processes (the task's checkpoint). */
interface TerminateMemory {
  /** Every name was seen listed once (Flexible): a name gone later is one this task deleted. */
  namesSeen?: boolean;
  /** The capacity read when the delete was first planned: written back once the instances are gone (keepCapacity). */
  restoreTo?: number;
}

export interface TerminateOptions {
  /** Replace what is deleted (terminateInstances); without it the scale set shrinks by what is deleted. */
  keepCapacity: boolean;
}

/** Once the named instances are gone: the capacity they left written back, or done. */
function restoreStep(snapshot: ScaleSetSnapshot, restoreTo: number, named: string[]): PlannedStep {
  const capacity = capacityOf(snapshot.vmss);
  if (capacity >= restoreTo)
    return {
      kind: "done",
      summary: `instance(s) ${named.join(", ")} deleted and replaced; capacity ${capacity} kept`,
    };
  return {
    kind: "update",
    summary: `restore capacity ${capacity} → ${restoreTo}: Azure creates new instances in place of those deleted`,
    patch: { sku: { ...snapshot.vmss.sku, capacity: restoreTo } },
  };
}

/** `memory`: what an earlier run of the same task checkpointed. */
export function terminatePlanner(
  instanceIds: string[],
  target: ScaleSetRef,
  memory: unknown,
  options: TerminateOptions,
): ScaleSetPlanner<ServerGroupResult> & StoppedInstancesAccepted & Remembering {
  const wanted = new Set(instanceIds);
  const saved = (memory ?? {}) as TerminateMemory;
  let namesSeen = saved.namesSeen === true;
  let restoreTo = options.keepCapacity && typeof saved.restoreTo === "number" ? saved.restoreTo : undefined;
  return {
    readsInstances: true,
    // Its goal is that these instances be gone: another one Azure evicted is reported, not a reason to fail.
    acceptsStopped: true,
    memory: (): TerminateMemory | undefined =>
      namesSeen || restoreTo !== undefined
        ? { ...(namesSeen ? { namesSeen } : {}), ...(restoreTo !== undefined ? { restoreTo } : {}) }
        : undefined,
    plan(snapshot) {
      const vms = snapshot.vms ?? [];
      if (!namesSeen && kindOf(snapshot.vmss).orchestration === "Flexible") {
        refuseUnknownVms(new Set(vms.map((vm) => vm.instanceId)), instanceIds, target.name);
        namesSeen = true;
      }
      const live = vms.filter((vm) => isActionableInstance(vm) && isNamed(vm, wanted));
      if (live.length === 0) {
        const deleting = vms.filter((vm) => vm.instanceId !== undefined && isNamed(vm, wanted)).length;
        if (restoreTo !== undefined) {
          if (deleting > 0)
            return { kind: "wait", summary: `waiting for Azure to finish deleting ${deleting} instance(s)` };
          return restoreStep(snapshot, restoreTo, instanceIds);
        }
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
      if (!options.keepCapacity && min !== undefined && capacity - live.length < min) {
        throw new RefusalError(
          "BelowMinimum",
          `deleting ${live.length} instance(s) would leave ${capacity - live.length}, below the recorded min of ${min}; resize min first`,
        );
      }
      // Kept from the first plan: a later attempt may read the capacity lowered by a delete of ours that landed.
      if (options.keepCapacity) restoreTo ??= capacity;
      const ids = live.map((vm) => vm.instanceId!);
      const skipped = instanceIds.length - ids.length;
      const after =
        restoreTo !== undefined ? `${capacity - ids.length}, then back to ${restoreTo}` : `${capacity - ids.length}`;
      return {
        kind: "deleteInstances",
        summary: `delete instance(s) ${ids.join(", ")} (capacity ${capacity} → ${after})${skipped > 0 ? `; ${skipped} already gone or deleting` : ""}`,
        instanceIds: ids,
      };
    },
    result: (snapshot) => serverGroupResult(snapshot, target),
  };
}

export const terminateInstances = defineOperation({
  name: "terminateInstances",
  summary:
    "Replace named instances of a scale set: delete them, then restore the capacity so that Azure creates new ones (Orca's TerminateInstances)",
  schema: TerminateInstancesDescription,
  check: (d) => [...checkInstanceIds(d.instanceIds), ...instanceLocationProblems(d)],
  locator: locateByInstances,
  confirmLocated: (d, target, { accounts, retry, signal }) =>
    unconfirmedInstances(accounts, target, d.instanceIds, retry, signal),
  describe: (d) => `terminate instance(s) ${d.instanceIds.join(", ")} of ${d.serverGroupName}`,
  planner: (d, target, run) => terminatePlanner(d.instanceIds, target, run?.memory, { keepCapacity: true }),
});
