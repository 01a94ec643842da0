// How a replica that shares its ledger paces it: how many tokens it leases ahead of its calls (leaseWant) and how far
// apart it sends its take statements (takeSpacingMs), so that one statement serves several calls.
import type { BucketFigures } from "./figures.ts";

/**
 * The calls one take statement should serve when a replica is busy: a sixth of a statement per call, so that with
 * the statements that are not takes (a slice given back by an idle replica, a 429's drain, a sweep) a busy
 * replica stays below a quarter.
 */
export const CALLS_PER_TAKE = 6;

/**
 * The tokens a replica asks to lease from a bucket beyond its take's calls: as many as it charged to the bucket in
 * the last lease (the calls it expects in the next), less what its slice still holds, and at most `maxShare` of the
 * bucket's burst. The ledger gives at most its share of what is left above the reserve, so one busy replica never
 * empties a bucket that others spend.
 */
export function leaseWant(recentCalls: number, sliceTokens: number, figures: BucketFigures, maxShare: number): number {
  const cap = Math.floor(figures.burst * maxShare);
  return Math.max(0, Math.min(cap, Math.floor(recentCalls) - Math.floor(sliceTokens)));
}

/** Calls outstanding (waiting for the budget, or sent and not answered) from which a replica is busy. */
export const BUSY_CALLS = 8;

/**
 * The longest a replica that is not busy leaves between two take statements. A replica whose calls come steadily but
 * are answered fast (few outstanding at any moment: many tasks, each one call at a time) still spaces its takes, but
 * only when CALLS_PER_TAKE of its calls come within this long (40 or more a second to the ledger): a replica with
 * fewer calls never holds one back, and a call waits for its statement at most this long.
 */
export const STEADY_SPACING_MS = 150;

/**
 * How long a replica leaves between two take statements, so that one serves about CALLS_PER_TAKE calls. Busy (at
 * least BUSY_CALLS of its calls outstanding): as long as CALLS_PER_TAKE calls to the ledger take at its recent rate,
 * at most `maxMs` (a call waits no longer for its statement). Not busy: the same, but only when that is at most
 * STEADY_SPACING_MS (and `maxMs`); otherwise none, so that one task's calls one after another are never held back.
 */
export function takeSpacingMs(ledgerCallsPerSecond: number, outstandingCalls: number, maxMs: number): number {
  if (maxMs <= 0) return 0;
  const busy = outstandingCalls >= BUSY_CALLS;
  if (ledgerCallsPerSecond <= 0) return busy ? maxMs : 0;
  const spacing = Math.round((CALLS_PER_TAKE * 1000) / ledgerCallsPerSecond);
  if (busy) return Math.min(maxMs, spacing);
  return spacing <= Math.min(maxMs, STEADY_SPACING_MS) ? spacing : 0;
}
