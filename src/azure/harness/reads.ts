// The reads the harness acts on: a settled read (another writer waited out, the VMs and the autoscale setting read
// when the plan needs them, a suspicious read made again), a planner's wait, and what Azure shows after a failure.
import { decideHealthRead, type HealthExpectation, type ReadShare } from "../health-read.ts";
import { decideBusyWait, formatDuration } from "../retry-policy.ts";
import { isBusy, suspiciousRead } from "../scale-set-state.ts";
import type { ScaleSetSnapshot } from "../vmss-gateway.ts";
import type { Attempt } from "./attempt.ts";
import { harnessFailure } from "./failures.ts";
import type { HarnessInput } from "./input.ts";

/** Reads made again, at most, when a read is suspicious, or Succeeded while its VM list disagrees. */
export const MAX_REREADS = 2;

/**
 * One read the harness may act on: waits out another writer (re-reading the scale set alone, paced by the read
 * budget), lists the VMs when the planner needs them, and re-reads a suspicious read. The busy check comes first:
 * mid-write, a model that runs ahead of its VMs (a scale to 0 with VMs still listed) is what Azure shows, not a
 * bad read. `alreadyRead` is a read made already (a write's final GET).
 */
export async function settledRead<R>(at: Attempt<R>, alreadyRead?: ScaleSetSnapshot): Promise<ScaleSetSnapshot> {
  const { gateway, planner, signal } = at.input;
  const getScaleSet = () => gateway.read({ withInstances: false, withAutoscale: planner.readsAutoscale, signal });
  let snapshot = alreadyRead ?? (await getScaleSet());
  for (let suspiciousRereads = 0; ;) {
    snapshot = await withWhatThePlanReads(at.input, await waitOutOtherWriter(at, snapshot, getScaleSet));
    const suspicious = suspiciousRead(snapshot);
    if (suspicious === undefined) return snapshot;
    if (suspiciousRereads++ >= MAX_REREADS) {
      throw harnessFailure("SuspiciousRead", `${suspicious} for ${gateway.ref.name}; not acting on it`);
    }
    snapshot = await getScaleSet();
  }
}

/**
 * Another write holds the scale set: a write now would only 409 and spend Azure's write budget. Re-reads until it
 * ends, then the plan is made again on what it left.
 */
async function waitOutOtherWriter<R>(
  { input, prefix, clock }: Attempt<R>,
  read: ScaleSetSnapshot,
  getScaleSet: () => Promise<ScaleSetSnapshot>,
): Promise<ScaleSetSnapshot> {
  const { gateway, log, retry, signal } = input;
  if (!isBusy(read)) return read;
  let snapshot = read;
  const waitedSince = clock.now();
  log(
    `${prefix}: ${gateway.ref.name} is ${snapshot.vmss.provisioningState} (another write in flight); waiting for it to end before planning`,
  );
  while (isBusy(snapshot)) {
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
  }
  log(`${prefix}: the other write ended after ${formatDuration(clock.now() - waitedSince)}; planning on a fresh read`);
  return snapshot;
}

/** The VMs, when the plan needs them; the autoscale setting, which a write's final GET does not carry. */
async function withWhatThePlanReads<R>(input: HarnessInput<R>, read: ScaleSetSnapshot): Promise<ScaleSetSnapshot> {
  const { gateway, planner, signal } = input;
  let snapshot = read;
  if (planner.readsInstances && !snapshot.vms) {
    snapshot = await gateway.withInstances(snapshot, signal);
  }
  if (planner.readsAutoscale && snapshot.autoscale === undefined && gateway.withAutoscale) {
    snapshot = await gateway.withAutoscale(snapshot, signal);
  }
  return snapshot;
}

/** A planner's "wait": since when, and what it last said (said once, not on every re-read). */
export interface Waiting {
  since: number;
  summary: string;
  /** The wait's share of the scale set's read budget after its last read (health-read.ts). */
  share?: ReadShare;
}

/**
 * Waits, then reads again: a wait for health where its probe says it can change (decideHealthRead, given `expect`),
 * any other as a busy scale set is waited out (paced by the read budget). The wait is bounded by the retry deadline
 * counted from when this wait began, so that a long operation can wait at every step.
 */
export async function waitAndReread<R>(
  at: Attempt<R>,
  summary: string,
  waiting: Waiting | undefined,
  snapshot: ScaleSetSnapshot,
  expect?: HealthExpectation,
): Promise<{ snapshot: ScaleSetSnapshot; waiting: Waiting }> {
  const { input, prefix, clock } = at;
  const since = waiting?.since ?? clock.now();
  if (waiting?.summary !== summary) input.log(`${prefix}: ${summary}`);
  // The snapshot planned on was read just now (each wait ends with a read, and so does the write before the first).
  const now = clock.now();
  const decision = decideHealthRead({
    nowMs: now,
    lastReadAtMs: now,
    ...(expect ? { expect } : {}),
    ...(waiting?.share ? { share: waiting.share } : {}),
    ...(snapshot.remainingReads !== undefined ? { remainingReads: snapshot.remainingReads } : {}),
    elapsedMs: now - since,
    config: input.retry,
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
  return {
    snapshot: await settledRead(at),
    waiting: { since, summary, ...(decision.share ? { share: decision.share } : {}) },
  };
}

/** What Azure shows after a failed write, for the failure's result; undefined when even that read fails. */
export async function readForFailure<R>(input: HarnessInput<R>): Promise<R | undefined> {
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
