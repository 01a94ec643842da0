// What to do after a failed attempt, and how long to wait between reads while another write holds the scale set.
// Pure: no clock, no I/O, randomness passed in, so a table of cases tests it. Status → kind is decided in
// arm-failure.ts (kindForStatus); kind → retryable, the wait before the next attempt and the pacing of re-reads of a
// busy scale set are decided here, and nowhere else (a write's polls follow Azure's interval: long-running.ts).
import type { ArmFailure, FailureKind } from "./arm-failure.ts";

export interface RetryConfig {
  /**
   * Attempts per operation, the first included; only a floor for 429, 408, 5xx and network failures
   * (isRetriedUntilDeadline).
   * @env RETRY_MAX_ATTEMPTS
   * @default `8`
   */
  maxAttempts: number;
  /** maxAttempts bounds every failure, Azure's "not now" included: a read someone waits on (readRetry). Not from the environment. */
  attemptsBoundEverything?: boolean;
  /**
   * No backoff or wait for another writer is started that would end this long after the operation began.
   * @env RETRY_DEADLINE_MS
   * @default `900000`
   */
  deadlineMs: number;
  /**
   * First backoff after a conflict (409/412): a write lock clears within one write's duration, so start small.
   * @env RETRY_CONFLICT_BASE_DELAY_MS
   * @default `200`
   */
  conflictBaseDelayMs: number;
  /**
   * First backoff after a server-side or network failure.
   * @env RETRY_TRANSIENT_BASE_DELAY_MS
   * @default `1000`
   */
  transientBaseDelayMs: number;
  /**
   * While another write holds the scale set (the read shows provisioningState Updating), the scale set is re-read
   * rather than written (a write would 409): never more often than this, and no more often than busyReadShare of its
   * read refill allows (busyReadIntervalMs: every 20 s with Azure's figures). Waiting is not a failed attempt; the
   * deadline bounds it.
   * @env RETRY_BUSY_POLL_INTERVAL_MS
   * @default `500`
   */
  busyPollIntervalMs: number;
  /**
   * Backoff used for 429 when Azure sends no Retry-After.
   * @env RETRY_THROTTLE_DEFAULT_DELAY_MS
   * @default `5000`
   */
  throttleDefaultDelayMs: number;
  /**
   * No computed backoff is longer than this before its ±20 % jitter; Azure's Retry-After is honoured in full, within
   * the deadline.
   * @env RETRY_MAX_DELAY_MS
   * @default `60000`
   */
  maxDelayMs: number;
  /**
   * The share of a scale set's read budget that one task may spend while it waits out another writer (0-1], set in
   * percent. The re-reads are paced so that they stay within this share of the refill (scaleSetReadsPerMinute); a
   * wait for health spends it as a token bucket with the same share of the burst (health-read.ts).
   * @env RETRY_BUSY_READ_SHARE_PERCENT
   * @default `25`
   */
  busyReadShare: number;
  /**
   * Azure's refill of a scale set's GET budget, per minute. A simulator that scales time scales this too.
   * @env AZURE_SCALE_SET_READS_PER_MINUTE
   * @default `12` (against the simulator alone: 12 ÷ its time scale)
   */
  scaleSetReadsPerMinute: number;
  /**
   * Azure's burst of a scale set's GET budget: below our share of it, a waiting task waits for the refill.
   * @env AZURE_SCALE_SET_READ_BURST
   * @default `36`
   */
  scaleSetReadBurst: number;
  /**
   * How often a scale set that Azure left Failed (a write it accepted could not complete, e.g. AllocationFailed) is
   * driven again by re-sending its model, before the operation fails with the instances Azure lists.
   * @env RETRY_MAX_REDRIVES
   * @default `2`
   */
  maxRedrives: number;
  /**
   * Azure's clock against ours: 1 with Azure; a simulator's time scale against the simulator alone (its probe's
   * seconds last that much less). Not from the environment: follows the simulator's clock (src/config.ts).
   */
  azureTimeScale?: number;
}

/**
 * Whether a failure of this kind is worth another attempt: 408, 409 (a write lock), 412 (re-read and re-plan),
 * 429, 5xx, network failures, transient or canceled long-running operations. 404, other 4xx, failed operations with
 * a permanent code, and bugs in our own code are final. Also Clouddriver's `retryable` when retries run out.
 */
export function isRetryableKind(kind: FailureKind): boolean {
  return kind !== "notFound" && kind !== "terminal" && kind !== "programming";
}

/** The bounds of a read that a poller or a person waits on. */
export interface ReadRetryConfig {
  /**
   * Attempts of a read someone waits on, never more than the operations' own.
   * @env READ_RETRY_MAX_ATTEMPTS
   * @default `3`
   */
  maxAttempts: number;
  /**
   * How long a read someone waits on is tried, never longer than the operations' own deadline.
   * @env READ_RETRY_DEADLINE_MS
   * @default `20000`
   */
  deadlineMs: number;
}

/**
 * The retry profile of a read that a poller or a person waits on (the Clouddriver reads, GET /azure/serverGroups, a
 * dry run): not a deployment's patience. Within `bounds` (20 s, Azure's "not now" (isRetriedUntilDeadline)
 * included, and three attempts for the rest, by default) and never beyond the operations' own; a Retry-After longer
 * than what is left is passed on to the caller (a 503's).
 */
export function readRetry(config: RetryConfig, bounds: ReadRetryConfig): RetryConfig {
  const profile = {
    ...config,
    maxAttempts: Math.min(config.maxAttempts, bounds.maxAttempts),
    deadlineMs: Math.min(config.deadlineMs, bounds.deadlineMs),
  };
  // The refill follows the simulator's clock when it changes (src/config.ts): read it from the configuration each time.
  Object.defineProperty(profile, "azureTimeScale", { get: () => config.azureTimeScale, enumerable: true });
  return Object.defineProperty(profile, "scaleSetReadsPerMinute", {
    get: () => config.scaleSetReadsPerMinute,
    enumerable: true,
  });
}

export type RetryDecision = { retry: true; delayMs: number; reason: string } | { retry: false; reason: string };

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
    case "canceled":
      // A canceled write was preempted by a more recent one: the next read shows it (and waits it out).
      return config.conflictBaseDelayMs;
    case "throttled":
      return config.throttleDefaultDelayMs;
    // The last three are never retried; listed so that a new kind of failure has to be given its delay here.
    case "server":
    case "network":
    case "operationFailedTransient":
    case "notFound":
    case "programming":
    case "terminal":
      return config.transientBaseDelayMs;
  }
}

/** ×0.8 to ×1.2, so that replicas and tasks do not retry or re-read in lockstep. */
export function withJitter(ms: number, random: number): number {
  return ms * (0.8 + 0.4 * random);
}

/** The one deadline rule: a wait that would end at or after the deadline is not started. */
export function crossesDeadline(delayMs: number, elapsedMs: number, config: RetryConfig): boolean {
  return delayMs >= config.deadlineMs - elapsedMs;
}

/**
 * Failures by which Azure says "not now" (429, 408 and 5xx, no answer): a burst of them clears in seconds to minutes,
 * so they are retried until the deadline, however many attempts that takes (maxAttempts is only the floor). Those of
 * our plan against another writer's (409, 412, a preempted or transiently failed operation) stop after maxAttempts.
 */
export function isRetriedUntilDeadline(kind: FailureKind): boolean {
  return kind === "throttled" || kind === "server" || kind === "network";
}

/**
 * Exponential backoff capped by maxDelayMs, then jittered. A Retry-After from Azure is honoured in full (Azure knows
 * when its lock or budget frees): the first retry waits exactly that; later ones wait the longer of it and the
 * backoff one step behind, so a burst answered with short hints ("Retry-After: 1") still backs off. The deadline
 * bounds every wait; maxAttempts bounds only the failures isRetriedUntilDeadline does not name, except in a profile
 * that someone waits on (observe.ts: a read), where its few attempts bound everything.
 */
export function decideRetry({ failure, attempt, elapsedMs, config, random }: RetryInput): RetryDecision {
  if (!isRetryableKind(failure.kind)) {
    return { retry: false, reason: failure.kind === "notFound" ? "not found" : "not retryable" };
  }
  if (
    attempt >= config.maxAttempts &&
    (config.attemptsBoundEverything === true || !isRetriedUntilDeadline(failure.kind))
  ) {
    return { retry: false, reason: `gave up after ${attempt} attempts` };
  }
  const backoff = (step: number) =>
    withJitter(Math.min(config.maxDelayMs, baseDelayMs(failure.kind, config) * 2 ** (step - 1)), random);
  const hinted = failure.retryAfterMs;
  const delayMs = Math.round(
    Math.max(
      0,
      hinted === undefined ? backoff(attempt) : attempt === 1 ? hinted : Math.max(hinted, backoff(attempt - 1)),
    ),
  );
  if (crossesDeadline(delayMs, elapsedMs, config)) {
    return {
      retry: false,
      reason: `the ${formatDuration(config.deadlineMs)} deadline would pass before the next attempt (attempt ${attempt})`,
    };
  }
  return { retry: true, delayMs, reason: `retrying in ${formatDuration(delayMs)}` };
}

export interface BusyWaitInput {
  /** Time spent on this operation so far. */
  elapsedMs: number;
  config: RetryConfig;
  /** What Azure last reported as left of this scale set's read budget (x-ms-ratelimit-remaining-resource), if known. */
  remainingReads?: number;
  random: number;
}

export type BusyWaitDecision = { wait: true; delayMs: number } | { wait: false; reason: string };

/**
 * The shortest interval between two re-reads of a busy scale set: one waiting task spends at most
 * `busyReadShare` of the scale set's read refill (Azure: 12 GETs a minute; a quarter of it is one GET every 20 s).
 * Azure's writes take tens of seconds to minutes, so a re-read every 20 s notices the end of a write within a
 * fraction of its duration, and leaves three quarters of the budget to the autoscaler, the portal and other tasks.
 */
export function busyReadIntervalMs(config: RetryConfig): number {
  return Math.max(config.busyPollIntervalMs, 60_000 / (config.busyReadShare * config.scaleSetReadsPerMinute));
}

/**
 * How long to wait before re-reading a scale set that another write holds. Paced by the share of the read budget
 * (busyReadIntervalMs); when Azure reports the budget nearly spent (no more than our share of its burst left), wait
 * until the refill has brought it above that, so a waiting task never takes the last reads from the autoscaler or a
 * person in the portal. Capped by maxDelayMs, and never past the deadline.
 */
export function decideBusyWait({ elapsedMs, config, remainingReads, random }: BusyWaitInput): BusyWaitDecision {
  let delayMs = busyReadIntervalMs(config);
  const reserve = Math.floor(config.scaleSetReadBurst * config.busyReadShare);
  if (remainingReads !== undefined && remainingReads <= reserve) {
    const missing = reserve - remainingReads + 1;
    delayMs = Math.max(delayMs, (missing * 60_000) / config.scaleSetReadsPerMinute);
  }
  // Jitter only lengthens the wait (×1 to ×1.4): the share is a bound, not an average.
  delayMs = Math.round(Math.min(config.maxDelayMs, delayMs * (1 + 0.4 * random)));
  if (crossesDeadline(delayMs, elapsedMs, config)) {
    return { wait: false, reason: `the ${formatDuration(config.deadlineMs)} deadline would pass before the next read` };
  }
  return { wait: true, delayMs };
}

/** 850 → "0.85 s", 1400 → "1.4 s", 90000 → "1.5 min". */
export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${Number((ms / 1000).toFixed(ms < 1000 ? 2 : 1))} s`;
  return `${Number((ms / 60_000).toFixed(1))} min`;
}
