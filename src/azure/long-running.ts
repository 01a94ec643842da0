// Drives an Azure long-running operation to its end, polling at the interval Azure advertises.
import { setTimeout as sleep } from "node:timers/promises";
import type { PollerLike, OperationState } from "@azure/core-lro";
import { LongRunningOperationError, parseRetryAfterMs } from "./arm-failure.ts";
import { listenToArmResponses } from "./arm-listeners.ts";
import { inSpan } from "../tracing/spans.ts";
import { azureDurationMs, type WriteDuration } from "./write-durations.ts";
import { statusDocumentOf } from "./status-document.ts";

export interface LongRunningOptions {
  /** Wait before a poll when Azure advertised no interval. */
  defaultPollIntervalMs: number;
  /**
   * The longest wait between polls, whatever Azure advertised (default 120 s). Tests against a simulator whose
   * time runs faster than Azure's set it low: its Retry-After is whole seconds, as Azure's, while its writes end sooner.
   */
  maxPollIntervalMs?: number;
  /**
   * This kind of write's expected duration (write-durations.ts): its first poll goes at the expected end when that
   * comes before Azure's advertised interval; its Azure duration is recorded when it ends.
   */
  duration?: WriteDuration;
  /** Called once the write was accepted, with the poller's serialized state: what a restart needs to resume. */
  onAccepted?: (serializedState: string) => void | Promise<void>;
  signal?: AbortSignal;
}

/** How an operation ended, from Azure's status document: `{"status":"Failed","error":{"code":…,"message":…}}`. */
interface OperationEnd {
  status: "Failed" | "Canceled";
  code?: string;
  message?: string;
}

/** The end an operation-status body reports, or undefined while it runs (or when the body is something else). */
export function operationEndOf(bodyAsText: string | undefined): OperationEnd | undefined {
  const b = statusDocumentOf(bodyAsText);
  if (!b) return undefined;
  const status = typeof b.status === "string" ? b.status.toLowerCase() : undefined;
  if (status !== "failed" && status !== "canceled" && status !== "cancelled") return undefined;
  return {
    status: status === "failed" ? "Failed" : "Canceled",
    ...(typeof b.error?.code === "string" ? { code: b.error.code } : {}),
    ...(typeof b.error?.message === "string" ? { message: b.error.message } : {}),
  };
}

/**
 * Remembers the newest poll interval that Azure advertised on the responses it hears of, and how the operation
 * ended when a status document says Failed or Canceled.
 */
class PollHint {
  advertisedMs: number | undefined;
  end: OperationEnd | undefined;
  /** Azure's duration of the operation, once a status document says it succeeded. */
  azureDurationMs: number | undefined;
  onArmResponse(info: { headers: { get(name: string): string | undefined }; bodyAsText?: string }): void {
    const ms = parseRetryAfterMs(info.headers);
    if (ms !== undefined) this.advertisedMs = ms;
    const end = operationEndOf(info.bodyAsText);
    if (end) this.end = end;
    this.azureDurationMs = azureDurationMs(info.bodyAsText) ?? this.azureDurationMs;
  }
  /** The wait before the next poll: the interval Azure advertised since the last poll (used once), else the fallback. */
  nextPollDelayMs(fallbackMs: number, maxMs = 120_000): number {
    const ms = this.advertisedMs ?? fallbackMs;
    this.advertisedMs = undefined;
    // Never hammer (a 0 would spin) and never sleep for absurd spans on a malformed header.
    return Math.min(Math.max(ms, 10), maxMs);
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
  return listenToArmResponses(hint, async () => {
    const poller = start();
    await poller.submitted();
    // Azure's interval counts from its answer: the checkpoint's commit (a store write) is not added to it.
    const acceptedAt = Date.now();
    const expectedMs = options.duration?.expectedMs();
    if (options.onAccepted) await options.onAccepted(await poller.serialize());
    const result = await waitInSpan(
      () =>
        pollToEnd(poller, hint, options, acceptedAt, expectedMs === undefined ? undefined : acceptedAt + expectedMs),
      false,
    );
    if (hint.azureDurationMs !== undefined) options.duration?.record(hint.azureDurationMs);
    return result;
  });
}

/** Continues a poller restored from a serialized state (after a restart); no write is sent again. */
export async function resumeLongRunning<TResult>(
  restore: () => PollerLike<OperationState<TResult>, TResult>,
  options: LongRunningOptions,
): Promise<TResult> {
  const hint = new PollHint();
  return listenToArmResponses(hint, () => waitInSpan(() => pollToEnd(restore(), hint, options), true));
}

/** The wait for Azure to end a write it accepted, its polls within it (src/tracing/spans.ts). */
function waitInSpan<T>(wait: () => Promise<T>, resumed: boolean): Promise<T> {
  return inSpan("wait for the long-running operation", { attributes: { "vmss.lro.resumed": resumed } }, wait);
}

/**
 * When the next poll goes (Date.now() ms): the wait Azure advertised after the last one (or its acceptance), `fromMs`;
 * earlier, at the write's expected end, when that is still to come and comes first. One poll at most is so added to
 * Azure's schedule: once the expected end has passed, Azure's intervals alone decide.
 */
export function pollAtMs(fromMs: number, delayMs: number, expectedEndAtMs: number | undefined, nowMs: number): number {
  const advertised = fromMs + delayMs;
  return expectedEndAtMs !== undefined && expectedEndAtMs > nowMs && expectedEndAtMs < advertised
    ? expectedEndAtMs
    : advertised;
}

/**
 * `since`: when the wait before the first poll began (the write's acceptance); each later wait starts at its poll.
 * `expectedEndAtMs`: when the write can be expected to have ended (pollAtMs).
 */
async function pollToEnd<TResult>(
  poller: PollerLike<OperationState<TResult>, TResult>,
  hint: PollHint,
  options: LongRunningOptions,
  since = Date.now(),
  expectedEndAtMs?: number,
): Promise<TResult> {
  try {
    for (let from = since; !poller.isDone; from = Date.now()) {
      const delayMs = hint.nextPollDelayMs(options.defaultPollIntervalMs, options.maxPollIntervalMs);
      const at = pollAtMs(from, delayMs, expectedEndAtMs, Date.now());
      await sleep(Math.max(0, at - Date.now()), undefined, { signal: options.signal });
      await poller.poll({ abortSignal: options.signal });
    }
  } catch (err) {
    // A poll that got an HTTP error also leaves the poller "failed": only Azure's status document says the
    // operation itself ended.
    throw (hint.end ? endedAs(poller, hint) : undefined) ?? err;
  }
  const ended = endedAs(poller, hint);
  if (ended) throw ended;
  return poller.result as TResult;
}

/**
 * core-lro throws a plain Error for an operation that ended Failed ("The long-running operation has failed. …")
 * or Canceled ("Operation was canceled"): the poller's state says which, and the status document Azure sent says
 * with what code. Undefined when the operation did not end that way (the error is then an HTTP or network one).
 */
function endedAs(
  poller: PollerLike<OperationState<unknown>, unknown>,
  hint: PollHint,
): LongRunningOperationError | undefined {
  const status = poller.operationState?.status;
  if (status !== "failed" && status !== "canceled") return undefined;
  const end = hint.end;
  const kind = status === "failed" ? "Failed" : "Canceled";
  const message =
    end?.message ?? (kind === "Failed" ? "The long-running operation has failed" : "Operation was canceled");
  return new LongRunningOperationError(kind, end?.status === kind ? end.code : undefined, message);
}
