// executeOp: the one harness every operation runs through.
//
// Each attempt reads the scale set, asks the planner what to change against what it just read, and writes with
// If-Match set to the ETag of that read. A failed attempt is judged by the retry policy; the next attempt reads
// again, so a retry never re-sends a write planned against a stale object (the Spinnaker bug: its retry wrapped
// only the GET, and a 409 on the write failed the pipeline). An operation ends only on what Azure confirmed: a
// Succeeded scale set whose running VMs match its capacity; one Azure left Failed is driven again, a bounded number
// of times, and otherwise fails with what runs.
import { setTimeout as sleep } from "node:timers/promises";
import type { RetryConfig } from "./retry-policy.ts";
import {
  ClassifiedError,
  describeArmFailure,
  failureLabel,
  isProgrammingError,
  RefusalError,
  type ArmFailure,
  type FailureKind,
} from "./arm-failure.ts";
import { decideBusyWait, decideRetry, formatDuration, isRetryableKind } from "./retry-policy.ts";
import {
  confirmation,
  describeStopped,
  isBusy,
  isFailed,
  stoppedInstances,
  suspiciousRead,
} from "./scale-set-state.ts";
import {
  guardLabel,
  guardOf,
  storedStep,
  type ScaleSetGateway,
  type ScaleSetSnapshot,
  type StoredWriteStep,
  type WriteKind,
  type WriteStep,
} from "./vmss-gateway.ts";
import { inSpan } from "../tracing/spans.ts";
import { plannerOf, type AfterAbsent, type PlannedStep, type Planner, type PlannerSpec } from "./planner.ts";

export interface Checkpoint {
  attempt: number;
  /** The write in flight and its serialized poller, when one was accepted and has not ended. */
  inFlight?: { step: StoredWriteStep; poller: string };
  /** The planner's memory (Remembering.memory), when it has one. */
  planner?: unknown;
}

/** How one attempt ended: for metrics and logs (the retry decision itself stays in retry-policy.ts). */
export interface AttemptEnd {
  attempt: number;
  outcome: "succeeded" | "retry" | "failed";
  failure?: ArmFailure;
}

export interface ExecuteOpInput<R> {
  gateway: ScaleSetGateway;
  /** The operation's planner; read once into its fields (plannerOf). */
  planner: PlannerSpec<R>;
  retry: RetryConfig;
  lroPollIntervalMs: number;
  /** The longest wait between polls of a write, whatever Azure advertised (default 120 s). */
  lroMaxPollIntervalMs?: number;
  /** One line for a person, added to the task's history. */
  log: (line: string) => void;
  onCheckpoint?: (checkpoint: Checkpoint) => void | Promise<void>;
  /** Told how every attempt ended. */
  onAttemptEnd?: (end: AttemptEnd) => void;
  /** A write accepted before a restart: follow it to its end before the first read, instead of writing again. */
  resume?: { step: { kind: WriteKind; summary: string }; poller: string };
  /** Interrupts at once, even mid-write (shutdown, lease lost): the checkpoint says how to go on. */
  signal?: AbortSignal;
  /**
   * Asks to stop at the next safe point: before an attempt, during a backoff or a wait for another writer, before a
   * write, or once a write in flight has ended. Never mid-write: a write Azure accepted is followed to its end.
   */
  cancel?: AbortSignal;
  /**
   * Asked right before each write is sent; throws to keep it from being sent (the task's lease ended by this
   * replica's clock: another replica may be writing the scale set now). The run's signal is aborted by then.
   */
  beforeWrite?: () => void;
  random?: () => number;
  now?: () => number;
  wait?: (ms: number, signal?: AbortSignal) => Promise<unknown>;
}

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

function harnessFailure(code: HarnessFailure, message: string): RefusalError {
  return new RefusalError(code, message, HARNESS_FAILURES[code]);
}

/**
 * A settled state that is not the goal and that no re-read or re-drive changes (left Failed, instances that do not
 * run): the operation ends here with what Azure lists. Not judged by the retry policy (the re-drives were the
 * retries); its kind says the same request later can succeed.
 */
class UnconfirmedError extends RefusalError {
  readonly snapshot: ScaleSetSnapshot;
  constructor(code: "ScaleSetLeftFailed" | "InstancesNotRunning", message: string, snapshot: ScaleSetSnapshot) {
    super(code, message, HARNESS_FAILURES[code]);
    this.snapshot = snapshot;
  }
}

/** Reads made again, at most, when a read is suspicious, or Succeeded while its VM list disagrees. */
const REREADS_OF_A_DOUBTFUL_READ = 2;

interface AttemptClock {
  now: () => number;
  random: () => number;
  /** Ends early on the task's signal or on cancel. */
  wait: (ms: number, signal?: AbortSignal) => Promise<unknown>;
  started: number;
  /** A safe point: throws CanceledOnRequestError if a cancel was asked for. */
  stopIfCanceled: (where: string) => void;
}

/** Counted across attempts: how often a Failed scale set was driven again, and the writes that ended. */
interface Progress {
  redrives: number;
  writesEnded: string[];
}

/** The input as the harness's pieces read it: the planner with every capability a field. */
type HarnessInput<R> = Omit<ExecuteOpInput<R>, "planner"> & { planner: Planner<R> };

export async function executeOp<R>(given: ExecuteOpInput<R>): Promise<R> {
  const planner = plannerOf(given.planner);
  const { memory, release: releaseOf } = planner;
  const { onCheckpoint } = given;
  // Every checkpoint carries what the planner learned so far.
  const input: HarnessInput<R> = {
    ...given,
    planner,
    onCheckpoint:
      memory && onCheckpoint
        ? (c) => {
            const learned = memory();
            return onCheckpoint({ ...c, ...(learned !== undefined ? { planner: learned } : {}) });
          }
        : onCheckpoint,
  };
  try {
    return await runToEnd(input);
  } catch (err) {
    if (releaseOf && !input.signal?.aborted && !isProgrammingError(err)) await release(input, releaseOf);
    throw err;
  }
}

/** Writes that release() may make when an operation ends failed or canceled. */
const MAX_RELEASE_WRITES = 3;

/** The planner's release, on fresh reads: best effort, every step and every failure logged. */
async function release<R>(input: HarnessInput<R>, plan: (snapshot: ScaleSetSnapshot) => PlannedStep): Promise<void> {
  const { gateway, log, signal } = input;
  try {
    for (let writes = 0; writes < MAX_RELEASE_WRITES; writes++) {
      const snapshot = await gateway.read({
        withInstances: true,
        withAutoscale: input.planner.readsAutoscale,
        signal,
      });
      const step = plan(snapshot);
      if (step.kind === "done" || step.kind === "wait") return;
      log(`the operation ended unfinished: ${step.summary}`);
      input.beforeWrite?.();
      await gateway.write(step, snapshot.etag, { defaultPollIntervalMs: input.lroPollIntervalMs, signal });
    }
  } catch (err) {
    if (signal?.aborted) throw err;
    const f = describeArmFailure(err);
    if (f.kind === "notFound") return; // the scale set is gone: nothing of it to undo
    log(
      `could not undo what the operation changed on ${gateway.ref.name} for its duration (${failureLabel(f)}: ${f.message}); undo it by hand`,
    );
  }
}

/**
 * The retry policy around attempts: follow a write accepted before a restart, then attempt until one succeeds or
 * the failure is judged final; between attempts, checkpoint and back off.
 */
async function runToEnd<R>(input: HarnessInput<R>): Promise<R> {
  const progress: Progress = { redrives: 0, writesEnded: [] };
  const clock = attemptClock(input, progress);
  if (input.resume) await resumeWrite(input, input.resume, clock, progress);
  // Whether a write of this operation was accepted by Azure (a resumed one counts).
  let wrote = input.resume !== undefined;
  const tracked: HarnessInput<R> = {
    ...input,
    onCheckpoint: (c) => {
      if (c.inFlight) wrote = true;
      return input.onCheckpoint?.(c);
    },
  };
  for (let attempt = 1; ; attempt++) {
    const prefix = attemptPrefix(attempt, input.retry.maxAttempts);
    try {
      clock.stopIfCanceled(`before attempt ${attempt}`);
      const result = await inSpan(`attempt ${attempt}`, { attributes: { "vmss.attempt": attempt } }, () =>
        runAttempt(tracked, attempt, prefix, clock, progress, () => wrote),
      );
      input.onAttemptEnd?.({ attempt, outcome: "succeeded" });
      return result;
    } catch (err) {
      const judged = await judgeFailure(input, err, { attempt, prefix, wrote, clock });
      if (judged.kind === "goalReached") return judged.result;
      // The write that failed (or was canceled) is over: nothing is in flight until the next attempt writes.
      await input.onCheckpoint?.({ attempt: attempt + 1 });
      await clock.wait(judged.delayMs, input.signal).catch((err) => {
        clock.stopIfCanceled(`during the backoff before attempt ${attempt + 1}`);
        throw err;
      });
    }
  }
}

/** Past maxAttempts only for failures retried until the deadline (retry-policy.ts): no "9/8". */
function attemptPrefix(attempt: number, maxAttempts: number): string {
  return attempt <= maxAttempts ? `attempt ${attempt}/${maxAttempts}` : `attempt ${attempt}`;
}

/** The clock of the whole operation; a wait ends early on cancel too (a backoff or a wait is a safe point). */
function attemptClock<R>(input: HarnessInput<R>, progress: Progress): AttemptClock {
  const now = input.now ?? Date.now;
  const wait = input.wait ?? ((ms: number, s?: AbortSignal) => sleep(ms, undefined, { signal: s }));
  const { cancel } = input;
  return {
    now,
    random: input.random ?? Math.random,
    wait: (ms, s) => wait(ms, cancel && s ? AbortSignal.any([s, cancel]) : (s ?? cancel)),
    started: now(),
    stopIfCanceled: (where) => stopIfCanceled(cancel, where, progress),
  };
}

/**
 * CAPZ's lesson: continue the stored long-running operation rather than send the write again. If it cannot be
 * continued, the first attempt's fresh read shows what Azure did, and the plan follows from that.
 */
async function resumeWrite<R>(
  input: HarnessInput<R>,
  { step, poller }: NonNullable<ExecuteOpInput<R>["resume"]>,
  clock: AttemptClock,
  progress: Progress,
): Promise<void> {
  const { gateway, log, signal } = input;
  log(`resuming the write Azure accepted before a restart: ${step.summary}`);
  try {
    await gateway.resume(step.kind, poller, {
      defaultPollIntervalMs: input.lroPollIntervalMs,
      maxPollIntervalMs: input.lroMaxPollIntervalMs,
      signal,
    });
    log("the resumed write ended; checking the result on a fresh read");
  } catch (err) {
    if (signal?.aborted) throw err;
    const f = describeArmFailure(err);
    if (f.kind === "programming") throw err;
    log(`the resumed write could not be followed (${failureLabel(f)}: ${f.message}); re-reading and re-planning`);
  }
  await input.onCheckpoint?.({ attempt: 1 });
  progress.writesEnded.push(step.summary);
  clock.stopIfCanceled("after the write in flight ended");
}

/** What a failed attempt leads to when it does not end the operation: its goal reached after all, or a retry. */
type Judgment<R> = { kind: "goalReached"; result: R } | { kind: "retry"; delayMs: number };

/**
 * Judges a failed attempt: throws what ends the operation (an interruption, a cancel, a bug, a failure the retry
 * policy gives up on, a settled state that is not the goal), else says whether the goal is reached (a Deleter's
 * 404) or how long to back off before the next attempt.
 */
async function judgeFailure<R>(
  input: HarnessInput<R>,
  err: unknown,
  at: { attempt: number; prefix: string; wrote: boolean; clock: AttemptClock },
): Promise<Judgment<R>> {
  const { gateway, planner, log } = input;
  const { attempt, prefix } = at;
  if (input.signal?.aborted || err instanceof CanceledOnRequestError) throw err;
  const failure = describeArmFailure(err);
  // A bug in our code fails at once, as what it is: retrying it would only repeat it.
  if (failure.kind === "programming") throw err;
  if (failure.kind === "notFound" && planner.whenAbsent) {
    log(`${prefix}: Azure answered ${failureLabel(failure)} for ${gateway.ref.name}: it does not exist`);
    input.onAttemptEnd?.({ attempt, outcome: "succeeded" });
    return { kind: "goalReached", result: planner.whenAbsent({ failure, wrote: at.wrote }) };
  }
  const label = failureLabel(failure);
  if (err instanceof UnconfirmedError) {
    input.onAttemptEnd?.({ attempt, outcome: "failed", failure });
    log(`${prefix}: ${failure.message}`);
    throw new GaveUpError(`${label}: ${failure.message}`, failure, attempt, planner.result(err.snapshot));
  }
  const elapsedMs = at.clock.now() - at.clock.started;
  const decision = decideRetry({ failure, attempt, elapsedMs, config: input.retry, random: at.clock.random() });
  input.onAttemptEnd?.({ attempt, outcome: decision.retry ? "retry" : "failed", failure });
  if (!decision.retry) {
    // Whether a resume (POST /task/{id}:resume) of the same operation could succeed: the retry policy's rule.
    log(`${prefix}: ${label}: ${failure.message}; ${decision.reason}`);
    const shown = at.wrote && planner.resultOnFailure ? await readForFailure(input) : undefined;
    throw new GaveUpError(`${label}: ${failure.message}`, failure, attempt, shown);
  }
  log(`${prefix}: ${label}, ${decision.reason}`);
  return { kind: "retry", delayMs: decision.delayMs };
}

/** Throws CanceledOnRequestError when a cancel was asked for; called only at safe points. */
function stopIfCanceled(cancel: AbortSignal | undefined, where: string, progress: Progress): void {
  if (!cancel?.aborted) return;
  throw new CanceledOnRequestError(`canceled ${where}`, [...progress.writesEnded]);
}

/**
 * One read the harness may act on: waits out another writer (re-reading the scale set alone, paced by the read
 * budget), lists the VMs when the planner needs them, and re-reads a suspicious read. The busy check comes first:
 * mid-write, a model that runs ahead of its VMs (a scale to 0 with VMs still listed) is what Azure shows, not a
 * bad read. `first` is a read already made (a write's final GET).
 */
async function settledRead<R>(
  input: HarnessInput<R>,
  prefix: string,
  clock: AttemptClock,
  first?: ScaleSetSnapshot,
): Promise<ScaleSetSnapshot> {
  const { gateway, planner, log, signal, retry } = input;
  const getScaleSet = () => gateway.read({ withInstances: false, withAutoscale: planner.readsAutoscale, signal });
  let snapshot = first ?? (await getScaleSet());
  let waitedSince: number | undefined;
  for (let doubtful = 0; ;) {
    if (isBusy(snapshot)) {
      // Another write holds the scale set: a write now would only 409 and spend Azure's write budget. Re-read
      // until it ends, then plan again on what it left.
      if (waitedSince === undefined) {
        waitedSince = clock.now();
        log(
          `${prefix}: ${gateway.ref.name} is ${snapshot.vmss.provisioningState} (another write in flight); waiting for it to end before planning`,
        );
      }
      const decision = decideBusyWait({
        elapsedMs: clock.now() - clock.started,
        config: retry,
        remainingReads: snapshot.remainingReads,
        random: clock.random(),
      });
      if (!decision.wait) {
        throw harnessFailure(
          "ScaleSetBusy",
          `${gateway.ref.name} stayed ${snapshot.vmss.provisioningState} for ${formatDuration(clock.now() - waitedSince)}`,
        );
      }
      await clock.wait(decision.delayMs, signal).catch((err) => {
        clock.stopIfCanceled("while waiting for another write to end");
        throw err;
      });
      snapshot = await getScaleSet();
      continue;
    }
    if (waitedSince !== undefined) {
      log(
        `${prefix}: the other write ended after ${formatDuration(clock.now() - waitedSince)}; planning on a fresh read`,
      );
      waitedSince = undefined;
    }
    if (planner.readsInstances && !snapshot.vms) {
      snapshot = await gateway.withInstances(snapshot, signal);
    }
    // A write's final GET carries no autoscale setting: a plan that needs it reads the setting now.
    if (planner.readsAutoscale && snapshot.autoscale === undefined && gateway.withAutoscale) {
      snapshot = await gateway.withAutoscale(snapshot, signal);
    }
    const suspicious = suspiciousRead(snapshot);
    if (suspicious === undefined) return snapshot;
    if (doubtful++ >= REREADS_OF_A_DOUBTFUL_READ) {
      throw harnessFailure("SuspiciousRead", `${suspicious} for ${gateway.ref.name}; not acting on it`);
    }
    snapshot = await getScaleSet();
  }
}

/** What Azure shows after a failed write, for the failure's result; undefined when even that read fails. */
async function readForFailure<R>(input: HarnessInput<R>): Promise<R | undefined> {
  try {
    return input.planner.result(
      await input.gateway.read({
        withInstances: true,
        withAutoscale: input.planner.readsAutoscale,
        signal: input.signal,
      }),
    );
  } catch (err) {
    if (input.signal?.aborted) throw err;
    return undefined;
  }
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

/** The first read of an attempt; for an operation that makes the scale set, a 404 is answered by creating it. */
async function firstRead<R>(
  input: HarnessInput<R>,
  attempt: number,
  prefix: string,
  clock: AttemptClock,
  progress: Progress,
): Promise<{ snapshot: ScaleSetSnapshot; writes: number }> {
  try {
    return { snapshot: await settledRead(input, prefix, clock), writes: 0 };
  } catch (err) {
    const { planner } = input;
    if (!planner.createWhenMissing || describeArmFailure(err).kind !== "notFound") throw err;
    const create = planner.createWhenMissing();
    return { snapshot: await writeThenRead(input, attempt, prefix, clock, progress, create, undefined), writes: 1 };
  }
}

/** Sends one write, checkpointing its poller once Azure accepted it, and reads the scale set after it. */
async function writeThenRead<R>(
  input: HarnessInput<R>,
  attempt: number,
  prefix: string,
  clock: AttemptClock,
  progress: Progress,
  step: WriteStep,
  etag: string | undefined,
): Promise<ScaleSetSnapshot> {
  // Before a write is a safe point to stop; once Azure accepted it, it is followed to its end first.
  clock.stopIfCanceled(`before writing: ${step.summary}`);
  input.log(`${prefix}: ${step.summary}${guardLabel(guardOf(step.kind, etag))}`);
  await input.onCheckpoint?.({ attempt });
  const stored = storedStep(step);
  input.beforeWrite?.();
  const written = await input.gateway.write(step, etag, {
    defaultPollIntervalMs: input.lroPollIntervalMs,
    maxPollIntervalMs: input.lroMaxPollIntervalMs,
    signal: input.signal,
    onAccepted: (poller) => input.onCheckpoint?.({ attempt, inFlight: { step: stored, poller } }),
  });
  await input.onCheckpoint?.({ attempt });
  progress.writesEnded.push(step.summary);
  clock.stopIfCanceled(`after the write in flight ended (${step.summary})`);
  // The write's final GET is a fresh read of the scale set. If it carried no ETag, keep the old one: the next
  // write then gets a 412 and re-reads, instead of overwriting unconditionally.
  const first =
    written && typeof written.sku?.capacity === "number" ? { vmss: written, etag: written.etag ?? etag } : undefined;
  return settledRead(input, prefix, clock, first);
}

/** A planner's "wait": since when, and what it last said (said once, not on every re-read). */
interface Waiting {
  since: number;
  summary: string;
}

/**
 * Waits as a busy scale set is waited out (paced by the read budget), then reads again. The wait is bounded by the
 * retry deadline counted from when this wait began, so that a long operation can wait at every step.
 */
async function waitAndReread<R>(
  input: HarnessInput<R>,
  prefix: string,
  clock: AttemptClock,
  summary: string,
  waiting: Waiting | undefined,
  snapshot: ScaleSetSnapshot,
): Promise<{ snapshot: ScaleSetSnapshot; waiting: Waiting }> {
  const since = waiting?.since ?? clock.now();
  if (waiting?.summary !== summary) input.log(`${prefix}: ${summary}`);
  const decision = decideBusyWait({
    elapsedMs: clock.now() - since,
    config: input.retry,
    remainingReads: snapshot.remainingReads,
    random: clock.random(),
  });
  if (!decision.wait) {
    throw harnessFailure(
      "WaitTimedOut",
      `${input.gateway.ref.name}: still waiting after ${formatDuration(clock.now() - since)}: ${summary}`,
    );
  }
  await clock.wait(decision.delayMs, input.signal).catch((err) => {
    clock.stopIfCanceled(`while waiting: ${summary}`);
    throw err;
  });
  return { snapshot: await settledRead(input, prefix, clock), waiting: { since, summary } };
}

/**
 * One attempt: plan and write on the scale set; for an operation that cleans up after a delete, an attempt that finds
 * the scale set gone (404 on any read of it) goes on to plan on what it cleans. `wrote`: a write of this operation was
 * accepted (its own delete).
 */
async function runAttempt<R>(
  input: HarnessInput<R>,
  attempt: number,
  prefix: string,
  clock: AttemptClock,
  progress: Progress,
  wrote: () => boolean,
): Promise<R> {
  try {
    return await planAndWrite(input, attempt, prefix, clock, progress);
  } catch (err) {
    const { afterAbsent, whenAbsent } = input.planner;
    if (!afterAbsent || !whenAbsent || input.signal?.aborted) throw err;
    const failure = describeArmFailure(err);
    if (failure.kind !== "notFound") throw err;
    input.log(`${prefix}: Azure answered ${failureLabel(failure)} for ${input.gateway.ref.name}: it does not exist`);
    await cleanAfterAbsent(input, afterAbsent, attempt, prefix, clock, progress);
    return whenAbsent({ failure, wrote: wrote() });
  }
}

/**
 * What a Deleter cleans once the scale set is gone, planned on a fresh read of it at each step, each write with
 * If-Match on the ETag just read. A failure (a 412: changed since the read) ends the attempt; the retry policy judges
 * it, and the next attempt reads again.
 */
async function cleanAfterAbsent<R>(
  input: HarnessInput<R>,
  afterAbsent: AfterAbsent,
  attempt: number,
  prefix: string,
  clock: AttemptClock,
  progress: Progress,
): Promise<void> {
  const { gateway, log, signal } = input;
  const ids = afterAbsent.reads();
  if (ids.length === 0) return;
  if (!gateway.readNetwork) throw new Error(`no network reads for ${gateway.ref.name}`);
  for (let writes = 0; ; writes++) {
    const step = afterAbsent.plan(await gateway.readNetwork(ids, signal));
    if (step.kind === "done") {
      log(writes === 0 ? `${prefix}: ${step.summary}` : `Azure confirmed: ${step.summary}`);
      return;
    }
    if (step.kind === "wait") throw new Error(`a clean-up after a delete does not wait: ${step.summary}`);
    if (writes >= input.planner.maxWrites)
      throw harnessFailure("PlanDidNotConverge", `still planning "${step.summary}" after ${writes} writes`);
    clock.stopIfCanceled(`before writing: ${step.summary}`);
    const guard =
      step.kind === "balancerPools" ? ` (If-Match ${step.etag ?? "none"})` : guardLabel(guardOf(step.kind, undefined));
    log(`${prefix}: ${step.summary}${guard}`);
    await input.onCheckpoint?.({ attempt });
    input.beforeWrite?.();
    await gateway.write(step, undefined, {
      defaultPollIntervalMs: input.lroPollIntervalMs,
      maxPollIntervalMs: input.lroMaxPollIntervalMs,
      signal,
    });
    progress.writesEnded.push(step.summary);
  }
}

/** Reads, plans and writes the scale set until the plan is done and Azure confirms it. */
async function planAndWrite<R>(
  input: HarnessInput<R>,
  attempt: number,
  prefix: string,
  clock: AttemptClock,
  progress: Progress,
): Promise<R> {
  const { gateway, planner, log, signal, retry } = input;
  const { maxWrites } = planner;
  const start = await firstRead(input, attempt, prefix, clock, progress);
  let snapshot = start.snapshot;
  let waiting: Waiting | undefined;
  for (let writes = start.writes, doubtful = 0; ;) {
    let step = planner.plan(snapshot);
    if (step.kind === "wait") {
      ({ snapshot, waiting } = await waitAndReread(input, prefix, clock, step.summary, waiting, snapshot));
      continue;
    }
    waiting = undefined;
    if (step.kind === "done") {
      // "Nothing to change" in the model is not yet what Azure did: confirm it against the VMs Azure lists.
      if (!snapshot.vms) snapshot = await gateway.withInstances(snapshot, signal);
      const confirmed = confirmation(snapshot);
      if (confirmed.confirmed) {
        log(writes === 0 ? `${prefix}: ${step.summary}` : `Azure confirmed: ${step.summary}`);
        return planner.result(snapshot);
      }
      const stopped = stoppedInstances(snapshot);
      if (!isFailed(snapshot) && stopped.length > 0) {
        // Azure stopped or evicted them: a settled state no re-read changes, and no write of ours would bring a
        // Spot VM back. Reported, never counted as running.
        if (planner.acceptsStopped && confirmed.instances + stopped.length === (snapshot.vmss.sku?.capacity ?? 0)) {
          log(
            `${prefix}: ${step.summary}; instance(s) ${describeStopped(stopped)} are listed but not running (a Spot VM Azure evicted is deallocated)`,
          );
          return planner.result(snapshot);
        }
        throw new UnconfirmedError("InstancesNotRunning", `${gateway.ref.name}: ${confirmed.reason}`, snapshot);
      }
      if (!isFailed(snapshot)) {
        // Succeeded, yet the VM list disagrees with the capacity: read again rather than report either number.
        if (doubtful++ >= REREADS_OF_A_DOUBTFUL_READ) {
          throw harnessFailure("InstanceCountDisagrees", `${gateway.ref.name}: ${confirmed.reason}`);
        }
        snapshot = await settledRead(input, prefix, clock);
        continue;
      }
      if (progress.redrives >= retry.maxRedrives) {
        throw new UnconfirmedError(
          "ScaleSetLeftFailed",
          `Azure left ${gateway.ref.name} Failed: ${confirmed.instances} instance(s) running of capacity ${snapshot.vmss.sku?.capacity ?? 0}, after ${progress.redrives} re-drive(s)`,
          snapshot,
        );
      }
      progress.redrives++;
      step = redriveStep(snapshot, confirmed.instances, progress.redrives, retry.maxRedrives);
    }
    if (writes >= maxWrites) {
      throw harnessFailure("PlanDidNotConverge", `still planning "${step.summary}" after ${writes} writes`);
    }
    snapshot = await writeThenRead(input, attempt, prefix, clock, progress, step, snapshot.etag);
    writes++;
  }
}
