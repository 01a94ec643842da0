// Waiting for an event in a test, instead of sleeping and hoping it happened. The bound is generous on purpose: on a
// loaded machine (load 8-10 on 2 cores) a step that takes 20 ms when quiet can take seconds; the bound only stops a
// test that would otherwise hang, it is never what the test asserts.
import { setImmediate as nextTurn } from "node:timers/promises";

export interface WaitForOptions {
  /** What is waited for, for the failure message. */
  what: string;
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Between checks (default 10 ms). */
  intervalMs?: number;
}

/** Resolves once `condition` holds (checked at once, then every intervalMs); rejects naming `what` after timeoutMs. */
export async function waitFor(
  condition: () => boolean | Promise<boolean>,
  { what, timeoutMs = 60_000, intervalMs = 10 }: WaitForOptions,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** Lets every callback already queued with setImmediate (and the microtasks they start) run first. */
export function afterQueuedImmediates(): Promise<void> {
  return nextTurn();
}
