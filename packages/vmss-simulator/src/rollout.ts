// A Rolling set's rollout that outlives the write that started it. By default the simulator rolls a model change
// out during the write (state.ts: the write completes when the last batch moved). Azure's rolling upgrade is also
// a process of its own, reported by GET …/rollingUpgrades/latest, which a client may find still RollingForward after
// the write ended; a scale set switched to this mode (PUT /_sim/scaleSets/{rg}/{name}/kind { rolloutAfterWrite })
// shows that: the write completes with the model applied to no existing VM, and the batches move over one more write
// duration after it. A failRollout fault then ends the write Succeeded and the rollout Faulted.
import type { Operation, OperationError } from "./lro.ts";
import { applyModelTo, currentApplied, type ScaleSet } from "./vmss-model.ts";

export interface Rollout {
  /** The write that started it. */
  op: Operation;
  startedAt: number;
  completesAt: number;
  order: string[];
  batchSize: number;
  stopAfterBatches?: number;
  status: "RollingForward" | "Completed" | "Faulted";
  error?: OperationError;
}

const afterWrite = new WeakSet<ScaleSet>();
const rollouts = new WeakMap<ScaleSet, Rollout>();
/** Read and restored by a state directory (world-snapshot.ts). */
export { afterWrite, rollouts };

export function setRolloutAfterWrite(ss: ScaleSet, on: boolean): void {
  if (on) afterWrite.add(ss);
  else afterWrite.delete(ss);
}

export function rolloutAfterWrite(ss: ScaleSet): boolean {
  return afterWrite.has(ss);
}

/** The rollout that followed the scale set's latest rolling write, if it was one that outlives its write. */
export function rolloutOf(ss: ScaleSet): Rollout | undefined {
  return rollouts.get(ss);
}

/** The write `op` completed: its rollout starts now and takes `durationMs`. */
export function startRollout(
  ss: ScaleSet,
  op: Operation,
  now: number,
  durationMs: number,
  failure?: OperationError,
): void {
  const rolling = op.rolling!;
  rollouts.set(ss, {
    op,
    startedAt: now,
    completesAt: now + durationMs,
    order: [...rolling.order],
    batchSize: rolling.batchSize,
    ...(rolling.stopAfterBatches !== undefined ? { stopAfterBatches: rolling.stopAfterBatches } : {}),
    status: "RollingForward",
    ...(failure ? { error: failure } : {}),
  });
  advanceRollout(ss, now);
}

/** Moves the batches that are due to the current model; ends the rollout Completed, or Faulted where it was stopped. */
export function advanceRollout(ss: ScaleSet, now: number): void {
  const r = rollouts.get(ss);
  if (!r || r.status !== "RollingForward") return;
  const { batches, due, done } = moveDueBatches(ss, r, r.startedAt, r.completesAt, now);
  if (r.stopAfterBatches !== undefined && due >= r.stopAfterBatches && done < batches) r.status = "Faulted";
  else if (done >= batches) r.status = "Completed";
}

/** Where a rollout stands: its batches, those due by now, and those moved (none past stopAfterBatches). */
export interface BatchProgress {
  batches: number;
  due: number;
  done: number;
}

/**
 * Moves the VMs of the batches due at `now` to the scale set's current model: the batches fall evenly over
 * [startedAt, completesAt], and none moves past stopAfterBatches. One rule for a rollout during its write (state.ts)
 * and one that outlives it.
 */
export function moveDueBatches(
  ss: ScaleSet,
  rolling: { order: readonly string[]; batchSize: number; stopAfterBatches?: number },
  startedAt: number,
  completesAt: number,
  now: number,
): BatchProgress {
  const batches = Math.ceil(rolling.order.length / rolling.batchSize);
  const span = completesAt - startedAt;
  const due =
    span <= 0 || now >= completesAt ? batches : Math.min(batches, Math.floor(((now - startedAt) / span) * batches));
  const done = Math.min(due, rolling.stopAfterBatches ?? batches);
  const applied = currentApplied(ss);
  for (const id of rolling.order.slice(0, done * rolling.batchSize)) {
    const vm = ss.vms.get(id);
    if (vm && vm.provisioningState === "Succeeded" && !vm.latestModelApplied) applyModelTo(vm, applied);
  }
  return { batches, due, done };
}
