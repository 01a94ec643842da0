// A request's deadline for the task store: set when the request is let in (api/request-deadline.ts), carried through
// the request's async work (AsyncLocalStorage), read by every store call it makes (store-outage.ts bounds a call by
// min(its own bound, the time left), and does not send one that cannot start in time; pg/connection.ts bounds the
// wait for a pooled connection and the statement the same way). Work a request starts that outlives it (the task it
// created, run by the runner) runs outside it: withoutRequestDeadline. A ?wait= hold is part of its request: its deadline
// is extended to cover the hold from the request's arrival (withHeldRequestDeadline, held-read.ts).
import { AsyncLocalStorage } from "node:async_hooks";
import { heldReadBounds, type HeldReadBounds } from "./held-read.ts";

interface RequestDeadline {
  /** performance.now() when the request arrived, from which its deadline counts. */
  fromMs: number;
  /** performance.now() by which the request is answered. */
  atMs: number;
  /** True once the request has been answered: store calls made after it (an audit of its refusal) are not its own. */
  answered: () => boolean;
}

const deadlines = new AsyncLocalStorage<RequestDeadline>();

/**
 * Runs `fn` (and what it starts) under a deadline `atMs` (performance.now() time), for a request that arrived at
 * `fromMs` (by default: as if its deadline were all it had).
 */
export function withRequestDeadline<T>(atMs: number, answered: () => boolean, fn: () => T, fromMs = atMs): T {
  return deadlines.run({ fromMs, atMs, answered }, fn);
}

/**
 * Runs `fn` with the bounds of a read held `holdMs` (held-read.ts), under its deadline: the current request's,
 * extended to max(the hold, its deadline's span) from its arrival. Outside a request (or once answered), or without a
 * deadline: `fn(undefined)`, under no request's deadline.
 */
export function withHeldRequestDeadline<T>(holdMs: number, fn: (bounds: HeldReadBounds | undefined) => T): T {
  const d = deadlines.getStore();
  if (d === undefined || d.answered()) return deadlines.exit(() => fn(undefined));
  const bounds = heldReadBounds(d.fromMs, d.atMs - d.fromMs, holdMs, performance.now());
  return deadlines.run({ ...d, atMs: bounds.deadlineAtMs }, () => fn(bounds));
}

/** Runs `fn` (and what it starts) under no request's deadline: work that outlives the request. */
export function withoutRequestDeadline<T>(fn: () => T): T {
  return deadlines.exit(fn);
}

/** performance.now() by which the current request is answered; undefined outside a request (or once answered). */
export function requestDeadlineAtMs(): number | undefined {
  const d = deadlines.getStore();
  return d === undefined || d.answered() ? undefined : d.atMs;
}
