// Drives an Azure long-running operation to its end, polling at the interval Azure advertises.
import { setTimeout as sleep } from "node:timers/promises";
import type { PollerLike, OperationState } from "@azure/core-lro";
import { parseRetryAfterMs } from "./arm-failure.ts";
import { observeArmResponses } from "./arm-observer.ts";

export interface LongRunningOptions {
  /** Wait before a poll when Azure advertised no interval. */
  defaultPollIntervalMs: number;
  /** Called once the write was accepted, with the poller's serialized state: what a restart needs to resume. */
  onAccepted?: (serializedState: string) => void | Promise<void>;
  signal?: AbortSignal;
}

/** Remembers the newest poll interval that Azure advertised on the responses it observes. */
class PollHint {
  advertisedMs: number | undefined;
  onArmResponse(info: { headers: { get(name: string): string | undefined } }): void {
    const ms = parseRetryAfterMs(info.headers);
    if (ms !== undefined) this.advertisedMs = ms;
  }
  take(fallbackMs: number): number {
    const ms = this.advertisedMs ?? fallbackMs;
    this.advertisedMs = undefined;
    // Never hammer (a 0 would spin) and never sleep for absurd spans on a malformed header.
    return Math.min(Math.max(ms, 10), 120_000);
  }
}

/**
 * Starts a write (start() must create the poller, which sends the initial request at once) and polls it to
 * the end. The SDK reads only whole-second Retry-After and ignores it on the initial response; we honour
 * retry-after-ms too, from the first response on, so the end of a write is noticed within one advertised interval.
 * Throws what the poller throws: the initial request's RestError, or "The long-running operation has failed…".
 */
export async function runLongRunning<TResult>(
  start: () => PollerLike<OperationState<TResult>, TResult>,
  options: LongRunningOptions,
): Promise<TResult> {
  const hint = new PollHint();
  return observeArmResponses(hint, async () => {
    const poller = start();
    await poller.submitted();
    if (options.onAccepted) await options.onAccepted(await poller.serialize());
    return pollToEnd(poller, hint, options);
  });
}

/** Continues a poller restored from a serialized state (after a restart); no write is sent again. */
export async function resumeLongRunning<TResult>(
  restore: () => PollerLike<OperationState<TResult>, TResult>,
  options: LongRunningOptions,
): Promise<TResult> {
  const hint = new PollHint();
  return observeArmResponses(hint, () => pollToEnd(restore(), hint, options));
}

async function pollToEnd<TResult>(
  poller: PollerLike<OperationState<TResult>, TResult>,
  hint: PollHint,
  options: LongRunningOptions,
): Promise<TResult> {
  while (!poller.isDone) {
    await sleep(hint.take(options.defaultPollIntervalMs), undefined, { signal: options.signal });
    await poller.poll({ abortSignal: options.signal });
  }
  const state = poller.operationState;
  if (state?.status === "failed" && state.error) throw state.error;
  if (state?.status === "canceled") throw new Error("The long-running operation was canceled");
  return poller.result as TResult;
}
