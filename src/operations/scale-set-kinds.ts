// Which kinds of scale set each operation supports, and why the others are refused: the one table. Every
// operation consults it while planning on its fresh read (defineOperation wraps each planner with kindGuard), so an
// operation either works on the scale set in front of it or refuses before it writes anything, saying why.
//
// A kind is what Azure reports on the scale set itself (kindOf, in scale-set-state.ts, where every reading of a scale
// set is): its orchestration mode, its upgrade policy, automatic repairs, Spot priority. What an instance is (running,
// one we may act on, protected) is read there too, by one rule for every operation; refuseProtected below turns a
// protection into a refusal where the instances are chosen.
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import { isRunningInstance, kindOf, protectionOf, type ScaleSetKind } from "../azure/scale-set-state.ts";
import { wrapPlanner, type PlannedStep, type Planner } from "../azure/planner.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { describeLock, locksHolding, type ManagementLock } from "../azure/management-locks.ts";
import { withRepairsSuspended } from "./repairs-suspension.ts";
import { isManualUpgrade } from "./server-group-state.ts";
import { OPERATION_NAMES, type OperationName } from "./operation-names.ts";

/** One cell of the table: how the operation works on this kind, or why it is refused (the code names the refusal). */
export type Support = { supported: true; how: string } | { supported: false; code: string; why: string };

/** The kinds and features a row has a cell for. */
export type KindColumn = "Flexible" | "Rolling" | "Automatic" | "repairs" | "flexibleRepairs" | "spot";
export type KindRow = Record<KindColumn, Support>;

/** An operation the table does not decide for, and why: explicit, so that no operation is allowed by being left out. */
export interface NotApplicable {
  notApplicable: string;
}

const ok = (how: string): Support => ({ supported: true, how });
const refused = (code: string, why: string): Support => ({ supported: false, code, why });

/**
 * Flexible orchestration: its VMs are standalone virtual machines (named, each with its own NIC), not the numbered
 * instances of a Uniform set. They are read through the VM list filtered by the scale set (flexible-vms.ts) into the
 * same instances every rule reads; what differs per operation is in its cell.
 */
const FLEXIBLE_CAPACITY =
  "capacity change on the scale set (If-Match); confirmed from the VMs Azure lists for it (virtualMachines filtered by virtualMachineScaleSet/id), counted running by their power state";

/**
 * Automatic repairs on a Flexible set: Azure offers no scale-set instance view on Flexible, which is where the
 * AutomaticRepairs service's state is read, so whether repairs run, and whose suspension it is, cannot be known; an
 * operation that would suspend them refuses rather than race Azure's replacements.
 */
const FLEXIBLE_REPAIRS = refused(
  "FlexibleRepairsUnreadable",
  "it uses Flexible orchestration with automatic repairs enabled: Azure offers no scale-set instance view on Flexible, so whether repairs run, and who suspended them, cannot be read, and Azure could replace VMs while they leave traffic; nothing was written. Turn automatic repairs off on the scale set (automaticRepairsPolicy.enabled false) for the operation, and back on after",
);

/**
 * The table: operation × kind or feature. Uniform / Manual / no repairs / not Spot are the baseline every row
 * supports. Every operation of the registry has its row or says why none applies: a new one fails tsc until it does.
 */
export const SUPPORT = {
  createServerGroup: {
    Flexible: ok(
      "created Flexible when its description says orchestrationMode Flexible (fault domains 1, NICs per VM from the profile, no NAT pool); done when every VM runs with its NIC in the pools, healthy where Azure reports health (a Flexible VM reports the Application Health extension's, from healthSettings, never the load balancer probe's); without the extension the history says the VMs run in the pools, not that they answer",
    ),
    Rolling: ok("the new scale set takes the upgrade policy of its description"),
    Automatic: ok("the new scale set takes the upgrade policy of its description"),
    repairs: ok("created as described; confirmed when every instance runs"),
    flexibleRepairs: ok("created as described; repairs are not suspended by a create"),
    spot: ok("confirmed only from instances Azure reports running"),
  },
  cloneServerGroup: {
    Flexible: ok(
      "the clone keeps its source's orchestration mode (or the one its description names); a Flexible clone serves as a Flexible create does",
    ),
    Rolling: ok("the clone keeps its source's upgrade policy"),
    Automatic: ok("the clone keeps its source's upgrade policy"),
    repairs: ok("the clone keeps its source's repairs policy"),
    flexibleRepairs: ok("the clone keeps its source's repairs policy"),
    spot: ok("confirmed only from instances Azure reports running"),
  },
  resizeServerGroup: {
    Flexible: ok(FLEXIBLE_CAPACITY),
    Rolling: ok("capacity change; new instances start on the current model"),
    Automatic: ok("capacity change; new instances start on the current model"),
    repairs: ok("capacity change; repairs go on (it takes nothing out of traffic)"),
    flexibleRepairs: ok("capacity change; repairs go on"),
    spot: ok(
      "confirmed only from instances Azure reports running; evicted (deallocated) instances are reported, and the result counts what runs",
    ),
  },
  scaleDown: {
    Flexible: ok(`${FLEXIBLE_CAPACITY}; with instanceIds, as terminateInstances`),
    Rolling: ok("capacity change"),
    Automatic: ok("capacity change"),
    repairs: ok("capacity change; repairs go on"),
    flexibleRepairs: ok("capacity change; repairs go on"),
    spot: ok("confirmed only from instances Azure reports running"),
  },
  terminateInstances: {
    Flexible: ok(
      "the scale set's batch delete (deleteInstances) by VM name; a name that is not one of its VMs, or a VM under a management lock (on it or on its resource group, read with the VMs), is refused before anything is deleted",
    ),
    Rolling: ok("deleteInstances by instance id"),
    Automatic: ok("deleteInstances by instance id"),
    repairs: ok("deleteInstances by instance id"),
    flexibleRepairs: ok("batch delete by VM name; repairs go on"),
    spot: ok(
      "deleteInstances by instance id; evicted instances can be deleted; others evicted are reported and not counted as running",
    ),
  },
  rebootInstances: {
    Flexible: ok(
      "each VM's own restart (virtualMachines restart), one after the other; done when Azure reports each running with a later provisioning time than before the restart",
    ),
    Rolling: ok("the scale set's restart with the instance ids (a restart changes no model)"),
    Automatic: ok("the scale set's restart with the instance ids"),
    repairs: ok("the scale set's restart with the instance ids; repairs go on"),
    flexibleRepairs: ok("each VM's own restart; repairs go on"),
    spot: ok("the scale set's restart; an evicted (deallocated) instance is refused: start it instead"),
  },
  disableServerGroup: {
    Flexible: ok(
      "backend pools removed from the model (so new VMs follow), then each existing VM's NIC taken out of them (NIC PUT with If-Match); done when no VM's NIC is in a pool, as Microsoft.Network reports the NICs. With desiredPercentage below 100 (rolling red/black) only that share of VMs' NICs, the model untouched (a Uniform set under Manual: that share of instances, each its own network configuration without the pools)",
    ),
    Rolling: ok(
      "backend pools removed from the model; done only when Azure's rolling upgrade has moved every instance (latestModelApplied, the rolling-upgrade status); a rollout Azure stops or fails fails the task with Azure's reason. With desiredPercentage below 100: refused (PartialDisableUniform), Azure would put the instances back at its next upgrade",
    ),
    Automatic: ok(
      "backend pools removed from the model; done only when every instance runs the new model (latestModelApplied). With desiredPercentage below 100: refused (PartialDisableUniform), Azure would put the instances back at its next upgrade",
    ),
    repairs: ok(
      "automatic repairs suspended first (setOrchestrationServiceState Suspend) and resumed when the operation ends, also when it fails or is canceled; left suspended if someone else had suspended them",
    ),
    flexibleRepairs: FLEXIBLE_REPAIRS,
    spot: ok("pools removed from the model and rolled out to the instances that run"),
  },
  enableServerGroup: {
    Flexible: ok(
      "backend pools restored on the model, then each existing VM's NIC put back into them (NIC PUT with If-Match); done when every VM's NIC is in the model's pools",
    ),
    Rolling: ok(
      "backend pools restored on the model; done only when Azure's rolling upgrade has moved every instance; a rollout Azure stops or fails fails the task",
    ),
    Automatic: ok("backend pools restored on the model; done only when every instance runs the new model"),
    repairs: ok("repairs are not suspended (nothing leaves traffic)"),
    flexibleRepairs: ok("repairs are not suspended (nothing leaves traffic)"),
    spot: ok("pools restored and rolled out to the instances that run"),
  },
  rollingUpgrade: {
    Flexible: ok(
      "the model changed for new VMs, and the VMs there then recorded as on the old model (a Flexible VM reports no latestModelApplied); replaced by surge in batches, the old ones removed by the batch delete by name, never below the healthy minimum",
    ),
    Rolling: refused(
      "RollingUpgradePolicy",
      "it has upgrade policy Rolling: Azure replaces its instances itself when the model changes, so a surge could not protect capacity. Use Azure's rolling upgrade instead (its rollingUpgradePolicy has maxSurge and maxBatchInstancePercent; change the model, then POST …/osRollingUpgrade or run az vmss rolling-upgrade start), or set the policy to Manual to use rollingUpgrade",
    ),
    Automatic: refused(
      "AutomaticUpgradePolicy",
      "it has upgrade policy Automatic: Azure would update every instance at once when the model changes, so no surge could keep capacity; set the policy to Manual to use rollingUpgrade",
    ),
    repairs: ok(
      "automatic repairs suspended while instances are replaced, resumed at the end (also on failure or cancel)",
    ),
    flexibleRepairs: FLEXIBLE_REPAIRS,
    spot: ok("replaced in batches; evicted instances do not count as ready"),
  },
  destroyServerGroup: {
    Flexible: ok("DELETE of the scale set; Azure deletes the VMs it made with it"),
    Rolling: ok("DELETE of the scale set"),
    Automatic: ok("DELETE of the scale set"),
    repairs: ok("DELETE of the scale set"),
    flexibleRepairs: ok("DELETE of the scale set"),
    spot: ok("DELETE of the scale set"),
  },
  terminateInstanceAndDecrementServerGroup: {
    notApplicable:
      "its planner is terminateInstances's, which consults the table as terminateInstances: the same cells decide",
  },
} satisfies Record<OperationName, KindRow | NotApplicable>;

/** The operations the table has a row for (the others say why none applies). */
export type KindOperation = {
  [N in OperationName]: (typeof SUPPORT)[N] extends NotApplicable ? never : N;
}[OperationName];

function isKindOperation(name: string): name is KindOperation {
  const entry = (SUPPORT as Record<string, KindRow | NotApplicable | undefined>)[name];
  return entry !== undefined && !("notApplicable" in entry);
}

/** The table's rows, in the registry's order. */
export const KIND_OPERATIONS: readonly KindOperation[] = OPERATION_NAMES.filter(isKindOperation);

/** The cell that decides: the first refusal among the scale set's kind and features, if any. */
export function supportFor(operation: KindOperation, kind: ScaleSetKind): Support | undefined {
  const row: KindRow = SUPPORT[operation];
  const cells = [
    kind.orchestration === "Flexible" ? row.Flexible : undefined,
    kind.upgrade !== "Manual" ? row[kind.upgrade] : undefined,
    kind.repairs ? row.repairs : undefined,
    kind.repairs && kind.orchestration === "Flexible" ? row.flexibleRepairs : undefined,
    kind.spot ? row.spot : undefined,
  ];
  return cells.find((c) => c !== undefined && !c.supported);
}

/** Throws the refusal for this operation on this scale set, before any write is planned. */
export function refuseUnsupported(operation: OperationName, vmss: VirtualMachineScaleSet, name: string): void {
  if (!isKindOperation(operation)) return;
  const refusal = supportFor(operation, kindOf(vmss));
  if (refusal && !refusal.supported)
    throw new RefusalError(refusal.code, `${operation} refused on ${name}: ${refusal.why}`);
}

/**
 * The planner with the table consulted on every fresh read, before the operation's own plan. A plan is made only on
 * a read, so nothing was written when it refuses (a create's refusal comes after its own create: the read of what
 * it made).
 */
export function kindGuard<R>(
  operation: OperationName,
  planner: Planner<R>,
  target: Pick<ScaleSetRef, "name">,
  taskId?: string,
): Planner<R> {
  // Automatic repairs are suspended around operations that take instances out of traffic or replace them; the
  // suspension is marked with the task. A dry run (no task) plans the same steps, under a name it never writes.
  const inner = SUSPENDS_REPAIRS.has(operation) ? withRepairsSuspended(planner, taskId ?? "(the task)") : planner;
  return wrapPlanner(inner, {
    plan(snapshot) {
      refuseUnsupported(operation, snapshot.vmss, target.name);
      return inner.plan(snapshot);
    },
  });
}

// ---- features the planners act on ----

/** Azure rolls a model change out itself (Rolling, Automatic): our manualupgrade is the wrong tool there. */
export function azureRollsModelChanges(vmss: VirtualMachineScaleSet): boolean {
  return !isManualUpgrade(vmss);
}

/** Rolling-upgrade states in which Azure has stopped rolling forward: it will not finish on its own. */
const STOPPED_ROLLOUTS = new Set(["faulted", "cancelled", "rollingback"]);

/**
 * After a model change that Azure rolls out itself (Rolling, Automatic): wait while running instances are behind
 * the model, fail with Azure's reason when its rolling upgrade stopped or failed, nothing (undefined) once every
 * instance runs the model. `behind` are the instances not yet on it; `what` says what the change was.
 */
export function azureRolloutStep(
  snapshot: ScaleSetSnapshot,
  behindModel: string[],
  what: string,
  name: string,
): PlannedStep | undefined {
  // A VM that does not run (a Spot VM Azure evicted) serves nothing and is not what a rollout waits on.
  const running = new Set((snapshot.vms ?? []).filter(isRunningInstance).map((vm) => vm.instanceId));
  const behind = behindModel.filter((id) => running.has(id));
  if (behind.length === 0) return undefined;
  const { upgrade } = kindOf(snapshot.vmss);
  const rollout = snapshot.rollout;
  if (rollout && STOPPED_ROLLOUTS.has(rollout.code.toLowerCase())) {
    throw new RefusalError(
      "RolloutFailed",
      `Azure's rolling upgrade of ${name} ended ${rollout.code}${rollout.error ? ` (${rollout.error})` : ""}: instance(s) ${behind.join(", ")} do not run the new model (${what}). Fix the cause, then run the operation again, or start Azure's rolling upgrade again`,
    );
  }
  const progress = rollout?.progress
    ? `, Azure reports ${rollout.progress.successful} moved, ${rollout.progress.pending} to go`
    : "";
  return {
    kind: "wait",
    summary: `waiting for Azure to roll ${what} out (upgrade policy ${upgrade}): instance(s) ${behind.join(", ")} not on the new model yet${progress}`,
  };
}

/** Operations that take instances out of traffic or replace them: automatic repairs are suspended while they run. */
export const SUSPENDS_REPAIRS: ReadonlySet<string> = new Set<KindOperation>(["disableServerGroup", "rollingUpgrade"]);

/** Throws when any of `vms` is protected: nothing of the batch is deleted. */
export function refuseProtected(vms: VirtualMachineScaleSetVM[], name: string): void {
  const named = vms
    .map((vm) => ({ id: vm.instanceId, protection: protectionOf(vm) }))
    .filter((v) => v.protection !== undefined);
  if (named.length === 0) return;
  throw new RefusalError(
    "InstanceProtected",
    `instance(s) ${named.map((v) => `${v.id} (${v.protection})`).join(", ")} of ${name} are protected: Azure does not remove a protected instance by a scale-set action; nothing was deleted. Remove the protection (protectionPolicy on the instance) first, or leave them out`,
  );
}

/**
 * Throws when a management lock holds any of a Flexible set's `vms` (on the VM, or on its resource group): Azure
 * would refuse its delete (409 ScopeLocked) as it refuses a protected Uniform instance's, so the batch is refused
 * before anything is deleted, under the same code, naming the lock.
 */
export function refuseLocked(vms: VirtualMachineScaleSetVM[], locks: ManagementLock[] | undefined, name: string): void {
  const held = vms.flatMap((vm) => {
    const holding = vm.id ? locksHolding(vm.id, locks ?? []) : [];
    return holding.length > 0 ? [`${vm.instanceId} (lock ${holding.map(describeLock).join(", ")})`] : [];
  });
  if (held.length === 0) return;
  throw new RefusalError(
    "InstanceProtected",
    `instance(s) ${held.join(", ")} of ${name} are locked: Azure refuses to delete a VM under a management lock (ScopeLocked); nothing was deleted. Remove the lock (az lock delete) first, or leave them out`,
  );
}

export { kindOf, protectionOf, type ScaleSetKind };
