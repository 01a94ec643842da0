// A request's deadline for the task store: set when the request is let in (api/request-deadline.ts), carried through
// the request's async work (AsyncLocalStorage), read by every store call it makes (store-outage.ts bounds a call by
// min(its own bound, the time left), and does not send one that cannot start in time; pg/connection.ts bounds the
// wait for a pooled connection and the statement the same way). Work a request starts that outlives it (the task it
// created, run by the runner; a ?wait= hold) runs outside it: withoutRequestDeadline.
import { AsyncLocalStorage } from "node:async_hooks";

interface RequestDeadline {
  /** performance.now() by which the request is answered. */
  atMs: number;
  /** True once the request has been answered: store calls made after it (an audit of its refusal) are not its own. */
  answered: () => boolean;
}

const deadlines = new AsyncLocalStorage<RequestDeadline>();

/** Runs `fn` (and what it starts) under a deadline `atMs` (performance.now() time). */
export function withRequestDeadline<T>(atMs: number, answered: () => boolean, fn: () => T): T {
  return deadlines.run({ atMs, answered }, fn);
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
