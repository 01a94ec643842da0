// Long-running operations: what the status URL reports, and what a write in flight still has to do.
import type { ScaleSetChange } from "./fault-specs.ts";
import type { PowerAction, PowerState } from "./power-state.ts";
import type { WriteKind } from "./settings.ts";

/** The SDK method behind a write, as the call log, versions and /_sim show it. */
export type OperationKind =
  "createOrUpdate" | "update" | "deleteInstances" | "updateInstances" | "delete" | "updateVm" | PowerAction;
/** Azure's operation statuses (the status URL's `status`). */
export type OperationStatus = "InProgress" | "Succeeded" | "Failed" | "Canceled";

export interface OperationError {
  code: string;
  message: string;
}

/** Set by a fault: how the operation ends instead of succeeding. */
export interface OperationFailure extends OperationError {
  /** HTTP status the Location (operationResults) URL answers for this failure; default 500. */
  status?: number;
}

/** The message Azure gives an operation that a newer one replaced. */
export const PREEMPTED: OperationError = {
  code: "OperationPreempted",
  message: "Operation execution has been preempted by a more recent operation.",
};

export const ALLOCATION_FAILED_MESSAGE =
  "Allocation failed. We do not have sufficient capacity for the requested VM size in this region. Read more about improving likelihood of allocation success at http://aka.ms/allocation-guidance";

export interface Operation {
  id: string;
  kind: OperationKind;
  /** The duration class (settings.writeDurationOf). */
  writeKind: WriteKind;
  scaleSetKey: string;
  subscriptionId: string;
  location: string;
  startedAt: number;
  completesAt: number;
  status: OperationStatus;
  endTime?: number;
  error?: OperationError;
  /** Location-URL status for a failure (failOperation fault's `status`). */
  failureStatus?: number;
  /** failOperation fault: the operation ends Failed with this error; what it did at acceptance stays. */
  failWith?: OperationFailure;
  /** allocationFailed fault: only this many of the VMs it creates can be allocated; the rest end Failed. */
  allocatable?: number;
  /** preemptOperation fault: at this time another writer's write (this change) preempts the operation. */
  preemptAt?: number;
  preemptChange?: ScaleSetChange;
  /** PUT that created the scale set. */
  isCreate: boolean;
  /** deleteInstances / updateInstances: the instance ids (already validated). */
  instanceIds?: string[];
  /**
   * VMs that began running when it ended (created, or booted again): the load balancer's health probe starts over
   * for each of them then (health-probe.ts).
   */
  vmsStarted?: number;
  /** Status polls answered so far (the first poll after a create advertises a longer Retry-After). */
  polls: number;
  /** Power actions: each VM's power state before the action, restored if the operation fails. */
  powerBefore?: Record<string, PowerState>;
  /** updateVm (a Uniform VM's own PUT): the NIC configurations the instance takes when the operation succeeds. */
  vmNetwork?: unknown[];
  /** A PUT/PATCH that changed the VM profile (what upgrading an instance to the model changes). */
  modelChanged?: boolean;
  /** Rolling upgrade policy: instance ids in the order they are moved to the new model, in batches. */
  rolling?: { order: string[]; batchSize: number; stopAfterBatches?: number; failure?: OperationError };
}
