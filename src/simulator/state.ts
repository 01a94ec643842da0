// The simulator's world: resource groups, scale sets with their VMs, and the long-running operations on them.
// Writes through ARM are accepted now and applied when their operation completes (see acceptWrite / completeOperation).
import { randomUUID } from "node:crypto";
import { clone, isObject, type JsonObject } from "./json.ts";
import {
  appliedSignature,
  capacityOf,
  currentApplied,
  etagOf,
  newVm,
  scaleSetKey,
  sortedVms,
  upgradeModeOf,
  type ScaleSet,
  type VersionRecord,
} from "./vmss-model.ts";

export interface SimSettings {
  /** How long after acceptance a write completes; 0 = before the response is sent. */
  writeDurationMs: number;
  /** The poll interval advertised in Retry-After / retry-after-ms (capped by the time left). */
  pollHintMs: number;
  /** VMs per page of `GET …/virtualMachines`. */
  vmPageSize: number;
}

export type OperationKind = "createOrUpdate" | "update" | "deleteInstances" | "updateInstances" | "delete";
export type OperationStatus = "InProgress" | "Succeeded" | "Failed";

export interface OperationFailure {
  code: string;
  message: string;
  /** HTTP status the Location (operationResults) URL answers for this failure; default 500. */
  status?: number;
}

export interface Operation {
  id: string;
  kind: OperationKind;
  scaleSetKey: string;
  subscriptionId: string;
  location: string;
  startedAt: number;
  completesAt: number;
  status: OperationStatus;
  endTime?: number;
  error?: { code: string; message: string };
  /** Set by a failOperation fault: the operation ends Failed with this error and applies nothing. */
  failWith?: OperationFailure;
  /** PUT that created the scale set: while in flight it shows `Creating`; if it fails the scale set disappears. */
  isCreate: boolean;
  /** PUT/PATCH: the complete model that is applied at completion. */
  newModel?: JsonObject;
  ifMatch?: string | null;
  /** deleteInstances / updateInstances: the instance ids (already validated). */
  instanceIds?: string[];
  timer?: NodeJS.Timeout;
}

export interface OperationSpec {
  kind: OperationKind;
  /** The If-Match the write carried, for the version history. */
  ifMatch?: string | null;
  newModel?: JsonObject;
  instanceIds?: string[];
  failWith?: OperationFailure;
}

/** `current` tags with `change` merged in; a null value removes that tag. */
export function mergeTags(current: unknown, change: Record<string, string | null>): Record<string, string> {
  const out: Record<string, string> = isObject(current) ? { ...(current as Record<string, string>) } : {};
  for (const [name, value] of Object.entries(change)) {
    if (value === null) delete out[name];
    else out[name] = value;
  }
  return out;
}

/** Finished operations kept for status polls; older ones are forgotten. */
const MAX_FINISHED_OPERATIONS = 10_000;

/** Versions kept per scale set. */
const MAX_VERSIONS = 1000;

export class SimState {
  readonly subscriptionId: string;
  readonly settings: SimSettings;
  /** lower-case name → name as first written */
  readonly resourceGroups = new Map<string, string>();
  readonly scaleSets = new Map<string, ScaleSet>();
  readonly operations = new Map<string, Operation>();
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #now: () => number;

  constructor(subscriptionId: string, settings: SimSettings, now: () => number = Date.now) {
    this.subscriptionId = subscriptionId;
    this.settings = settings;
    this.#now = now;
  }

  now(): number {
    return this.#now();
  }

  // ---- lookups ----

  isSubscription(subscriptionId: string): boolean {
    return subscriptionId.toLowerCase() === this.subscriptionId.toLowerCase();
  }

  resourceGroupName(resourceGroup: string): string | undefined {
    return this.resourceGroups.get(resourceGroup.toLowerCase());
  }

  ensureResourceGroup(resourceGroup: string): string {
    const key = resourceGroup.toLowerCase();
    let name = this.resourceGroups.get(key);
    if (name === undefined) {
      name = resourceGroup;
      this.resourceGroups.set(key, name);
    }
    return name;
  }

  getScaleSet(resourceGroup: string, name: string): ScaleSet | undefined {
    return this.scaleSets.get(scaleSetKey(resourceGroup, name));
  }

  listScaleSets(resourceGroup?: string): ScaleSet[] {
    const all = [...this.scaleSets.values()];
    const filtered = resourceGroup === undefined ? all : all.filter((ss) => ss.resourceGroup.toLowerCase() === resourceGroup.toLowerCase());
    return filtered.sort((a, b) => scaleSetKey(a.resourceGroup, a.name).localeCompare(scaleSetKey(b.resourceGroup, b.name)));
  }

  getOperation(id: string): Operation | undefined {
    return this.operations.get(id.toLowerCase());
  }

  // ---- writes made at once (control API, seed) ----

  /** Creates or replaces a scale set with `capacity(model)` running VMs, applied at once. */
  putScaleSetNow(resourceGroup: string, name: string, location: string, model: JsonObject): { scaleSet: ScaleSet; created: boolean } {
    const rg = this.ensureResourceGroup(resourceGroup);
    const key = scaleSetKey(rg, name);
    const previous = this.scaleSets.get(key);
    const now = this.now();
    const ss: ScaleSet = {
      subscriptionId: this.subscriptionId,
      resourceGroup: previous?.resourceGroup ?? rg,
      name: previous?.name ?? name,
      location,
      uniqueId: randomUUID(),
      timeCreated: new Date(now).toISOString(),
      model: clone(model),
      // A replacement keeps counting, so an ETag read before the replacement never matches again.
      version: (previous?.version ?? 0) + 1,
      vms: new Map(),
      nextInstanceId: 0,
      inFlight: null,
      versions: previous?.versions ?? [],
    };
    this.#reconcileCapacity(ss, now);
    this.scaleSets.set(key, ss);
    this.#recordVersion(ss, { source: "control" }, previous ? etagOf(previous) : null);
    return { scaleSet: ss, created: previous === undefined };
  }

  /**
   * An out-of-band change (another writer): applied at once, VMs created/removed at once, ETag bumped.
   * Tags merge into the current ones (a null value removes that tag).
   */
  patchScaleSetNow(
    ss: ScaleSet,
    change: { capacity?: number; tags?: Record<string, string | null>; nicTags?: Record<string, string | null> },
    source: "control" | "outOfBandChange" = "control",
  ): void {
    const before = etagOf(ss);
    if (change.tags !== undefined) ss.model.tags = mergeTags(ss.model.tags, change.tags);
    if (change.nicTags !== undefined) {
      const profile = (ss.model.properties as JsonObject | undefined)?.virtualMachineProfile as JsonObject | undefined;
      const nics = ((profile?.networkProfile as JsonObject | undefined)?.networkInterfaceConfigurations ?? []) as JsonObject[];
      for (const nic of nics) nic.tags = mergeTags(nic.tags, change.nicTags);
    }
    if (change.capacity !== undefined) {
      ss.model.sku = { ...(isObject(ss.model.sku) ? ss.model.sku : {}), capacity: change.capacity };
      this.#reconcileCapacity(ss, this.now());
    }
    ss.version++;
    this.#recordVersion(ss, { source }, before);
  }

  deleteScaleSetNow(ss: ScaleSet): void {
    if (ss.inFlight) this.#finish(ss.inFlight, { code: "OperationPreempted", message: "The scale set was deleted." });
    this.scaleSets.delete(scaleSetKey(ss.resourceGroup, ss.name));
  }

  // ---- writes through ARM: long-running operations ----

  /** Starts a new scale set that exists (as `Creating`, without VMs) until its create operation completes. */
  createPending(resourceGroup: string, name: string, location: string, model: JsonObject): ScaleSet {
    const rg = this.ensureResourceGroup(resourceGroup);
    const now = this.now();
    const ss: ScaleSet = {
      subscriptionId: this.subscriptionId,
      resourceGroup: rg,
      name,
      location,
      uniqueId: randomUUID(),
      timeCreated: new Date(now).toISOString(),
      model: clone(model),
      version: 1,
      vms: new Map(),
      nextInstanceId: 0,
      inFlight: null,
      versions: [],
    };
    this.scaleSets.set(scaleSetKey(rg, name), ss);
    return ss;
  }

  /**
   * Accepts a write: records the in-flight operation on the scale set and schedules its completion
   * `writeDurationMs` from now (at once when 0). deleteInstances marks its VMs `Deleting` now.
   */
  acceptWrite(ss: ScaleSet, spec: OperationSpec, isCreate = false): Operation {
    const now = this.now();
    const op: Operation = {
      id: randomUUID(),
      kind: spec.kind,
      scaleSetKey: scaleSetKey(ss.resourceGroup, ss.name),
      subscriptionId: ss.subscriptionId,
      location: ss.location,
      startedAt: now,
      completesAt: now + this.settings.writeDurationMs,
      status: "InProgress",
      failWith: spec.failWith,
      isCreate,
      newModel: spec.newModel ? clone(spec.newModel) : undefined,
      ifMatch: spec.ifMatch,
      instanceIds: spec.instanceIds ? [...spec.instanceIds] : undefined,
    };
    this.operations.set(op.id.toLowerCase(), op);
    this.#pruneOperations();
    ss.inFlight = op;
    if (op.kind === "delete") {
      for (const vm of ss.vms.values()) vm.provisioningState = "Deleting";
    }
    if (op.kind === "deleteInstances") {
      for (const id of op.instanceIds ?? []) {
        const vm = ss.vms.get(id);
        if (vm) vm.provisioningState = "Deleting";
      }
    }
    if (this.settings.writeDurationMs <= 0) {
      this.completeOperation(op);
    } else {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        op.timer = undefined;
        this.completeOperation(op);
      }, this.settings.writeDurationMs);
      timer.unref();
      op.timer = timer;
      this.#timers.add(timer);
    }
    return op;
  }

  /** Completes every operation that is due. Called before each request so reads never see a late timer. */
  settle(): void {
    const now = this.now();
    for (const ss of this.scaleSets.values()) {
      if (ss.inFlight && ss.inFlight.completesAt <= now) this.completeOperation(ss.inFlight);
    }
  }

  /** Ends an operation: applies its write, or (failOperation fault) applies nothing and ends Failed. */
  completeOperation(op: Operation): void {
    if (op.status !== "InProgress") return;
    const ss = this.scaleSets.get(op.scaleSetKey);
    if (!ss || ss.inFlight !== op) {
      this.#finish(op, { code: "OperationPreempted", message: "The scale set changed before the operation completed." });
      return;
    }
    const now = this.now();
    if (op.failWith) {
      // Nothing is applied: VMs marked for deletion stay, a scale set being created disappears.
      for (const vm of ss.vms.values()) if (vm.provisioningState === "Deleting") vm.provisioningState = "Succeeded";
      ss.inFlight = null;
      if (op.isCreate) this.scaleSets.delete(op.scaleSetKey);
      this.#finish(op, { code: op.failWith.code, message: op.failWith.message });
      return;
    }
    switch (op.kind) {
      case "createOrUpdate":
      case "update": {
        const before = etagOf(ss);
        this.#applyModel(ss, op.newModel ?? ss.model, now);
        ss.version++;
        this.#recordVersion(ss, { source: "arm", kind: op.kind, ifMatch: op.ifMatch ?? null }, before);
        break;
      }
      case "deleteInstances": {
        let removed = 0;
        for (const id of op.instanceIds ?? []) if (ss.vms.delete(id)) removed++;
        const sku = isObject(ss.model.sku) ? ss.model.sku : {};
        const before = etagOf(ss);
        ss.model.sku = { ...sku, capacity: Math.max(0, capacityOf(ss.model) - removed) };
        ss.version++;
        this.#recordVersion(ss, { source: "arm", kind: op.kind, ifMatch: op.ifMatch ?? null }, before);
        break;
      }
      case "delete": {
        this.scaleSets.delete(op.scaleSetKey);
        break;
      }
      case "updateInstances": {
        const applied = currentApplied(ss);
        for (const id of op.instanceIds ?? []) {
          const vm = ss.vms.get(id);
          if (!vm) continue;
          vm.applied = clone(applied);
          vm.latestModelApplied = true;
        }
        break;
      }
    }
    ss.inFlight = null;
    this.#finish(op);
  }

  #recordVersion(ss: ScaleSet, who: { source: VersionRecord["source"]; kind?: string; ifMatch?: string | null }, previousEtag: string | null): void {
    const tags = isObject(ss.model.tags) ? (clone(ss.model.tags) as Record<string, string>) : {};
    ss.versions.push({ etag: etagOf(ss), capacity: capacityOf(ss.model), tags, ...who, previousEtag, time: this.now() });
    if (ss.versions.length > MAX_VERSIONS) ss.versions.splice(0, ss.versions.length - MAX_VERSIONS);
  }

  /** Time until the operation completes (0 when done). */
  remainingMs(op: Operation): number {
    return op.status === "InProgress" ? Math.max(0, op.completesAt - this.now()) : 0;
  }

  /** The poll hint for an operation: min(pollHintMs, time left), at least 1 ms. */
  pollHintMs(op: Operation): number {
    return Math.max(1, Math.min(this.settings.pollHintMs, this.remainingMs(op)));
  }

  /** Removes every scale set, resource group and operation, and stops every timer. */
  clear(): void {
    this.stopTimers();
    for (const op of this.operations.values()) op.timer = undefined;
    this.operations.clear();
    this.scaleSets.clear();
    this.resourceGroups.clear();
  }

  stopTimers(): void {
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  get pendingTimers(): number {
    return this.#timers.size;
  }

  // ---- internals ----

  #finish(op: Operation, error?: { code: string; message: string }): void {
    if (op.timer) {
      clearTimeout(op.timer);
      this.#timers.delete(op.timer);
      op.timer = undefined;
    }
    op.status = error ? "Failed" : "Succeeded";
    op.endTime = this.now();
    if (error) op.error = error;
  }

  /** A model change reaches existing VMs at once under Automatic/Rolling; under Manual they keep theirs until manualupgrade. */
  #applyModel(ss: ScaleSet, model: JsonObject, now: number): void {
    const before = appliedSignature(currentApplied(ss));
    ss.model = clone(model);
    const after = currentApplied(ss);
    const afterSignature = appliedSignature(after);
    if (before !== afterSignature) {
      const manual = upgradeModeOf(ss.model) === "Manual";
      for (const vm of ss.vms.values()) {
        if (manual) {
          vm.latestModelApplied = appliedSignature(vm.applied) === afterSignature;
        } else {
          vm.applied = clone(after);
          vm.latestModelApplied = true;
        }
      }
    }
    this.#reconcileCapacity(ss, now);
  }

  /** Creates VMs (next unused ids) or removes the highest ids until the VM count equals sku.capacity. */
  #reconcileCapacity(ss: ScaleSet, now: number): void {
    const target = capacityOf(ss.model);
    while (ss.vms.size < target) {
      const vm = newVm(ss, now);
      ss.vms.set(vm.instanceId, vm);
    }
    if (ss.vms.size > target) {
      const excess = sortedVms(ss).slice(target);
      for (const vm of excess) ss.vms.delete(vm.instanceId);
    }
  }

  #pruneOperations(): void {
    if (this.operations.size <= MAX_FINISHED_OPERATIONS) return;
    for (const [key, op] of this.operations) {
      if (this.operations.size <= MAX_FINISHED_OPERATIONS) break;
      if (op.status !== "InProgress") this.operations.delete(key);
    }
  }
}
