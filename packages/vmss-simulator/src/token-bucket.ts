// Token-bucket math, as Azure Compute describes its throttling: a bucket starts full (`burst` tokens), every request
// takes one token, tokens come back at `refillPerMinute` up to `burst`, and a request that finds an empty bucket is
// refused without taking anything (Azure's worked example: "remaining tokens = max(A - B, 0)", no debt).
//
// Pure functions of time: nothing here reads a clock. The caller passes `now` (ms), so tests need no sleeping.

export interface BucketLimit {
  /** Capacity: the tokens a full bucket holds (Azure's "maximum bucket capacity"). */
  burst: number;
  /** Tokens added per minute of the caller's clock (already multiplied by any speed-up). > 0. */
  refillPerMinute: number;
}

/** A bucket as last written: it held `tokens` at time `at` (ms). Its level later is `levelAt(...)`. */
export interface Bucket {
  tokens: number;
  at: number;
}

/** Tolerance for floating-point refill arithmetic (a level this close to 1 counts as a whole token). */
const EPSILON = 1e-9;

export function fullBucket(limit: BucketLimit, now: number): Bucket {
  return { tokens: limit.burst, at: now };
}

/** The bucket's level at `now`: refilled linearly since `at`, capped at `burst`. A clock going backwards adds nothing. */
export function levelAt(bucket: Bucket, limit: BucketLimit, now: number): number {
  const elapsed = Math.max(0, now - bucket.at);
  // multiply before dividing: 15 000 ms at 4/min is exactly one token
  return Math.min(limit.burst, bucket.tokens + (elapsed * limit.refillPerMinute) / 60_000);
}

/** The bucket brought up to `now` (same level, new timestamp). */
export function settle(bucket: Bucket, limit: BucketLimit, now: number): Bucket {
  return { tokens: levelAt(bucket, limit, now), at: Math.max(now, bucket.at) };
}

/** Whole tokens left, as Azure reports them in x-ms-ratelimit-remaining-resource. */
export function remainingOf(level: number): number {
  return Math.max(0, Math.floor(level + EPSILON));
}

/** Milliseconds until the bucket holds `count` whole tokens (0 when it already does); Infinity if it never can. */
export function msUntilToken(level: number, limit: BucketLimit, count = 1): number {
  if (level + EPSILON >= count) return 0;
  if (limit.burst < count || !(limit.refillPerMinute > 0)) return Number.POSITIVE_INFINITY;
  // less the tolerance, so float noise (1 - 0.999 = 0.0010000000000000009) does not round up a whole extra ms
  return Math.max(1, Math.ceil(((count - level) * 60_000) / limit.refillPerMinute - 1e-6));
}

/** Retry-After for a wait in milliseconds: whole seconds, rounded up, at least 1. */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

export interface TakeResult {
  /** true: every bucket had a token and one was taken from each. false: none was taken. */
  allowed: boolean;
  /** The buckets at `now` (a token less each when allowed), in the order given. */
  buckets: Bucket[];
  /** Whole tokens left in each bucket, in the order given. */
  remaining: number[];
  /** Indexes of the buckets that had no whole token (empty when allowed). */
  empty: number[];
  /** When refused: ms until every empty bucket holds a token again (the longest wait). 0 when allowed. */
  retryAfterMs: number;
}

/**
 * One request (`count` tokens, default 1) against several buckets at once (Compute charges the per-resource and the per-subscription bucket of
 * the request's policy): all or nothing. A refused request takes no token from any bucket.
 */
export function take(buckets: readonly Bucket[], limits: readonly BucketLimit[], now: number, count = 1): TakeResult {
  if (buckets.length !== limits.length) throw new RangeError("take: one limit per bucket");
  const levels = buckets.map((b, i) => levelAt(b, limits[i], now));
  const empty = levels.flatMap((level, i) => (level + EPSILON >= count ? [] : [i]));
  const allowed = empty.length === 0;
  const after = allowed ? levels.map((level) => Math.max(0, level - count)) : levels;
  const at = buckets.map((b) => Math.max(now, b.at));
  return {
    allowed,
    buckets: after.map((tokens, i) => ({ tokens, at: at[i] })),
    remaining: after.map(remainingOf),
    empty,
    retryAfterMs: allowed ? 0 : Math.max(...empty.map((i) => msUntilToken(levels[i], limits[i], count))),
  };
}
