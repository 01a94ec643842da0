// The simulator's whole world as one document, and the world made again from it: what `vmss-sim --state DIR` keeps
// (state-dir.ts writes and reads it). It holds every resource the simulator serves (resource groups, scale sets with
// their VMs, Flexible VMs' NICs, networks, balancers, gateways, security groups, public IPs, identities, locks,
// deployments, autoscale settings, proximity and capacity reservation groups, managed images, key vaults' secrets), each with its ETag counter and
// provisioning state, the long-running operations (in flight and finished, as their status URLs answer), the
// rollouts, what the control API set on the subscription, Entra ID's registered clients and signing keys, and the
// simulator's clock when it was written.
//
// Not kept, by choice (docs/simulator.md, "State that survives a restart"): the settings (the command line's, each
// start), faults, the call log, the throttling buckets (full again).
//
// Records refer to each other by object (a scale set's operation in flight is the one in the operation table, a VM's
// locks and NICs are keyed by the VM): the document names them by id, and restoring joins them up again.
import { autoscalePeriodicOff } from "./autoscale/autoscale-run.ts";
import { AutoscaleState, autoscaleWorlds } from "./autoscale/autoscale-state.ts";
import { capacityReservationGroupWorlds } from "./capacity-reservation-groups.ts";
import { deploymentWorlds } from "./deployments.ts";
import { nicKey, type Nic } from "./flexible.ts";
import { repairsSuspended } from "./kinds.ts";
import { keyVaultWorlds } from "./keyvault/secrets.ts";
import { groupLocks, recordLocks } from "./locks.ts";
import type { Operation } from "./lro.ts";
import { identityWorlds } from "./managed-identities.ts";
import { networkOperationWorlds } from "./network/network-interfaces.ts";
import { NETWORK_TYPES, NetworkState, networkWorlds, type NetworkResource } from "./network/network-state.ts";
import { managedImageWorlds } from "./managed-images.ts";
import { proximityPlacementGroupWorlds } from "./proximity-placement-groups.ts";
import { afterWrite, rollouts, type Rollout } from "./rollout.ts";
import type { SimState } from "./state.ts";
import { subscriptionSettingsWorlds } from "./subscription-reads.ts";
import type { SavedEntraId } from "./token-endpoint.ts";
import { scaleSetKey, type ScaleSet, type Vm } from "./vmss-model.ts";

/** The document's format: a simulator refuses a directory written in another. */
export const SNAPSHOT_FORMAT = "vmss-simulator-state/1";

/** The stores kept per world in a table of their own module, kept and restored as they are. */
const PER_WORLD_STORES = {
  deployments: deploymentWorlds,
  managedIdentities: identityWorlds,
  proximityPlacementGroups: proximityPlacementGroupWorlds,
  capacityReservationGroups: capacityReservationGroupWorlds,
  managedImages: managedImageWorlds,
  keyVaults: keyVaultWorlds,
  subscriptionSettings: subscriptionSettingsWorlds,
  networkOperations: networkOperationWorlds,
  resourceGroupLocks: groupLocks,
} satisfies Record<string, WeakMap<SimState, unknown>>;

type LockTable = ReturnType<typeof recordLocks.get>;

interface SavedScaleSet extends Omit<ScaleSet, "inFlight" | "vms"> {
  /** The id of its operation in flight (one of `operations`). */
  inFlight: string | null;
  vms: Vm[];
  /** Flexible: each VM's NICs (keys of `nics`), in the model's order. */
  vmNics: Record<string, string[]>;
  locks?: LockTable;
  vmLocks: Record<string, LockTable>;
  rolloutAfterWrite: boolean;
  repairsSuspended: boolean;
  rollout?: Rollout;
}

export interface WorldSnapshot {
  format: typeof SNAPSHOT_FORMAT;
  /** The simulator's clock when it was written (ms since the epoch). */
  savedAt: number;
  subscriptionId: string;
  /** Whether the world was seeded: what a reset goes back to, and what the stores made on first use start with. */
  seeded: boolean;
  resourceGroups: [string, string][];
  operations: Operation[];
  scaleSets: SavedScaleSet[];
  nics: Nic[];
  network?: { resources: NetworkResource[]; probeFailures: string[] };
  autoscale?: {
    settings: ReturnType<AutoscaleState["list"]>;
    metrics: ReturnType<AutoscaleState["metrics"]>;
    lastScaleAction: [string, number][];
    evaluations: AutoscaleState["evaluations"];
    lastEvaluationAt?: number;
  };
  autoscalePeriodicOff: boolean;
  /** The simulated Entra ID's registered clients and APIs and its signing keys: a login survives a restart. */
  identity?: SavedEntraId;
  /** PER_WORLD_STORES' contents, absent where the store was never made. */
  stores: Partial<Record<keyof typeof PER_WORLD_STORES, unknown>>;
}

/** The world of `state` as a document (Maps, Sets and ±Infinity are encoded by encodeJson). */
export function snapshotWorld(state: SimState, seeded: boolean, identity?: SavedEntraId): WorldSnapshot {
  const stores: WorldSnapshot["stores"] = {};
  for (const [name, store] of Object.entries(PER_WORLD_STORES)) {
    const value: unknown = store.get(state);
    if (value !== undefined) stores[name as keyof typeof PER_WORLD_STORES] = value;
  }
  return {
    format: SNAPSHOT_FORMAT,
    savedAt: state.now(),
    subscriptionId: state.subscriptionId,
    seeded,
    resourceGroups: [...state.resourceGroups],
    operations: [...state.operations.values()],
    scaleSets: [...state.scaleSets.values()].map((ss) => savedScaleSet(state, ss)),
    nics: [...state.nics.values()],
    ...networkSnapshot(state),
    ...autoscaleSnapshot(state),
    autoscalePeriodicOff: autoscalePeriodicOff.has(state),
    ...(identity ? { identity } : {}),
    stores,
  };
}

function savedScaleSet(state: SimState, ss: ScaleSet): SavedScaleSet {
  const vms = [...ss.vms.values()];
  const vmNics: Record<string, string[]> = {};
  const vmLocks: Record<string, LockTable> = {};
  for (const vm of vms) {
    const nics = state.nicsOf(vm);
    if (nics.length > 0) vmNics[vm.instanceId] = nics.map((n) => nicKey(n.resourceGroup, n.name));
    const locks = recordLocks.get(vm);
    if (locks) vmLocks[vm.instanceId] = locks;
  }
  const locks = recordLocks.get(ss);
  const rollout = rollouts.get(ss);
  return {
    ...ss,
    inFlight: ss.inFlight?.id ?? null,
    vms,
    vmNics,
    ...(locks ? { locks } : {}),
    vmLocks,
    rolloutAfterWrite: afterWrite.has(ss),
    repairsSuspended: repairsSuspended.has(ss),
    ...(rollout ? { rollout } : {}),
  };
}

function networkSnapshot(state: SimState): Pick<WorldSnapshot, "network"> {
  const net = networkWorlds.get(state);
  if (!net) return {};
  return {
    network: { resources: NETWORK_TYPES.flatMap((type) => net.list(type)), probeFailures: [...net.probeFailures] },
  };
}

function autoscaleSnapshot(state: SimState): Pick<WorldSnapshot, "autoscale"> {
  const as = autoscaleWorlds.get(state);
  if (!as) return {};
  return {
    autoscale: {
      settings: as.list(),
      metrics: as.metrics(),
      lastScaleAction: [...as.lastScaleAction],
      evaluations: as.evaluations,
      ...(as.lastEvaluationAt !== undefined ? { lastEvaluationAt: as.lastEvaluationAt } : {}),
    },
  };
}

/** Makes `state` (empty, just constructed) the world the document describes. */
export function restoreWorld(state: SimState, snapshot: WorldSnapshot): void {
  for (const [key, name] of snapshot.resourceGroups) state.resourceGroups.set(key, name);
  for (const op of snapshot.operations) state.operations.set(op.id.toLowerCase(), op);
  for (const nic of snapshot.nics) state.nics.set(nicKey(nic.resourceGroup, nic.name), nic);
  for (const saved of snapshot.scaleSets) restoreScaleSet(state, saved);
  for (const [name, value] of Object.entries(snapshot.stores)) {
    if (value !== undefined)
      (PER_WORLD_STORES[name as keyof typeof PER_WORLD_STORES] as WeakMap<SimState, unknown>).set(state, value);
  }
  if (snapshot.network) restoreNetwork(state, snapshot.network);
  if (snapshot.autoscale) restoreAutoscale(state, snapshot.autoscale);
  if (snapshot.autoscalePeriodicOff) autoscalePeriodicOff.add(state);
}

function restoreScaleSet(state: SimState, saved: SavedScaleSet): void {
  const {
    inFlight,
    vms,
    vmNics,
    locks,
    vmLocks,
    rolloutAfterWrite,
    repairsSuspended: suspended,
    rollout,
    ...record
  } = saved;
  const ss: ScaleSet = {
    ...record,
    inFlight: inFlight === null ? null : (state.getOperation(inFlight) ?? null),
    vms: new Map(vms.map((vm) => [vm.instanceId, vm])),
  };
  for (const vm of vms) {
    const nics = (vmNics[vm.instanceId] ?? []).map((key) => state.nics.get(key)).filter((n) => n !== undefined);
    if (nics.length > 0) state.restoreNicsOf(vm, nics);
    if (vmLocks[vm.instanceId]) recordLocks.set(vm, vmLocks[vm.instanceId]!);
  }
  if (locks) recordLocks.set(ss, locks);
  if (rolloutAfterWrite) afterWrite.add(ss);
  if (suspended) repairsSuspended.add(ss);
  // The rollout's write is the operation of that id where it is still in the table (it is the same record there).
  if (rollout) rollouts.set(ss, { ...rollout, op: state.getOperation(rollout.op.id) ?? rollout.op });
  state.scaleSets.set(scaleSetKey(ss.resourceGroup, ss.name), ss);
}

function restoreNetwork(state: SimState, saved: NonNullable<WorldSnapshot["network"]>): void {
  const net = new NetworkState();
  for (const r of saved.resources)
    net.put(r.type, r.resourceGroup, r.name, r.location, r.body).resource.version = r.version;
  for (const key of saved.probeFailures) net.probeFailures.add(key);
  networkWorlds.set(state, net);
}

function restoreAutoscale(state: SimState, saved: NonNullable<WorldSnapshot["autoscale"]>): void {
  const as = new AutoscaleState();
  for (const setting of saved.settings) as.put(setting);
  for (const m of saved.metrics) as.setMetric(m.resourceUri, m.metricName, m.value);
  for (const [target, at] of saved.lastScaleAction) as.lastScaleAction.set(target, at);
  as.evaluations.push(...saved.evaluations);
  as.lastEvaluationAt = saved.lastEvaluationAt;
  autoscaleWorlds.set(state, as);
}

// ---- JSON with Maps, Sets and infinities ----

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * `value` as JSON: a Map becomes `{"$map": [[key, value], …]}`, a Set `{"$set": […]}`, ±Infinity and NaN
 * `{"$number": "Infinity"}` (a VM created long ago has been running since -Infinity); undefined members are dropped.
 */
export function encodeJson(value: unknown): Json {
  if (value instanceof Map) return { $map: [...value].map(([k, v]) => [encodeJson(k), encodeJson(v)]) };
  if (value instanceof Set) return { $set: [...value].map(encodeJson) };
  if (typeof value === "number") return Number.isFinite(value) ? value : { $number: String(value) };
  if (Array.isArray(value)) return value.map(encodeJson);
  if (value !== null && typeof value === "object") {
    const out: Record<string, Json> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = encodeJson(v);
    return out;
  }
  if (value === undefined || typeof value === "function" || typeof value === "symbol" || typeof value === "bigint")
    return null;
  return value as string | boolean | null;
}

/** The inverse of encodeJson. */
export function decodeJson(value: Json): unknown {
  if (Array.isArray(value)) return value.map(decodeJson);
  if (value === null || typeof value !== "object") return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === "$map" && Array.isArray(value.$map))
    return new Map(value.$map.map((pair) => (pair as Json[]).map(decodeJson) as [unknown, unknown]));
  if (keys.length === 1 && keys[0] === "$set" && Array.isArray(value.$set)) return new Set(value.$set.map(decodeJson));
  if (keys.length === 1 && keys[0] === "$number" && typeof value.$number === "string") return Number(value.$number);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = decodeJson(v);
  return out;
}
