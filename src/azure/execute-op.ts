// executeOp: the one harness every operation runs through.
//
// Each attempt reads the scale set, asks the planner what to change against what it just read, and writes with
// If-Match set to the ETag of that read. A failed attempt is judged by the retry policy; the next attempt reads
// again, so a retry never re-sends a write planned against a stale object (the Spinnaker bug: its retry wrapped
// only the GET, and a 409 on the write failed the pipeline). An operation ends only on what Azure confirmed: a
// Succeeded scale set whose running VMs match its capacity; one Azure left Failed is driven again, a bounded number
// of times, and otherwise fails with what runs.
//
// The steps of an attempt are in harness/: the settled reads (reads.ts), what a "done" leads to (confirm.ts), the
// clock and safe points (attempt.ts), the failures the harness decides on (failures.ts), the release (release.ts).
import { describeArmFailure, failureLabel, isProgrammingError } from "./arm-failure.ts";
import { decideRetry } from "./retry-policy.ts";
import { guardLabel, guardOf, storedStep, type ScaleSetSnapshot, type WriteStep } from "./vmss-gateway.ts";
import { inSpan } from "../tracing/spans.ts";
import { plannerOf, type PlannedStep } from "./planner.ts";
import { attemptClock, attemptPrefix, type Attempt, type AttemptClock, type Progress } from "./harness/attempt.ts";
import { afterDone } from "./harness/confirm.ts";
import { CanceledOnRequestError, GaveUpError, harnessFailure, UnconfirmedError } from "./harness/failures.ts";
import type { ExecuteOpInput, HarnessInput } from "./harness/input.ts";
import { readForFailure, settledRead, waitAndReread, type Waiting } from "./harness/reads.ts";
import { releaseWhatTheOperationHeld } from "./harness/release.ts";
import { cleanAfterAbsent } from "./harness/after-absent.ts";

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
    if (releaseOf && !input.signal?.aborted && !isProgrammingError(err))
      await releaseWhatTheOperationHeld(input, releaseOf);
    throw err;
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
  const notingWrites: HarnessInput<R> = {
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
        runAttemptOrClean({ input: notingWrites, attempt, prefix, clock, progress }, () => wrote),
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

/**
 * One attempt; for an operation that cleans up after a delete, an attempt that finds the scale set gone (404 on any
 * read of it) goes on to clean what was made for it elsewhere. `wrote`: a write of this operation was accepted.
 */
async function runAttemptOrClean<R>(at: Attempt<R>, wrote: () => boolean): Promise<R> {
  try {
    return await runAttempt(at);
  } catch (err) {
    const { input, prefix } = at;
    const { afterAbsent, whenAbsent } = input.planner;
    if (!afterAbsent || !whenAbsent || input.signal?.aborted) throw err;
    const failure = describeArmFailure(err);
    if (failure.kind !== "notFound") throw err;
    input.log(`${prefix}: Azure answered ${failureLabel(failure)} for ${input.gateway.ref.name}: it does not exist`);
    await cleanAfterAbsent(at, afterAbsent);
    return whenAbsent({ failure, wrote: wrote() });
  }
}

/**
 * One attempt: read, plan against that read, write with its ETag, read what the write left, and plan again, until
 * the plan is done and Azure confirms it, or the planner waits, or the attempt fails.
 */
async function runAttempt<R>(at: Attempt<R>): Promise<R> {
  const { input, prefix, progress } = at;
  const { gateway, planner, log, signal, retry } = input;
  const start = await firstRead(at);
  let snapshot = start.snapshot;
  let waiting: Waiting | undefined;
  for (let writes = start.writes, disagreeingRereads = 0; ;) {
    let step: PlannedStep = planner.plan(snapshot);
    if (step.kind === "wait") {
      ({ snapshot, waiting } = await waitAndReread(at, step.summary, waiting, snapshot, step.expect));
      continue;
    }
    waiting = undefined;
    if (step.kind === "done") {
      if (!snapshot.vms) snapshot = await gateway.withInstances(snapshot, signal);
      const next = afterDone(snapshot, {
        summary: step.summary,
        prefix,
        name: gateway.ref.name,
        writes,
        acceptsStopped: planner.acceptsStopped,
        disagreeingRereads,
        redrives: progress.redrives,
        maxRedrives: retry.maxRedrives,
      });
      if (next.kind === "confirmed") {
        log(next.line);
        return planner.result(snapshot);
      }
      if (next.kind === "fail") throw next.error;
      if (next.kind === "reread") {
        disagreeingRereads++;
        snapshot = await settledRead(at);
        continue;
      }
      progress.redrives++;
      step = next.step;
    }
    if (writes >= planner.maxWrites) {
      throw harnessFailure("PlanDidNotConverge", `still planning "${step.summary}" after ${writes} writes`);
    }
    snapshot = await writeThenRead(at, step, snapshot.etag);
    writes++;
  }
}

/** The first read of an attempt; for an operation that makes the scale set, a 404 is answered by creating it. */
async function firstRead<R>(at: Attempt<R>): Promise<{ snapshot: ScaleSetSnapshot; writes: number }> {
  try {
    return { snapshot: await settledRead(at), writes: 0 };
  } catch (err) {
    const { planner } = at.input;
    if (!planner.createWhenMissing || describeArmFailure(err).kind !== "notFound") throw err;
    const create = planner.createWhenMissing();
    return { snapshot: await writeThenRead(at, create, undefined), writes: 1 };
  }
}

/** Sends one write, checkpointing its poller once Azure accepted it, and reads the scale set after it. */
async function writeThenRead<R>(at: Attempt<R>, step: WriteStep, etag: string | undefined): Promise<ScaleSetSnapshot> {
  const { input, attempt, prefix, clock, progress } = at;
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
  const finalGet =
    written && typeof written.sku?.capacity === "number" ? { vmss: written, etag: written.etag ?? etag } : undefined;
  return settledRead(at, finalGet);
}
