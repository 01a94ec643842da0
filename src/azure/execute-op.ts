// executeOp: the one harness every operation runs through.
//
// Each attempt reads the scale set, asks the planner what to change against what it just read, and writes with
// If-Match set to the ETag of that read. A failed attempt is judged by the retry policy; the next attempt reads
// again, so a retry never re-sends a write planned against a stale object (the Spinnaker bug: its retry wrapped
// only the GET, and a 409 on the write failed the pipeline).
import { setTimeout as sleep } from "node:timers/promises";
import type { RetryConfig } from "../config.ts";
import { describeArmFailure, failureLabel, OperationError, type ArmFailure } from "./arm-failure.ts";
import { decideRetry } from "./retry-policy.ts";
import type { ScaleSetSnapshot, VmssGateway, WriteStep } from "./vmss-gateway.ts";

export type PlannedStep = { kind: "done"; summary: string } | WriteStep;

/** What an operation supplies: a plan against fresh state, and a result from the state Azure confirmed. */
export interface ScaleSetPlanner<R> {
  /** The plan needs the VM list, not only the scale set. */
  readsInstances: boolean;
  plan(snapshot: ScaleSetSnapshot): PlannedStep;
  result(snapshot: ScaleSetSnapshot): R;
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

export async function executeOp<R>(input: ExecuteOpInput<R>): Promise<R> {
  const { gateway, planner, retry, log, signal } = input;
  const now = input.now ?? Date.now;
  const random = input.random ?? Math.random;
  const wait = input.wait ?? ((ms: number, s?: AbortSignal) => sleep(ms, undefined, { signal: s }));
  const started = now();

  for (let attempt = 1; ; attempt++) {
    const prefix = `attempt ${attempt}/${retry.maxAttempts}`;
    try {
      return await runAttempt(input, attempt, prefix);
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = describeArmFailure(err);
      const decision = decideRetry({ failure, attempt, elapsedMs: now() - started, config: retry, random: random() });
      const label = failureLabel(failure);
      if (!decision.retry) {
        const retryable = failure.kind !== "notFound" && failure.kind !== "terminal";
        log(`${prefix}: ${label}: ${failure.message}; ${decision.reason}`);
        throw new OperationFailedError(`${label}: ${failure.message}`, failure, attempt, retryable);
      }
      log(`${prefix}: ${label}, ${decision.reason}`);
      await wait(decision.delayMs, signal);
    }
  }
}

async function runAttempt<R>(input: ExecuteOpInput<R>, attempt: number, prefix: string): Promise<R> {
  const { gateway, planner, log, signal } = input;
  let snapshot = await gateway.read({ withInstances: planner.readsInstances, signal });
  for (let writes = 0; ; writes++) {
    const step = planner.plan(snapshot);
    if (step.kind === "done") {
      log(writes === 0 ? `${prefix}: ${step.summary}` : `Azure confirmed: ${step.summary}`);
      return planner.result(snapshot);
    }
    if (writes >= MAX_WRITES_PER_ATTEMPT) {
      throw new OperationError("PlanDidNotConverge", `still planning "${step.summary}" after ${writes} writes`);
    }
    const guard = step.kind === "update" ? ` (If-Match ${snapshot.etag ?? "none"})` : "";
    log(`${prefix}: ${step.summary}${guard}`);
    await input.onCheckpoint?.({ attempt });
    const written = await gateway.write(step, snapshot.etag, {
      defaultPollIntervalMs: input.lroPollIntervalMs,
      signal,
      onAccepted: (poller) => input.onCheckpoint?.({ attempt, inFlight: { step, poller } }),
    });
    await input.onCheckpoint?.({ attempt });
    if (written && typeof written.sku?.capacity === "number" && !planner.readsInstances) {
      // The update's final GET is a fresh read. If it carried no ETag, keep the old one: the next write then
      // gets a 412 and re-reads, instead of overwriting unconditionally.
      snapshot = { vmss: written, etag: written.etag ?? snapshot.etag };
    } else {
      snapshot = await gateway.read({ withInstances: planner.readsInstances, signal });
    }
  }
}
