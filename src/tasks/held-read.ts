// What a held read (?wait=) may take and what it answers once its hold is over: pure decisions, no clock, no store.
// The waiter (task-waiter.ts) acts on them.
//
// A held read is one request: its queueing, its hold and the read after the hold are answered within one bound,
// max(the hold asked for, the request's deadline) from its arrival, so a client that gives a plain read 5 s and a
// held one its hold and the same margin is never left waiting past that by a store that went silent. The hold ends
// when the time asked for has passed since it started, or at that bound if sooner (a request that queued). What it
// answers then is the task as the store last confirmed it (the route's read, or the hold's store poll finding its
// revision unchanged) when that confirmation is no older than the request deadline's span, the age a plain read's
// answer may have when its store was slow; else the task read again within what is left of the bound; and when
// nothing is left, 503 TaskStoreUnavailable.

export interface HeldReadBounds {
  /** performance.now() when the hold is over: the time asked for from its start, and the deadline at the latest. */
  holdEndsAtMs: number;
  /** performance.now() by which the request is answered, the read after the hold included. */
  deadlineAtMs: number;
  /** How old the store's last confirmation of the task may be for it to be answered as it is, without a read. */
  freshForMs: number;
}

/**
 * The bounds of a read held `holdMs` from `startsAtMs`, for a request that arrived at `arrivedAtMs` with a deadline
 * of `deadlineMs`. The hold is counted from its start, not from the arrival: an arrival is an estimate (arrival.ts),
 * and a client measures the time it asked for from when it sent the request.
 */
export function heldReadBounds(
  arrivedAtMs: number,
  deadlineMs: number,
  holdMs: number,
  startsAtMs: number,
): HeldReadBounds {
  const deadlineAtMs = arrivedAtMs + Math.max(holdMs, deadlineMs);
  return { holdEndsAtMs: Math.min(startsAtMs + holdMs, deadlineAtMs), deadlineAtMs, freshForMs: deadlineMs };
}

/** What a held read does once it has been woken (its time ran out, the task moved, the client left). */
export type AfterWake =
  /** Answer (or go on holding) the task as last confirmed: it is fresh enough. */
  | { next: "confirmed" }
  /** Read the task again, within `withinMs`. */
  | { next: "read"; withinMs: number }
  /** Nothing fresh and no time left to read: 503 TaskStoreUnavailable. */
  | { next: "unavailable" };

export interface WakeState {
  nowMs: number;
  /** The held read's deadline (performance.now()); undefined: none, every read may take its own bound. */
  deadlineAtMs: number | undefined;
  /** When the store last confirmed the task held (performance.now() the confirming read was sent). */
  confirmedAtMs: number;
  /** HeldReadBounds.freshForMs; 0: never answered without a read. */
  freshForMs: number;
  /** Woken by a notice that the task moved (this replica ended it, or a cancel) that did not carry it as it is now. */
  moved: boolean;
}

/**
 * A moved task is read while there is time to; otherwise a fresh confirmation is answered as it is (the state the task
 * had then, which is what a read could have said a moment before), and a stale one is read within the time left, or,
 * with none left, answered 503.
 */
export function afterWake(s: WakeState): AfterWake {
  const leftMs = s.deadlineAtMs === undefined ? Infinity : s.deadlineAtMs - s.nowMs;
  const fresh = s.nowMs - s.confirmedAtMs < s.freshForMs;
  if (fresh && !s.moved) return { next: "confirmed" };
  if (leftMs > 0) return { next: "read", withinMs: leftMs };
  return fresh ? { next: "confirmed" } : { next: "unavailable" };
}
