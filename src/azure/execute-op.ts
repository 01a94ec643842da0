// executeOp: the one harness every operation runs through.
//
// Each attempt reads the scale set, asks the planner what to change against what it just read, and writes with
// If-Match set to the ETag of that read. A failed attempt is judged by the retry policy; the next attempt reads
// again, so a retry never re-sends a write planned against a stale object (the Spinnaker bug: its retry wrapped
// only the GET, and a 409 on the write failed the pipeline).
import { setTimeout as sleep } from "node:timers/promises";
import type { RetryConfig } from "../config.ts";
import { describeArmFailure, failureLabel, OperationError, type ArmFailure } from "./arm-failure.ts";
import { decideRetry, isRetryableKind } from "./retry-policy.ts";
import type { ScaleSetSnapshot, VmssGateway, WriteStep } from "./vmss-gateway.ts";

export type PlannedStep = { kind: "done"; summary: string } | WriteStep;

/** What an operation supplies: a plan against fresh state, and a result from the state Azure confirmed. */
export interface ScaleSetPlanner<R> {
  /** The plan needs the VM list, not only the scale set. */
  readsInstances: boolean;
  /**
   * A read-only view: report the state as it is, even mid-write. Operations leave this unset: they plan only on a
   * settled scale set, since "nothing to do" judged on a state that another write is about to change is as wrong
   * as a write planned on it.
   */
  observeOnly?: boolean;
  plan(snapshot: ScaleSetSnapshot): PlannedStep;
  result(snapshot: ScaleSetSnapshot): R;
  /**
   * For an operation whose goal is that the scale set not exist (destroy): Azure answered 404 for it, so the goal
   * is reached. `wrote`: this operation had a write accepted (its own delete), as opposed to finding it gone.
   * Without it, 404 is a terminal failure.
   */
  whenAbsent?(absent: { failure: ArmFailure; wrote: boolean }): R;
}

export interface Checkpoint {
  attempt: number;
  /** The write in flight and its serialized poller, when one was accepted and has not ended. */
  inFlight?: { step: WriteStep; poller: string };
}

export interface ExecuteOpInput<R> {
  gateway: VmssGateway;
  planner: ScaleSetPlanner<R>;
  retry: RetryConfig;
  lroPollIntervalMs: number;
  /** One line for a person, added to the task's history. */
  log: (line: string) => void;
  onCheckpoint?: (checkpoint: Checkpoint) => void | Promise<void>;
  /** A write accepted before a restart: follow it to its end before the first read, instead of writing again. */
  resume?: { step: { kind: WriteStep["kind"]; summary: string }; poller: string };
  signal?: AbortSignal;
  random?: () => number;
  now?: () => number;
  wait?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

export class OperationFailedError extends Error {
  override name = "OperationFailedError";
  readonly failure: ArmFailure;
  readonly attempts: number;
  /** Whether sending the same operation again later could succeed (Clouddriver's `retryable`). */
  readonly retryable: boolean;
  constructor(message: string, failure: ArmFailure, attempts: number, retryable: boolean) {
    super(message);
    this.failure = failure;
    this.attempts = attempts;
    this.retryable = retryable;
  }
}

/** Writes that one attempt may make while converging (disable is a network change, then a rollout). */
const MAX_WRITES_PER_ATTEMPT = 4;

/** Provisioning states in which Azure refuses writes with 409 ConflictingConcurrentWriteNotAllowed. */
const BUSY_STATES = new Set(["updating", "creating", "deleting", "migrating"]);

export function isBusy(snapshot: ScaleSetSnapshot): boolean {
  return BUSY_STATES.has((snapshot.vmss.provisioningState ?? "").toLowerCase());
}

interface AttemptClock {
  now: () => number;
  random: () => number;
  wait: (ms: number, signal?: AbortSignal) => Promise<unknown>;
  deadlineAt: number;
}

export async function executeOp<R>(input: ExecuteOpInput<R>): Promise<R> {
  const { gateway, planner, retry, log, signal } = input;
  const now = input.now ?? Date.now;
  const random = input.random ?? Math.random;
  const wait = input.wait ?? ((ms: number, s?: AbortSignal) => sleep(ms, undefined, { signal: s }));
  const started = now();
  const clock: AttemptClock = { now, random, wait, deadlineAt: started + retry.deadlineMs };

  if (input.resume) {
    // CAPZ's lesson: continue the stored long-running operation rather than send the write again. If it cannot be
    // continued, the first attempt's fresh read shows what Azure did, and the plan follows from that.
    const { step, poller } = input.resume;
    log(`resuming the write Azure accepted before a restart: ${step.summary}`);
    try {
      await gateway.resume(step.kind, poller, { defaultPollIntervalMs: input.lroPollIntervalMs, signal });
      log("the resumed write ended; checking the result on a fresh read");
    } catch (err) {
      if (signal?.aborted) throw err;
      const f = describeArmFailure(err);
      log(`the resumed write could not be followed (${failureLabel(f)}: ${f.message}); re-reading and re-planning`);
    }
    await input.onCheckpoint?.({ attempt: 1 });
  }

  // Whether a write of this operation was accepted by Azure (a resumed one counts).
  let wrote = input.resume !== undefined;
  const tracked: ExecuteOpInput<R> = {
    ...input,
    onCheckpoint: (c) => {
      if (c.inFlight) wrote = true;
      return input.onCheckpoint?.(c);
    },
  };
  for (let attempt = 1; ; attempt++) {
    const prefix = `attempt ${attempt}/${retry.maxAttempts}`;
    try {
      return await runAttempt(tracked, attempt, prefix, clock);
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = describeArmFailure(err);
      if (failure.kind === "notFound" && planner.whenAbsent) {
        log(`${prefix}: Azure answered ${failureLabel(failure)} for ${gateway.ref.name}: it does not exist`);
        return planner.whenAbsent({ failure, wrote });
      }
      const decision = decideRetry({ failure, attempt, elapsedMs: now() - started, config: retry, random: random() });
      const label = failureLabel(failure);
      if (!decision.retry) {
        // Whether a resume (POST /task/{id}:resume) of the same operation could succeed: the retry policy's rule.
        const retryable = isRetryableKind(failure.kind);
        log(`${prefix}: ${label}: ${failure.message}; ${decision.reason}`);
        throw new OperationFailedError(`${label}: ${failure.message}`, failure, attempt, retryable);
      }
      log(`${prefix}: ${label}, ${decision.reason}`);
      await wait(decision.delayMs, signal);
    }
  }
}

async function runAttempt<R>(input: ExecuteOpInput<R>, attempt: number, prefix: string, clock: AttemptClock): Promise<R> {
  const { gateway, planner, log, signal, retry } = input;
  let snapshot = await gateway.read({ withInstances: planner.readsInstances, signal });
  let waitedSince: number | undefined;
  for (let writes = 0; ; ) {
    if (isBusy(snapshot) && !planner.observeOnly) {
      // Another write holds the scale set: a write now would only 409 and spend Azure's write budget. Re-read
      // until it ends (a write lock clears within one write's duration), then plan again on what it left.
      if (waitedSince === undefined) {
        waitedSince = clock.now();
        log(`${prefix}: ${gateway.ref.name} is ${snapshot.vmss.provisioningState} (another write in flight); waiting for it to end before planning`);
      }
      const delayMs = Math.round(retry.busyPollIntervalMs * (0.8 + 0.4 * clock.random()));
      if (clock.now() + delayMs >= clock.deadlineAt) {
        throw new OperationError(
          "ScaleSetBusy",
          `${gateway.ref.name} stayed ${snapshot.vmss.provisioningState} for ${Math.round((clock.now() - waitedSince) / 1000)} s`,
          "conflict",
        );
      }
      await clock.wait(delayMs, signal);
      snapshot = await gateway.read({ withInstances: planner.readsInstances, signal });
      continue;
    }
    if (waitedSince !== undefined) {
      log(`${prefix}: the other write ended after ${Math.round((clock.now() - waitedSince) / 100) / 10} s; planning on a fresh read`);
      waitedSince = undefined;
    }
    const step = planner.plan(snapshot);
    if (step.kind === "done") {
      log(writes === 0 ? `${prefix}: ${step.summary}` : `Azure confirmed: ${step.summary}`);
      return planner.result(snapshot);
    }
    if (writes >= MAX_WRITES_PER_ATTEMPT) {
      throw new OperationError("PlanDidNotConverge", `still planning "${step.summary}" after ${writes} writes`);
    }
    const guard = step.kind === "update" || step.kind === "delete" ? ` (If-Match ${snapshot.etag ?? "none"})` : "";
    log(`${prefix}: ${step.summary}${guard}`);
    await input.onCheckpoint?.({ attempt });
    const written = await gateway.write(step, snapshot.etag, {
      defaultPollIntervalMs: input.lroPollIntervalMs,
      signal,
      onAccepted: (poller) => input.onCheckpoint?.({ attempt, inFlight: { step, poller } }),
    });
    await input.onCheckpoint?.({ attempt });
    writes++;
    if (written && typeof written.sku?.capacity === "number" && !planner.readsInstances) {
      // The update's final GET is a fresh read. If it carried no ETag, keep the old one: the next write then
      // gets a 412 and re-reads, instead of overwriting unconditionally.
      snapshot = { vmss: written, etag: written.etag ?? snapshot.etag };
    } else {
      snapshot = await gateway.read({ withInstances: planner.readsInstances, signal });
    }
  }
}
