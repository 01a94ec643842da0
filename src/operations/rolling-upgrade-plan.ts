// The rolling upgrade's decisions, as pure functions of one read: how many instances may be surged or unavailable,
// which instances to delete, and what the next step is. Nothing here reads, writes, waits or remembers: after a
// restart the same read gives the same step, so a batch is resumed, never started twice.
//
// The order follows Cluster API Provider Azure's machine-pool rolling update (azure/scope/strategies/
// machinepool_deployments/machinepool_deployment_strategy.go, SelectMachinesToDelete): failed instances first,
// then (while over-provisioned) unready out-of-date ones, then out-of-date ready ones within the disruption budget.

export type DeletePolicy = "Oldest" | "Newest";

/** One instance as the plan sees it. */
export interface UpgradeInstance {
  id: string;
  /** Azure's timeCreated, ms since the epoch. */
  createdMs: number;
  /** Where the VM is in its life (instanceLife in scale-set-state.ts): creating, running, stopped, deleting, failed. */
  state: string;
  /** Runs the scale set's current model (Azure's latestModelApplied). */
  latestModel: boolean;
  /** Succeeded, running, and (when the scale set is in traffic) healthy in its load balancer's pool. */
  ready: boolean;
}

export interface UpgradeBudget {
  /** Instances above the desired count at most. */
  surge: number;
  /** Ready instances below the desired count at most. */
  unavailable: number;
}

export interface UpgradeInput {
  /** The desired count the upgrade keeps: the capacity before it surged. */
  desired: number;
  budget: UpgradeBudget;
  deletePolicy: DeletePolicy;
  instances: UpgradeInstance[];
}

export type UpgradeStep =
  /** failed: Azure could not create or start them. replaced: out-of-date ones whose replacements are up. overProvisioned: more than surge needs. */
  | { kind: "delete"; ids: string[]; why: "failed" | "replaced" | "overProvisioned"; readyAfter: number }
  /** Scale to `capacity`: desired plus the surge for this batch (or back up to desired). */
  | { kind: "scale"; capacity: number }
  | { kind: "wait"; why: "deleting" | "replacementsNotReady" | "notReady" }
  | { kind: "done" };

/** A budget given as a whole number or "25%": surge rounds up, unavailable rounds down (CAPZ, l.92-112). */
export function resolveBudget(value: number | string, desired: number, round: "up" | "down"): number {
  if (typeof value === "number") return value;
  const percent = Number(value.slice(0, -1));
  const exact = (desired * percent) / 100;
  return round === "up" ? Math.ceil(exact) : Math.floor(exact);
}

/** Oldest first (by timeCreated, then instance id), or newest first. */
export function orderForDelete(instances: UpgradeInstance[], policy: DeletePolicy): UpgradeInstance[] {
  const oldestFirst = [...instances].sort(
    (a, b) => a.createdMs - b.createdMs || Number(a.id) - Number(b.id) || a.id.localeCompare(b.id),
  );
  return policy === "Oldest" ? oldestFirst : oldestFirst.reverse();
}

const is = (state: string) => (vm: UpgradeInstance) => vm.state.toLowerCase() === state;

/**
 * The next step toward every instance on the current model, the desired count of them ready, never fewer than
 * desired - unavailable ready while it gets there, and never more than desired + surge instances.
 */
export function planUpgradeStep({ desired, budget, deletePolicy, instances }: UpgradeInput): UpgradeStep {
  const order = (vms: UpgradeInstance[]) => orderForDelete(vms, deletePolicy);
  // Failed instances serve nothing and hold capacity: remove them first (CAPZ l.208-212).
  const failed = instances.filter(is("failed"));
  if (failed.length > 0)
    return {
      kind: "delete",
      ids: order(failed).map((vm) => vm.id),
      why: "failed",
      readyAfter: instances.filter((vm) => vm.ready).length,
    };
  // Being deleted already: Azure is on it; plan once they are gone.
  if (instances.some(is("deleting"))) return { kind: "wait", why: "deleting" };

  const live = instances;
  const ready = live.filter((vm) => vm.ready);
  const old = live.filter((vm) => !vm.latestModel);
  const readyOld = old.filter((vm) => vm.ready);
  const unreadyOld = old.filter((vm) => !vm.ready);
  const unreadyNew = live.filter((vm) => vm.latestModel && !vm.ready);
  const excess = live.length - desired;
  // Ready instances that may go without dropping below desired - unavailable (CAPZ's disruptionBudget, l.180-186).
  const disruptionBudget = Math.max(0, ready.length - (desired - budget.unavailable));

  if (excess > 0) {
    // Over-provisioned: unready out-of-date instances cost nothing to remove (CAPZ l.238-247), then out-of-date
    // ready ones as far as the budget allows (l.288-300).
    const unreadyPick = order(unreadyOld).slice(0, excess);
    const readyPick = order(readyOld).slice(0, Math.min(excess - unreadyPick.length, disruptionBudget));
    const ids = [...unreadyPick, ...readyPick].map((vm) => vm.id);
    if (ids.length > 0) return { kind: "delete", ids, why: "replaced", readyAfter: ready.length - readyPick.length };
    if (unreadyNew.length > 0) return { kind: "wait", why: "replacementsNotReady" };
    // Nothing out of date is left: remove the extra up-to-date ones (CAPZ l.303-313).
    if (old.length === 0) {
      const extra = order(ready).slice(0, excess);
      return {
        kind: "delete",
        ids: extra.map((vm) => vm.id),
        why: "overProvisioned",
        readyAfter: ready.length - extra.length,
      };
    }
    return { kind: "wait", why: "notReady" };
  }

  if (old.length === 0 && live.length === desired)
    return unreadyNew.length > 0 ? { kind: "wait", why: "replacementsNotReady" } : { kind: "done" };
  // At (or below) the desired count: surge for the next batch, or refill to desired. Only here, so a read taken
  // after a surge was accepted (capacity already above desired) never surges again.
  const target = desired + Math.min(budget.surge, old.length);
  if (live.length < target) return { kind: "scale", capacity: target };
  // No surge allowed: replace in place within the disruption budget (CAPZ l.330-350).
  const inPlace = order(readyOld).slice(0, disruptionBudget);
  if (inPlace.length > 0)
    return {
      kind: "delete",
      ids: inPlace.map((vm) => vm.id),
      why: "replaced",
      readyAfter: ready.length - inPlace.length,
    };
  return { kind: "wait", why: unreadyOld.length > 0 ? "notReady" : "replacementsNotReady" };
}

/** Instances replaced per batch: the surge, or without one the unavailable budget (at least 1). */
export function batchSize(budget: UpgradeBudget): number {
  return Math.max(1, budget.surge > 0 ? budget.surge : budget.unavailable);
}

/** "batch 3 of 5": from how many instances are still out of date, so that a restart names the same batch. */
export function batchPosition(
  desired: number,
  outOfDate: number,
  budget: UpgradeBudget,
): { batch: number; batches: number } {
  const size = batchSize(budget);
  const batches = Math.max(1, Math.ceil(desired / size));
  const replaced = Math.max(0, desired - outOfDate);
  return { batch: Math.min(batches, Math.floor(replaced / size) + 1), batches };
}
