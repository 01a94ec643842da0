// Clouddriver's read model for Azure server groups, in the shape Orca reads (orca-clouddriver model/ServerGroup.java,
// Instance.java, Health.java, Cluster.java) and clouddriver-azure writes (AzureServerGroupDescription, AzureInstance):
// schemas for the routes and the OpenAPI document, and pure builders from what Azure reported.
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { Type, type Static } from "@sinclair/typebox";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { AccountName, Capacity, RegionName, ScaleSetName } from "../operations/description.ts";
import {
  disabledBy,
  recordedCapacity,
  servesTraffic,
  trafficPools,
  vmTrafficPools,
} from "../operations/server-group-state.ts";
import { instanceHealth } from "./health.ts";
import { autoscaleBounds } from "../operations/autoscale-bounds.ts";
import { TAG_AUTOSCALE_SUSPENDED_BY } from "../operations/autoscale-suspension.ts";
import { parseName } from "../naming/frigga.ts";

export const CLOUD_PROVIDER = "azure" as const;

const HealthStateSchema = Type.Union(
  ["Up", "Down", "OutOfService", "Unknown", "Starting", "Failed"].map((s) => Type.Literal(s)),
  { description: "Clouddriver's HealthState" },
);

export const ClouddriverHealth = Type.Object(
  {
    type: Type.String({
      description: "Azure (the VM's provisioning and power state) or LoadBalancer (backend pool membership)",
    }),
    healthClass: Type.Optional(Type.Literal("platform")),
    state: HealthStateSchema,
    description: Type.Optional(Type.String()),
  },
  { $id: "ClouddriverHealth", additionalProperties: false },
);

export const ClouddriverInstance = Type.Object(
  {
    name: Type.String({ description: "the VM's name, <scale set>_<instance id>" }),
    instanceId: Type.String(),
    launchTime: Type.Optional(Type.Integer({ description: "ms since the epoch: the VM's timeCreated" })),
    zone: Type.Optional(Type.String()),
    cloudProvider: Type.Literal(CLOUD_PROVIDER),
    providerType: Type.Literal(CLOUD_PROVIDER),
    provisioningState: Type.Optional(Type.String()),
    latestModelApplied: Type.Optional(Type.Boolean()),
    healthState: HealthStateSchema,
    health: Type.Array(Type.Ref(ClouddriverHealth)),
  },
  { $id: "ClouddriverInstance", additionalProperties: false },
);

export const ClouddriverMoniker = Type.Object(
  {
    app: Type.String(),
    cluster: Type.String(),
    stack: Type.Optional(Type.String()),
    detail: Type.Optional(Type.String()),
    sequence: Type.Optional(Type.Integer()),
  },
  { $id: "ClouddriverMoniker", additionalProperties: false },
);

export const InstanceCounts = Type.Object(
  {
    total: Type.Integer(),
    up: Type.Integer(),
    down: Type.Integer(),
    unknown: Type.Integer(),
    starting: Type.Integer(),
    outOfService: Type.Integer(),
  },
  { $id: "InstanceCounts", additionalProperties: false },
);

export const ClouddriverServerGroup = Type.Object(
  {
    name: Type.String(),
    type: Type.Literal(CLOUD_PROVIDER),
    cloudProvider: Type.Literal(CLOUD_PROVIDER),
    account: Type.String(),
    region: Type.String(),
    resourceGroup: Type.String(),
    cluster: Type.String(),
    moniker: Type.Ref(ClouddriverMoniker),
    createdTime: Type.Optional(
      Type.Integer({ description: "ms since the epoch: Azure's timeCreated of the scale set" }),
    ),
    capacity: Type.Ref(Capacity),
    disabled: Type.Boolean({
      description: "as disableServerGroup/enableServerGroup left it, or parked in clouddriver-azure's parking pools",
    }),
    instances: Type.Array(Type.Ref(ClouddriverInstance), { description: "the VMs as Azure lists them" }),
    instanceCounts: Type.Ref(InstanceCounts),
    zones: Type.Array(Type.String()),
    loadBalancers: Type.Array(Type.String(), { description: "backend pool ids on the scale set's model" }),
    securityGroups: Type.Array(Type.String()),
    launchConfig: Type.Object(
      {},
      {
        additionalProperties: false,
        description: "always empty: a scale set has no launch configuration; here because Clouddriver's answer has it",
      },
    ),
    tags: Type.Record(Type.String(), Type.String()),
    provisioningState: Type.Optional(Type.String()),
  },
  {
    $id: "ClouddriverServerGroup",
    additionalProperties: false,
    description: "Clouddriver's server group, for an Azure scale set",
  },
);
export type ClouddriverServerGroup = Static<typeof ClouddriverServerGroup>;
export type ClouddriverInstance = Static<typeof ClouddriverInstance>;

export const ClouddriverCluster = Type.Object(
  {
    name: Type.String(),
    type: Type.Literal(CLOUD_PROVIDER),
    accountName: Type.String(),
    moniker: Type.Optional(Type.Ref(ClouddriverMoniker)),
    serverGroups: Type.Array(Type.Ref(ClouddriverServerGroup)),
    loadBalancers: Type.Array(Type.String()),
  },
  { $id: "ClouddriverCluster", additionalProperties: false },
);
export type ClouddriverCluster = Static<typeof ClouddriverCluster>;

export const ClouddriverApplication = Type.Object(
  {
    name: Type.String(),
    attributes: Type.Object({ name: Type.String(), cloudProviders: Type.String() }, { additionalProperties: false }),
    clusters: Type.Record(
      Type.String(),
      Type.Array(
        Type.Object(
          {
            name: Type.String(),
            provider: Type.Literal(CLOUD_PROVIDER),
            serverGroups: Type.Array(Type.String()),
            loadBalancers: Type.Array(Type.String()),
          },
          { additionalProperties: false },
        ),
      ),
      { description: "cluster summaries by account" },
    ),
  },
  { $id: "ClouddriverApplication", additionalProperties: false },
);
export type ClouddriverApplication = Static<typeof ClouddriverApplication>;

/** Clouddriver's getServerGroup of a cluster: a list without ?region=, one server group with it. */
export const ClouddriverServerGroupOrList = Type.Union(
  [Type.Array(Type.Ref(ClouddriverServerGroup)), Type.Ref(ClouddriverServerGroup)],
  {
    $id: "ClouddriverServerGroupOrList",
    description: "without region: the server groups of that name (one per region); with region: that one",
  },
);

/** ServerGroupCacheForceRefreshTask's model (performForceCacheRefresh); extra fields are ignored. */
export const ForceCacheRefresh = Type.Object(
  {
    account: AccountName,
    region: RegionName,
    serverGroupName: Type.Optional(ScaleSetName),
    asgName: Type.Optional(ScaleSetName),
    zone: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  },
  { $id: "ForceCacheRefresh", description: "which server group to refresh" },
);

export const ForceCacheRefreshResult = Type.Object(
  {
    refreshed: Type.Array(Type.String(), {
      description: "account/region/resourceGroup/name of each server group whose cached reads were dropped",
    }),
  },
  { $id: "ForceCacheRefreshResult", additionalProperties: false },
);

export const PendingCacheRefreshes = Type.Array(Type.Object({}, { additionalProperties: false }), {
  $id: "PendingCacheRefreshes",
  maxItems: 0,
  description: "pending force-cache refreshes: always empty, since a refresh is done when it is asked for",
});

export const clouddriverSchemas = [
  ClouddriverHealth,
  ClouddriverInstance,
  ClouddriverMoniker,
  InstanceCounts,
  ClouddriverServerGroup,
  ClouddriverServerGroupOrList,
  ClouddriverCluster,
  ClouddriverApplication,
  ForceCacheRefresh,
  ForceCacheRefreshResult,
  PendingCacheRefreshes,
];

/** Azure's timeCreated as ms, or clouddriver-azure's createdTime tag for scale sets that predate it. */
export function createdTimeOf(vmss: VirtualMachineScaleSet): number | undefined {
  const t = vmss.timeCreated;
  if (t instanceof Date && !Number.isNaN(t.getTime())) return t.getTime();
  if (typeof t === "string" && !Number.isNaN(Date.parse(t))) return Date.parse(t);
  const tag = vmss.tags?.createdTime;
  return tag !== undefined && /^\d+$/.test(tag) ? Number(tag) : undefined;
}

function timeOf(value: Date | string | undefined): number | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.getTime();
  if (typeof value === "string" && !Number.isNaN(Date.parse(value))) return Date.parse(value);
  return undefined;
}

/**
 * Whether the VM is in a backend pool, or undefined when traffic is not a load balancer's to judge: the scale set
 * names no pool in its model and was not disabled out of its pools.
 */
function vmInTraffic(vm: VirtualMachineScaleSetVM, vmss: VirtualMachineScaleSet): boolean | undefined {
  const modelPools = trafficPools(vmss);
  const by = disabledBy(vmss);
  if (modelPools.length === 0 && by !== "pools" && by !== "parkingPool") return undefined;
  // A parking pool is a backend pool no rule sends traffic to: in it is out of traffic (servesTraffic).
  const pools = vmTrafficPools(vm);
  if (pools) return servesTraffic(pools);
  // No network configuration listed for the VM: it has the model's pools only once the model reached it.
  return servesTraffic(modelPools) && vm.latestModelApplied !== false;
}

export function instanceView(
  vm: VirtualMachineScaleSetVM,
  vmss: VirtualMachineScaleSet,
  region: string,
): ClouddriverInstance {
  const { health, healthState } = instanceHealth(vm, vmInTraffic(vm, vmss));
  const launchTime = timeOf(vm.timeCreated);
  return {
    name: vm.name ?? `${vmss.name}_${vm.instanceId}`,
    instanceId: vm.instanceId ?? "",
    ...(launchTime !== undefined ? { launchTime } : {}),
    zone: vm.zones?.[0] ?? region,
    cloudProvider: CLOUD_PROVIDER,
    providerType: CLOUD_PROVIDER,
    provisioningState: vm.provisioningState,
    latestModelApplied: vm.latestModelApplied,
    healthState,
    health,
  };
}

function countsOf(instances: ClouddriverInstance[]): Static<typeof InstanceCounts> {
  const count = (state: string) => instances.filter((i) => i.healthState === state).length;
  return {
    total: instances.length,
    up: count("Up"),
    down: count("Down") + count("Failed"),
    unknown: count("Unknown"),
    starting: count("Starting"),
    outOfService: count("OutOfService"),
  };
}

/**
 * The group's capacity as Orca reads it. With an Azure Monitor autoscale setting that targets the scale set, min and
 * max are its profile in force's bounds (Spinnaker's AWS semantics: the group's bounds are the scaler's), when Azure
 * enforces it (enabled) or when our disableServerGroup suspended it (its bounds are what enable brings back, as a
 * disabled AWS group keeps its min and max); a setting someone else disabled is not enforced, and the recorded bounds
 * (the scale set's tags) are reported. desired is always the scale set's capacity, min and max widened to hold it.
 */
export function capacityView(snapshot: ScaleSetSnapshot, now = Date.now()): Static<typeof Capacity> {
  const recorded = recordedCapacity(snapshot.vmss);
  const setting = snapshot.autoscale;
  const inForce =
    setting && (setting.properties.enabled !== false || setting.tags?.[TAG_AUTOSCALE_SUSPENDED_BY] !== undefined);
  const bounds = inForce ? autoscaleBounds(setting, now) : undefined;
  if (!bounds) return recorded;
  const { desired } = recorded;
  return { min: Math.min(bounds.min, desired), max: Math.max(bounds.max, desired), desired };
}

/** The scale set as Clouddriver's server group: capacity as capacityView says, the VMs as Azure listed them. */
export function serverGroupView(snapshot: ScaleSetSnapshot, ref: ScaleSetRef): ClouddriverServerGroup {
  const { vmss } = snapshot;
  const name = vmss.name ?? ref.name;
  const moniker = parseName(name) ?? { app: name, cluster: name };
  const instances = (snapshot.vms ?? []).map((vm) => instanceView(vm, vmss, ref.region));
  const createdTime = createdTimeOf(vmss);
  return {
    name,
    type: CLOUD_PROVIDER,
    cloudProvider: CLOUD_PROVIDER,
    account: ref.account,
    region: ref.region,
    resourceGroup: ref.resourceGroup,
    cluster: moniker.cluster,
    moniker,
    ...(createdTime !== undefined ? { createdTime } : {}),
    capacity: capacityView(snapshot),
    disabled: disabledBy(vmss) !== undefined,
    instances,
    instanceCounts: countsOf(instances),
    zones: vmss.zones ?? [],
    loadBalancers: trafficPools(vmss).map((p) => p.id),
    securityGroups: [],
    launchConfig: {},
    tags: { ...vmss.tags },
    provisioningState: vmss.provisioningState,
  };
}
