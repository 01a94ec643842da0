// Automatic repairs kept out of an operation that takes instances out of traffic or replaces them: Azure replaces
// instances it finds unhealthy, and an instance leaving its pool, or being replaced, can look unhealthy; its deletes
// and re-creates would then race our own writes and counts.
//
// The operation's planner is wrapped: before its first write, the scale set is marked with the task that suspends
// (a tag, so that any replica that takes the task over reads the same truth from Azure) and repairs are suspended;
// once its own plan is done, repairs are resumed and the mark removed. A failed or canceled operation gets the same
// release (release()); a replica that died leaves the mark, and the next owner of the task, planning on a fresh read,
// finds it its own and resumes at the end. Repairs that someone else suspended are left as they are.
//
//   Running, no mark ─▶ mark ─▶ Suspend ─▶ (the operation) ─▶ Resume ─▶ remove the mark ─▶ done
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import { wrapPlanner, type PlannedStep, type Planner } from "../azure/planner.ts";
import type { ScaleSetSnapshot } from "../azure/vmss-gateway.ts";

/** The task that suspended the scale set's automatic repairs, while it runs. */
export const TAG_REPAIRS_SUSPENDED_BY = "vmss-ops.repairs-suspended-by";

/** Extra writes the bracket may add to one attempt: mark, suspend, resume, unmark. */
export const REPAIRS_WRITES = 4;

function markOf(vmss: VirtualMachineScaleSet): string | undefined {
  return vmss.tags?.[TAG_REPAIRS_SUSPENDED_BY];
}

function withMark(vmss: VirtualMachineScaleSet, taskId: string | undefined): Record<string, string> {
  const tags = { ...vmss.tags };
  if (taskId === undefined) delete tags[TAG_REPAIRS_SUSPENDED_BY];
  else tags[TAG_REPAIRS_SUSPENDED_BY] = taskId;
  return tags;
}

/**
 * What to write before the operation's own step, or undefined to let it go on. `repairs` is the AutomaticRepairs
 * state Azure reported (undefined: repairs are not enabled on the scale set).
 */
export function suspendStep(snapshot: ScaleSetSnapshot, taskId: string): PlannedStep | undefined {
  const { repairs, vmss } = snapshot;
  const mark = markOf(vmss);
  if (repairs === undefined || repairs === "NotRunning") return undefined;
  if (mark !== taskId) {
    // Suspended by someone else (a person, another tool, another task of ours): not ours to resume; left alone.
    if (repairs !== "Running") return undefined;
    return {
      kind: "update",
      summary: `mark ${TAG_REPAIRS_SUSPENDED_BY}=${taskId} before suspending automatic repairs`,
      patch: { tags: withMark(vmss, taskId) },
    };
  }
  if (repairs === "Running")
    return {
      kind: "repairs",
      summary: "suspend automatic repairs while instances leave traffic or are replaced",
      action: "Suspend",
    };
  return undefined;
}

/** What to write once the operation is done, failed or canceled: resume what this task suspended, then unmark. */
export function releaseStep(snapshot: ScaleSetSnapshot, taskId: string): PlannedStep {
  const { repairs, vmss } = snapshot;
  if (markOf(vmss) !== taskId) {
    return {
      kind: "done",
      summary:
        repairs === "Suspended"
          ? "automatic repairs stay suspended (suspended by someone else)"
          : "automatic repairs untouched",
    };
  }
  if (repairs === "Suspended")
    return { kind: "repairs", summary: "resume automatic repairs, suspended by this task", action: "Resume" };
  return {
    kind: "update",
    summary: `automatic repairs ${repairs ?? "not enabled"}: remove the ${TAG_REPAIRS_SUSPENDED_BY} mark`,
    patch: { tags: withMark(vmss, undefined) },
  };
}

/**
 * The planner with automatic repairs suspended around its own steps. Its own release, if it has one, runs first;
 * then repairs are resumed.
 */
export function withRepairsSuspended<R>(planner: Planner<R>, taskId: string): Planner<R> {
  const own = planner.release;
  return wrapPlanner(planner, {
    // The repairs state is read with the VMs.
    readsInstances: true,
    maxWrites: planner.maxWrites + REPAIRS_WRITES,
    plan(snapshot) {
      const step = planner.plan(snapshot);
      if (step.kind === "done") {
        const release = releaseStep(snapshot, taskId);
        return release.kind === "done" ? step : release;
      }
      return suspendStep(snapshot, taskId) ?? step;
    },
    release(snapshot) {
      const ownStep = own?.(snapshot);
      return ownStep && ownStep.kind !== "done" && ownStep.kind !== "wait" ? ownStep : releaseStep(snapshot, taskId);
    },
  });
}
