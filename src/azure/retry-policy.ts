// What to do after a failed attempt. Pure: no clock, no I/O, randomness passed in, so a table of cases tests it.
import type { RetryConfig } from "../config.ts";
import type { ArmFailure, FailureKind } from "./arm-failure.ts";

/**
 * Statuses worth another attempt: 408, 409 (a concurrent write holds the scale set), 412 (our ETag is stale:
 * re-read and re-plan), 429, and every 5xx. 404 and other 4xx are final: the request itself is wrong.
 */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 412 || status === 429 || status >= 500;
}

export function isRetryableKind(kind: FailureKind): boolean {
  return kind !== "notFound" && kind !== "terminal";
}

export type RetryDecision =
  | { retry: true; delayMs: number; reason: string }
  | { retry: false; reason: string };

export interface RetryInput {
  failure: ArmFailure;
  /** The attempt that just failed, counting from 1. */
  attempt: number;
  /** Time spent on this operation so far. */
  elapsedMs: number;
  config: RetryConfig;
  /** A number in [0, 1): Math.random in production, fixed in tests. */
  random: number;
}

function baseDelayMs(kind: FailureKind, config: RetryConfig): number {
  switch (kind) {
    case "conflict":
    case "precondition":
      return config.conflictBaseDelayMs;
    case "throttled":
      return config.throttleDefaultDelayMs;
    default:
      return config.transientBaseDelayMs;
  }
}

/**
 * Exponential backoff with jitter (×0.8 to ×1.2 so that replicas do not retry in lockstep), capped by
 * maxDelayMs. A Retry-After from Azure replaces the computed delay: Azure knows when its lock or budget frees.
 * Conflicts start small on purpose: a write lock clears within one write's duration.
 */
export function decideRetry({ failure, attempt, elapsedMs, config, random }: RetryInput): RetryDecision {
  if (!isRetryableKind(failure.kind)) {
    return { retry: false, reason: failure.kind === "notFound" ? "not found" : "not retryable" };
  }
  if (attempt >= config.maxAttempts) {
    return { retry: false, reason: `gave up after ${attempt} attempts` };
  }
  let delayMs: number;
  if (failure.retryAfterMs !== undefined) {
    delayMs = failure.retryAfterMs;
  } else {
    const exponential = baseDelayMs(failure.kind, config) * 2 ** (attempt - 1);
    delayMs = Math.min(config.maxDelayMs, exponential) * (0.8 + 0.4 * random);
  }
  delayMs = Math.round(Math.max(0, delayMs));
  const remaining = config.deadlineMs - elapsedMs;
  if (delayMs >= remaining) {
    return { retry: false, reason: `the ${formatDuration(config.deadlineMs)} deadline would pass before the next attempt` };
  }
  return { retry: true, delayMs, reason: `retrying in ${formatDuration(delayMs)}` };
}

/** 850 → "0.85 s", 1400 → "1.4 s", 90000 → "1.5 min". */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;
  return `${Number((ms / 60_000).toFixed(1))} min`;
}
