// rebootInstances: Deck's "Reboot" on an instance, as Orca sends it. Orca's RebootInstancesTask.groovy (l.34, l.45)
// sends the stage context whole under this name; Deck's body is `instanceIds`, `region`, `credentials`,
// `cloudProvider`, `application`, `zone` for one instance (packages/core/src/instance/instance.write.service.ts
// l.77-90), and `serverGroupName` with `asgName` for the multi-instance form (l.73-75, l.304-312). clouddriver-azure
// has no such operation; Clouddriver's meaning (AtomicOperations.REBOOT_INSTANCES) is that each instance is restarted
// and keeps its place in its group.
//
// Here: on a Uniform scale set, the scale set's restart with those instance ids; on a Flexible one, each VM's own
// restart. Neither takes If-Match (Azure's restart APIs take none), so the plan is made on the read of the same
// attempt, and each instance's ProvisioningState time, as read before the restart, is kept in the task's checkpoint:
// an instance counts as restarted once Azure reports it running with a later time (its last operation ended after
// the plan). One that shows no restart since is restarted again (a write that failed, or a crash before it was sent);
// one still starting is waited for. The result is read after Azure reports every one running.
import { Type } from "@sinclair/typebox";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import type { PlannedStep, Remembering, ScaleSetPlanner, StoppedInstancesAccepted } from "../azure/planner.ts";
import { instanceLife, kindOf, powerState } from "../azure/scale-set-state.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { serverGroupFields } from "./description.ts";
import { defineOperation } from "./operation.ts";
import { serverGroupResult, type ServerGroupResult } from "./server-group-state.ts";
import { instanceLocationProblems, isNamed, locateByInstances, unconfirmedInstances } from "./instance-location.ts";
import { checkInstanceIds, InstanceIds, InstancesServerGroupName } from "./terminate-instances.ts";

export const RebootInstancesDescription = Type.Object(
  {
    ...serverGroupFields,
    serverGroupName: InstancesServerGroupName,
    instanceIds: { ...InstanceIds, description: "instances to restart" },
  },
  { $id: "RebootInstancesDescription", additionalProperties: true },
);

/** The time of an instance's ProvisioningState status: when its last operation ended, as Azure reports it. */
export function provisionedAt(vm: VirtualMachineScaleSetVM): string | null {
  const status = vm.instanceView?.statuses?.find((s) => (s.code ?? "").startsWith("ProvisioningState/"));
  const time = status?.time as Date | string | undefined;
  if (time === undefined) return null;
  return time instanceof Date ? time.toISOString() : String(time);
}

/** What the planner keeps across attempts and processes: each instance's provisioning time before the restart. */
interface RebootMemory {
  before: Record<string, string | null>;
}

/**
 * The instances named, by instance id or VM name (isNamed), as their instance ids; those Azure does not list under
 * this scale set, or lists as not running, refused before anything is restarted.
 */
function namedRunning(vms: VirtualMachineScaleSetVM[], instanceIds: string[], name: string): string[] {
  const unknown = instanceIds.filter((id) => !vms.some((vm) => isNamed(vm, new Set([id]))));
  if (unknown.length > 0)
    throw new RefusalError(
      "NotAnInstance",
      `${unknown.join(", ")} ${unknown.length === 1 ? "is not an instance" : "are not instances"} of scale set ${name} (its instances: ${vms.map((vm) => vm.instanceId).join(", ") || "none"}); nothing was restarted. Name them as Azure lists them`,
    );
  // In the order asked: the order the restarts are sent in, one VM after the other on a Flexible set.
  const named = [
    ...new Set(instanceIds.map((id) => vms.find((vm) => vm.instanceId !== undefined && isNamed(vm, new Set([id])))!)),
  ];
  const byId = new Map(named.map((vm) => [vm.instanceId!, vm]));
  // Azure does not apply an action started on the scale set to an instance protected from scale-set actions: its
  // restart would skip it, and no fresh read would show it restarted.
  const shielded = named.filter((vm) => vm.protectionPolicy?.protectFromScaleSetActions === true);
  if (shielded.length > 0)
    throw new RefusalError(
      "InstanceProtected",
      `instance(s) ${shielded.map((vm) => vm.instanceId).join(", ")} of ${name} are protected from scale-set actions (protectFromScaleSetActions): Azure does not apply the scale set's restart to them; nothing was restarted. Remove the protection first, or leave them out`,
    );
  const down = [...byId.keys()].filter((id) => instanceLife(byId.get(id)!) !== "running");
  if (down.length > 0)
    throw new RefusalError(
      "InstanceNotRunning",
      `${down.map((id) => `${id} (${powerState(byId.get(id)!) ?? byId.get(id)!.provisioningState ?? "unknown"})`).join(", ")} of scale set ${name} ${down.length === 1 ? "is" : "are"} not running; nothing was restarted. A reboot restarts a running instance: start a stopped one instead`,
    );
  return [...byId.keys()];
}

/** Where each instance is since the restart was planned: booted again, still starting, or showing no restart. */
function progressOf(vms: VirtualMachineScaleSetVM[], memory: RebootMemory, name: string) {
  const byId = new Map(vms.map((vm) => [vm.instanceId, vm]));
  const restarted: string[] = [];
  const starting: string[] = [];
  const notYet: string[] = [];
  for (const [id, before] of Object.entries(memory.before)) {
    const vm = byId.get(id);
    const life = vm ? instanceLife(vm) : "deleting";
    if (!vm || life === "deleting" || life === "failed")
      throw new RefusalError(
        "InstanceGone",
        `instance ${id} of scale set ${name} is ${vm ? life : "no longer listed"} since the restart was planned; the others were restarted or are restarting`,
      );
    const now = provisionedAt(vm);
    if (life !== "running" || (vm.provisioningState ?? "").toLowerCase() !== "succeeded") starting.push(id);
    // Azure reports no time: a running instance after our restart was sent is taken as restarted.
    else if (before === null || (now !== null && now > before)) restarted.push(id);
    else notYet.push(id);
  }
  return { restarted, starting, notYet };
}

export function rebootPlanner(
  instanceIds: string[],
  target: ScaleSetRef,
  saved?: unknown,
): ScaleSetPlanner<ServerGroupResult> & StoppedInstancesAccepted & Remembering {
  let memory = (saved as RebootMemory | undefined)?.before ? (saved as RebootMemory) : undefined;
  const restartStep = (snapshot: ScaleSetSnapshot, ids: string[], again: boolean): PlannedStep => ({
    kind: "restartInstances",
    summary: `${again ? "restart again (no restart shows since the plan)" : "restart"} instance(s) ${ids.join(", ")} (no If-Match: Azure's restart takes none)`,
    instanceIds: ids,
    ...(kindOf(snapshot.vmss).orchestration === "Flexible" ? { vms: true as const } : {}),
  });
  return {
    readsInstances: true,
    // Its goal is that these instances boot again: another one Azure evicted is reported, not a reason to fail.
    acceptsStopped: true,
    memory: () => memory,
    plan(snapshot) {
      const vms = snapshot.vms ?? [];
      if (!memory) {
        const ids = namedRunning(vms, instanceIds, target.name);
        const before = Object.fromEntries(
          ids.map((id) => [id, provisionedAt(vms.find((vm) => vm.instanceId === id)!)]),
        );
        memory = { before };
        return restartStep(snapshot, ids, false);
      }
      const { restarted, starting, notYet } = progressOf(vms, memory, target.name);
      if (notYet.length > 0) return restartStep(snapshot, notYet, true);
      if (starting.length > 0)
        return { kind: "wait", summary: `waiting for Azure to report instance(s) ${starting.join(", ")} running` };
      return {
        kind: "done",
        summary: `Azure reports instance(s) ${restarted.join(", ")} running again after the restart`,
      };
    },
    result: (snapshot) => serverGroupResult(snapshot, target),
  };
}

export const rebootInstances = defineOperation({
  name: "rebootInstances",
  summary: "Restart named instances of a scale set (Uniform: the scale set's restart; Flexible: each VM's)",
  schema: RebootInstancesDescription,
  check: (d) => [...checkInstanceIds(d.instanceIds), ...instanceLocationProblems(d)],
  locator: locateByInstances,
  confirmLocated: (d, target, { accounts, retry, signal }) =>
    unconfirmedInstances(accounts, target, d.instanceIds, retry, signal),
  describe: (d) => `reboot instance(s) ${d.instanceIds.join(", ")} of ${d.serverGroupName}`,
  planner: (d, target, run) => rebootPlanner(d.instanceIds, target, run?.memory),
});
