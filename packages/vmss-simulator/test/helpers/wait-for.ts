// Waiting for an event in a test, instead of sleeping and hoping it happened. The bound is generous on purpose: on a
// loaded machine (load 8-10 on 2 cores) a step that takes 20 ms when quiet can take seconds; the bound only stops a
// test that would otherwise hang, it is never what the test asserts (unless a test of time says so where it sets one).
//
// A copy of the repository's testkit/wait-for.ts, so that the simulator package is tested on its own files: with it,
// the one place in the package's tests that pauses on a timer (the repository's test/no-inline-sleeps.test.ts holds the
// rest to it).
import { setImmediate as nextTurn, setTimeout as pause } from "node:timers/promises";

export interface WaitForOptions {
  /** What is waited for, for the failure message. */
  what: string;
  /** Give up after this long (default 60 s). */
  timeoutMs?: number;
  /** Between checks (default 10 ms). */
  intervalMs?: number;
  /** What was seen instead, added to the failure message (e.g. the last answer read). */
  seen?: () => unknown;
}

/** What a value is once it is known to be truthy. */
export type Truthy<T> = Exclude<T, false | null | undefined | 0 | "">;

/**
 * Resolves with the first truthy value `condition` returns (checked at once, then every intervalMs); rejects naming
 * `what` (and `seen()`) after timeoutMs.
 */
export async function waitFor<T>(
  condition: () => T | Promise<T>,
  { what, timeoutMs = 60_000, intervalMs = 10, seen }: WaitForOptions,
): Promise<Truthy<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await condition();
    if (value) return value as Truthy<T>;
    if (Date.now() > until) {
      const instead = seen === undefined ? "" : `; saw ${describe(seen())}`;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${instead}`);
    }
    await pause(intervalMs);
  }
}

/** Waits until the text `read()` returns (a log, a child's output) matches `pattern`; resolves with the match. */
export async function waitForLog(
  read: () => string,
  pattern: RegExp,
  options: Omit<WaitForOptions, "what" | "seen"> & { what?: string } = {},
): Promise<RegExpMatchArray> {
  return waitFor(() => read().match(pattern), {
    ...options,
    what: options.what ?? `a log line matching ${String(pattern)}`,
    seen: () => read().slice(-2000),
  });
}

/**
 * Reads `read` over and over, intervalMs apart (default 10 ms), until stopped: for an invariant that must hold at
 * every moment of a run (instances in traffic, say), not at its end. `samples` grows while it runs; stop() resolves
 * with all of them once the read under way has ended.
 */
export function sample<T>(read: () => Promise<T>, intervalMs = 10): { samples: T[]; stop: () => Promise<T[]> } {
  const samples: T[] = [];
  let sampling = true;
  const done = (async () => {
    while (sampling) {
      samples.push(await read());
      await pause(intervalMs);
    }
  })();
  return {
    samples,
    stop: async () => {
      sampling = false;
      await done;
      return samples;
    },
  };
}

/** Lets every callback already queued with setImmediate (and the microtasks they start) run first. */
export function afterQueuedImmediates(): Promise<void> {
  return nextTurn();
}

function describe(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}
