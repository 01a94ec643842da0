// What a plan that says "done" leads to, decided on the read alone: "nothing to change" in the model is not yet what
// Azure did, so it is confirmed against the VMs Azure lists, or read again, or the scale set driven again, or the
// operation ends with what Azure lists.
import type { RefusalError } from "../arm-failure.ts";
import { confirmation, describeStopped, isFailed, stoppedInstances } from "../scale-set-state.ts";
import type { ScaleSetSnapshot, WriteStep } from "../vmss-gateway.ts";
import { harnessFailure, UnconfirmedError } from "./failures.ts";
import { MAX_REREADS } from "./reads.ts";

export type AfterDone =
  /** The goal is what Azure shows: the operation's result, with its history line. */
  | { kind: "confirmed"; line: string }
  /** Succeeded, yet the VM list disagrees with the capacity: read again rather than report either number. */
  | { kind: "reread" }
  /** Azure left the scale set Failed: re-send its model (counted as a re-drive). */
  | { kind: "redrive"; step: WriteStep }
  | { kind: "fail"; error: RefusalError };

export interface DoneContext {
  /** The planner's "done" summary. */
  summary: string;
  prefix: string;
  name: string;
  /** Writes this attempt made so far. */
  writes: number;
  /** StoppedInstancesAccepted. */
  acceptsStopped: boolean;
  /** Re-reads this attempt made of a Succeeded scale set whose VM list disagreed. */
  disagreeingRereads: number;
  redrives: number;
  maxRedrives: number;
}

/** What a "done" leads to, on a read that lists the VMs. */
export function afterDone(snapshot: ScaleSetSnapshot, done: DoneContext): AfterDone {
  const confirmed = confirmation(snapshot);
  if (confirmed.confirmed) {
    return {
      kind: "confirmed",
      line: done.writes === 0 ? `${done.prefix}: ${done.summary}` : `Azure confirmed: ${done.summary}`,
    };
  }
  const capacity = snapshot.vmss.sku?.capacity ?? 0;
  const stopped = stoppedInstances(snapshot);
  if (!isFailed(snapshot) && stopped.length > 0) {
    // Azure stopped or evicted them: a settled state no re-read changes, and no write of ours would bring a Spot VM
    // back. Reported, never counted as running.
    if (done.acceptsStopped && confirmed.instances + stopped.length === capacity) {
      return {
        kind: "confirmed",
        line: `${done.prefix}: ${done.summary}; instance(s) ${describeStopped(stopped)} are listed but not running (a Spot VM Azure evicted is deallocated)`,
      };
    }
    return {
      kind: "fail",
      error: new UnconfirmedError("InstancesNotRunning", `${done.name}: ${confirmed.reason}`, snapshot),
    };
  }
  if (!isFailed(snapshot)) {
    if (done.disagreeingRereads >= MAX_REREADS) {
      return { kind: "fail", error: harnessFailure("InstanceCountDisagrees", `${done.name}: ${confirmed.reason}`) };
    }
    return { kind: "reread" };
  }
  if (done.redrives >= done.maxRedrives) {
    return {
      kind: "fail",
      error: new UnconfirmedError(
        "ScaleSetLeftFailed",
        `Azure left ${done.name} Failed: ${confirmed.instances} instance(s) running of capacity ${capacity}, after ${done.redrives} re-drive(s)`,
        snapshot,
      ),
    };
  }
  return { kind: "redrive", step: redriveStep(snapshot, confirmed.instances, done.redrives + 1, done.maxRedrives) };
}

/** The write that drives a Failed scale set again: its own model, re-sent with If-Match. Azure retries the work. */
function redriveStep(snapshot: ScaleSetSnapshot, instances: number, redrive: number, max: number): WriteStep {
  const capacity = snapshot.vmss.sku?.capacity ?? 0;
  return {
    kind: "update",
    summary: `Azure left the scale set Failed with ${instances} of ${capacity} instance(s) running; re-sending its model to drive it again (${redrive}/${max})`,
    patch: { sku: { ...snapshot.vmss.sku } },
  };
}
