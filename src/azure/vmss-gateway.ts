// The only code that calls the VMSS API: reads a scale set (and its VMs), lists a resource group's, and runs the writes.
// A Flexible scale set's VMs are standalone virtual machines with NICs of their own: listed, and their pools changed,
// through the VM and network APIs (flexible-vms.ts), so that every plan reads one shape of instance.
import type {
  ComputeManagementClient,
  VirtualMachine,
  VirtualMachineScaleSet,
  VirtualMachineScaleSetNetworkConfiguration,
  VirtualMachineScaleSetUpdate,
  VirtualMachineScaleSetVM,
} from "@azure/arm-compute";
import { RefusalError, REGION_MISMATCH } from "./arm-failure.ts";
import { listenToArmResponses } from "./arm-listeners.ts";
import { type LongRunningOptions, resumeLongRunning, runLongRunning } from "./long-running.ts";
import type { WriteDurations } from "./write-durations.ts";
import { parseRemainingHeader } from "./rate-limit-budget.ts";
import { kindOf } from "./scale-set-state.ts";
import { computeSdk } from "./sdk.ts";
import { flexibleInstance, flexibleVmFilter, nicConfigName, nicIdsOf, type FlexibleNic } from "./flexible-vms.ts";
import type { ManagementLock } from "./management-locks.ts";
import type { AutoscaleGateway, AutoscaleSettingWire } from "./autoscale-gateway.ts";
import type { NetworkGateway, NetworkResource } from "./network-gateway.ts";

export interface ScaleSetRef {
  account: string;
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  region: string;
}

/** What one read saw: the scale set, the ETag that guards the next write, and (when asked) its VMs. */
export interface ScaleSetSnapshot {
  vmss: VirtualMachineScaleSet;
  etag: string | undefined;
  vms?: VirtualMachineScaleSetVM[];
  /** The smallest x-ms-ratelimit-remaining-resource count on the GET's response: what is left of the read budget. */
  remainingReads?: number;
  /** Upgrade policy Rolling, with the VMs: Azure's latest rolling upgrade (GET …/rollingUpgrades/latest), if it had one. */
  rollout?: RolloutStatus;
  /** Automatic repairs enabled, with the VMs: the AutomaticRepairs service's state (Running, Suspended, NotRunning). */
  repairs?: string;
  /** Flexible orchestration, with the VMs: each VM's NICs as Microsoft.Network reports them (their pools, their ETags). */
  nics?: FlexibleNic[];
  /**
   * Flexible orchestration, with the VMs: the management locks of the resource group, its own and its resources'
   * (what protects a Flexible VM from a delete); absent when the credential may not read them.
   */
  locks?: ManagementLock[];
  /**
   * When asked (withAutoscale): the Azure Monitor autoscale setting that targets the scale set, or null when none
   * does (autoscale-gateway.ts). It has no ETag: a plan on it re-reads it every attempt.
   */
  autoscale?: AutoscaleSettingWire | null;
}

/** Azure's latest rolling upgrade, as far as a plan needs it. */
export interface RolloutStatus {
  /** RollingForward, RollingBack, Cancelled, Completed, Faulted. */
  code: string;
  /** Azure's error, when it stopped or failed the rollout. */
  error?: string;
  /** Instances moved, failed, still to go. */
  progress?: { successful: number; failed: number; pending: number };
}

/**
 * The kinds of write, the one list: the planner's steps (WriteStep), a checkpoint's write in flight (TaskCheckpoint)
 * and a dry run's answer (its schema) are all typed from it. A kind added here fails tsc until WriteBodies says what
 * it carries and guardOf and the gateway's write say how it is sent.
 */
export const WRITE_KINDS = [
  "update",
  "manualUpgrade",
  "deleteInstances",
  "restartInstances",
  "repairs",
  "delete",
  "nicPools",
  "instancePools",
  "create",
  "autoscale",
  "balancerPools",
] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/** What each kind of write carries besides its kind and summary. */
interface WriteBodies {
  update: { patch: VirtualMachineScaleSetUpdate };
  manualUpgrade: { instanceIds: string[] };
  deleteInstances: { instanceIds: string[] };
  /**
   * Restarts instances: on a Uniform set the scale set's restart with their ids; on a Flexible set (`vms`) each VM's
   * own restart, one after the other.
   */
  restartInstances: { instanceIds: string[]; vms?: true };
  /** Suspends or resumes the scale set's automatic repairs (setOrchestrationServiceState, AutomaticRepairs). */
  repairs: { action: "Suspend" | "Resume" };
  /** Deletes the whole scale set. */
  delete: object;
  /** Flexible: puts NICs of its VMs into or out of backend pools, each NIC with If-Match on the ETag it was read with. */
  nicPools: { nics: NicWrite[] };
  /**
   * Uniform: puts instances into or out of backend pools, each instance's own network configuration (the scale-set
   * VM's PUT) with If-Match on the ETag it was read with; the instance is off the model until upgraded to it.
   */
  instancePools: { instances: InstanceNetworkWrite[] };
  /** Creates the scale set with this model: PUT with If-None-Match: *, so it never replaces one that exists. */
  create: { model: VirtualMachineScaleSet };
  /** Writes (whole) or deletes the Azure Monitor autoscale setting `name` of the scale set's resource group. */
  autoscale: { name: string; setting?: AutoscaleSettingWire };
  /**
   * Writes a load balancer or application gateway (`id`) whole, with pools removed: PUT with If-Match on the ETag
   * it was read with (`etag`), so that a balancer changed since is answered 412 and read again.
   */
  balancerPools: { id: string; etag: string | undefined; body: NetworkResource };
}

/** A write the planner asks for, as data: the harness runs it, and a checkpoint can name it. */
export type WriteStep = { [K in WriteKind]: { kind: K; summary: string } & WriteBodies[K] }[WriteKind];

/** One NIC as a nicPools step writes it: the body as read, with its pools changed. */
export interface NicWrite {
  vm: string;
  id: string;
  etag: string | undefined;
  body: NetworkResource;
}

/** One Uniform instance as an instancePools step writes it: its NIC configurations, with their pools changed. */
export interface InstanceNetworkWrite {
  instanceId: string;
  etag: string | undefined;
  location: string;
  nics: VirtualMachineScaleSetNetworkConfiguration[];
}

/**
 * A write as a checkpoint keeps it: what it was, for a person and for resuming. A create's model stays out (it may
 * carry a secret resolved from a reference, and resuming needs only the poller), and so do the NIC bodies of a
 * nicPools step and a balancer's body (nothing resumes them: the next read shows where they got).
 */
type SummaryOnly = "create" | "nicPools" | "instancePools" | "autoscale" | "balancerPools";
export type StoredWriteStep = Exclude<WriteStep, { kind: SummaryOnly }> | { kind: SummaryOnly; summary: string };

export function storedStep(step: WriteStep): StoredWriteStep {
  return step.kind === "create" ||
    step.kind === "nicPools" ||
    step.kind === "instancePools" ||
    step.kind === "autoscale" ||
    step.kind === "balancerPools"
    ? { kind: step.kind, summary: step.summary }
    : step;
}

/** A network resource as an attempt read it: undefined when Azure answered 404. */
export interface NetworkRead {
  id: string;
  resource: NetworkResource | undefined;
}

/**
 * Told what a gateway read and wrote, so that a read cache can reuse fresh reads and never serve what a write
 * changed (src/azure/read-cache.ts).
 */
export interface ScaleSetListener {
  /** A read of the scale set (with its VMs when snapshot.vms is set) that began at readAt. */
  onRead(ref: ScaleSetRef, snapshot: ScaleSetSnapshot, readAt: number): void;
  /** A write is about to be sent, or has ended (either way): what was read before is no longer Azure's state. */
  onWrite(ref: ScaleSetRef, kind: WriteKind): void;
}

/** The condition a write is sent with: If-Match an ETag (none known: sent without), If-None-Match: *, or none. */
export type WriteGuard =
  | { ifMatch: string | undefined }
  | { ifNoneMatch: "*" }
  | { eachIfMatch: true }
  | { resourceIfMatch: true }
  | { none: true };

/**
 * The one rule for what each kind of write is conditional on. A change of the scale set (update) and its delete
 * carry If-Match with the ETag of the read they were planned on: planned on a stale read, they get 412 and the next
 * attempt re-reads. A create carries If-None-Match: *, so it never replaces a scale set, ours or another's. The
 * instance POSTs can carry none (the API takes none): a stale plan shows as a 400 about its instance ids instead
 * (staleInstancesAsPrecondition); a restart (the scale set's, or a VM's) takes none either. Suspending or resuming automatic repairs takes none either, and needs none: it
 * changes no model, and the plan made on the read it follows asks for it only in the state it moves from. A change
 * of a Flexible VM's NIC carries If-Match with that NIC's ETag, as read with the VMs, and a change of a Uniform
 * instance's own network configuration If-Match with that instance's ETag, as read with the VMs.
 */
export function guardOf(kind: WriteKind, etag: string | undefined): WriteGuard {
  switch (kind) {
    case "update":
    case "delete":
      return { ifMatch: etag };
    case "create":
      return { ifNoneMatch: "*" };
    case "nicPools":
    case "instancePools":
      return { eachIfMatch: true };
    case "balancerPools": // the balancer's own ETag, carried by the step
      return { resourceIfMatch: true };
    case "manualUpgrade":
    case "deleteInstances":
    case "restartInstances":
    case "repairs":
    case "autoscale": // Azure defines no ETag on an autoscale setting: the plan re-reads it every attempt
      return { none: true };
  }
}

/** The guard as a history line says it: " (If-Match "3")", " (If-Match none)", " (If-None-Match *)", or nothing. */
export function guardLabel(guard: WriteGuard): string {
  if ("ifMatch" in guard) return ` (If-Match ${guard.ifMatch ?? "none"})`;
  if ("ifNoneMatch" in guard) return ` (If-None-Match ${guard.ifNoneMatch})`;
  if ("eachIfMatch" in guard) return " (each NIC or instance If-Match its ETag)";
  if ("resourceIfMatch" in guard) return " (If-Match the ETag it was read with)";
  return "";
}

export interface WriteOptions {
  defaultPollIntervalMs: number;
  /** The longest wait between polls, whatever Azure advertised (long-running.ts). */
  maxPollIntervalMs?: number;
  onAccepted?: (serializedPoller: string) => void | Promise<void>;
  signal?: AbortSignal;
}

/**
 * The instance POSTs take no If-Match, so a plan that went stale shows up differently: an instance another writer
 * removed since our read makes Azure answer 400 "not an active ... instanceId". That is a stale read, not a bad
 * request: classify it like a 412, so the next attempt re-reads and re-plans.
 */
async function staleInstancesAsPrecondition<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    const e = err as { statusCode?: number; message?: string };
    if (e?.statusCode === 400 && /not an? active Virtual Machine Scale Set VM instanceId/i.test(e.message ?? "")) {
      throw new RefusalError("InstancesChanged", `the instances changed since the read: ${e.message}`, "precondition");
    }
    throw err;
  }
}

/** Notes the read budget Azure reports on the scale set GET ("Microsoft.Compute/GetVMScaleSetResource;32", py[14]). */
class ReadBudgetProbe {
  remaining: number | undefined;
  onArmResponse(info: { headers: { get(name: string): string | undefined } }): void {
    const header = info.headers.get("x-ms-ratelimit-remaining-resource");
    if (!header) return;
    // The scale set's own read buckets (GetVMScaleSetResource, …), not the subscription's, nor write or queue policies.
    const counts = parseRemainingHeader(header)
      .filter(([policy]) => /get/i.test(policy) && !/subscription/i.test(policy))
      .map(([, n]) => n);
    if (counts.length > 0) this.remaining = Math.min(...counts);
  }
}

export function normalizeRegion(region: string): string {
  return region.replace(/\s+/g, "").toLowerCase();
}

export interface ReadOptions {
  withInstances: boolean;
  /** With the autoscale setting that targets the scale set (ScaleSetSnapshot.autoscale). */
  withAutoscale?: boolean;
  signal?: AbortSignal;
  /** GET with $expand=userData: Azure returns the model's userData only when asked (a clone copies it). */
  userData?: boolean;
}

/** What the harness needs of a scale set's API: VmssGateway, or a scripted stand-in in executeOp's unit tests. */
export interface ScaleSetGateway {
  readonly ref: ScaleSetRef;
  read(options: ReadOptions): Promise<ScaleSetSnapshot>;
  /** The snapshot with the scale set's VMs listed now: what the harness confirms against. */
  withInstances(snapshot: ScaleSetSnapshot, signal?: AbortSignal): Promise<ScaleSetSnapshot>;
  /** The snapshot with the autoscale setting that targets the scale set read now (a write's final GET has none). */
  withAutoscale?(snapshot: ScaleSetSnapshot, signal?: AbortSignal): Promise<ScaleSetSnapshot>;
  /** Network resources by id, read now (a destroy's clean-up once the scale set is gone). */
  readNetwork?(ids: string[], signal?: AbortSignal): Promise<NetworkRead[]>;
  write(step: WriteStep, etag: string | undefined, options: WriteOptions): Promise<VirtualMachineScaleSet | undefined>;
  resume(kind: WriteKind, serializedPoller: string, options: Omit<WriteOptions, "onAccepted">): Promise<void>;
}

/** The scale sets of one resource group, as ARM lists them now (no cache: a name is about to be chosen from it). */
export async function listScaleSets(
  client: ComputeManagementClient,
  resourceGroup: string,
  signal?: AbortSignal,
): Promise<VirtualMachineScaleSet[]> {
  const out: VirtualMachineScaleSet[] = [];
  for await (const vmss of client.virtualMachineScaleSets.list(resourceGroup, { abortSignal: signal })) out.push(vmss);
  return out;
}

export class VmssGateway implements ScaleSetGateway {
  readonly client: ComputeManagementClient;
  readonly ref: ScaleSetRef;
  readonly #listener: ScaleSetListener | undefined;
  /** Microsoft.Network, for a Flexible set's NICs. */
  readonly #network: NetworkGateway | undefined;
  /** Microsoft.Insights, for the autoscale setting that targets the scale set. */
  readonly #autoscale: AutoscaleGateway | undefined;
  /** Azure's durations of the writes this replica saw end, by kind (write-durations.ts): where a poll can go early. */
  readonly #durations: WriteDurations | undefined;

  constructor(
    client: ComputeManagementClient,
    ref: ScaleSetRef,
    listener?: ScaleSetListener,
    network?: NetworkGateway,
    autoscale?: AutoscaleGateway,
    durations?: WriteDurations,
  ) {
    this.client = client;
    this.ref = ref;
    this.#listener = listener;
    this.#network = network;
    this.#autoscale = autoscale;
    this.#durations = durations;
  }

  /**
   * GET the scale set (and list its VMs when asked), as Azure reports it: judging the read (busy, Failed,
   * suspicious, confirmed) is the harness's job (scale-set-state.ts). Only a scale set in another region than the
   * one asked for is refused here: that is a wrong request, not a state.
   */
  async read(options: ReadOptions): Promise<ScaleSetSnapshot> {
    const readAt = Date.now();
    const budget = new ReadBudgetProbe();
    const vmss = await listenToArmResponses(budget, () =>
      this.client.virtualMachineScaleSets.get(this.ref.resourceGroup, this.ref.name, {
        abortSignal: options.signal,
        ...(options.userData ? { expand: "userData" } : {}),
      }),
    );
    if (vmss.location && normalizeRegion(vmss.location) !== normalizeRegion(this.ref.region)) {
      throw new RefusalError(
        REGION_MISMATCH,
        `scale set ${this.ref.name} is in ${vmss.location}, not in ${this.ref.region}`,
      );
    }
    const snapshot: ScaleSetSnapshot = {
      vmss,
      etag: vmss.etag,
      ...(budget.remaining !== undefined ? { remainingReads: budget.remaining } : {}),
    };
    if (options.withInstances) {
      Object.assign(snapshot, await this.#instances(vmss, options.signal));
      Object.assign(snapshot, await this.#featureState(vmss, options.signal));
    }
    if (options.withAutoscale && this.#autoscale) {
      snapshot.autoscale = await this.#autoscale.forScaleSet(
        this.ref.resourceGroup,
        this.#scaleSetId(vmss),
        options.signal,
      );
    }
    this.#listener?.onRead(this.ref, snapshot, readAt);
    return snapshot;
  }

  async withInstances(snapshot: ScaleSetSnapshot, signal?: AbortSignal): Promise<ScaleSetSnapshot> {
    const readAt = Date.now();
    const complete = {
      ...snapshot,
      ...(await this.#instances(snapshot.vmss, signal)),
      ...(await this.#featureState(snapshot.vmss, signal)),
    };
    // A full read, as the read cache keeps them: the scale set was read just before its VMs.
    this.#listener?.onRead(this.ref, complete, readAt);
    return complete;
  }

  #scaleSetId(vmss: VirtualMachineScaleSet): string {
    const { subscriptionId, resourceGroup, name } = this.ref;
    return (
      vmss.id ??
      `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`
    );
  }

  async withAutoscale(snapshot: ScaleSetSnapshot, signal?: AbortSignal): Promise<ScaleSetSnapshot> {
    if (!this.#autoscale) return { ...snapshot, autoscale: null };
    const setting = await this.#autoscale.forScaleSet(this.ref.resourceGroup, this.#scaleSetId(snapshot.vmss), signal);
    return { ...snapshot, autoscale: setting };
  }

  /** The scale set's VMs, by the API its orchestration mode offers (and a Flexible set's NICs with them). */
  async #instances(
    vmss: VirtualMachineScaleSet,
    signal?: AbortSignal,
  ): Promise<Pick<ScaleSetSnapshot, "vms" | "nics" | "locks">> {
    if (kindOf(vmss).orchestration === "Flexible") return this.#flexibleInstances(vmss, signal);
    return { vms: await this.listInstances(signal) };
  }

  /**
   * A Flexible set's VMs: the resource group's VMs filtered by the scale set's id, with their instance view (power
   * state, health), and each VM's NICs as Microsoft.Network lists the resource group's (their pools are the VM's
   * traffic): one list, not one GET per VM. A NIC that Azure no longer has (its VM is being deleted) is left out.
   * With them, the resource group's management locks (one list): a plan that deletes VMs refuses a locked one.
   */
  async #flexibleInstances(
    vmss: VirtualMachineScaleSet,
    signal?: AbortSignal,
  ): Promise<Pick<ScaleSetSnapshot, "vms" | "nics" | "locks">> {
    const { resourceGroup, name } = this.ref;
    const scaleSetId =
      vmss.id ??
      `/subscriptions/${this.ref.subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
    const listed: VirtualMachine[] = [];
    try {
      for await (const vm of this.client.virtualMachines.list(resourceGroup, {
        abortSignal: signal,
        filter: flexibleVmFilter(scaleSetId),
        expand: "instanceView",
      })) {
        listed.push(vm);
      }
    } catch (err) {
      if (err instanceof Error && !(signal?.aborted ?? false)) {
        err.message = `listing the VMs of Flexible scale set ${resourceGroup}/${name} (after ${listed.length} VM(s)): ${err.message}`;
      }
      throw err;
    }
    const vms: VirtualMachineScaleSetVM[] = [];
    const nics: FlexibleNic[] = [];
    const listedNics =
      this.#network && listed.length > 0
        ? await this.#network.list(this.ref.subscriptionId, resourceGroup, "networkInterfaces", signal)
        : [];
    const byId = new Map(listedNics.filter((n) => typeof n.id === "string").map((n) => [n.id!.toLowerCase(), n]));
    for (const vm of listed) {
      const own: FlexibleNic[] = [];
      const ids = nicIdsOf(vm);
      for (let i = 0; i < ids.length; i++) {
        const resource = byId.get(ids[i].toLowerCase());
        if (!resource) continue;
        own.push({
          vm: vm.name ?? "",
          id: ids[i],
          ...(resource.etag ? { etag: resource.etag } : {}),
          configName: nicConfigName(vm, vmss, i, resource),
          resource,
        });
      }
      nics.push(...own);
      vms.push(flexibleInstance(vm, own));
    }
    const locks =
      this.#network && listed.length > 0
        ? await this.#network.listLocks(this.ref.subscriptionId, resourceGroup, signal)
        : [];
    return { vms, nics, ...(locks !== undefined ? { locks } : {}) };
  }

  async listInstances(signal?: AbortSignal): Promise<VirtualMachineScaleSetVM[]> {
    const vms: VirtualMachineScaleSetVM[] = [];
    // $expand=instanceView: the same call, and it carries each VM's power state (PowerState/running, …), from which
    // the Clouddriver reads tell an instance's health.
    const options = { abortSignal: signal, expand: "instanceView" };
    try {
      for await (const vm of this.client.virtualMachineScaleSetVMs.list(
        this.ref.resourceGroup,
        this.ref.name,
        options,
      )) {
        vms.push(vm);
      }
    } catch (err) {
      // The SDK's text names neither the scale set nor the page (a 429 on the third page reads "Too many requests").
      // The error keeps its class, status and headers: only its message says where.
      if (err instanceof Error && !(signal?.aborted ?? false)) {
        err.message = `listing the VMs of scale set ${this.ref.resourceGroup}/${this.ref.name} (after ${vms.length} VM(s)): ${err.message}`;
      }
      throw err;
    }
    return vms;
  }

  /**
   * What a plan on this kind of scale set needs besides its VMs (scale-set-kinds.ts): a Rolling set's latest rolling
   * upgrade, the state of automatic repairs where they are enabled. Read only for those kinds: a Manual set without
   * repairs costs no extra call.
   */
  async #featureState(
    vmss: VirtualMachineScaleSet,
    signal?: AbortSignal,
  ): Promise<Pick<ScaleSetSnapshot, "rollout" | "repairs">> {
    const out: Pick<ScaleSetSnapshot, "rollout" | "repairs"> = {};
    const { resourceGroup, name } = this.ref;
    const kind = kindOf(vmss);
    if (kind.upgrade === "Rolling") {
      try {
        const latest = await this.client.virtualMachineScaleSetRollingUpgrades.getLatest(resourceGroup, name, {
          abortSignal: signal,
        });
        const p = latest.progress;
        out.rollout = {
          code: latest.runningStatus?.code ?? "Unknown",
          ...(latest.error?.message || latest.error?.code
            ? { error: [latest.error.code, latest.error.message].filter(Boolean).join(": ") }
            : {}),
          ...(p
            ? {
                progress: {
                  successful: p.successfulInstanceCount ?? 0,
                  failed: p.failedInstanceCount ?? 0,
                  pending: (p.pendingInstanceCount ?? 0) + (p.inProgressInstanceCount ?? 0),
                },
              }
            : {}),
        };
      } catch (err) {
        // 404: the scale set never had a rolling upgrade. Anything else is a failed read, judged as one.
        if ((err as { statusCode?: number }).statusCode !== 404) throw err;
      }
    }
    // Azure offers no scale-set instance view on Flexible: its repairs state cannot be read (the kinds table refuses
    // what would need it).
    if (kind.repairs && kind.orchestration === "Uniform") {
      const view = await this.client.virtualMachineScaleSets.getInstanceView(resourceGroup, name, {
        abortSignal: signal,
      });
      const service = view.orchestrationServices?.find(
        (s) => (s.serviceName ?? "").toLowerCase() === "automaticrepairs",
      );
      out.repairs = service?.serviceState ?? "NotRunning";
    }
    return out;
  }

  /**
   * Runs one write to its end. update carries If-Match; the instance POSTs cannot (the API takes none), which is
   * why planners derive instance ids from the read made in the same attempt.
   * Returns the scale set as Azure reports it after the write (the update's final GET), or undefined.
   */
  async write(
    step: WriteStep,
    etag: string | undefined,
    options: WriteOptions,
  ): Promise<VirtualMachineScaleSet | undefined> {
    this.#listener?.onWrite(this.ref, step.kind);
    try {
      return await this.#write(step, etag, options);
    } finally {
      this.#listener?.onWrite(this.ref, step.kind);
    }
  }

  /** How a write of `kind` waits for Azure: the caller's options, and what this replica saw of that kind's durations. */
  #lroOptions(kind: WriteStep["kind"], options: WriteOptions): LongRunningOptions {
    return {
      defaultPollIntervalMs: options.defaultPollIntervalMs,
      ...(options.maxPollIntervalMs !== undefined ? { maxPollIntervalMs: options.maxPollIntervalMs } : {}),
      ...(options.onAccepted ? { onAccepted: options.onAccepted } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      ...(this.#durations ? { duration: this.#durations.of(kind) } : {}),
    };
  }

  async #write(
    step: WriteStep,
    etag: string | undefined,
    options: WriteOptions,
  ): Promise<VirtualMachineScaleSet | undefined> {
    const vmss = this.client.virtualMachineScaleSets;
    const { resourceGroup, name } = this.ref;
    const lro = this.#lroOptions(step.kind, options);
    const sdk = { abortSignal: options.signal };
    const guard = guardOf(step.kind, etag);
    const ifMatch = "ifMatch" in guard ? guard.ifMatch : undefined;
    switch (step.kind) {
      case "update":
        return runLongRunning(
          () => vmss.update(resourceGroup, name, step.patch, { ...sdk, ...(ifMatch ? { ifMatch } : {}) }),
          lro,
        );
      case "manualUpgrade":
        await staleInstancesAsPrecondition(() =>
          runLongRunning(() => vmss.updateInstances(resourceGroup, name, { instanceIds: step.instanceIds }, sdk), lro),
        );
        return undefined;
      case "deleteInstances":
        await staleInstancesAsPrecondition(() =>
          runLongRunning(() => vmss.deleteInstances(resourceGroup, name, { instanceIds: step.instanceIds }, sdk), lro),
        );
        return undefined;
      case "restartInstances":
        await this.#restart(step, options);
        return undefined;
      case "nicPools":
        await this.#writeNics(step.nics, options.signal);
        return undefined;
      case "balancerPools":
        await this.#writeBalancer(step, options.signal);
        return undefined;
      case "instancePools":
        await this.#writeInstances(step.instances, lro);
        return undefined;
      case "autoscale":
        await this.#writeAutoscale(step, options.signal);
        return undefined;
      case "repairs":
        await runLongRunning(
          () =>
            vmss.setOrchestrationServiceState(
              resourceGroup,
              name,
              { serviceName: "AutomaticRepairs", action: step.action },
              sdk,
            ),
          lro,
        );
        return undefined;
      case "delete":
        // The SDK's delete has no ifMatch option and the REST spec names none, so the header is added by hand: where
        // Azure honours it, a delete planned on a stale read gets 412 (re-read, re-plan) instead of going through.
        await runLongRunning(
          () =>
            vmss.delete(resourceGroup, name, {
              ...sdk,
              requestOptions: { headers: ifMatch ? { "if-match": ifMatch } : {} },
            }),
          lro,
        );
        return undefined;
      case "create":
        // If-None-Match: * makes Azure answer 412 when the name exists: a create retried or resumed can never
        // replace a scale set, ours or another's.
        return runLongRunning(
          () =>
            vmss.createOrUpdate(resourceGroup, name, step.model, {
              ...sdk,
              ...("ifNoneMatch" in guard ? { ifNoneMatch: guard.ifNoneMatch } : {}),
            }),
          lro,
        );
    }
  }

  /** The Azure Monitor autoscale setting that targets the scale set: written whole, or deleted. */
  async #writeAutoscale(
    step: Extract<WriteStep, { kind: "autoscale" }>,
    signal: AbortSignal | undefined,
  ): Promise<void> {
    if (!this.#autoscale) throw new Error("no autoscale gateway for this scale set");
    const { resourceGroup } = this.ref;
    if (step.setting) await this.#autoscale.put(resourceGroup, step.name, step.setting, signal);
    else await this.#autoscale.delete(resourceGroup, step.name, signal);
  }

  /**
   * Uniform: the scale set's restart with the instance ids. Flexible (`vms`): each VM's restart, one after the other,
   * not followed after a crash (one poller per VM): the next read shows which VMs booted since the plan.
   */
  async #restart(step: Extract<WriteStep, { kind: "restartInstances" }>, options: WriteOptions): Promise<void> {
    const { resourceGroup, name } = this.ref;
    const sdk = { abortSignal: options.signal };
    const lro = {
      defaultPollIntervalMs: options.defaultPollIntervalMs,
      maxPollIntervalMs: options.maxPollIntervalMs,
      signal: options.signal,
    };
    if (step.vms) {
      for (const vm of step.instanceIds)
        await runLongRunning(() => this.client.virtualMachines.restart(resourceGroup, vm, sdk), lro);
      return;
    }
    await staleInstancesAsPrecondition(() =>
      runLongRunning(
        () =>
          this.client.virtualMachineScaleSets.restart(resourceGroup, name, {
            ...sdk,
            vmInstanceIDs: { instanceIds: step.instanceIds },
          }),
        { ...lro, onAccepted: options.onAccepted },
      ),
    );
  }

  /**
   * Each NIC PUT with If-Match on the ETag it was read with, one after the other: a 412 (someone changed it since)
   * stops the step, and the next attempt re-reads and re-plans the NICs still to move. A NIC that is gone (404: its
   * VM was deleted meanwhile) is a stale read too.
   */
  async #writeNics(writes: NicWrite[], signal?: AbortSignal): Promise<void> {
    if (!this.#network)
      throw new RefusalError(
        "NetworkUnavailable",
        `no Microsoft.Network client for ${this.ref.name}: its VMs' NICs cannot be changed`,
      );
    for (const nic of writes) {
      try {
        await this.#network.put(nic.id, nic.body, signal, nic.etag ? { ifMatch: nic.etag } : {});
      } catch (err) {
        if (err instanceof RefusalError && err.kind === "notFound") {
          throw new RefusalError(
            "NicGone",
            `NIC ${nic.id} of VM ${nic.vm} is gone since the read: ${err.message}`,
            "precondition",
          );
        }
        throw err;
      }
    }
  }

  async readNetwork(ids: string[], signal?: AbortSignal): Promise<NetworkRead[]> {
    const network = this.#requireNetwork();
    const out: NetworkRead[] = [];
    for (const id of ids) out.push({ id, resource: await network.get(id, signal) });
    return out;
  }

  #requireNetwork(): NetworkGateway {
    if (!this.#network)
      throw new RefusalError("NetworkUnavailable", `no Microsoft.Network client for ${this.ref.name}`);
    return this.#network;
  }

  /**
   * The balancer's PUT with If-Match on the ETag it was read with. A balancer gone since the read (404) is a stale
   * read as a 412 is: the next attempt reads again, and finds nothing left to remove.
   */
  async #writeBalancer(step: Extract<WriteStep, { kind: "balancerPools" }>, signal?: AbortSignal): Promise<void> {
    try {
      await this.#requireNetwork().put(step.id, step.body, signal, step.etag ? { ifMatch: step.etag } : {});
    } catch (err) {
      if (err instanceof RefusalError && err.kind === "notFound")
        throw new RefusalError("BalancerGone", `${step.id} is gone since the read: ${err.message}`, "precondition");
      throw err;
    }
  }

  /**
   * Each instance's PUT with If-Match on the ETag it was read with, one after the other, each followed to its end: a
   * 412 (the instance changed since) stops the step, and the next attempt re-reads and re-plans the instances still
   * to move. Not followed after a crash (one poller per instance): the next read shows where it got.
   */
  async #writeInstances(
    writes: InstanceNetworkWrite[],
    lro: { defaultPollIntervalMs: number; maxPollIntervalMs?: number; signal?: AbortSignal },
  ): Promise<void> {
    const { resourceGroup, name } = this.ref;
    for (const w of writes) {
      await runLongRunning(
        () =>
          this.client.virtualMachineScaleSetVMs.update(
            resourceGroup,
            name,
            w.instanceId,
            { location: w.location, networkProfileConfiguration: { networkInterfaceConfigurations: w.nics } },
            { abortSignal: lro.signal, ...(w.etag ? { ifMatch: w.etag } : {}) },
          ),
        lro,
      );
    }
  }

  /**
   * Follows a write accepted before a restart, from its serialized poller, to its end. Nothing is sent again but
   * polls. Throws when the state cannot be restored or the operation failed; the caller then re-reads and re-plans.
   */
  async resume(kind: WriteKind, serializedPoller: string, options: Omit<WriteOptions, "onAccepted">): Promise<void> {
    const vmss = this.client.virtualMachineScaleSets;
    const sources = {
      update: vmss.update,
      manualUpgrade: vmss.updateInstances,
      deleteInstances: vmss.deleteInstances,
      restartInstances: vmss.restart,
      repairs: vmss.setOrchestrationServiceState,
      delete: vmss.delete,
      create: vmss.createOrUpdate,
    };
    // A NIC write is not a Compute long-running operation: nothing to follow, the next read shows where it got.
    if (kind === "nicPools" || kind === "instancePools" || kind === "autoscale" || kind === "balancerPools")
      throw new RefusalError("NothingToResume", `a ${kind} write is not followed after a restart; re-reading`);
    const source = sources[kind];
    // The SDK only reads which operation the state belongs to; the operations' own signatures differ.
    type PollerSource = Parameters<ReturnType<typeof computeSdk>["restorePoller"]>[2];
    try {
      await resumeLongRunning(
        () =>
          computeSdk().restorePoller(this.client, serializedPoller, source as PollerSource, {
            abortSignal: options.signal,
          }),
        {
          defaultPollIntervalMs: options.defaultPollIntervalMs,
          maxPollIntervalMs: options.maxPollIntervalMs,
          signal: options.signal,
        },
      );
    } finally {
      this.#listener?.onWrite(this.ref, kind);
    }
  }
}
