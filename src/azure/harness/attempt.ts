// What an attempt carries: the operation's clock (a wait ends early on cancel: a safe point), what was counted across
// attempts, and the attempt's number and prefix for its history lines.
import { setTimeout as sleep } from "node:timers/promises";
import { CanceledOnRequestError } from "./failures.ts";
import type { HarnessInput } from "./input.ts";

export interface AttemptClock {
  now: () => number;
  random: () => number;
  /** Ends early on the task's signal or on cancel. */
  wait: (ms: number, signal?: AbortSignal) => Promise<unknown>;
  started: number;
  /** A safe point: throws CanceledOnRequestError if a cancel was asked for. */
  stopIfCanceled: (where: string) => void;
}

/** Counted across attempts: how often a Failed scale set was driven again, and the writes that ended. */
export interface Progress {
  redrives: number;
  writesEnded: string[];
}

/** One attempt as the steps that make it see it. */
export interface Attempt<R> {
  input: HarnessInput<R>;
  attempt: number;
  /** "attempt 2/8": the start of its history lines. */
  prefix: string;
  clock: AttemptClock;
  progress: Progress;
}

/** Past maxAttempts only for failures retried until the deadline (retry-policy.ts): no "9/8". */
export function attemptPrefix(attempt: number, maxAttempts: number): string {
  return attempt <= maxAttempts ? `attempt ${attempt}/${maxAttempts}` : `attempt ${attempt}`;
}

/** The clock of the whole operation; a wait ends early on cancel too (a backoff or a wait is a safe point). */
export function attemptClock<R>(input: HarnessInput<R>, progress: Progress): AttemptClock {
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

/** Throws CanceledOnRequestError when a cancel was asked for; called only at safe points. */
function stopIfCanceled(cancel: AbortSignal | undefined, where: string, progress: Progress): void {
  if (!cancel?.aborted) return;
  throw new CanceledOnRequestError(`canceled ${where}`, [...progress.writesEnded]);
}
