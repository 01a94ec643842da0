// How the harness ends an operation it does not finish: gave up (a failure classified once, arm-failure.ts),
// canceled at a safe point, or one of the failures the harness itself decides on.
import { ClassifiedError, RefusalError, type ArmFailure, type FailureKind } from "../arm-failure.ts";
import { isRetryableKind } from "../retry-policy.ts";
import type { ScaleSetSnapshot } from "../vmss-gateway.ts";

/**
 * The harness gave up on an operation (or observe.ts on a read): a failure no retry changes, or attempts or time
 * spent. It carries the failure as classified once (arm-failure.ts), and what Azure showed when it has it.
 */
export class GaveUpError<R = unknown> extends ClassifiedError {
  override name = "GaveUpError";
  readonly attempts: number;
  /** What Azure showed when the operation gave up on a scale set it could not confirm (the true instance count). */
  readonly result?: R;
  constructor(message: string, failure: ArmFailure, attempts: number, result?: R) {
    super(message, failure);
    this.attempts = attempts;
    if (result !== undefined) this.result = result;
  }

  /** Whether sending the same operation again later could succeed (Clouddriver's `retryable`): the retry policy's rule. */
  get retryable(): boolean {
    return isRetryableKind(this.failure.kind);
  }
}

/** The operation stopped at a safe point because it was asked to (cancel): no write of it is in flight. */
export class CanceledOnRequestError extends Error {
  override name = "CanceledOnRequestError";
  /** The writes of this operation that Azure accepted and that ended, in order (their summaries). */
  readonly writesEnded: string[];
  constructor(message: string, writesEnded: string[]) {
    super(message);
    this.writesEnded = writesEnded;
  }
}

/**
 * The failures the harness itself decides on: each code (the task's failure code, Clouddriver's `cause`) with its
 * kind, so whether asking again can succeed is decided here, once, and travels with the failure.
 */
const HARNESS_FAILURES = {
  /** Another writer held the scale set Updating past the deadline: retried as a 409 is. */
  ScaleSetBusy: "conflict",
  /** A read stayed suspicious (capacity missing or negative, 0 with VMs running) on every re-read. */
  SuspiciousRead: "server",
  /** A planner's wait (instances starting, a probe not yet seeing them) ran past the deadline. */
  WaitTimedOut: "terminal",
  /** The plan still asked for a write after the most one attempt may make. */
  PlanDidNotConverge: "terminal",
  /** Azure left the scale set Failed, and re-driving it did not help: the same request later can succeed. */
  ScaleSetLeftFailed: "operationFailedTransient",
  /** Azure lists instances that do not run (a Spot VM it evicted is deallocated): the capacity is not what runs. */
  InstancesNotRunning: "operationFailedTransient",
  /** Azure says Succeeded, yet its VM list kept disagreeing with its capacity on every re-read (retried as a 5xx). */
  InstanceCountDisagrees: "server",
} as const satisfies Record<string, FailureKind>;

type HarnessFailure = keyof typeof HARNESS_FAILURES;

export function harnessFailure(code: HarnessFailure, message: string): RefusalError {
  return new RefusalError(code, message, HARNESS_FAILURES[code]);
}

/**
 * A settled state that is not the goal and that no re-read or re-drive changes (left Failed, instances that do not
 * run): the operation ends here with what Azure lists. Not judged by the retry policy (the re-drives were the
 * retries); its kind says the same request later can succeed.
 */
export class UnconfirmedError extends RefusalError {
  readonly snapshot: ScaleSetSnapshot;
  constructor(code: "ScaleSetLeftFailed" | "InstancesNotRunning", message: string, snapshot: ScaleSetSnapshot) {
    super(code, message, HARNESS_FAILURES[code]);
    this.snapshot = snapshot;
  }
}
