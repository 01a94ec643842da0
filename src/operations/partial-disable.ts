// disableServerGroup with desiredPercentage below 100 (Orca's RollingRedBlackStrategy.groovy l.207-222, "Disable p%
// of Traffic on <source>"): a share of the instances leaves the backend pools, the rest keep serving, the scale set
// is not marked disabled (as on AWS, AbstractEnableDisableAtomicOperation.groovy l.105-108, where only a whole disable
// suspends the group's processes; an autoscale setting is suspended here all the same, as every disable does, so
// that Azure does not scale the source while its traffic moves). Orca's WaitForDisabledServerGroupTask skips a partial disable (WaitForDisabledServerGroupTask.java
// l.47-49, l.75-80); WaitForRequiredInstancesDownTask waits for the instances the result names in
// `instanceIdsToDisable` to be down (WaitForRequiredInstancesDownTask.groovy l.79-100).
//
// Flexible only. A Flexible VM's NIC is a resource of its own: taking one VM out of a pool is a NIC PUT with If-Match,
// and neither the scale set's model nor another VM changes. A Uniform instance's network configuration cannot be set
// on its own: the scale-set VM update (PUT …/virtualMachines/{instanceId}) takes data disks, protection and userData
// only (Update-AzVmssVM: "For now, the only allowed update is adding a managed data disk"; the SDKs'
// VirtualMachineScaleSetVM.Update offers data disks only); an instance's network differs from the model only until
// the model is rolled out to it (docs/api.md, "Partial disable"). So a Uniform partial disable is refused.
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import type { PlannedStep } from "../azure/planner.ts";
import { isActionableInstance, isRunningInstance, kindOf } from "../azure/scale-set-state.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { nicWithPools, vmsOf } from "./flexible-nics.ts";
import { disabledMode, servesTraffic, trafficPools, vmTrafficPools } from "./server-group-state.ts";
import { describeShare, planShare, type ShareInstance } from "./traffic-share.ts";

/** True when the description asks for a share, not the whole group. */
export function isPartial(desiredPercentage: number | null | undefined): desiredPercentage is number {
  return typeof desiredPercentage === "number" && desiredPercentage < 100;
}

/** Healthy as far as Azure reports: a probe (or the Application Health extension) that says unhealthy or not yet. */
function probeHealthy(vm: VirtualMachineScaleSetVM): boolean {
  const code = (vm.instanceView?.vmHealth?.status?.code ?? "").toLowerCase();
  return code !== "healthstate/unhealthy" && code !== "healthstate/initializing" && code !== "healthstate/unknown";
}

/** Serving: running, healthy, and in a backend pool that is not a parking pool. */
export function isServing(vm: VirtualMachineScaleSetVM): boolean {
  const pools = vmTrafficPools(vm);
  return isRunningInstance(vm) && probeHealthy(vm) && pools !== undefined && servesTraffic(pools);
}

export function shareInstances(snapshot: ScaleSetSnapshot): ShareInstance[] {
  return (snapshot.vms ?? [])
    .filter(isActionableInstance)
    .map((vm) => ({ name: vm.name ?? vm.instanceId!, serving: isServing(vm) }));
}

/** The instances serving nothing, by the name Orca reads: what `instanceIdsToDisable` reports. */
export function instancesOutOfTraffic(snapshot: ScaleSetSnapshot): string[] {
  return planShare(shareInstances(snapshot), 0).out;
}

function refuseUniform(ref: ScaleSetRef, desiredPercentage: number): never {
  throw new RefusalError(
    "PartialDisableUniform",
    `${desiredPercentage} % of ${ref.name} cannot be taken out of traffic: it uses Uniform orchestration, whose instances take their network configuration only from the scale set's model (Azure's instance update sets data disks, protection and userData, not backend pools), so one instance cannot leave a pool while the others stay; nothing was written. Deploy the cluster Flexible (orchestrationMode Flexible) for rolling red/black, or use the red/black strategy`,
  );
}

/** The attempt's step for a partial disable: the NIC writes that take the share out, or done. */
export function planPartialDisable(
  snapshot: ScaleSetSnapshot,
  ref: ScaleSetRef,
  desiredPercentage: number,
): PlannedStep {
  const { vmss } = snapshot;
  if (disabledMode(vmss) !== undefined)
    return {
      kind: "done",
      summary: `out of traffic already, whole (disabled): nothing of ${desiredPercentage} % to take out`,
    };
  if (kindOf(vmss).orchestration !== "Flexible") refuseUniform(ref, desiredPercentage);
  if (trafficPools(vmss).length === 0)
    throw new RefusalError(
      "PartialDisableNoPools",
      `${ref.name} names no backend pool: there is no traffic to take a share of, and a share of its capacity is not what ${desiredPercentage} % asks; nothing was written`,
    );
  const plan = planShare(shareInstances(snapshot), desiredPercentage);
  if (plan.takeOut.length === 0) return { kind: "done", summary: describeShare(plan, desiredPercentage) };
  const leaving = new Set(plan.takeOut);
  const vmOf = new Map((snapshot.vms ?? []).map((vm) => [vm.instanceId, vm.name ?? vm.instanceId]));
  const nics = (snapshot.nics ?? [])
    .filter((nic) => leaving.has(vmOf.get(nic.vm) ?? nic.vm))
    .map((nic) => nicWithPools(nic, []))
    .filter((w) => w !== undefined);
  // A VM counted as serving has its NIC read (vmTrafficPools); a NIC gone between the VM list and its read is waited on.
  if (nics.length === 0)
    return { kind: "wait", summary: `the NIC(s) of VM(s) ${plan.takeOut.join(", ")} not read yet: reading again` };
  return {
    kind: "nicPools",
    summary: `take VM(s) ${vmsOf(nics)} out of the backend pools for ${desiredPercentage} % (${plan.out.length} of ${plan.total} out already, ${plan.wanted} wanted; each VM's NIC, If-Match)`,
    nics,
  };
}
