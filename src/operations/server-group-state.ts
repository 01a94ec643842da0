// What vmss-ops reads from and records on a scale set: min/max and the disabled state live in tags on the scale
// set itself, so any replica (or a person in the portal) sees the same truth and no side store can drift.
import type {
  VirtualMachineScaleSet,
  VirtualMachineScaleSetNetworkConfiguration,
  VirtualMachineScaleSetUpdateNetworkConfiguration,
  VirtualMachineScaleSetVM,
} from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import { confirmation, isActionableInstance, kindOf, runningInstances } from "../azure/scale-set-state.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import type { Capacity } from "./description.ts";

export const TAG_MIN = "vmss-ops.min";
export const TAG_MAX = "vmss-ops.max";
/** "pools" (taken out of its backend pools) or "capacity" (no pools, so scaled to 0). */
export const TAG_DISABLED = "vmss-ops.disabled";
export const TAG_DISABLED_CAPACITY = "vmss-ops.disabled-capacity";
/** The removed pools, as JSON cut into 256-character tag values: vmss-ops.disabled-pools.0, .1, … */
export const TAG_DISABLED_POOLS = "vmss-ops.disabled-pools.";

const AZURE_MAX_TAGS = 50;
const AZURE_MAX_TAG_VALUE = 256;

export type Tags = Record<string, string>;

export function capacityOf(vmss: VirtualMachineScaleSet): number {
  return vmss.sku?.capacity ?? 0;
}

function tagInt(tags: Tags | undefined, name: string): number | undefined {
  const v = tags?.[name];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** min and max as recorded by resize; a scale set that never had them reports its capacity for both. */
export function recordedCapacity(vmss: VirtualMachineScaleSet): Capacity {
  const desired = capacityOf(vmss);
  const min = tagInt(vmss.tags, TAG_MIN) ?? desired;
  const max = tagInt(vmss.tags, TAG_MAX) ?? desired;
  return { min: Math.min(min, desired), max: Math.max(max, desired), desired };
}

export function recordedMin(vmss: VirtualMachineScaleSet): number | undefined {
  return tagInt(vmss.tags, TAG_MIN);
}

export function withCapacityTags(tags: Tags | undefined, min: number, max: number): Tags {
  return { ...tags, [TAG_MIN]: String(min), [TAG_MAX]: String(max) };
}

export function sameTags(a: Tags | undefined, b: Tags): boolean {
  const ka = Object.keys(a ?? {});
  return ka.length === Object.keys(b).length && ka.every((k) => a![k] === b[k]);
}

// ---- traffic: load-balancer and application-gateway backend pools ----

export type PoolKind = "lb" | "agw";
/** One backend pool on one IP configuration of one NIC configuration. */
export interface PoolBinding {
  nic: string;
  ipConfig: string;
  kind: PoolKind;
  id: string;
}

function nicConfigs(vmss: {
  virtualMachineProfile?: VirtualMachineScaleSet["virtualMachineProfile"];
}): VirtualMachineScaleSetNetworkConfiguration[] {
  return vmss.virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations ?? [];
}

function poolsOfNics(nics: VirtualMachineScaleSetNetworkConfiguration[]): PoolBinding[] {
  const out: PoolBinding[] = [];
  for (const nic of nics) {
    for (const ipc of nic.ipConfigurations ?? []) {
      for (const p of ipc.loadBalancerBackendAddressPools ?? [])
        if (p.id) out.push({ nic: nic.name, ipConfig: ipc.name, kind: "lb", id: p.id });
      for (const p of ipc.applicationGatewayBackendAddressPools ?? [])
        if (p.id) out.push({ nic: nic.name, ipConfig: ipc.name, kind: "agw", id: p.id });
    }
  }
  return out;
}

export function trafficPools(vmss: VirtualMachineScaleSet): PoolBinding[] {
  return poolsOfNics(nicConfigs(vmss));
}

export function vmTrafficPools(vm: VirtualMachineScaleSetVM): PoolBinding[] | undefined {
  const nics = vm.networkProfileConfiguration?.networkInterfaceConfigurations;
  return nics ? poolsOfNics(nics) : undefined;
}

function bindingKey(b: PoolBinding): string {
  return `${b.nic}\n${b.ipConfig}\n${b.kind}\n${b.id.toLowerCase()}`;
}

export function samePools(a: PoolBinding[], b: PoolBinding[]): boolean {
  const ka = new Set(a.map(bindingKey));
  const kb = new Set(b.map(bindingKey));
  return ka.size === kb.size && [...ka].every((k) => kb.has(k));
}

export function unionPools(a: PoolBinding[], b: PoolBinding[]): PoolBinding[] {
  const seen = new Map<string, PoolBinding>();
  for (const p of [...a, ...b]) seen.set(bindingKey(p), p);
  return [...seen.values()];
}

/** The NIC configurations for an update: the ones read, with exactly `pools` as their backend pools. */
export function nicsWithPools(
  vmss: VirtualMachineScaleSet,
  pools: PoolBinding[],
): VirtualMachineScaleSetUpdateNetworkConfiguration[] {
  const nics = nicConfigs(vmss);
  const missing = pools.filter(
    (p) => !nics.some((n) => n.name === p.nic && n.ipConfigurations?.some((i) => i.name === p.ipConfig)),
  );
  if (missing.length > 0) {
    throw new RefusalError(
      "PoolTargetMissing",
      `cannot restore pools: the scale set no longer has NIC/IP configuration ${missing.map((p) => `${p.nic}/${p.ipConfig}`).join(", ")}`,
    );
  }
  return nics.map((nic) => ({
    ...nic,
    ipConfigurations: (nic.ipConfigurations ?? []).map((ipc) => {
      const mine = pools.filter((p) => p.nic === nic.name && p.ipConfig === ipc.name);
      return {
        ...ipc,
        loadBalancerBackendAddressPools: mine.filter((p) => p.kind === "lb").map((p) => ({ id: p.id })),
        applicationGatewayBackendAddressPools: mine.filter((p) => p.kind === "agw").map((p) => ({ id: p.id })),
      };
    }),
  }));
}

// ---- clouddriver-azure's way of disabling: parking pools ----

/**
 * The backend pools clouddriver-azure points traffic at when it disables a server group: it leaves the scale set's
 * NICs as they are and moves the load balancer's rules (or the application gateway's routing rules) to these
 * (AzureLoadBalancerResourceTemplate.groovy l.28, AzureAppGatewayResourceTemplate.groovy l.94, used by
 * AzureNetworkClient.groovy disableServerGroupWithLoadBalancer / disableServerGroup).
 */
export const PARKING_POOLS: ReadonlySet<string> = new Set(["default_lb_bap", "default_bap0"]);

function poolName(id: string): string {
  return (id.split("/").at(-1) ?? "").toLowerCase();
}

export function isParkingPool(binding: PoolBinding): boolean {
  return PARKING_POOLS.has(poolName(binding.id));
}

/**
 * Parked: the scale set's NICs are in backend pools, and every one of them is a parking pool, so no rule sends it
 * traffic. What the scale set alone cannot show is clouddriver-azure's usual disable, where the NICs stay in the
 * pool named after the server group and only the load balancer's rules move: that needs the load balancer, which
 * is not read (see README, "Disabled, as Orca sees it").
 */
export function isParked(vmss: VirtualMachineScaleSet): boolean {
  const pools = trafficPools(vmss);
  return pools.length > 0 && pools.every(isParkingPool);
}

/** Why a scale set is out of traffic, as far as the scale set shows: our record, or a parking pool. */
export function disabledBy(vmss: VirtualMachineScaleSet): "pools" | "capacity" | "parkingPool" | undefined {
  return disabledMode(vmss) ?? (isParked(vmss) ? "parkingPool" : undefined);
}

/** A VM (or model) is in traffic when it is in at least one backend pool that is not a parking pool. */
export function servesTraffic(pools: PoolBinding[]): boolean {
  return pools.some((p) => !isParkingPool(p));
}

/** Pools named after the scale set: clouddriver-azure's layout, whose traffic its load-balancer rules decide. */
export function ownNamedPools(vmss: VirtualMachineScaleSet, name: string): PoolBinding[] {
  return trafficPools(vmss).filter((p) => poolName(p.id) === name.toLowerCase());
}

// ---- the record of removed pools, kept in tags ----

export function disabledMode(vmss: VirtualMachineScaleSet): "pools" | "capacity" | undefined {
  const v = vmss.tags?.[TAG_DISABLED];
  return v === "pools" || v === "capacity" ? v : undefined;
}

/** Pool ids repeat "/subscriptions/{id}/resourceGroups/": "~" stands for it, so that records fit in fewer tags. */
function compressId(id: string, subscriptionId: string): string {
  const prefix = `/subscriptions/${subscriptionId}/resourceGroups/`;
  return id.toLowerCase().startsWith(prefix.toLowerCase()) ? `~${id.slice(prefix.length)}` : id;
}

function expandId(id: string, subscriptionId: string): string {
  return id.startsWith("~") ? `/subscriptions/${subscriptionId}/resourceGroups/${id.slice(1)}` : id;
}

/** Tags without any disabled record. */
export function withoutDisabledRecord(tags: Tags | undefined): Tags {
  const out: Tags = {};
  for (const [k, v] of Object.entries(tags ?? {})) {
    if (k !== TAG_DISABLED && k !== TAG_DISABLED_CAPACITY && !k.startsWith(TAG_DISABLED_POOLS)) out[k] = v;
  }
  return out;
}

export function withPoolsRecord(tags: Tags | undefined, pools: PoolBinding[], ref: ScaleSetRef): Tags {
  const json = JSON.stringify(pools.map((p) => [p.nic, p.ipConfig, p.kind, compressId(p.id, ref.subscriptionId)]));
  const out = withoutDisabledRecord(tags);
  out[TAG_DISABLED] = "pools";
  for (let i = 0; i * AZURE_MAX_TAG_VALUE < json.length; i++) {
    out[`${TAG_DISABLED_POOLS}${i}`] = json.slice(i * AZURE_MAX_TAG_VALUE, (i + 1) * AZURE_MAX_TAG_VALUE);
  }
  if (Object.keys(out).length > AZURE_MAX_TAGS) {
    throw new RefusalError(
      "TooManyTags",
      `recording ${pools.length} backend pools needs ${Object.keys(out).length} tags, more than Azure's ${AZURE_MAX_TAGS}; remove some tags from ${ref.name}`,
    );
  }
  return out;
}

export function readPoolsRecord(vmss: VirtualMachineScaleSet, ref: ScaleSetRef): PoolBinding[] {
  const chunks: string[] = [];
  for (let i = 0; vmss.tags?.[`${TAG_DISABLED_POOLS}${i}`] !== undefined; i++)
    chunks.push(vmss.tags[`${TAG_DISABLED_POOLS}${i}`]);
  try {
    const rows = JSON.parse(chunks.join("")) as unknown;
    if (!Array.isArray(rows)) throw new Error("not a list");
    return rows.map((r) => {
      if (
        !Array.isArray(r) ||
        r.length !== 4 ||
        !r.every((x) => typeof x === "string") ||
        (r[2] !== "lb" && r[2] !== "agw")
      ) {
        throw new Error("malformed entry");
      }
      return { nic: r[0], ipConfig: r[1], kind: r[2], id: expandId(r[3], ref.subscriptionId) };
    });
  } catch (err) {
    throw new RefusalError(
      "DisabledRecordUnreadable",
      `tags ${TAG_DISABLED_POOLS}* on ${ref.name} do not hold a readable pool record (${(err as Error).message}); fix or remove them by hand`,
    );
  }
}

export function withCapacityRecord(tags: Tags | undefined, capacity: number): Tags {
  return { ...withoutDisabledRecord(tags), [TAG_DISABLED]: "capacity", [TAG_DISABLED_CAPACITY]: String(capacity) };
}

export function readCapacityRecord(vmss: VirtualMachineScaleSet): number | undefined {
  return tagInt(vmss.tags, TAG_DISABLED_CAPACITY);
}

// ---- rolling a network change out to the VMs ----

export function isManualUpgrade(vmss: VirtualMachineScaleSet): boolean {
  return kindOf(vmss).upgrade === "Manual";
}

/**
 * VMs that still serve traffic from other pools than the model says (under a Manual upgrade policy Azure
 * leaves them as they were). A VM that reports no network configuration is judged by latestModelApplied.
 */
export function vmsBehindModel(snapshot: ScaleSetSnapshot): string[] {
  const modelPools = trafficPools(snapshot.vmss);
  return (snapshot.vms ?? [])
    .filter(isActionableInstance)
    .filter((vm) => {
      const pools = vmTrafficPools(vm);
      return pools ? !samePools(pools, modelPools) : vm.latestModelApplied === false;
    })
    .map((vm) => vm.instanceId!)
    .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
}

// ---- results ----

export interface ServerGroupResult {
  type: "serverGroup";
  account: string;
  region: string;
  resourceGroup: string;
  serverGroupName: string;
  /**
   * As Azure confirmed it after the operation, never as requested: when Azure could not confirm the model (a
   * Failed scale set), desired is the number of instances it lists as running, and the model's is requestedCapacity.
   */
  capacity: Capacity;
  disabled: boolean;
  /** Instances Azure lists as running (not being created, deleted, or Failed), when the VMs were read. */
  instanceCount?: number;
  /**
   * Those instances by id (a Flexible set's: VM names), as Azure lists them. After a scale-in these are the ones
   * Azure's scale-in policy kept: which VMs go is Azure's choice, read here, never predicted.
   */
  instanceIds?: string[];
  /**
   * A partial disable's (desiredPercentage below 100): the instances serving no traffic afterwards, by the name Orca
   * reads, which its WaitForRequiredInstancesDownTask waits to see down (as clouddriver-aws reports them).
   */
  instanceIdsToDisable?: string[];
  /** Present, and false, when Azure did not confirm the model: the scale set is not Succeeded or its VMs disagree. */
  confirmed?: false;
  /** The capacity in the model when it was not confirmed: what was asked, not what runs. */
  requestedCapacity?: number;
  provisioningState?: string;
  etag?: string;
}

export function serverGroupResult(snapshot: ScaleSetSnapshot, ref: ScaleSetRef): ServerGroupResult {
  const recorded = recordedCapacity(snapshot.vmss);
  const confirmed = snapshot.vms ? confirmation(snapshot) : undefined;
  const unconfirmed = confirmed !== undefined && !confirmed.confirmed;
  return {
    type: "serverGroup",
    account: ref.account,
    region: ref.region,
    resourceGroup: ref.resourceGroup,
    serverGroupName: ref.name,
    capacity: unconfirmed ? { ...recorded, desired: confirmed.instances } : recorded,
    disabled: disabledBy(snapshot.vmss) !== undefined,
    ...(confirmed
      ? { instanceCount: confirmed.instances, instanceIds: runningInstances(snapshot).map((vm) => vm.instanceId!) }
      : {}),
    ...(unconfirmed ? { confirmed: false as const, requestedCapacity: recorded.desired } : {}),
    provisioningState: snapshot.vmss.provisioningState,
    etag: snapshot.etag,
  };
}

/** destroyServerGroup's result: the scale set is gone, as Azure answered a read of it. */
export interface DestroyedServerGroupResult {
  type: "destroyedServerGroup";
  account: string;
  region: string;
  resourceGroup: string;
  serverGroupName: string;
  /** This task's delete removed it; false: it was gone before (deleted elsewhere, or never created). */
  deletedByThisTask: boolean;
  /** What Azure answered when asked for it afterwards, e.g. "GET 404 ResourceNotFound". */
  confirmedBy: string;
}

/** createServerGroup's result: the server group as Azure confirmed it, named the ways Orca reads a deploy. */
export interface CreatedServerGroupResult extends Omit<ServerGroupResult, "type"> {
  type: "createdServerGroup";
  /** `region:name`: what Orca's MonitorKatoTask turns into `deploy.server.groups` (MonitorKatoTask.groovy l.155-156, l.287-301). */
  serverGroupNames: string[];
  serverGroupNameByRegion: Record<string, string>;
  /** clouddriver-azure's own deploy result (CreateAzureServerGroupAtomicOperation.groovy l.293-294). */
  serverGroups: Record<string, { name: string }>;
  /** The cluster's latest server group before this one (AbstractServerGroupNameResolver.groovy l.75-77). */
  ancestorServerGroupNameByRegion?: Record<string, string>;
  /** The backend pools it serves from when in traffic (recorded for enable while it is out of traffic). */
  loadBalancerPools: string[];
  /** A clone: the source's fields Azure never returns on a read and the body did not give, not copied. */
  notCopied?: string[];
}

export type OperationResult = ServerGroupResult | DestroyedServerGroupResult | CreatedServerGroupResult;

/** The task's last line for one finished operation. */
export function describeResult(result: OperationResult): string {
  if (result.type === "destroyedServerGroup") {
    return `${result.serverGroupName} ${result.deletedByThisTask ? "is deleted" : "was already gone"}, as Azure confirmed (${result.confirmedBy})`;
  }
  const { capacity } = result;
  if (result.type === "createdServerGroup") {
    return `created ${result.serverGroupName}: capacity ${capacity.desired} (min ${capacity.min}, max ${capacity.max}), ${result.instanceCount ?? 0} instance(s) running, ${result.disabled ? "out of traffic" : "in traffic"}, as Azure confirmed`;
  }
  if (result.confirmed === false) {
    // Not confirmed (an evicted Spot VM is listed but does not run): the count is what runs, not the model's.
    return `${result.serverGroupName} has ${capacity.desired} instance(s) running of capacity ${result.requestedCapacity} (min ${capacity.min}, max ${capacity.max})${result.disabled ? ", disabled" : ""}, as Azure lists them`;
  }
  return `${result.serverGroupName} has capacity ${capacity.desired} (min ${capacity.min}, max ${capacity.max})${result.disabled ? ", disabled" : ""}, as Azure confirmed`;
}
