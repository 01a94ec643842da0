// The simulator's world: resource groups, scale sets with their VMs, and the long-running operations on them.
//
// As in Azure, a write takes effect when it is accepted (vmss-update recording, entries 11–13): the model is the
// requested one at once, the ETag is already the new one, the scale set reads `Updating` (`Creating`, `Deleting`),
// new VMs are listed `Creating` and removed ones `Deleting`. Completion only settles the VMs and the state: `Succeeded`,
// or `Failed` — and a failed write is not rolled back: the requested model stays, VMs that could not be allocated stay
// listed `Failed`, and the scale set stays `Failed` until a later write succeeds.
//
// There are no timers: operations that are due complete when the simulator is next asked anything (settle()), so a
// test clock (`now`) decides everything. What happens is scheduled on that clock, never on when a client looks: an
// operation due at T ends at T (its endTime), and a preemption due before the end happens at its own time, however
// late the next request comes.
import { randomUUID } from "node:crypto";
import type { ScaleSetChange } from "./fault-specs.ts";
import { nicKey, nicsForNewVm, type Nic } from "./flexible.ts";
import { clone, isObject, mergePatch, type JsonObject } from "./json.ts";
import { advanceRollout, moveDueBatches, rolloutAfterWrite, startRollout } from "./rollout.ts";
import { scaleInVictims } from "./scale-in.ts";
import { isPowerAction, powerStateAfter, powerStateDuring, type PowerAction, type PowerState } from "./power-state.ts";
import {
  ALLOCATION_FAILED_MESSAGE,
  PREEMPTED,
  type Operation,
  type OperationError,
  type OperationFailure,
  type OperationKind,
} from "./lro.ts";
import { scaledMs, writeDurationOf, type SimulatorSettings, type WriteKind } from "./settings.ts";
import {
  appliedSignature,
  applyModelTo,
  capacityOf,
  currentApplied,
  etagOf,
  isFlexible,
  newVm,
  rollingBatchPercentOf,
  scaleSetKey,
  sortedVms,
  upgradeModeOf,
  type ScaleSet,
  type VersionRecord,
  type Vm,
} from "./vmss-model.ts";

export interface OperationSpec {
  kind: OperationKind;
  /** The If-Match the write carried, for the version history. */
  ifMatch?: string | null;
  /** PUT/PATCH: the complete model after the write. */
  newModel?: JsonObject;
  /** deleteInstances / updateInstances / updateVm: active instance ids (already validated). */
  instanceIds?: string[];
  /** updateVm: the instance's NIC configurations, taken when the operation succeeds. */
  vmNetwork?: unknown[];
  failWith?: OperationFailure;
  allocatable?: number;
  preempt?: { afterFraction: number; change: ScaleSetChange };
  /** failRollout fault: a Rolling set's rollout stops after half its batches and the write ends with failWith. */
  stopRollout?: boolean;
  source?: VersionRecord["source"];
}

/** What a write gets when another write is in flight on the same scale set (settings.concurrentWrites). */
export type InFlightAnswer = "free" | "conflict" | "preempt";

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

function writeKindOf(kind: OperationKind, isCreate: boolean): WriteKind {
  if (isCreate) return "create";
  if (kind === "createOrUpdate") return "update";
  // A VM's own PUT is a write of one instance, timed as the scale set's instance upgrades are.
  if (kind === "updateVm") return "updateInstances";
  if (isPowerAction(kind)) return "powerAction";
  return kind;
}

export class SimState {
  readonly subscriptionId: string;
  readonly settings: SimulatorSettings;
  /** lower-case name → name as first written */
  readonly resourceGroups = new Map<string, string>();
  readonly scaleSets = new Map<string, ScaleSet>();
  readonly operations = new Map<string, Operation>();
  /** Flexible VMs' NICs (Microsoft.Network/networkInterfaces), by resourcegroup/name in lower case. */
  readonly nics = new Map<string, Nic>();
  /** The NICs of each Flexible VM (its record), in the order of the model's NIC configurations. */
  readonly #nicsOfVm = new WeakMap<Vm, Nic[]>();
  readonly #now: () => number;
  /** While settle() plays an event that was due earlier: the time it happened at. */
  #eventTime: number | undefined;

  constructor(subscriptionId: string, settings: SimulatorSettings, now: () => number = Date.now) {
    this.subscriptionId = subscriptionId;
    this.settings = settings;
    this.#now = now;
  }

  now(): number {
    return this.#eventTime ?? this.#now();
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
    const filtered =
      resourceGroup === undefined
        ? all
        : all.filter((ss) => ss.resourceGroup.toLowerCase() === resourceGroup.toLowerCase());
    return filtered.sort((a, b) =>
      scaleSetKey(a.resourceGroup, a.name).localeCompare(scaleSetKey(b.resourceGroup, b.name)),
    );
  }

  getNic(resourceGroup: string, name: string): Nic | undefined {
    return this.nics.get(nicKey(resourceGroup, name));
  }

  /** A Flexible VM's NICs, in the order of the model's NIC configurations. */
  nicsOf(vm: Vm): Nic[] {
    return this.#nicsOfVm.get(vm) ?? [];
  }

  /** A restored Flexible VM gets its NICs back (world-snapshot.ts): they are already in `nics`. */
  restoreNicsOf(vm: Vm, nics: Nic[]): void {
    this.#nicsOfVm.set(vm, nics);
  }

  /** The Flexible scale set and VM with this name in the resource group (a Flexible VM's name is its instance id). */
  findFlexibleVm(resourceGroup: string, name: string): { ss: ScaleSet; vm: Vm } | undefined {
    for (const ss of this.listScaleSets(resourceGroup)) {
      if (!isFlexible(ss)) continue;
      for (const vm of ss.vms.values()) if (vm.instanceId.toLowerCase() === name.toLowerCase()) return { ss, vm };
    }
    return undefined;
  }

  getOperation(id: string): Operation | undefined {
    return this.operations.get(id.toLowerCase());
  }

  // ---- writes made at once (control API, seed) ----

  /** Creates or replaces a scale set with `capacity(model)` running VMs, applied at once. */
  putScaleSetNow(
    resourceGroup: string,
    name: string,
    location: string,
    model: JsonObject,
    /** Its creation time (ms since the epoch), when not now: a seed that stands for sets made earlier. */
    createdAt?: number,
  ): { scaleSet: ScaleSet; created: boolean } {
    const rg = this.ensureResourceGroup(resourceGroup);
    const key = scaleSetKey(rg, name);
    const previous = this.scaleSets.get(key);
    if (previous?.inFlight) this.#endPreempted(previous.inFlight);
    if (previous) for (const vm of [...previous.vms.values()]) this.#removeVm(previous, vm);
    const now = this.now();
    const ss: ScaleSet = {
      subscriptionId: this.subscriptionId,
      resourceGroup: previous?.resourceGroup ?? rg,
      name: previous?.name ?? name,
      location,
      uniqueId: randomUUID(),
      timeCreated: new Date(createdAt ?? now).toISOString(),
      model: clone(model),
      // A replacement keeps counting, so an ETag read before the replacement never matches again.
      version: (previous?.version ?? 0) + 1,
      vms: new Map(),
      nextInstanceId: 0,
      inFlight: null,
      provisioningState: "Succeeded",
      versions: previous?.versions ?? [],
    };
    this.#settleCapacityNow(ss, now);
    this.scaleSets.set(key, ss);
    this.#recordVersion(ss, { source: "control" }, previous ? etagOf(previous) : null);
    return { scaleSet: ss, created: previous === undefined };
  }

  /**
   * An out-of-band change that completed (another writer): applied at once, VMs created/removed at once (VMs that had
   * failed are allocated), ETag bumped, the scale set `Succeeded`. Tags merge into the current ones (null removes one).
   */
  patchScaleSetNow(ss: ScaleSet, change: ScaleSetChange, source: "control" | "outOfBandChange" = "control"): void {
    const before = etagOf(ss);
    ss.model = changedModel(ss.model, change);
    this.#settleCapacityNow(ss, this.now());
    ss.provisioningState = "Succeeded";
    ss.version++;
    this.#recordVersion(ss, { source }, before);
  }

  /**
   * The scale set's VMs made again at once, as its model now says (the control API's kind change between Uniform and
   * Flexible: the same capacity, as if the scale set had been created so). Instance ids and VM names start afresh.
   */
  remakeVmsNow(ss: ScaleSet): void {
    for (const vm of [...ss.vms.values()]) this.#removeVm(ss, vm);
    this.#settleCapacityNow(ss, this.now());
  }

  deleteScaleSetNow(ss: ScaleSet): void {
    if (ss.inFlight) this.#endPreempted(ss.inFlight);
    for (const vm of [...ss.vms.values()]) this.#removeVm(ss, vm);
    this.scaleSets.delete(scaleSetKey(ss.resourceGroup, ss.name));
  }

  // ---- writes through ARM: long-running operations ----

  /** A new scale set, `Creating` with ETag "1", until its create operation completes. */
  createPending(resourceGroup: string, name: string, location: string): ScaleSet {
    const rg = this.ensureResourceGroup(resourceGroup);
    const now = this.now();
    const ss: ScaleSet = {
      subscriptionId: this.subscriptionId,
      resourceGroup: rg,
      name,
      location,
      uniqueId: randomUUID(),
      timeCreated: new Date(now).toISOString(),
      model: {},
      version: 0,
      vms: new Map(),
      nextInstanceId: 0,
      inFlight: null,
      provisioningState: "Creating",
      versions: [],
    };
    this.scaleSets.set(scaleSetKey(rg, name), ss);
    return ss;
  }

  /** What a write on this scale set gets now, under settings.concurrentWrites. */
  inFlightAnswer(ss: ScaleSet | undefined): InFlightAnswer {
    const op = ss?.inFlight;
    if (!op) return "free";
    switch (this.settings.concurrentWrites) {
      case "conflict":
        return "conflict";
      case "preempt":
        return "preempt";
      case "conflictThenPreempt":
        return this.now() - op.startedAt < scaledMs(this.settings, this.settings.conflictWindowSeconds)
          ? "conflict"
          : "preempt";
    }
  }

  /**
   * Accepts a write and applies it now: the model, the ETag, the VMs' Creating/Deleting marks and the scale set's
   * state. A write still in flight on the scale set is preempted (the caller checked inFlightAnswer). The operation
   * completes `writeDurationOf(kind)` later — at once when that is 0.
   */
  acceptWrite(ss: ScaleSet, spec: OperationSpec, isCreate = false): Operation {
    const now = this.now();
    if (ss.inFlight) this.#endPreempted(ss.inFlight);
    const writeKind = writeKindOf(spec.kind, isCreate);
    const duration = writeDurationOf(this.settings, writeKind);
    const op: Operation = {
      id: randomUUID(),
      kind: spec.kind,
      writeKind,
      scaleSetKey: scaleSetKey(ss.resourceGroup, ss.name),
      subscriptionId: ss.subscriptionId,
      location: ss.location,
      startedAt: now,
      completesAt: now + duration,
      status: "InProgress",
      isCreate,
      polls: 0,
      ...(spec.failWith ? { failWith: spec.failWith } : {}),
      ...(spec.allocatable !== undefined ? { allocatable: spec.allocatable } : {}),
      ...(spec.preempt
        ? { preemptAt: now + duration * spec.preempt.afterFraction, preemptChange: spec.preempt.change }
        : {}),
      ...(spec.instanceIds ? { instanceIds: [...spec.instanceIds] } : {}),
      ...(spec.vmNetwork ? { vmNetwork: clone(spec.vmNetwork) } : {}),
    };
    this.operations.set(op.id.toLowerCase(), op);
    this.#pruneOperations();

    const before = isCreate ? null : etagOf(ss);
    let modelChanged = true;
    switch (spec.kind) {
      case "createOrUpdate":
      case "update":
        this.#acceptModel(ss, spec.newModel ?? ss.model, op, now);
        if (spec.stopRollout && op.rolling) {
          op.rolling.stopAfterBatches = Math.floor(Math.ceil(op.rolling.order.length / op.rolling.batchSize) / 2);
          // A rollout that outlives its write fails on its own; the write itself succeeds (rollout.ts).
          if (rolloutAfterWrite(ss) && op.failWith) {
            op.rolling.failure = { code: op.failWith.code, message: op.failWith.message };
            delete op.failWith;
          }
        }
        break;
      case "deleteInstances":
        markInstancesDeleting(ss, spec.instanceIds ?? []);
        break;
      case "delete":
        for (const vm of ss.vms.values()) vm.provisioningState = "Deleting";
        modelChanged = false;
        break;
      case "updateInstances":
        modelChanged = false;
        break;
      case "updateVm":
        // The VM's own ETag changes from acceptance on; the scale set's does not.
        for (const id of spec.instanceIds ?? []) {
          const vm = ss.vms.get(id);
          if (vm) vm.version = (vm.version ?? 1) + 1;
        }
        modelChanged = false;
        break;
      case "deallocate":
      case "powerOff":
      case "reimage":
      case "restart":
      case "start":
        op.powerBefore = markPowerTransition(ss, spec.kind, spec.instanceIds ?? []);
        modelChanged = false;
    }
    ss.provisioningState = isCreate ? "Creating" : spec.kind === "delete" ? "Deleting" : "Updating";
    ss.inFlight = op;
    if (modelChanged) {
      ss.version++; // a create starts at "1"; every other model write has its new ETag from acceptance on
      this.#recordVersion(ss, { source: spec.source ?? "arm", kind: spec.kind, ifMatch: spec.ifMatch ?? null }, before);
    }
    if (duration <= 0) this.#complete(op);
    return op;
  }

  /**
   * Brings every scale set up to now: preemptions by another writer and completions that are due, each played at the
   * time it was due (in time order, so a preemption due before the end still happens, and the other writer's write
   * it starts can complete too), then the rolling batches of the writes still running.
   */
  settle(): void {
    const now = this.#now();
    for (;;) {
      let next: { op: Operation; ss: ScaleSet; at: number; preempt: boolean } | undefined;
      for (const ss of this.scaleSets.values()) {
        const op = ss.inFlight;
        if (!op) continue;
        const preempt = op.preemptAt !== undefined && op.preemptAt < op.completesAt;
        const at = preempt ? op.preemptAt! : op.completesAt;
        if (at <= now && (!next || at < next.at)) next = { op, ss, at, preempt };
      }
      if (!next) break;
      const { op, ss, at, preempt } = next;
      this.#eventTime = at;
      try {
        if (preempt) this.#preemptByAnotherWriter(ss, op);
        else {
          if (op.rolling && !rolloutAfterWrite(ss)) this.#advanceRolling(ss, op, at);
          this.#complete(op);
        }
      } finally {
        this.#eventTime = undefined;
      }
    }
    for (const ss of this.scaleSets.values()) {
      const op = ss.inFlight;
      advanceRollout(ss, now);
      if (op?.rolling && !rolloutAfterWrite(ss)) this.#advanceRolling(ss, op, now);
    }
  }

  #recordVersion(
    ss: ScaleSet,
    who: { source: VersionRecord["source"]; kind?: string; ifMatch?: string | null },
    previousEtag: string | null,
  ): void {
    const tags = isObject(ss.model.tags) ? (clone(ss.model.tags) as Record<string, string>) : {};
    ss.versions.push({
      etag: etagOf(ss),
      capacity: capacityOf(ss.model),
      tags,
      ...who,
      previousEtag,
      time: this.now(),
    });
    if (ss.versions.length > MAX_VERSIONS) ss.versions.splice(0, ss.versions.length - MAX_VERSIONS);
  }

  /** Removes every scale set, resource group and operation. */
  clear(): void {
    this.operations.clear();
    this.scaleSets.clear();
    this.nics.clear();
    this.resourceGroups.clear();
  }

  // ---- internals ----

  /** PUT/PATCH at acceptance: the model now; VMs Creating/Deleting toward sku.capacity; failed VMs are retried. */
  #acceptModel(ss: ScaleSet, model: JsonObject, op: Operation, now: number): void {
    const beforeSignature = appliedSignature(currentApplied(ss));
    ss.model = clone(model);
    const after = currentApplied(ss);
    const afterSignature = appliedSignature(after);
    const active = sortedVms(ss).filter((vm) => vm.provisioningState !== "Deleting");
    const target = capacityOf(ss.model);
    // Scale-in removes the VMs the scale set's scale-in policy chooses (scale-in.ts), never a protected one.
    const victims = new Set(scaleInVictims(ss, active, active.length - target));
    for (const vm of victims) vm.provisioningState = "Deleting";
    for (const vm of active.filter((v) => !victims.has(v))) {
      if (vm.provisioningState === "Failed") {
        vm.provisioningState = "Creating"; // allocated again by this write
        applyModelTo(vm, after);
      }
    }
    for (let n = active.length; n < target; n++) {
      this.#addVm(ss, newVm(ss, now, "Creating"));
    }
    if (beforeSignature === afterSignature) return;
    op.modelChanged = true;
    const existing = sortedVms(ss).filter((vm) => vm.provisioningState === "Succeeded");
    for (const vm of existing) vm.latestModelApplied = appliedSignature(vm.applied) === afterSignature;
    if (upgradeModeOf(ss.model) === "Rolling") {
      const order = existing.filter((vm) => !vm.latestModelApplied).map((vm) => vm.instanceId);
      op.rolling = { order, batchSize: Math.max(1, Math.ceil((order.length * rollingBatchPercentOf(ss.model)) / 100)) };
    }
  }

  /** updateVm done: the instance's NICs are its own (pool membership follows them); the model is no longer its own. */
  #takeVmNetwork(ss: ScaleSet, op: Operation): void {
    for (const id of op.instanceIds ?? []) {
      const vm = ss.vms.get(id);
      if (!vm || !op.vmNetwork) continue;
      const profile = clone(vm.applied.profile);
      profile.networkProfile = {
        ...(isObject(profile.networkProfile) ? profile.networkProfile : {}),
        networkInterfaceConfigurations: clone(op.vmNetwork),
      };
      vm.applied = { skuName: vm.applied.skuName, profile };
      vm.ownNetwork = true;
      vm.latestModelApplied = appliedSignature(vm.applied) === appliedSignature(currentApplied(ss));
    }
  }

  /** Rolling upgrade policy: the VMs move to the new model batch by batch over the operation's duration. */
  #advanceRolling(ss: ScaleSet, op: Operation, now: number): void {
    moveDueBatches(ss, op.rolling!, op.startedAt, op.completesAt, now);
  }

  /** Ends an operation: its VMs settle, the scale set is `Succeeded` or `Failed` (nothing rolled back). */
  #complete(op: Operation): void {
    if (op.status !== "InProgress") return;
    const ss = this.scaleSets.get(op.scaleSetKey);
    if (!ss || ss.inFlight !== op) {
      this.#finish(op, "Canceled", PREEMPTED);
      return;
    }
    const failed = op.failWith !== undefined;
    if (isPowerAction(op.kind)) {
      for (const [id, before] of Object.entries(op.powerBefore ?? {})) {
        const vm = ss.vms.get(id);
        if (!vm) continue;
        vm.powerState = failed ? before : powerStateAfter(op.kind);
        // Booted again: the health probe starts over from here.
        if (!failed && vm.powerState === "running") {
          vm.runningSince = this.now();
          op.vmsStarted = (op.vmsStarted ?? 0) + 1;
        }
      }
    }
    if (op.kind === "delete" && !failed) {
      for (const vm of [...ss.vms.values()]) this.#removeVm(ss, vm);
      ss.inFlight = null;
      this.scaleSets.delete(op.scaleSetKey);
      this.#finish(op, "Succeeded");
      return;
    }
    let allocatable = failed ? 0 : (op.allocatable ?? Number.POSITIVE_INFINITY);
    let allocationFailed = false;
    const applied = currentApplied(ss);
    for (const vm of sortedVms(ss)) {
      if (vm.provisioningState === "Creating") {
        if (allocatable > 0) {
          allocatable--;
          vm.provisioningState = "Succeeded";
          vm.runningSince = this.now();
          op.vmsStarted = (op.vmsStarted ?? 0) + 1;
        } else {
          vm.provisioningState = "Failed";
          allocationFailed = !failed;
        }
      } else if (vm.provisioningState === "Deleting") {
        if (failed) vm.provisioningState = "Failed";
        else this.#removeVm(ss, vm);
      }
    }
    if (!failed && op.kind === "updateVm") this.#takeVmNetwork(ss, op);
    else if (!failed && !isPowerAction(op.kind)) {
      const mode = upgradeModeOf(ss.model);
      const upgraded = op.kind === "updateInstances" ? new Set(op.instanceIds) : null;
      // A rollout that outlives the write moves the VMs it names afterwards (rollout.ts).
      const later = op.rolling && rolloutAfterWrite(ss) ? new Set(op.rolling.order) : null;
      if (later) startRollout(ss, op, this.now(), op.completesAt - op.startedAt, op.rolling!.failure);
      for (const vm of ss.vms.values()) {
        if (vm.provisioningState !== "Succeeded" || later?.has(vm.instanceId)) continue;
        // Automatic/Rolling upgrade a VM of its own network configuration only to a new model (op.modelChanged).
        const automatic = mode !== "Manual" && (!vm.ownNetwork || op.modelChanged === true);
        if (upgraded ? upgraded.has(vm.instanceId) : automatic) applyModelTo(vm, applied);
      }
    }
    ss.inFlight = null;
    const error: OperationError | undefined = failed
      ? { code: op.failWith!.code, message: op.failWith!.message }
      : allocationFailed
        ? { code: "AllocationFailed", message: ALLOCATION_FAILED_MESSAGE }
        : undefined;
    ss.provisioningState = error ? "Failed" : "Succeeded";
    if (op.isCreate && !error) {
      const before = etagOf(ss);
      ss.version++; // the recorded create: "1" in the 201, "2" once Succeeded (update[0]→[3])
      this.#recordVersion(ss, { source: "arm", kind: op.kind, ifMatch: null }, before);
    }
    if (error) op.failureStatus = op.failWith?.status;
    this.#finish(op, error ? "Failed" : "Succeeded", error);
  }

  /** preemptOperation fault: another writer's write arrives and replaces the operation in flight. */
  #preemptByAnotherWriter(ss: ScaleSet, op: Operation): void {
    const change = op.preemptChange ?? {};
    this.acceptWrite(ss, {
      kind: "update",
      newModel: changedModel(ss.model, change),
      source: "outOfBandChange",
      ifMatch: null,
    });
    if (op.status === "InProgress") this.#endPreempted(op);
  }

  #endPreempted(op: Operation): void {
    this.#finish(op, "Canceled", PREEMPTED);
    const ss = this.scaleSets.get(op.scaleSetKey);
    if (ss?.inFlight === op) ss.inFlight = null;
  }

  #finish(op: Operation, status: "Succeeded" | "Failed" | "Canceled", error?: OperationError): void {
    op.status = status;
    op.endTime = this.now();
    if (error) op.error = { ...error };
  }

  /** Control-API writes: VMs created (Succeeded) or removed (as the scale-in policy chooses) at once; failed VMs are allocated. */
  #settleCapacityNow(ss: ScaleSet, now: number): void {
    for (const vm of [...ss.vms.values()]) {
      if (vm.provisioningState === "Deleting") this.#removeVm(ss, vm);
      else if (vm.provisioningState !== "Succeeded") {
        vm.provisioningState = "Succeeded";
        vm.runningSince = Number.NEGATIVE_INFINITY;
      }
    }
    const target = capacityOf(ss.model);
    // A change applied at once is one that completed long ago: its new VMs have passed their health probe.
    while (ss.vms.size < target) {
      this.#addVm(ss, { ...newVm(ss, now), runningSince: Number.NEGATIVE_INFINITY });
    }
    if (ss.vms.size > target)
      for (const vm of scaleInVictims(ss, sortedVms(ss), ss.vms.size - target)) this.#removeVm(ss, vm);
  }

  /** A new VM joins the scale set; a Flexible one gets its NICs from the model's network profile. */
  #addVm(ss: ScaleSet, vm: Vm): void {
    ss.vms.set(vm.instanceId, vm);
    if (!isFlexible(ss)) return;
    const nics = nicsForNewVm(ss, vm);
    for (const nic of nics) this.nics.set(nicKey(nic.resourceGroup, nic.name), nic);
    this.#nicsOfVm.set(vm, nics);
  }

  /** A VM leaves the scale set; a Flexible VM's NICs go with it, or stay detached (their deleteOption). */
  #removeVm(ss: ScaleSet, vm: Vm): void {
    ss.vms.delete(vm.instanceId);
    for (const nic of this.nicsOf(vm)) {
      if (nic.deleteOption === "Delete") this.nics.delete(nicKey(nic.resourceGroup, nic.name));
      else nic.vm = null;
    }
    this.#nicsOfVm.delete(vm);
  }

  #pruneOperations(): void {
    if (this.operations.size <= MAX_FINISHED_OPERATIONS) return;
    for (const [key, op] of this.operations) {
      if (this.operations.size <= MAX_FINISHED_OPERATIONS) break;
      if (op.status !== "InProgress") this.operations.delete(key);
    }
  }
}

/** The model after an out-of-band change: capacity, merged tags, merged NIC tags. */
export function changedModel(model: JsonObject, change: ScaleSetChange): JsonObject {
  const out = mergePatch(model, {});
  if (change.tags !== undefined) out.tags = mergeTags(out.tags, change.tags);
  if (change.nicTags !== undefined) {
    const profile = (out.properties as JsonObject | undefined)?.virtualMachineProfile as JsonObject | undefined;
    const nics = ((profile?.networkProfile as JsonObject | undefined)?.networkInterfaceConfigurations ??
      []) as JsonObject[];
    for (const nic of nics) nic.tags = mergeTags(nic.tags, change.nicTags);
  }
  if (change.capacity !== undefined) out.sku = { ...(isObject(out.sku) ? out.sku : {}), capacity: change.capacity };
  return out;
}

/**
 * Marks the VMs a deleteInstances names Deleting. The capacity is what stays listed, never more than it was: deleting
 * again a VM left over by a failed delete (listed, but no longer counted in the capacity) does not lower the capacity
 * a second time.
 */
function markInstancesDeleting(ss: ScaleSet, ids: string[]): void {
  const listed = [...ss.vms.values()].filter((vm) => vm.provisioningState !== "Deleting").length;
  for (const id of ids) {
    const vm = ss.vms.get(id);
    if (vm) vm.provisioningState = "Deleting";
  }
  const capacity = Math.max(0, Math.min(capacityOf(ss.model), listed - ids.length));
  ss.model.sku = { ...(isObject(ss.model.sku) ? ss.model.sku : {}), capacity };
}

/** A power action: the VMs it names show the transitional state until it completes; returns their states before. */
function markPowerTransition(ss: ScaleSet, kind: PowerAction, ids: string[]): Record<string, PowerState> {
  const before: Record<string, PowerState> = {};
  for (const id of ids) {
    const vm = ss.vms.get(id);
    const during = vm && vm.provisioningState === "Succeeded" ? powerStateDuring(kind, vm.powerState) : undefined;
    if (!vm || during === undefined) continue;
    before[id] = vm.powerState;
    vm.powerState = during;
  }
  return before;
}
