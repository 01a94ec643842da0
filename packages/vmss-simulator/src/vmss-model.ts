// The scale-set and VM records and their ARM wire bodies.
import { randomUUID } from "node:crypto";
import { VMSS_TYPE } from "./arm-errors.ts";
import { canonicalJson, clone, getPath, isObject, type JsonObject } from "./json.ts";
import { normalizeUpgradeMode, type UpgradeMode } from "./limits.ts";
import type { Operation } from "./lro.ts";
import type { PowerState } from "./power-state.ts";

/** As Azure lists VMs: `Creating` until a scale-out completes, `Deleting` until a removal completes, `Failed` when it could not be allocated. */
export type VmProvisioningState = "Succeeded" | "Creating" | "Deleting" | "Failed";
/** The scale set's own state: set at acceptance (Creating/Updating/Deleting), at completion (Succeeded/Failed). */
export type ScaleSetProvisioningState = "Creating" | "Updating" | "Deleting" | "Succeeded" | "Failed";

export interface Vm {
  /** Uniform: the decimal instance id. Flexible: the VM's name (`{scale set}_{8 hex}`), which Azure uses as its instance id. */
  instanceId: string;
  /** Creation order within the scale set (Uniform: the instance id as a number): lists and scale-in go by it. */
  ordinal: number;
  vmId: string;
  timeCreated: string;
  provisioningState: VmProvisioningState;
  latestModelApplied: boolean;
  /** Changed by the power actions; a VM runs once created. */
  powerState: PowerState;
  /** Simulator clock (ms) at which it last became Succeeded, i.e. running: the health probe counts from here. */
  runningSince?: number;
  /** The scale-set model as it was applied to this VM: what its NICs, disks and size really are. */
  applied: { skuName: string; profile: JsonObject };
  /**
   * Its own network configuration, set by the VM's PUT (vm-update.ts): `applied.profile`'s NICs differ from the
   * model's until the instance is upgraded to the model (manualUpgrade, a rolling or automatic upgrade of a new model).
   */
  ownNetwork?: boolean;
  /** The VM's ETag counter (`"<n>"`): every write of the VM itself bumps it. */
  version?: number;
  /** Instance protection, as set on the VM (kinds.ts): rendered as the VM's protectionPolicy. */
  protectionPolicy?: { protectFromScaleIn?: boolean; protectFromScaleSetActions?: boolean };
}

export interface ScaleSet {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  location: string;
  uniqueId: string;
  timeCreated: string;
  /**
   * The writable part of the wire body: `sku`, `tags`, `properties` (without provisioningState, uniqueId, timeCreated),
   * and `plan`, `identity`, `zones` when given. Never holds id/name/type/etag/location.
   */
  model: JsonObject;
  /** The ETag counter: the ETag is `"<version>"`. */
  version: number;
  vms: Map<string, Vm>;
  /** Instance ids are never reused: new VMs get this and it only grows. */
  nextInstanceId: number;
  inFlight: Operation | null;
  /** `Failed` stays until a later write succeeds (Azure does not roll a failed write back). */
  provisioningState: ScaleSetProvisioningState;
  /** Every version the scale set had, oldest first (bounded): who made it, from which ETag, with which If-Match. */
  versions: VersionRecord[];
}

export interface VersionRecord {
  etag: string;
  capacity: number;
  tags: Record<string, string>;
  /** arm: a write through the ARM API; control: the control API; outOfBandChange: that fault; autoscale: Azure's. */
  source: "arm" | "control" | "outOfBandChange" | "autoscale";
  /** For ARM writes: the SDK method. */
  kind?: string;
  /** For ARM writes: the If-Match the write carried (null: unconditional). */
  ifMatch?: string | null;
  /** The ETag the scale set had just before this version. */
  previousEtag: string | null;
  time: number;
}

/** Fields of the body ARM computes; dropped from PUT/PATCH bodies. */
const READ_ONLY_TOP = ["id", "name", "type", "etag", "location", "managedBy", "systemData", "resources"];
const READ_ONLY_PROPERTIES = ["provisioningState", "uniqueId", "timeCreated"];

export function scaleSetKey(resourceGroup: string, name: string): string {
  return `${resourceGroup.toLowerCase()}/${name.toLowerCase()}`;
}

export function etagOf(ss: ScaleSet): string {
  return `"${ss.version}"`;
}

/** A Uniform VM's ETag (the REST spec's readOnly `etag` of VirtualMachineScaleSetVM). */
export function vmEtagOf(vm: Vm): string {
  return `"${vm.version ?? 1}"`;
}

/** The VM takes the scale set's model (an upgrade): its own network configuration, if any, is gone. */
export function applyModelTo(vm: Vm, applied: Vm["applied"]): void {
  vm.applied = clone(applied);
  vm.latestModelApplied = true;
  delete vm.ownNetwork;
}

export function scaleSetId(ss: Pick<ScaleSet, "subscriptionId" | "resourceGroup" | "name">): string {
  return `/subscriptions/${ss.subscriptionId}/resourceGroups/${ss.resourceGroup}/providers/${VMSS_TYPE}/${ss.name}`;
}

/** ARM normalizes locations: "East US" → "eastus". */
export function normalizeLocation(location: string): string {
  return location.replace(/\s+/g, "").toLowerCase();
}

/** Strips what ARM computes, keeping only what a writer may set. */
export function writableModel(body: JsonObject): JsonObject {
  const model: JsonObject = {};
  for (const [key, value] of Object.entries(body)) {
    if (READ_ONLY_TOP.includes(key) || value === undefined) continue;
    model[key] = clone(value);
  }
  if (isObject(model.properties)) {
    for (const key of READ_ONLY_PROPERTIES) delete model.properties[key];
  }
  return model;
}

export function capacityOf(model: JsonObject): number {
  const capacity = getPath(model, "sku", "capacity");
  return typeof capacity === "number" ? capacity : 0;
}

export function upgradeModeOf(model: JsonObject): UpgradeMode {
  const mode = getPath(model, "properties", "upgradePolicy", "mode");
  return (typeof mode === "string" ? normalizeUpgradeMode(mode) : undefined) ?? "Manual";
}

function skuNameOf(model: JsonObject): string {
  const name = getPath(model, "sku", "name");
  return typeof name === "string" ? name : "";
}

function profileOf(model: JsonObject): JsonObject {
  const profile = getPath(model, "properties", "virtualMachineProfile");
  return isObject(profile) ? clone(profile) : {};
}

/** What a VM gets when the current model is applied to it. */
export function currentApplied(ss: ScaleSet): Vm["applied"] {
  return { skuName: skuNameOf(ss.model), profile: profileOf(ss.model) };
}

/** Two models give the same VMs when their VM profile and size are equal. */
export function appliedSignature(applied: Vm["applied"]): string {
  return canonicalJson(applied);
}

export function provisioningStateOf(ss: ScaleSet): ScaleSetProvisioningState {
  return ss.provisioningState;
}

/** `properties.upgradePolicy.rollingUpgradePolicy.maxBatchInstancePercent`, default 20 (the REST spec's default). */
export function rollingBatchPercentOf(model: JsonObject): number {
  const pct = getPath(model, "properties", "upgradePolicy", "rollingUpgradePolicy", "maxBatchInstancePercent");
  return typeof pct === "number" && Number.isInteger(pct) && pct >= 5 && pct <= 100 ? pct : 20;
}

/** The VMSS as GET returns it. `model` and `provisioningState` may be overridden for a write's first response. */
export function renderScaleSet(
  ss: ScaleSet,
  override: { model?: JsonObject; provisioningState?: string } = {},
): JsonObject {
  const model = clone(override.model ?? ss.model);
  const { properties, sku, tags, ...rest } = model;
  const props = isObject(properties) ? properties : {};
  // Azure never returns secrets.
  const osProfile = getPath(props, "virtualMachineProfile", "osProfile");
  if (isObject(osProfile)) delete osProfile.adminPassword;
  return {
    name: ss.name,
    id: scaleSetId(ss),
    type: VMSS_TYPE,
    location: ss.location,
    ...(tags !== undefined ? { tags } : {}),
    ...(sku !== undefined ? { sku } : {}),
    ...rest,
    etag: etagOf(ss),
    properties: {
      ...props,
      provisioningState: override.provisioningState ?? provisioningStateOf(ss),
      uniqueId: ss.uniqueId,
      timeCreated: ss.timeCreated,
    },
  };
}

/**
 * The scale set as ARM answers a read or a write: without what Azure keeps and never returns. `osProfile.customData`
 * and each extension's `protectedSettings` are never returned; `userData` only to a GET with `$expand=userData`
 * (Microsoft Learn, "Custom data and cloud-init on Azure Virtual Machines": custom data "is not available to be
 * retrieved"; Azure/azure-cli#5866 and #20870, Azure/azure-sdk-for-java#21779). The control API's view keeps them:
 * it says what Azure holds.
 */
export function asArmReturnsIt(body: JsonObject, options: { userData: boolean }): JsonObject {
  const out = clone(body);
  const profile = getPath(out, "properties", "virtualMachineProfile");
  if (!isObject(profile)) return out;
  const osProfile = profile.osProfile;
  if (isObject(osProfile)) delete osProfile.customData;
  if (!options.userData) delete profile.userData;
  const extensions = getPath(profile, "extensionProfile", "extensions");
  if (Array.isArray(extensions))
    for (const e of extensions) if (isObject(e) && isObject(e.properties)) delete e.properties.protectedSettings;
  return out;
}

/** Whether the model is a Flexible scale set's: its VMs are standalone Microsoft.Compute/virtualMachines (flexible.ts). */
export function isFlexibleModel(model: JsonObject): boolean {
  const mode = getPath(model, "properties", "orchestrationMode");
  return typeof mode === "string" && mode.toLowerCase() === "flexible";
}

export function isFlexible(ss: ScaleSet): boolean {
  return isFlexibleModel(ss.model);
}

/**
 * A Flexible VM's name, as Azure names the VMs a scale set creates: `{scale-set-name}_{8-char-guid}` (Microsoft Learn,
 * "Understand names and instance IDs for Azure Virtual Machine Scale Set VMs"); its instance id is that name.
 */
function flexibleVmName(ss: ScaleSet): string {
  for (;;) {
    const name = `${ss.name}_${randomUUID().replace(/-/g, "").slice(0, 8)}`;
    if (!ss.vms.has(name)) return name;
  }
}

export function newVm(ss: ScaleSet, now: number, provisioningState: VmProvisioningState = "Succeeded"): Vm {
  const ordinal = ss.nextInstanceId++;
  const instanceId = isFlexible(ss) ? flexibleVmName(ss) : String(ordinal);
  return {
    instanceId,
    ordinal,
    vmId: randomUUID(),
    timeCreated: new Date(now).toISOString(),
    provisioningState,
    powerState: "running",
    ...(provisioningState === "Succeeded" ? { runningSince: now } : {}),
    latestModelApplied: true,
    applied: currentApplied(ss),
  };
}

/** VMs in creation order (Uniform: numeric instance-id order). */
export function sortedVms(ss: ScaleSet): Vm[] {
  return [...ss.vms.values()].sort((a, b) => a.ordinal - b.ordinal);
}

/** Azure names a VMSS VM's computer `<computerNamePrefix><instance id in base 36, 6 digits>`. */
function computerName(prefix: string, instanceId: string): string {
  return `${prefix}${Number(instanceId).toString(36).padStart(6, "0")}`;
}

function nicConfigurations(profile: JsonObject): unknown[] {
  const nics = getPath(profile, "networkProfile", "networkInterfaceConfigurations");
  return Array.isArray(nics) ? clone(nics) : [];
}

/** The VM as `GET …/virtualMachines` returns it (shape of VirtualMachineScaleSetVM_List_* examples). */
export function renderVm(ss: ScaleSet, vm: Vm, instanceView?: JsonObject): JsonObject {
  const vmId = `${scaleSetId(ss)}/virtualMachines/${vm.instanceId}`;
  const profile = vm.applied.profile;
  const nics = nicConfigurations(profile);
  const osProfile = isObject(profile.osProfile) ? profile.osProfile : {};
  const prefix = typeof osProfile.computerNamePrefix === "string" ? osProfile.computerNamePrefix : ss.name;
  const { computerNamePrefix: _prefix, adminPassword: _password, ...osRest } = osProfile;
  const storage = isObject(profile.storageProfile) ? clone(profile.storageProfile) : {};
  const osDisk = isObject(storage.osDisk) ? storage.osDisk : undefined;
  if (osDisk) {
    osDisk.name = `${ss.name}_${ss.name}_${vm.instanceId}_OsDisk_1_${vm.vmId.replace(/-/g, "").slice(0, 32)}`;
    delete osDisk.image;
  }
  const tier = getPath(ss.model, "sku", "tier");
  const zones = ss.model.zones;
  return {
    name: `${ss.name}_${vm.instanceId}`,
    id: vmId,
    type: `${VMSS_TYPE}/virtualMachines`,
    location: ss.location,
    etag: vmEtagOf(vm),
    instanceId: vm.instanceId,
    sku: { name: vm.applied.skuName, ...(typeof tier === "string" ? { tier } : {}) },
    ...(Array.isArray(zones) && zones.length > 0 ? { zones: [zones[Number(vm.instanceId) % zones.length]] } : {}),
    properties: {
      latestModelApplied: vm.latestModelApplied,
      vmId: vm.vmId,
      hardwareProfile: { vmSize: vm.applied.skuName },
      storageProfile: storage,
      osProfile: { computerName: computerName(prefix, vm.instanceId), ...osRest },
      networkProfile: {
        networkInterfaces: nics.filter(isObject).map((nic) => ({
          id: `${vmId}/networkInterfaces/${String(nic.name)}`,
          properties: { primary: getPath(nic, "properties", "primary") === true },
        })),
      },
      networkProfileConfiguration: { networkInterfaceConfigurations: nics },
      provisioningState: vm.provisioningState,
      timeCreated: vm.timeCreated,
      ...(vm.protectionPolicy ? { protectionPolicy: { ...vm.protectionPolicy } } : {}),
      ...(instanceView ? { instanceView } : {}),
    },
  };
}
