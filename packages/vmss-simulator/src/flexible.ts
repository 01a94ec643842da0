// Flexible orchestration, as Azure has it: the scale set's VMs are standalone Microsoft.Compute/virtualMachines in its
// resource group, each with its own Microsoft.Network/networkInterfaces NIC, named `{scale set}_{8 hex}`; their
// instance id is that name. What this module decides: the create defaults and rules of a Flexible model, the NICs a new
// VM gets from the model's network profile, the wire bodies of a Flexible VM and of a NIC, and what Azure answers to
// the Uniform-only APIs on a Flexible set. The state (state.ts) keeps the VMs and NICs; vm-routes.ts and
// network/network-interfaces.ts serve them. docs/simulator.md ("Flexible orchestration") gives the evidence.
import { ArmError, invalidParameter, missingParameter } from "./arm-errors.ts";
import { clone, getPath, isObject, type JsonObject } from "./json.ts";
import { capacityOf, scaleSetId, type ScaleSet, type Vm } from "./vmss-model.ts";

export const VM_TYPE = "Microsoft.Compute/virtualMachines";
export const NIC_TYPE = "Microsoft.Network/networkInterfaces";

/** A NIC of a Flexible VM, made from the model's NIC configuration when the VM was created. */
export interface Nic {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  /** The ETag counter: the ETag is `W/"<version>"`, as Microsoft.Network writes them. */
  version: number;
  /** `primary`, `ipConfigurations` (with their pools), `enableAcceleratedNetworking`, … as last written. */
  properties: JsonObject;
  tags?: Record<string, string>;
  /** The VM it belongs to; null once that VM was deleted with deleteOption Detach. */
  vm: { scaleSetKey: string; name: string } | null;
  /** What happens to it when its VM is deleted (the NIC configuration's deleteOption). */
  deleteOption: "Delete" | "Detach";
}

export function nicKey(resourceGroup: string, name: string): string {
  return `${resourceGroup.toLowerCase()}/${name.toLowerCase()}`;
}

export function nicId(nic: Pick<Nic, "subscriptionId" | "resourceGroup" | "name">): string {
  return `/subscriptions/${nic.subscriptionId}/resourceGroups/${nic.resourceGroup}/providers/${NIC_TYPE}/${nic.name}`;
}

export function flexibleVmId(ss: ScaleSet, name: string): string {
  return `/subscriptions/${ss.subscriptionId}/resourceGroups/${ss.resourceGroup}/providers/${VM_TYPE}/${name}`;
}

// ---- the model: create defaults and rules ----

/**
 * What a Flexible create that omits them comes back with. Not Uniform's: Flexible has no overprovisioning and no
 * single placement group ("Unsupported parameters" of Microsoft Learn's orchestration-modes page), and its fault
 * domain count is required, not defaulted.
 */
export const FLEXIBLE_CREATE_DEFAULTS: Readonly<JsonObject> = {
  singlePlacementGroup: false,
  upgradePolicy: { mode: "Manual" },
};

const MAX_FLEXIBLE_FAULT_DOMAINS = 3;

/**
 * The rules of a Flexible model (Microsoft Learn, orchestration modes; azure-rest-api-specs issue 27029: a Flexible
 * set needs `platformFaultDomainCount`, and `networkProfile.networkApiVersion` when it has a VM profile):
 * - platformFaultDomainCount 1 (max spreading) to 3 (regional fixed spreading);
 * - no single placement group, no overprovisioning;
 * - VMs from the model need a VM profile with networkApiVersion (Azure makes the NICs through Microsoft.Network).
 */
export function checkFlexibleRules(model: JsonObject): void {
  const fd = getPath(model, "properties", "platformFaultDomainCount");
  if (fd === undefined || fd === null) throw missingParameter("platformFaultDomainCount");
  if (typeof fd !== "number" || !Number.isInteger(fd) || fd < 1 || fd > MAX_FLEXIBLE_FAULT_DOMAINS) {
    throw invalidParameter(
      `The specified fault domain count ${JSON.stringify(fd)} must fall in the range 1 to ${MAX_FLEXIBLE_FAULT_DOMAINS}.`,
      "platformFaultDomainCount",
    );
  }
  if (getPath(model, "properties", "singlePlacementGroup") === true) {
    throw invalidParameter(
      "Virtual Machine Scale Sets with Flexible orchestration mode do not support singlePlacementGroup true: leave it unset or false.",
      "singlePlacementGroup",
    );
  }
  if (getPath(model, "properties", "overprovision") === true) {
    throw invalidParameter(
      "Virtual Machine Scale Sets with Flexible orchestration mode do not support overprovisioning: leave overprovision unset or false.",
      "overprovision",
    );
  }
  const profile = getPath(model, "properties", "virtualMachineProfile");
  if (!isObject(profile)) {
    if (capacityOf(model) > 0) throw missingParameter("virtualMachineProfile");
    return;
  }
  const apiVersion = getPath(profile, "networkProfile", "networkApiVersion");
  if (typeof apiVersion !== "string" || apiVersion === "")
    throw missingParameter("virtualMachineProfile.networkProfile.networkApiVersion");
}

// ---- NICs of a new VM ----

function nicConfigurations(vm: Vm): JsonObject[] {
  const nics = getPath(vm.applied.profile, "networkProfile", "networkInterfaceConfigurations");
  return Array.isArray(nics) ? nics.filter(isObject) : [];
}

/**
 * The NICs Azure makes for a new Flexible VM: one per NIC configuration of the model, named `{vm}-{configuration}`,
 * with the configuration's IP configurations (subnet, load-balancer and application-gateway pools) as they are now.
 */
export function nicsForNewVm(ss: ScaleSet, vm: Vm): Nic[] {
  return nicConfigurations(vm).map((config, n) => {
    const { deleteOption, ...properties } = isObject(config.properties) ? clone(config.properties) : ({} as JsonObject);
    if (Array.isArray(properties.ipConfigurations)) {
      properties.ipConfigurations = properties.ipConfigurations.filter(isObject).map((ipc, i) => ({
        ...ipc,
        properties: {
          ...(isObject(ipc.properties) ? ipc.properties : {}),
          privateIPAllocationMethod: "Dynamic",
          privateIPAddress: privateAddressOf(vm, n + i),
        },
      }));
    }
    return {
      subscriptionId: ss.subscriptionId,
      resourceGroup: ss.resourceGroup,
      name: `${vm.instanceId}-${typeof config.name === "string" ? config.name : "nic"}`,
      location: ss.location,
      version: 1,
      properties,
      ...(isObject(config.tags) ? { tags: clone(config.tags) as Record<string, string> } : {}),
      vm: { scaleSetKey: `${ss.resourceGroup.toLowerCase()}/${ss.name.toLowerCase()}`, name: vm.instanceId },
      deleteOption: typeof deleteOption === "string" && deleteOption.toLowerCase() === "detach" ? "Detach" : "Delete",
    };
  });
}

/** A dynamic private address, as the subnet would hand one out: one per VM (and IP configuration), from 10.0.0.4 on. */
function privateAddressOf(vm: Vm, index: number): string {
  const n = 4 + vm.ordinal * 4 + index;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/** The NIC's IP configurations with their ARM ids: what a backend pool lists as its members. */
export function nicIpConfigurations(nic: Nic): { id: string; ipConfiguration: JsonObject }[] {
  const ipcs = nic.properties.ipConfigurations;
  return (Array.isArray(ipcs) ? ipcs.filter(isObject) : []).map((ipc) => ({
    id: `${nicId(nic)}/ipConfigurations/${String(ipc.name)}`,
    ipConfiguration: ipc,
  }));
}

export function nicEtag(nic: Nic): string {
  return `W/"${nic.version}"`;
}

/** The NIC as `GET …/networkInterfaces/{name}` returns it. */
export function renderNic(nic: Nic, vmId: string | undefined): JsonObject {
  const id = nicId(nic);
  const ipcs = nicIpConfigurations(nic).map(({ id: ipcId, ipConfiguration }) => ({
    ...ipConfiguration,
    id: ipcId,
    etag: nicEtag(nic),
    type: `${NIC_TYPE}/ipConfigurations`,
    properties: {
      ...(isObject(ipConfiguration.properties) ? ipConfiguration.properties : {}),
      provisioningState: "Succeeded",
    },
  }));
  return {
    name: nic.name,
    id,
    etag: nicEtag(nic),
    type: NIC_TYPE,
    location: nic.location,
    ...(nic.tags ? { tags: { ...nic.tags } } : {}),
    properties: {
      ...clone(nic.properties),
      ipConfigurations: ipcs,
      ...(vmId ? { virtualMachine: { id: vmId } } : {}),
      provisioningState: "Succeeded",
    },
  };
}

// ---- the VM ----

/** Azure names a VM's computer `<computerNamePrefix><6 base-36 characters>` for a scale set's VMs. */
function computerName(ss: ScaleSet, vm: Vm): string {
  const prefix = getPath(vm.applied.profile, "osProfile", "computerNamePrefix");
  return `${typeof prefix === "string" ? prefix : ss.name.slice(0, 9)}${vm.ordinal.toString(36).padStart(6, "0")}`;
}

/** The fault domain Azure spreads a VM to: round robin over the set's count (1 = max spreading: always 0). */
export function faultDomainOf(ss: ScaleSet, vm: Vm): number {
  const count = getPath(ss.model, "properties", "platformFaultDomainCount");
  return typeof count === "number" && count > 1 ? vm.ordinal % count : 0;
}

/**
 * A Flexible VM as `GET …/providers/Microsoft.Compute/virtualMachines/{name}` returns it (shape of the REST spec's
 * VirtualMachine_Create_InAVmssWithCustomerAssignedPlatformFaultDomain example): `properties.virtualMachineScaleSet.id`,
 * the VM profile as applied to it, its NICs by id, `platformFaultDomain`, Spot's `priority`/`evictionPolicy`/
 * `billingProfile`, and `instanceView` when asked for.
 */
export function renderFlexibleVm(ss: ScaleSet, vm: Vm, nics: Nic[], instanceView?: JsonObject): JsonObject {
  const profile = vm.applied.profile;
  const osProfile = isObject(profile.osProfile) ? profile.osProfile : {};
  const { computerNamePrefix: _prefix, adminPassword: _password, ...osRest } = osProfile;
  const storage = isObject(profile.storageProfile) ? clone(profile.storageProfile) : {};
  if (isObject(storage.osDisk)) {
    storage.osDisk.name = `${vm.instanceId}_OsDisk_1_${vm.vmId.replace(/-/g, "")}`;
    delete storage.osDisk.image;
  }
  const spot: JsonObject = {};
  for (const key of ["priority", "evictionPolicy", "billingProfile"])
    if (profile[key] !== undefined) spot[key] = clone(profile[key]);
  const zones = ss.model.zones;
  return {
    name: vm.instanceId,
    id: flexibleVmId(ss, vm.instanceId),
    type: VM_TYPE,
    location: ss.location,
    ...(Array.isArray(zones) && zones.length > 0 ? { zones: [zones[vm.ordinal % zones.length]] } : {}),
    properties: {
      vmId: vm.vmId,
      hardwareProfile: { vmSize: vm.applied.skuName },
      storageProfile: storage,
      osProfile: { computerName: computerName(ss, vm), ...osRest },
      networkProfile: {
        networkInterfaces: nics.map((nic) => ({
          id: nicId(nic),
          properties: { primary: nic.properties.primary === true, deleteOption: nic.deleteOption },
        })),
      },
      virtualMachineScaleSet: { id: scaleSetId(ss) },
      platformFaultDomain: faultDomainOf(ss, vm),
      ...spot,
      provisioningState: vm.provisioningState,
      timeCreated: vm.timeCreated,
      ...(instanceView ? { instanceView } : {}),
    },
  };
}

// ---- the VM list's filter ----

/**
 * `$filter` as the REST spec allows it on the VM list: `'virtualMachineScaleSet/id' eq '/subscriptions/…/{name}'` (the
 * property name quoted or not). The scale set id in lower case (ARM ids compare case-insensitively), or undefined
 * when the filter is something else.
 */
const SCALE_SET_FILTER = /^\s*'?virtualMachineScaleSet\/id'?\s+eq\s+'([^']+)'\s*$/i;

export function scaleSetIdOfFilter(filter: string): string | undefined {
  return SCALE_SET_FILTER.exec(filter)?.[1].toLowerCase();
}

// ---- Uniform-only APIs on a Flexible set ----

/**
 * What Azure answers a Uniform-only API on a Flexible scale set: 400 BadRequest, "Operation
 * 'VirtualMachineScaleSets.virtualMachines.GET' is not allowed on Virtual Machine Scale Set 'testvmss'." (as reported
 * from Azure, microsoft/OMS-Agent-for-Linux PR 1475; the instanceView GET in hashicorp/nomad-autoscaler issue 1096).
 */
export function notAllowedOnFlexible(ss: ScaleSet, operation: string): ArmError {
  return new ArmError(
    400,
    "BadRequest",
    `Operation 'VirtualMachineScaleSets.${operation}' is not allowed on Virtual Machine Scale Set '${ss.name}'.`,
  );
}

/** A Uniform VM API addressed with a Flexible VM's name (Azure/azure-sdk-for-go issue 19707). */
export function instanceIdMustBeNumber(): ArmError {
  return invalidParameter("Virtual Machine Scale Set VM instanceId must be a number.", "instanceId");
}
