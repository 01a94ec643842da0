// disableServerGroup with desiredPercentage below 100 (Orca's RollingRedBlackStrategy.groovy l.207-222, "Disable p%
// of Traffic on <source>"): a share of the instances leaves the backend pools, the rest keep serving, the scale set
// is not marked disabled (as on AWS, AbstractEnableDisableAtomicOperation.groovy l.105-108, where only a whole disable
// suspends the group's processes; an autoscale setting is suspended here all the same, as every disable does, so
// that Azure does not scale the source while its traffic moves). Orca's WaitForDisabledServerGroupTask skips a partial disable (WaitForDisabledServerGroupTask.java
// l.47-49, l.75-80); WaitForRequiredInstancesDownTask waits for the instances the result names in
// `instanceIdsToDisable` to be down (WaitForRequiredInstancesDownTask.groovy l.79-100).
//
// A Flexible VM's NIC is a resource of its own: taking one VM out of a pool is a NIC PUT with If-Match, and neither the
// scale set's model nor another VM changes. A Uniform instance has its own network configuration too: the scale-set
// VM's PUT (VirtualMachineScaleSetVMs_Update) takes `properties.networkProfileConfiguration` (writable in Compute's
// REST specification; `az vmss update --instance-id N --remove
// networkProfileConfiguration.networkInterfaceConfigurations[0].ipConfigurations[0].loadBalancerBackendAddressPools 0`),
// with If-Match on the instance's ETag. The instance is then off the model (`latestModelApplied: false`) until it is
// upgraded to it: a manualUpgrade, or a rolling or automatic upgrade of a changed model, puts it back in the model's
// pools. Enable relies on that (a manualUpgrade of the instances behind the model), so a Uniform partial disable is
// taken only under the Manual upgrade policy, where nothing but this service upgrades an instance; under Automatic or
// Rolling, Azure would put an instance back in traffic at the next model change, so it is refused.
import type { VirtualMachineScaleSetNetworkConfiguration, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import type { PlannedStep } from "../azure/planner.ts";
import { isActionableInstance, isRunningInstance, kindOf } from "../azure/scale-set-state.ts";
import type { InstanceNetworkWrite, ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { nicWithPools, vmsOf } from "./flexible-nics.ts";
import { disabledMode, isManualUpgrade, servesTraffic, trafficPools, vmTrafficPools } from "./server-group-state.ts";
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

function refuseUniformAutomatic(ref: ScaleSetRef, desiredPercentage: number, upgrade: string): never {
  throw new RefusalError(
    "PartialDisableUniform",
    `${desiredPercentage} % of ${ref.name} cannot be taken out of traffic: it uses Uniform orchestration with upgrade policy ${upgrade}, under which Azure upgrades every instance to the model at its next change, putting the instances taken out back in the model's backend pools; nothing was written. Use upgrade policy Manual or Flexible orchestration for rolling red/black, or the red/black strategy`,
  );
}

/** The instance's NIC configurations without backend pools (load balancer and application gateway; NAT pools kept). */
function nicsWithoutPools(vm: VirtualMachineScaleSetVM): VirtualMachineScaleSetNetworkConfiguration[] | undefined {
  const nics = vm.networkProfileConfiguration?.networkInterfaceConfigurations;
  if (!nics) return undefined;
  return nics.map((nic) => ({
    ...nic,
    ipConfigurations: (nic.ipConfigurations ?? []).map((ipc) => ({
      ...ipc,
      loadBalancerBackendAddressPools: [],
      applicationGatewayBackendAddressPools: [],
    })),
  }));
}

/** Uniform: each chosen instance's own network configuration, without its pools, If-Match its ETag as read. */
function uniformWrites(snapshot: ScaleSetSnapshot, leaving: Set<string>): InstanceNetworkWrite[] {
  return (snapshot.vms ?? [])
    .filter((vm) => leaving.has(vm.name ?? vm.instanceId!))
    .flatMap((vm) => {
      const nics = nicsWithoutPools(vm);
      if (!nics) return [];
      return [{ instanceId: vm.instanceId!, etag: vm.etag, location: vm.location ?? snapshot.vmss.location, nics }];
    });
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
  const kind = kindOf(vmss);
  if (kind.orchestration !== "Flexible" && !isManualUpgrade(vmss))
    refuseUniformAutomatic(ref, desiredPercentage, kind.upgrade);
  if (trafficPools(vmss).length === 0)
    throw new RefusalError(
      "PartialDisableNoPools",
      `${ref.name} names no backend pool: there is no traffic to take a share of, and a share of its capacity is not what ${desiredPercentage} % asks; nothing was written`,
    );
  const plan = planShare(shareInstances(snapshot), desiredPercentage);
  if (plan.takeOut.length === 0) return { kind: "done", summary: describeShare(plan, desiredPercentage) };
  const leaving = new Set(plan.takeOut);
  if (kind.orchestration !== "Flexible") {
    const instances = uniformWrites(snapshot, leaving);
    if (instances.length === 0)
      return { kind: "wait", summary: `instance(s) ${plan.takeOut.join(", ")} not read yet: reading again` };
    return {
      kind: "instancePools",
      summary: `take instance(s) ${instances.map((i) => i.instanceId).join(", ")} out of the backend pools for ${desiredPercentage} % (${plan.out.length} of ${plan.total} out already, ${plan.wanted} wanted; each instance's own network configuration, If-Match)`,
      instances,
    };
  }
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
