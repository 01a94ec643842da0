// How long Azure took for the writes this replica saw end, by kind of write, from Azure's own status documents
// (startTime to endTime), and when the next write of a kind can be expected to have ended. A write's poll waits what
// Azure advertises (Retry-After: an update answers 10 s, then 30 s on its first poll; a create 10, then 61), so a
// 30 s update is polled at 10 s and 40 s and its end seen 10 s late; one poll at the expected end notices most ends
// within a twentieth of their duration (long-running.ts, pollAtMs).
import { statusDocumentOf } from "./status-document.ts";

/** Durations kept per kind: the most recent. */
const KEPT = 8;
/** Durations seen before a kind has an expectation: one (Azure's durations of a kind of write vary little). */
const LEAST = 1;
/** The expected end is the median duration, this much later: a poll just before the end would find it running. */
const MARGIN = 1.05;

export class WriteDurations {
  readonly #byKind = new Map<string, number[]>();

  /** Azure's duration of a write of `kind` that ended (ms from its startTime to its endTime). */
  record(kind: string, ms: number): void {
    if (!Number.isFinite(ms) || ms <= 0) return;
    let kept = this.#byKind.get(kind);
    if (!kept) this.#byKind.set(kind, (kept = []));
    kept.push(ms);
    if (kept.length > KEPT) kept.shift();
  }

  /**
   * How long after Azure accepted it a write of `kind` can be expected to have ended: the median of the durations
   * seen, a twentieth later; undefined before one was seen.
   */
  expectedMs(kind: string): number | undefined {
    const kept = this.#byKind.get(kind);
    if (!kept || kept.length < LEAST) return undefined;
    const sorted = [...kept].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
    return Math.round(median * MARGIN);
  }

  /** The expectation and the record of one kind, as a long-running write takes them (LongRunningOptions.duration). */
  of(kind: string): WriteDuration {
    return { expectedMs: () => this.expectedMs(kind), record: (ms) => this.record(kind, ms) };
  }
}

/** One kind of write's expected duration, and where its Azure duration goes when it ends. */
export interface WriteDuration {
  expectedMs(): number | undefined;
  record(ms: number): void;
}

/** Azure's duration of an operation from its status document, when it says Succeeded with its start and end. */
export function azureDurationMs(bodyAsText: string | undefined): number | undefined {
  // Only an ended operation's document has an endTime: the polls before it are not parsed twice.
  const b = bodyAsText?.includes('"endTime"') ? statusDocumentOf(bodyAsText) : undefined;
  if (typeof b?.status !== "string" || b.status.toLowerCase() !== "succeeded") return undefined;
  if (typeof b.startTime !== "string" || typeof b.endTime !== "string") return undefined;
  const ms = Date.parse(b.endTime) - Date.parse(b.startTime);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}
