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
  VirtualMachineScaleSetNetworkConfiguration,
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

/** The parts of a description (create, or a clone's overrides) that shape the model. */
export interface ModelSpec {
  region: string;
  image?: ImageSpec;
  sku?: { name?: string; tier?: string; capacity?: number };
  capacity?: { desired: number; max?: number };
  upgradePolicy?: "Automatic" | "Manual";
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
    tags: { ...spec.instanceTags, ...context.tags },
    upgradePolicy: { mode: spec.upgradePolicy ?? "Manual" },
    overprovision: false,
    ...placementGroups(spec),
    virtualMachineProfile: {
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
 * A clone's model: the source's, without what Azure sets (id, name, state, ETag, creation time, unique id) and
 * without our records on it, with the overrides applied, on a NIC named for the new group. Its pools are the
 * source's own (or, when the source is disabled, those its record names), given as `pools`.
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
  // One NIC with one IP configuration, as a create makes it: the subnet and security group of the source's first.
  const sourceNic = profile.networkProfile?.networkInterfaceConfigurations?.[0];
  const sourceIp = sourceNic?.ipConfigurations?.[0];
  const network: ModelSpec = {
    ...overrides,
    subnetId: overrides.subnetId ?? sourceIp?.subnet?.id,
    networkSecurityGroupId: overrides.networkSecurityGroupId ?? sourceNic?.networkSecurityGroup?.id,
    enableIpForwarding: overrides.enableIpForwarding ?? sourceNic?.enableIPForwarding,
  };
  const nicPools = context.inTraffic ? pools : [];
  profile.networkProfile = {
    ...profile.networkProfile,
    networkInterfaceConfigurations: [networkInterface(context.name, network, nicPools)],
  };
  const sourceTags = Object.fromEntries(Object.entries(source.tags ?? {}).filter(([k]) => !isOwnRecordTag(k)));
  const capacity = desiredCapacity(overrides) ?? source.sku?.capacity;
  const model: VirtualMachineScaleSet = {
    location: overrides.region,
    sku: {
      ...source.sku,
      ...(overrides.sku?.name ? { name: overrides.sku.name } : {}),
      ...(overrides.sku?.tier ? { tier: overrides.sku.tier } : {}),
      capacity,
    },
    ...((overrides.zones ?? source.zones) ? { zones: overrides.zones ?? source.zones } : {}),
    tags: { ...sourceTags, ...overrides.instanceTags, ...context.tags },
    upgradePolicy: overrides.upgradePolicy
      ? { mode: overrides.upgradePolicy }
      : (source.upgradePolicy ?? { mode: "Manual" }),
    ...(source.overprovision !== undefined ? { overprovision: source.overprovision } : {}),
    ...placementGroups({ ...overrides, capacity: { desired: capacity ?? 0, max: overrides.capacity?.max } }),
    virtualMachineProfile: profile,
  };
  // A clone keeps its source's orchestration mode unless the description names one (Azure never changes a set's).
  const flexible = (overrides.orchestrationMode ?? source.orchestrationMode ?? "Uniform").toLowerCase() === "flexible";
  return flexible
    ? asFlexible({
        ...model,
        ...(source.platformFaultDomainCount !== undefined
          ? { platformFaultDomainCount: source.platformFaultDomainCount }
          : {}),
      })
    : model;
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
