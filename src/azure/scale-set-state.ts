// What a read of a scale set means: its kind (orchestration, upgrade policy, repairs, Spot), busy (another write
// holds it), Failed (a write Azure accepted could not complete), suspicious (no plan may be built on it), confirmed
// (Azure did what the model says); and of its instances: running, stopped, and which we may act on. Each rule lives
// here and nowhere else; the harness (execute-op.ts), the planners, the gateway's reads and the server-group reads
// call them.
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";

/** The parts of a read these rules look at (a ScaleSetSnapshot, or a recorded response). */
export interface ScaleSetRead {
  vmss: VirtualMachineScaleSet;
  vms?: VirtualMachineScaleSetVM[];
}

const lower = (s: string | undefined) => (s ?? "").toLowerCase();

export type Orchestration = "Uniform" | "Flexible";
export type UpgradeMode = "Manual" | "Rolling" | "Automatic";

export interface ScaleSetKind {
  orchestration: Orchestration;
  upgrade: UpgradeMode;
  /** automaticRepairsPolicy.enabled: Azure replaces instances it finds unhealthy. */
  repairs: boolean;
  /** virtualMachineProfile.priority Spot: Azure may evict (deallocate) an instance at any time. */
  spot: boolean;
}

/**
 * The kind as Azure reports it. A scale set that names no orchestration mode is Uniform (the REST API's default
 * when a create omits it; the CLI and the portal ask for Flexible explicitly); no upgrade policy is Manual.
 */
export function kindOf(vmss: VirtualMachineScaleSet): ScaleSetKind {
  const upgrade = lower(vmss.upgradePolicy?.mode);
  return {
    orchestration: lower(vmss.orchestrationMode) === "flexible" ? "Flexible" : "Uniform",
    upgrade: upgrade === "rolling" ? "Rolling" : upgrade === "automatic" ? "Automatic" : "Manual",
    repairs: vmss.automaticRepairsPolicy?.enabled === true,
    spot: lower(vmss.virtualMachineProfile?.priority) === "spot",
  };
}

/**
 * Provisioning states in which Azure refuses writes with 409 ConflictingConcurrentWriteNotAllowed: a write holds
 * the scale set, and the model it shows is already the one requested (Azure applies a write at acceptance).
 */
const BUSY_STATES = new Set(["updating", "creating", "deleting", "migrating"]);

export function isBusy(read: ScaleSetRead): boolean {
  return BUSY_STATES.has(lower(read.vmss.provisioningState));
}

/**
 * Azure left the scale set Failed: a write it accepted did not complete. The model still holds what that write
 * asked for (Azure does not roll back), so the model is not what runs. Neither busy nor done: only a write that
 * Azure accepts again (and that succeeds) clears it.
 */
export function isFailed(read: ScaleSetRead): boolean {
  return lower(read.vmss.provisioningState) === "failed";
}

// ---- instances: the one rule for which we count as running and which we may act on ----

/**
 * Where an instance is in its life, as Azure lists it: being created (not running yet), running, stopped (listed and
 * provisioned but not running: a Spot VM Azure evicted is deallocated), being deleted (leaving), or Failed (Azure
 * could not allocate or start it, and lists it anyway). Running needs PowerState/running when Azure lists a power
 * state (the VM list is read with its instance view); where it lists none, a provisioned instance is taken to run.
 */
export type InstanceLife = "creating" | "running" | "stopped" | "deleting" | "failed";

export function instanceLife(vm: VirtualMachineScaleSetVM): InstanceLife {
  const provisioning = lower(vm.provisioningState);
  if (provisioning === "creating" || provisioning === "deleting" || provisioning === "failed") return provisioning;
  const power = powerState(vm);
  return power === undefined || power === "running" ? "running" : "stopped";
}

/** Running means Azure says it runs (instanceLife): what capacity is confirmed from, and what counts as serving. */
export function isRunningInstance(vm: VirtualMachineScaleSetVM): boolean {
  return instanceLife(vm) === "running";
}

/**
 * An instance we may act on (delete it, roll a model out to it, replace it, move it in or out of a pool): Azure
 * lists it under an id, and is not deleting it already. Whether a protected one may be acted on depends on the act:
 * see protectionOf.
 */
export function isActionableInstance(vm: VirtualMachineScaleSetVM): boolean {
  return vm.instanceId !== undefined && instanceLife(vm) !== "deleting";
}

/** Leaving or broken: being deleted, or Failed. Such an instance neither serves nor will; a plan counts it as neither. */
export function isGoneOrFailed(life: string): boolean {
  const l = lower(life);
  return l === "deleting" || l === "failed";
}

/**
 * Protected from what a scale-in or a terminate is (protectionPolicy.protectFromScaleIn or
 * protectFromScaleSetActions): Azure refuses to remove such an instance by a scale-set action.
 */
export function protectionOf(vm: VirtualMachineScaleSetVM): string | undefined {
  const p = vm.protectionPolicy;
  if (p?.protectFromScaleSetActions) return "protectFromScaleSetActions";
  if (p?.protectFromScaleIn) return "protectFromScaleIn";
  return undefined;
}

/** VMs Azure lists as provisioned that do not run: deallocated (a Spot eviction) or stopped. Needs the instance view. */
export function stoppedInstances(read: ScaleSetRead): VirtualMachineScaleSetVM[] {
  return (read.vms ?? []).filter((vm) => instanceLife(vm) === "stopped");
}

/** "instance(s) 0 (deallocated), 3 (stopped)": how a history line names them. */
export function describeStopped(vms: VirtualMachineScaleSetVM[]): string {
  return vms.map((vm) => `${vm.instanceId} (${powerState(vm) ?? "no power state"})`).join(", ");
}

/** "running", "stopped", "deallocated", … from the instance view's PowerState/… status, when Azure listed one. */
export function powerState(vm: VirtualMachineScaleSetVM): string | undefined {
  for (const status of vm.instanceView?.statuses ?? []) {
    const [kind, value] = (status.code ?? "").split("/");
    if (kind === "PowerState" && value) return value.toLowerCase();
  }
  return undefined;
}

/** Instances Azure lists as running. */
export function runningInstances(read: ScaleSetRead): VirtualMachineScaleSetVM[] {
  return (read.vms ?? []).filter(isRunningInstance);
}

/**
 * A read no plan may be built on: a capacity that is missing, negative or fractional; or, on a settled scale set,
 * capacity 0 while running VMs are listed (the two reads disagree; the cluster-autoscaler acted on such numbers).
 * Judged only on a read that is not busy: mid-write, a model that runs ahead of its VMs is what Azure shows.
 */
export function suspiciousRead(read: ScaleSetRead): string | undefined {
  const capacity = read.vmss.sku?.capacity;
  if (typeof capacity !== "number" || capacity < 0 || !Number.isInteger(capacity)) {
    return `Azure reported capacity ${String(capacity)}`;
  }
  if (read.vms && !isBusy(read) && !isFailed(read) && capacity === 0) {
    const running = runningInstances(read).length;
    if (running > 0) return `Azure reported capacity 0 while listing ${running} running VMs`;
  }
  return undefined;
}

export type Confirmation =
  { confirmed: true; instances: number } | { confirmed: false; instances: number; reason: string };

/**
 * Confirmed means what Azure confirmed: the scale set is Succeeded, and the instances it lists as running are as
 * many as its capacity. The model alone is not confirmation (a failed write leaves the requested capacity in it).
 * Needs the VM list.
 */
export function confirmation(read: ScaleSetRead): Confirmation {
  const capacity = read.vmss.sku?.capacity ?? 0;
  const instances = runningInstances(read).length;
  const state = read.vmss.provisioningState ?? "unknown";
  if (lower(state) !== "succeeded") {
    return {
      confirmed: false,
      instances,
      reason: `the scale set is ${state}, with ${instances} of capacity ${capacity} instance(s) running`,
    };
  }
  if (!read.vms) return { confirmed: false, instances, reason: "the VMs were not listed" };
  if (instances !== capacity) {
    const stopped = stoppedInstances(read);
    // Azure counts an evicted Spot VM in the capacity while it does not run: say which, never count it as running.
    const why =
      stopped.length > 0
        ? `; not running: instance(s) ${describeStopped(stopped)}${kindOf(read.vmss).spot ? " (Spot: evicted by Azure)" : ""}`
        : "";
    return {
      confirmed: false,
      instances,
      reason: `capacity ${capacity}, but Azure lists ${instances} running instance(s)${why}`,
    };
  }
  return { confirmed: true, instances };
}
