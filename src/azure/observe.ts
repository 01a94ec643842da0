// observe: the harness for reads that write nothing — the reads served to Orca and to GET /azure/serverGroups, and
// the read a dry run plans on. A read is retried as an operation's attempt is (retry-policy.ts decides: a keep-alive
// reset, a 5xx, a 429 with its Retry-After), within the bound its caller gives (a poller is waiting: readRetry);
// anything else ends it at once, a bug of ours as what it is. Unlike executeOp it neither waits out another writer
// nor judges the read: it reports the state as it is, mid-write or Failed.
import { setTimeout as sleep } from "node:timers/promises";
import type { RetryConfig } from "./retry-policy.ts";
import { describeArmFailure, failureLabel } from "./arm-failure.ts";
import { GaveUpError } from "./harness/failures.ts";
import type { Planner } from "./planner.ts";
import { decideRetry } from "./retry-policy.ts";
import { isBusy } from "./scale-set-state.ts";
import { listenToArmResponses } from "./arm-listeners.ts";
import {
  guardOf,
  type ScaleSetGateway,
  type ScaleSetSnapshot,
  type WriteKind,
  type WriteStep,
} from "./vmss-gateway.ts";

export interface ObserveOptions {
  retry: RetryConfig;
  signal?: AbortSignal;
  random?: () => number;
  now?: () => number;
  wait?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

/**
 * Runs `read` until it answers, retrying what the retry policy retries. Gives up with GaveUpError (its
 * failure classified once, its `retryable` the policy's) and rethrows a programming error or an abort unchanged.
 */
export async function observe<T>(read: (signal?: AbortSignal) => Promise<T>, options: ObserveOptions): Promise<T> {
  const { signal } = options;
  // Someone waits on a read: its attempts bound every failure, Azure's "not now" too (an operation's do not).
  const retry: RetryConfig = { ...options.retry, attemptsBoundEverything: true };
  const now = options.now ?? Date.now;
  const random = options.random ?? Math.random;
  const wait = options.wait ?? ((ms: number, s?: AbortSignal) => sleep(ms, undefined, { signal: s }));
  const started = now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await read(signal);
    } catch (err) {
      if (signal?.aborted) throw err;
      const failure = describeArmFailure(err);
      if (failure.kind === "programming") throw err;
      const decision = decideRetry({ failure, attempt, elapsedMs: now() - started, config: retry, random: random() });
      if (!decision.retry) throw new GaveUpError(`${failureLabel(failure)}: ${failure.message}`, failure, attempt);
      await wait(decision.delayMs, signal);
    }
  }
}

/** What an attempt would do now, planned against a read made for it, with nothing written (?dryRun=true). */
export interface DryRunPlan {
  /** The read the plan was made against. */
  read: { etag?: string; provisioningState?: string; capacity?: number };
  /** The write an attempt would send first, with the If-Match it would carry; absent when nothing would change. */
  write?: { kind: WriteKind; summary: string; ifMatch?: string };
  /** Nothing would change: what the plan found. */
  unchanged?: string;
  /** Another write holds the scale set now: a real run would wait for it to end and plan on what it left. */
  busy?: string;
}

/** The write planned, with what it was planned on: what the dry run shows its requests and changes from. */
export interface PlannedWrite {
  step: WriteStep;
  /** The read it was planned on; absent for a create planned on a 404. */
  snapshot?: ScaleSetSnapshot;
  /** The scale set as Azure's GET answered it, on the wire (what a change is compared with). */
  asRead?: unknown;
}

/** Keeps the body of the GET of the scale set `name`, as Azure sent it. */
class ScaleSetBody {
  body: unknown;
  readonly #path: string;
  constructor(name: string) {
    this.#path = `/virtualmachinescalesets/${name.toLowerCase()}`;
  }
  onArmResponse(info: { method: string; url: string; status: number; bodyAsText?: string }): void {
    if (info.method !== "GET" || info.status !== 200 || !info.bodyAsText) return;
    if (!new URL(info.url).pathname.toLowerCase().endsWith(this.#path)) return;
    try {
      this.body = JSON.parse(info.bodyAsText);
    } catch {
      this.body = undefined;
    }
  }
}

/**
 * What an attempt would do now, planned against a read made for it (observed: a transient failure of the read is
 * retried), with nothing written (?dryRun=true). Reads as an attempt reads (the scale set, and its VMs when the
 * planner needs them) and asks the planner, as executeOp's attempt does. Only the first write can be planned: a later
 * one (disable's rollout after its network change) is planned by a real run on the read that follows the first.
 */
export async function planWithoutWriting<R>(
  gateway: ScaleSetGateway,
  planner: Planner<R>,
  options: ObserveOptions,
): Promise<DryRunPlan & { planned?: PlannedWrite }> {
  let snapshot;
  const asRead = new ScaleSetBody(gateway.ref.name);
  try {
    snapshot = await listenToArmResponses(asRead, () =>
      observe(
        (signal) =>
          gateway.read({ withInstances: planner.readsInstances, withAutoscale: planner.readsAutoscale, signal }),
        options,
      ),
    );
  } catch (err) {
    // No scale set: what an attempt does then (executeOp's firstRead and whenAbsent), planned the same way.
    if (describeArmFailure(err).kind !== "notFound") throw err;
    if (planner.createWhenMissing) {
      const step = planner.createWhenMissing();
      return { read: {}, write: { kind: step.kind, summary: step.summary }, planned: { step } };
    }
    if (planner.whenAbsent) return { read: {}, unchanged: `${gateway.ref.name} does not exist: nothing to do` };
    throw err;
  }
  const read = {
    ...(snapshot.etag !== undefined ? { etag: snapshot.etag } : {}),
    ...(snapshot.vmss.provisioningState !== undefined ? { provisioningState: snapshot.vmss.provisioningState } : {}),
    ...(typeof snapshot.vmss.sku?.capacity === "number" ? { capacity: snapshot.vmss.sku.capacity } : {}),
  };
  const busy = isBusy(snapshot)
    ? `${gateway.ref.name} is ${snapshot.vmss.provisioningState} (another write in flight): a run would wait for it to end, then plan again`
    : undefined;
  const step = planner.plan(snapshot);
  if (step.kind === "done") return { read, unchanged: step.summary, ...(busy ? { busy } : {}) };
  if (step.kind === "wait")
    return { read, unchanged: `a run would wait before writing: ${step.summary}`, ...(busy ? { busy } : {}) };
  // The If-Match the write would carry (guardOf): the ETag of the read it was planned on.
  const guard = guardOf(step.kind, snapshot.etag);
  const ifMatch = "ifMatch" in guard ? (guard.ifMatch ?? "none") : undefined;
  return {
    read,
    write: { kind: step.kind, summary: step.summary, ...(ifMatch !== undefined ? { ifMatch } : {}) },
    ...(busy ? { busy } : {}),
    planned: { step, snapshot, asRead: asRead.body },
  };
}
