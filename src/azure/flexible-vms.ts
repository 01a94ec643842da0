// A Flexible scale set's VMs as Azure offers them: standalone virtual machines (Microsoft.Compute/virtualMachines)
// listed by the scale set's id, each with its own network interface (Microsoft.Network/networkInterfaces) whose IP
// configurations hold its backend pools. The scale set's own VM list, instance ids and network profile are Uniform's.
//
// Read here into the shape every rule of this service reads instances in (VirtualMachineScaleSetVM): the VM's name
// is its instance id (what Azure's batch delete of a Flexible set takes), its power state and health come from its
// instance view, and the pools its NICs are in, as Microsoft.Network reports them, are its network configuration. So
// running, stopped, in traffic or out are judged by the same rules for both kinds (scale-set-state.ts).
import type { VirtualMachine, VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import type { NetworkResource } from "./network-gateway.ts";

/** One VM's NIC as read: what a change of its pools is planned on, and sent with If-Match on. */
export interface FlexibleNic {
  /** The VM (its name) the NIC belongs to. */
  vm: string;
  id: string;
  etag?: string;
  /** The scale set model's NIC configuration this NIC was made from (its name), which names its pools' place. */
  configName: string;
  resource: NetworkResource;
}

/** The $filter that lists a scale set's VMs (VirtualMachines_List; cluster-autoscaler's vmssflex uses the same). */
export function flexibleVmFilter(scaleSetId: string): string {
  return `'virtualMachineScaleSet/id' eq '${scaleSetId}'`;
}

/** The ids of a VM's NICs, in the order Azure lists them (the primary first where it says so). */
export function nicIdsOf(vm: VirtualMachine): string[] {
  const nics = vm.networkProfile?.networkInterfaces ?? [];
  const ordered = [...nics].sort((a, b) => Number(b.primary === true) - Number(a.primary === true));
  return ordered.map((n) => n.id).filter((id): id is string => typeof id === "string" && id.length > 0);
}

/**
 * Which of the model's NIC configurations a VM's i-th NIC was made from: the VM names it where Azure lists the
 * configurations it was made with; otherwise the model's i-th; otherwise the NIC's own name.
 */
export function nicConfigName(
  vm: VirtualMachine,
  vmss: VirtualMachineScaleSet,
  index: number,
  nic: NetworkResource | undefined,
): string {
  const own = vm.networkProfile?.networkInterfaceConfigurations?.[index]?.name;
  const model = vmss.virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations?.[index]?.name;
  return own ?? model ?? nic?.name ?? `nic${index}`;
}

type PoolRef = { id: string };

function poolRefs(list: unknown): PoolRef[] {
  if (!Array.isArray(list)) return [];
  return (list as unknown[])
    .filter((p): p is PoolRef => typeof p === "object" && p !== null && "id" in p && typeof p.id === "string")
    .map((p) => ({ id: p.id }));
}

/** The NIC's IP configurations and their pools, as a scale-set VM's network configuration shows them. */
function nicAsConfiguration(nic: FlexibleNic) {
  const ipConfigurations = (nic.resource.properties?.ipConfigurations ?? []) as Array<{
    name?: string;
    properties?: Record<string, unknown>;
  }>;
  return {
    name: nic.configName,
    ipConfigurations: ipConfigurations.map((ipc) => ({
      name: ipc.name ?? "",
      loadBalancerBackendAddressPools: poolRefs(ipc.properties?.loadBalancerBackendAddressPools),
      applicationGatewayBackendAddressPools: poolRefs(ipc.properties?.applicationGatewayBackendAddressPools),
    })),
  };
}

/**
 * A Flexible VM as an instance: `nics` are its NICs as read (a NIC Azure no longer has is left out; a VM none of
 * whose NICs could be read reports no network configuration, and is judged without it).
 */
export function flexibleInstance(vm: VirtualMachine, nics: FlexibleNic[]): VirtualMachineScaleSetVM {
  const view = vm.instanceView;
  return {
    id: vm.id,
    name: vm.name,
    location: vm.location,
    instanceId: vm.name,
    ...(vm.zones ? { zones: vm.zones } : {}),
    ...(vm.tags ? { tags: vm.tags } : {}),
    provisioningState: vm.provisioningState,
    ...(vm.timeCreated ? { timeCreated: vm.timeCreated } : {}),
    ...(view
      ? { instanceView: { statuses: view.statuses, ...(view.vmHealth ? { vmHealth: view.vmHealth } : {}) } }
      : {}),
    ...(nics.length > 0
      ? { networkProfileConfiguration: { networkInterfaceConfigurations: nics.map(nicAsConfiguration) } }
      : {}),
  };
}
