// The model a new scale set is created with: built from a createServerGroup description, or copied from a source
// scale set (clone) with the description's overrides. Pure: no Azure call, no clock; the secret a reference names
// is passed in already resolved.
//
// Follows what clouddriver-azure's AzureServerGroupResourceTemplate.groovy puts into a scale set: zones and instance
// tags (l.353-403), upgradePolicy (l.406-412), sku name/tier/capacity (l.430-442), osProfile with the admin user
// and an SSH key or password (l.502-567; its password is a template parameter, here only a reference), one NIC with
// one IP configuration in the subnet, its security group and backend pools (l.578-680), a marketplace or custom
// image (l.779-808), the health and custom script extensions (l.842-947).
import type {
  VirtualMachineScaleSet,
  VirtualMachineScaleSetDataDisk,
  VirtualMachineScaleSetExtension,
  VirtualMachineScaleSetIPConfiguration,
  VirtualMachineScaleSetNetworkConfiguration,
  VirtualMachineScaleSetVMProfile,
} from "@azure/arm-compute";
import type { PoolBinding, Tags } from "../server-group-state.ts";

export interface ImageSpec {
  isCustom?: boolean;
  uri?: string;
  publisher?: string;
  offer?: string;
  sku?: string;
  version?: string;
  imageName?: string;
  ostype?: string;
}

export interface DataDiskSpec {
  lun: number;
  diskSizeGB: number;
  caching?: "None" | "ReadOnly" | "ReadWrite";
  storageAccountType?: string;
}

export interface OsConfigSpec {
  adminUserName?: string;
  adminPasswordEnv?: string;
  sshPublicKeys?: string[];
  computerNamePrefix?: string;
  customData?: string;
}

/** Azure's rolling upgrade settings (upgradePolicy.rollingUpgradePolicy), as the REST API names them. */
export interface RollingUpgradeSpec {
  maxBatchInstancePercent?: number;
  maxUnhealthyInstancePercent?: number;
  maxUnhealthyUpgradedInstancePercent?: number;
  /** ISO 8601 duration, e.g. PT0S (Azure's default) or PT30S. */
  pauseTimeBetweenBatches?: string;
  prioritizeUnhealthyInstances?: boolean;
  maxSurge?: boolean;
  rollbackFailedInstancesOnPolicyBreach?: boolean;
}

/** Azure's automaticRepairsPolicy. */
export interface RepairsSpec {
  enabled: boolean;
  /** ISO 8601 duration, PT10M to PT90M (Azure's bounds; its default PT30M). */
  gracePeriod?: string;
  repairAction?: "Replace" | "Restart" | "Reimage";
}

/** Azure's scaleInPolicy. */
export interface ScaleInSpec {
  rules?: ("Default" | "OldestVM" | "NewestVM")[];
  forceDeletion?: boolean;
}

/** Spot (or Low) priority VMs: the profile's priority, evictionPolicy and billingProfile.maxPrice (-1: on-demand price). */
export interface SpotSpec {
  priority: "Regular" | "Low" | "Spot";
  evictionPolicy?: "Deallocate" | "Delete";
  maxPrice?: number;
}

/** The parts of a description (create, or a clone's overrides) that shape the model. */
export interface ModelSpec {
  region: string;
  image?: ImageSpec;
  sku?: { name?: string; tier?: string; capacity?: number };
  capacity?: { desired: number; max?: number };
  upgradePolicy?: "Automatic" | "Manual" | "Rolling";
  rollingUpgradePolicy?: RollingUpgradeSpec;
  automaticRepairsPolicy?: RepairsSpec;
  scaleInPolicy?: ScaleInSpec;
  spot?: SpotSpec;
  /** Each part given replaces the source's on a clone: system (true/false), userAssigned (resource ids). */
  identity?: { system?: boolean; userAssigned?: string[] };
  /** Azure's orchestration mode; absent: Uniform (the REST API's default), or a clone's source's. */
  orchestrationMode?: "Uniform" | "Flexible";
  subnetId?: string;
  networkSecurityGroupId?: string;
  loadBalancerBackendPoolId?: string;
  /** The new group's inbound NAT pool (clouddriver-azure makes one in its load balancer): not traffic, always on. */
  loadBalancerInboundNatPoolId?: string;
  appGatewayBapId?: string;
  zones?: string[];
  instanceTags?: Record<string, string>;
  customScriptsSettings?: { fileUris?: string[]; commandToExecute: string };
  healthSettings?: { protocol: "http" | "https" | "tcp"; port: number; requestPath?: string };
  dataDisks?: DataDiskSpec[];
  osConfig?: OsConfigSpec;
  enableIpForwarding?: boolean;
}

/** What the model needs besides the description: the name chosen, the tags we record, the resolved password. */
export interface ModelContext {
  name: string;
  tags: Tags;
  adminPassword?: string;
  /** The pools the new group serves from once enabled; inTraffic puts them on the NIC, else they are only recorded. */
  inTraffic: boolean;
}

export const NIC_SUFFIX = "-nic";
export const IP_CONFIG_SUFFIX = "-ipconfig";

function isWindows(image: ImageSpec | undefined): boolean {
  return (image?.ostype ?? "").toLowerCase() === "windows";
}

function imageReference(image: ImageSpec) {
  if (image.isCustom || image.uri) return { id: image.uri };
  return { publisher: image.publisher, offer: image.offer, sku: image.sku, version: image.version ?? "latest" };
}

/**
 * The extensions a description asks for. The handler's type is `typePropertiesType` in the SDK's model (its `type`
 * is the read-only resource type, which the SDK does not send): it goes on the wire as `properties.type`.
 */
function extensions(spec: ModelSpec): VirtualMachineScaleSetExtension[] {
  const out: VirtualMachineScaleSetExtension[] = [];
  const windows = isWindows(spec.image);
  if (spec.customScriptsSettings) {
    out.push({
      name: "CustomScript",
      publisher: windows ? "Microsoft.Compute" : "Microsoft.Azure.Extensions",
      typePropertiesType: windows ? "CustomScriptExtension" : "CustomScript",
      typeHandlerVersion: windows ? "1.10" : "2.1",
      autoUpgradeMinorVersion: true,
      settings: {
        fileUris: spec.customScriptsSettings.fileUris ?? [],
        commandToExecute: spec.customScriptsSettings.commandToExecute,
      },
    });
  }
  if (spec.healthSettings) {
    const { protocol, port, requestPath } = spec.healthSettings;
    out.push({
      name: "HealthExtension",
      publisher: "Microsoft.ManagedServices",
      typePropertiesType: windows ? "ApplicationHealthWindows" : "ApplicationHealthLinux",
      typeHandlerVersion: "1.0",
      autoUpgradeMinorVersion: true,
      settings: { protocol, port, ...(requestPath && protocol !== "tcp" ? { requestPath } : {}) },
    });
  }
  return out;
}

function dataDisks(disks: DataDiskSpec[]): VirtualMachineScaleSetDataDisk[] {
  return disks.map((d) => ({
    lun: d.lun,
    diskSizeGB: d.diskSizeGB,
    createOption: "Empty",
    caching: d.caching ?? "None",
    managedDisk: { storageAccountType: d.storageAccountType ?? "Standard_LRS" },
  }));
}

/** The one NIC a new scale set gets; its pools only when it starts in traffic. */
function networkInterface(
  name: string,
  spec: ModelSpec,
  pools: PoolBinding[],
): VirtualMachineScaleSetNetworkConfiguration {
  return {
    name: `${name}${NIC_SUFFIX}`,
    primary: true,
    enableIPForwarding: spec.enableIpForwarding ?? false,
    ...(spec.networkSecurityGroupId ? { networkSecurityGroup: { id: spec.networkSecurityGroupId } } : {}),
    ipConfigurations: [
      {
        name: `${name}${IP_CONFIG_SUFFIX}`,
        primary: true,
        subnet: { id: spec.subnetId },
        loadBalancerBackendAddressPools: pools.filter((p) => p.kind === "lb").map((p) => ({ id: p.id })),
        applicationGatewayBackendAddressPools: pools.filter((p) => p.kind === "agw").map((p) => ({ id: p.id })),
        ...(spec.loadBalancerInboundNatPoolId
          ? { loadBalancerInboundNatPools: [{ id: spec.loadBalancerInboundNatPoolId }] }
          : {}),
      },
    ],
  };
}

/** The backend pools a description names, bound to the NIC and IP configuration the model gives it. */
export function describedPools(name: string, spec: ModelSpec): PoolBinding[] {
  const at = { nic: `${name}${NIC_SUFFIX}`, ipConfig: `${name}${IP_CONFIG_SUFFIX}` };
  return [
    ...(spec.loadBalancerBackendPoolId ? [{ ...at, kind: "lb" as const, id: spec.loadBalancerBackendPoolId }] : []),
    ...(spec.appGatewayBapId ? [{ ...at, kind: "agw" as const, id: spec.appGatewayBapId }] : []),
  ];
}

export function desiredCapacity(spec: Pick<ModelSpec, "sku" | "capacity">): number | undefined {
  return spec.capacity?.desired ?? spec.sku?.capacity;
}

/**
 * Azure: a scale set with a single placement group (its default) holds at most 100 VMs; with several
 * (singlePlacementGroup false) up to 1,000, and the property can go from true to false but never back.
 */
export const SINGLE_PLACEMENT_GROUP_MAX_VMS = 100;

/** A group that may grow past 100 (its max, or its size) is created with several placement groups from the start. */
function placementGroups(spec: Pick<ModelSpec, "sku" | "capacity">): { singlePlacementGroup?: false } {
  const largest = Math.max(spec.capacity?.max ?? 0, desiredCapacity(spec) ?? 0);
  return largest > SINGLE_PLACEMENT_GROUP_MAX_VMS ? { singlePlacementGroup: false } : {};
}

/** The network API version a Flexible set's model names, so that Azure makes each VM's NIC from it. */
export const FLEXIBLE_NETWORK_API_VERSION = "2020-11-01";

/**
 * The model as Azure takes it for Flexible orchestration: a fault-domain count (1: Azure spreads the VMs at its best),
 * NICs made per VM from the profile (networkApiVersion), and none of what Flexible does not offer (over-provisioning,
 * a single placement group, inbound NAT pools: NAT rules are per VM there).
 */
export function asFlexible(model: VirtualMachineScaleSet): VirtualMachineScaleSet {
  const { overprovision: _overprovision, singlePlacementGroup: _single, ...rest } = model;
  const profile = structuredClone(model.virtualMachineProfile ?? {});
  const nics = (profile.networkProfile?.networkInterfaceConfigurations ?? []).map((nic) => ({
    ...nic,
    ipConfigurations: (nic.ipConfigurations ?? []).map(({ loadBalancerInboundNatPools: _nat, ...ipc }) => ipc),
  }));
  profile.networkProfile = {
    ...profile.networkProfile,
    networkApiVersion: profile.networkProfile?.networkApiVersion ?? FLEXIBLE_NETWORK_API_VERSION,
    networkInterfaceConfigurations: nics,
  };
  return {
    ...rest,
    orchestrationMode: "Flexible",
    platformFaultDomainCount: model.platformFaultDomainCount ?? 1,
    virtualMachineProfile: profile,
  };
}

/** The scale set's `identity` as Azure takes it: SystemAssigned, UserAssigned, both, or none (undefined). */
export function identityOf(system: boolean, userAssigned: string[]): VirtualMachineScaleSet["identity"] {
  if (!system && userAssigned.length === 0) return undefined;
  const type =
    system && userAssigned.length > 0 ? "SystemAssigned, UserAssigned" : system ? "SystemAssigned" : "UserAssigned";
  return {
    type,
    ...(userAssigned.length > 0
      ? { userAssignedIdentities: Object.fromEntries(userAssigned.map((id) => [id, {}])) }
      : {}),
  };
}

/** The profile's Spot settings, when the description gives them. */
function spotProfile(spot: SpotSpec | undefined): Partial<VirtualMachineScaleSetVMProfile> {
  if (!spot) return {};
  return {
    priority: spot.priority,
    ...(spot.evictionPolicy ? { evictionPolicy: spot.evictionPolicy } : {}),
    ...(spot.maxPrice !== undefined ? { billingProfile: { maxPrice: spot.maxPrice } } : {}),
  };
}

/** The upgrade policy: the description's mode and rolling settings over the source's (a create: over Manual). */
function upgradePolicyOf(spec: ModelSpec, base: VirtualMachineScaleSet["upgradePolicy"] | undefined) {
  const rolling =
    spec.rollingUpgradePolicy || base?.rollingUpgradePolicy
      ? { rollingUpgradePolicy: { ...base?.rollingUpgradePolicy, ...spec.rollingUpgradePolicy } }
      : {};
  return { ...base, mode: spec.upgradePolicy ?? base?.mode ?? "Manual", ...rolling };
}

/** The repairs and scale-in policies the description gives (a clone keeps its source's where it gives none). */
function createTimePolicies(spec: ModelSpec): Partial<VirtualMachineScaleSet> {
  return {
    ...(spec.automaticRepairsPolicy ? { automaticRepairsPolicy: { ...spec.automaticRepairsPolicy } } : {}),
    ...(spec.scaleInPolicy ? { scaleInPolicy: { ...spec.scaleInPolicy } } : {}),
  };
}

/** A new scale set's model from a description alone. */
export function modelFromDescription(spec: ModelSpec, context: ModelContext): VirtualMachineScaleSet {
  const model = uniformModel(spec, context);
  return spec.orchestrationMode === "Flexible" ? asFlexible(model) : model;
}

function uniformModel(spec: ModelSpec, context: ModelContext): VirtualMachineScaleSet {
  const os = spec.osConfig ?? {};
  const windows = isWindows(spec.image);
  const pools = context.inTraffic ? describedPools(context.name, spec) : [];
  const keys = os.sshPublicKeys ?? [];
  const user = os.adminUserName ?? "azureuser";
  return {
    location: spec.region,
    sku: { name: spec.sku?.name, tier: spec.sku?.tier ?? "Standard", capacity: desiredCapacity(spec) },
    ...(spec.zones && spec.zones.length > 0 ? { zones: spec.zones } : {}),
    ...(identityOf(spec.identity?.system ?? false, spec.identity?.userAssigned ?? [])
      ? { identity: identityOf(spec.identity?.system ?? false, spec.identity?.userAssigned ?? []) }
      : {}),
    tags: { ...spec.instanceTags, ...context.tags },
    upgradePolicy: upgradePolicyOf(spec, undefined),
    ...createTimePolicies(spec),
    overprovision: false,
    ...placementGroups(spec),
    virtualMachineProfile: {
      ...spotProfile(spec.spot),
      osProfile: {
        computerNamePrefix: os.computerNamePrefix ?? computerNamePrefix(context.name, windows),
        adminUsername: user,
        ...(context.adminPassword !== undefined ? { adminPassword: context.adminPassword } : {}),
        ...(os.customData ? { customData: Buffer.from(os.customData, "utf8").toString("base64") } : {}),
        ...(!windows && keys.length > 0
          ? {
              linuxConfiguration: {
                disablePasswordAuthentication: context.adminPassword === undefined,
                ssh: { publicKeys: keys.map((keyData) => ({ path: `/home/${user}/.ssh/authorized_keys`, keyData })) },
              },
            }
          : {}),
      },
      storageProfile: {
        imageReference: imageReference(spec.image ?? {}),
        osDisk: {
          createOption: "FromImage",
          caching: "ReadWrite",
          managedDisk: { storageAccountType: "Standard_LRS" },
        },
        ...(spec.dataDisks && spec.dataDisks.length > 0 ? { dataDisks: dataDisks(spec.dataDisks) } : {}),
      },
      networkProfile: { networkInterfaceConfigurations: [networkInterface(context.name, spec, pools)] },
      ...(spec.customScriptsSettings || spec.healthSettings
        ? { extensionProfile: { extensions: extensions(spec) } }
        : {}),
    },
  };
}

/** Azure: a Windows computer name prefix is at most 9 characters, a Linux one 58; letters, digits and '-'. */
export function computerNamePrefix(name: string, windows: boolean): string {
  return (
    name
      .replace(/[^A-Za-z0-9-]/g, "")
      .slice(0, windows ? 9 : 58)
      .replace(/-+$/, "") || "vm"
  );
}

/** Tags we keep on a scale set that a copy must not inherit: the disabled record, capacity bounds, the creator. */
export function isOwnRecordTag(key: string): boolean {
  return key.startsWith("vmss-ops.");
}

/**
 * What a clone never takes from its source: what Azure sets on a scale set (its name, id, type, ETag, state, unique
 * id, creation time, system data), and what is the new group's own (computed below: its location, size, tags, NICs).
 */
const NOT_COPIED = new Set([
  "id",
  "name",
  "type",
  "etag",
  "provisioningState",
  "uniqueId",
  "timeCreated",
  "systemData",
  "location",
  "sku",
  "tags",
  "identity",
  "zones",
  "upgradePolicy",
  "singlePlacementGroup",
  "virtualMachineProfile",
]);

/** The source's identity as a write takes it: its type and user-assigned ids, without the principals Azure reports. */
export function writableIdentity(identity: VirtualMachineScaleSet["identity"]): {
  system: boolean;
  userAssigned: string[];
} {
  const type = String(identity?.type ?? "None").toLowerCase();
  return {
    system: type.includes("systemassigned"),
    userAssigned: type.includes("userassigned") ? Object.keys(identity?.userAssignedIdentities ?? {}) : [],
  };
}

/** The identity of a new group: the description's parts where it gives them, the source's where it does not. */
function mergedIdentity(
  source: VirtualMachineScaleSet["identity"],
  given: ModelSpec["identity"],
): VirtualMachineScaleSet["identity"] {
  const kept = writableIdentity(source);
  return identityOf(given?.system ?? kept.system, given?.userAssigned ?? kept.userAssigned);
}

/** The keys of an IP configuration that bind it to a pool: the new group's are set apart from the source's. */
const POOL_KEYS = new Set([
  "loadBalancerBackendAddressPools",
  "applicationGatewayBackendAddressPools",
  "loadBalancerInboundNatPools",
]);

function withoutPools(ipc: VirtualMachineScaleSetIPConfiguration): VirtualMachineScaleSetIPConfiguration {
  return Object.fromEntries(
    Object.entries(ipc).filter(([key]) => !POOL_KEYS.has(key)),
  ) as VirtualMachineScaleSetIPConfiguration;
}

/** The pool lists of an IP configuration: each one the new group has, or the source's had (possibly empty). */
function poolLists(
  made: VirtualMachineScaleSetIPConfiguration,
  source: VirtualMachineScaleSetIPConfiguration,
): Partial<VirtualMachineScaleSetIPConfiguration> {
  const out: Partial<VirtualMachineScaleSetIPConfiguration> = {};
  for (const key of ["loadBalancerBackendAddressPools", "applicationGatewayBackendAddressPools"] as const)
    if ((made[key]?.length ?? 0) > 0 || source[key] !== undefined) out[key] = made[key] ?? [];
  return out;
}

/**
 * The NICs of a clone: the source's, every setting kept (accelerated networking, DNS, public IP, security groups,
 * further NICs and IP configurations), with the primary one renamed for the new group and the overrides applied to it;
 * the backend pools are the new group's (`pools`, on the primary IP configuration, when it starts in traffic), the
 * source's inbound NAT pool is not taken (a NAT pool serves one scale set: the new group gets its own, or none).
 */
function clonedNics(
  profile: VirtualMachineScaleSetVMProfile,
  name: string,
  overrides: ModelSpec,
  pools: PoolBinding[],
): VirtualMachineScaleSetNetworkConfiguration[] {
  const nics = profile.networkProfile?.networkInterfaceConfigurations ?? [];
  const primaryAt = Math.max(
    0,
    nics.findIndex((n) => n.primary),
  );
  if (nics.length === 0) return [networkInterface(name, overrides, pools)];
  return nics.map((nic, i) => {
    const unpooled = (nic.ipConfigurations ?? []).map((ipc) => withoutPools(ipc));
    if (i !== primaryAt) return { ...nic, ipConfigurations: unpooled };
    const ipAt = Math.max(
      0,
      unpooled.findIndex((c) => c.primary),
    );
    const made = networkInterface(name, overrides, pools);
    const madeIp: VirtualMachineScaleSetIPConfiguration = made.ipConfigurations?.[0] ?? { name: "" };
    return {
      ...nic,
      name: made.name,
      ...(overrides.networkSecurityGroupId ? { networkSecurityGroup: { id: overrides.networkSecurityGroupId } } : {}),
      ...(overrides.enableIpForwarding !== undefined ? { enableIPForwarding: overrides.enableIpForwarding } : {}),
      ipConfigurations: unpooled.map((ipc, j) =>
        j !== ipAt
          ? ipc
          : {
              ...ipc,
              name: madeIp.name,
              ...(overrides.subnetId ? { subnet: { id: overrides.subnetId } } : {}),
              ...poolLists(madeIp, nic.ipConfigurations?.[ipAt] ?? { name: "" }),
              ...(madeIp.loadBalancerInboundNatPools
                ? { loadBalancerInboundNatPools: madeIp.loadBalancerInboundNatPools }
                : {}),
            },
      ),
    };
  });
}

/**
 * A clone's model: everything the source carries (its policies, identity, zones, placement, extensions, Spot
 * settings, tags, and every other property a scale set may have), without what Azure sets and without our records on
 * it, with the overrides applied, on NICs named for the new group. Its pools are the source's own (or, when the
 * source is disabled, those its record names), given as `pools`. What cannot be copied is for cloneLimits to say.
 */
export function modelFromSource(
  source: VirtualMachineScaleSet,
  overrides: ModelSpec,
  pools: PoolBinding[],
  context: ModelContext,
): VirtualMachineScaleSet {
  const profile = structuredClone(source.virtualMachineProfile ?? {});
  const windows = isWindows(overrides.image) || Boolean(profile.osProfile?.windowsConfiguration);
  if (overrides.image)
    profile.storageProfile = { ...profile.storageProfile, imageReference: imageReference(overrides.image) };
  if (overrides.dataDisks)
    profile.storageProfile = { ...profile.storageProfile, dataDisks: dataDisks(overrides.dataDisks) };
  const os = overrides.osConfig;
  profile.osProfile = {
    ...profile.osProfile,
    computerNamePrefix: os?.computerNamePrefix ?? computerNamePrefix(context.name, windows),
    ...(os?.adminUserName ? { adminUsername: os.adminUserName } : {}),
    ...(context.adminPassword !== undefined ? { adminPassword: context.adminPassword } : {}),
    ...(os?.customData ? { customData: Buffer.from(os.customData, "utf8").toString("base64") } : {}),
  };
  if (overrides.customScriptsSettings || overrides.healthSettings) {
    const replaced = new Set(extensions(overrides).map((e) => e.name));
    const kept = (profile.extensionProfile?.extensions ?? []).filter((e) => !replaced.has(e.name));
    profile.extensionProfile = { ...profile.extensionProfile, extensions: [...kept, ...extensions(overrides)] };
  }
  Object.assign(profile, spotProfile(overrides.spot));
  profile.networkProfile = {
    ...profile.networkProfile,
    networkInterfaceConfigurations: clonedNics(
      source.virtualMachineProfile ?? {},
      context.name,
      overrides,
      context.inTraffic ? pools : [],
    ),
  };
  const sourceTags = Object.fromEntries(Object.entries(source.tags ?? {}).filter(([k]) => !isOwnRecordTag(k)));
  const capacity = desiredCapacity(overrides) ?? source.sku?.capacity;
  const copied = Object.fromEntries(
    Object.entries(source).filter(([key, value]) => !NOT_COPIED.has(key) && value !== undefined),
  ) as VirtualMachineScaleSet;
  const zones = overrides.zones ?? source.zones;
  const identity = mergedIdentity(source.identity, overrides.identity);
  const several =
    source.singlePlacementGroup === false ||
    placementGroups({ ...overrides, capacity: { desired: capacity ?? 0, max: overrides.capacity?.max } })
      .singlePlacementGroup === false;
  const model: VirtualMachineScaleSet = {
    ...copied,
    ...createTimePolicies(overrides),
    location: overrides.region,
    sku: {
      ...source.sku,
      ...(overrides.sku?.name ? { name: overrides.sku.name } : {}),
      ...(overrides.sku?.tier ? { tier: overrides.sku.tier } : {}),
      capacity,
    },
    ...(zones && zones.length > 0 ? { zones } : {}),
    ...(identity ? { identity } : {}),
    tags: { ...sourceTags, ...overrides.instanceTags, ...context.tags },
    upgradePolicy: upgradePolicyOf(overrides, source.upgradePolicy),
    ...(several
      ? { singlePlacementGroup: false }
      : source.singlePlacementGroup !== undefined
        ? { singlePlacementGroup: source.singlePlacementGroup }
        : {}),
    virtualMachineProfile: profile,
  };
  // A clone keeps its source's orchestration mode unless the description names one (Azure never changes a set's).
  const flexible = (overrides.orchestrationMode ?? source.orchestrationMode ?? "Uniform").toLowerCase() === "flexible";
  return flexible ? asFlexible(model) : model;
}

/**
 * What a clone of `source` into `region` cannot take as it is, read before anything is written: `refusals` stop the
 * clone (Azure would refuse the copy, or the copy would not be what was asked), `notes` go into the task's history.
 */
export function cloneLimits(
  source: VirtualMachineScaleSet,
  overrides: ModelSpec,
): { refusals: string[]; notes: string[] } {
  const refusals: string[] = [];
  const notes: string[] = [];
  const sourceRegion = (source.location ?? "").replace(/\s+/g, "").toLowerCase();
  const otherRegion = sourceRegion !== "" && sourceRegion !== overrides.region.replace(/\s+/g, "").toLowerCase();
  if (otherRegion && source.proximityPlacementGroup?.id)
    refusals.push(
      `the source is in proximity placement group ${source.proximityPlacementGroup.id}, in ${sourceRegion}; a scale set in ${overrides.region} cannot join it (clone within ${sourceRegion})`,
    );
  if (otherRegion && source.hostGroup?.id)
    refusals.push(
      `the source runs on dedicated host group ${source.hostGroup.id}, in ${sourceRegion}; a scale set in ${overrides.region} cannot use it (clone within ${sourceRegion})`,
    );
  const identity = writableIdentity(source.identity);
  if (identity.system && overrides.identity?.system !== false)
    notes.push(
      `the source's system-assigned identity (principal ${source.identity?.principalId ?? "unknown"}) is its own: Azure gives the copy a new principal, which holds none of the source's role assignments; grant them to it, or use a user-assigned identity`,
    );
  const nat = (source.virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations ?? []).flatMap((n) =>
    (n.ipConfigurations ?? []).flatMap((c) => c.loadBalancerInboundNatPools ?? []),
  );
  if (nat.length > 0)
    notes.push(
      `the source's inbound NAT pool(s) ${nat.map((p) => p.id).join(", ")} are not copied: a NAT pool serves one scale set${overrides.loadBalancerInboundNatPoolId ? `; the copy gets ${overrides.loadBalancerInboundNatPoolId}` : ""}`,
    );
  return { refusals, notes: [...notes, ...unreadableNotes(source, overrides)] };
}

/**
 * What Azure keeps and never returns on a read, so that a copy cannot take it from its source: the custom data
 * (osProfile.customData), unless the clone's body gives it ("" for none), and each kept extension's
 * protectedSettings (the custom script's come from the body's customScriptsSettings, which replaces it). Whether the
 * source has any cannot be seen, so it is said whenever it may be so. (userData is read with $expand=userData.)
 */
function unreadableNotes(source: VirtualMachineScaleSet, overrides: ModelSpec): string[] {
  return notCopiedFields(source, overrides).map((f) => f.note);
}

/** What Azure keeps from a clone's source and the body did not give: each field of the model, and why it is so. */
export interface NotCopied {
  /** Where in the model: `virtualMachineProfile.osProfile.customData`, `…extensions[name].protectedSettings`. */
  fields: string[];
  /** The line for the history. */
  note: string;
  /** What the clone's body can give instead: `osConfig.customData`; none for an extension the body cannot replace. */
  remedy: "customData" | "extensions";
  /** The extensions whose protected settings (remedy "extensions"). */
  extensions?: string[];
}

/** The fields unreadableNotes speaks of, one entry per note. */
export function notCopiedFields(source: VirtualMachineScaleSet, overrides: ModelSpec): NotCopied[] {
  const out: NotCopied[] = [];
  if (overrides.osConfig?.customData === undefined)
    out.push({
      fields: ["virtualMachineProfile.osProfile.customData"],
      remedy: "customData",
      note: "the source's custom data (osProfile.customData) is not copied: Azure never returns it on a read, so whether the source has any cannot be seen; give osConfig.customData in the clone's body (\"\" for none) to set it",
    });
  const replaced = new Set(
    overrides.customScriptsSettings || overrides.healthSettings ? extensions(overrides).map((e) => e.name) : [],
  );
  const kept = (source.virtualMachineProfile?.extensionProfile?.extensions ?? [])
    .map((e) => e.name ?? "")
    .filter((name) => !replaced.has(name));
  if (kept.length > 0)
    out.push({
      fields: kept.map((name) => `virtualMachineProfile.extensionProfile.extensions[${name}].protectedSettings`),
      remedy: "extensions",
      extensions: kept,
      note: `the protected settings of the source's extension(s) ${kept.join(", ")} are not copied: Azure never returns an extension's protectedSettings on a read, so the copy has their public settings only; give customScriptsSettings in the clone's body for the custom script, or add the others' protected settings to the new scale set`,
    });
  return out;
}

/** Pools bound to the new group's NIC and IP configuration, whatever they were bound to on the source. */
export function rebindPools(pools: PoolBinding[], name: string): PoolBinding[] {
  const seen = new Set<string>();
  const out: PoolBinding[] = [];
  for (const p of pools) {
    const key = `${p.kind}\n${p.id.toLowerCase()}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ nic: `${name}${NIC_SUFFIX}`, ipConfig: `${name}${IP_CONFIG_SUFFIX}`, kind: p.kind, id: p.id });
  }
  return out;
}
