// How long Azure took for the writes this replica saw end, by kind of write, from Azure's own status documents
// (startTime to endTime), and when the next write of a kind can be expected to have ended. A write's poll waits what
// Azure advertises (Retry-After: an update answers 10 s, then 30 s on its first poll; a create 10, then 61), so a
// 30 s update is polled at 10 s and 40 s and its end seen 10 s late; one poll at the expected end notices most ends
// within a hundredth of their duration (long-running.ts, pollAtMs). The replicas share what they saw through the task
// store (tasks/duration-sharing.ts): a replica that has not run a kind yet, or has just started, expects what the
// others saw.
import { statusDocumentOf } from "./status-document.ts";

/** Durations kept per kind: the most recent (the task store keeps as many: tasks/duration-sharing.ts). */
export const DURATIONS_KEPT = 8;
/** Durations seen before a kind has an expectation: one (Azure's durations of a kind of write vary little). */
const LEAST = 1;
/**
 * The expected end is the longest duration kept, this much later. A poll that comes before the end finds the write
 * running and the next waits Azure's whole interval (30 s for an update): an early poll costs far more than a late
 * one by a little, so it goes where most writes of the kind have ended (of eight, the longest: about the 90th
 * percentile), not where half have (the median, used before, left a twentieth on every write to make up for it). The
 * margin is for the clocks: Azure's startTime is stamped before its answer reaches this replica.
 */
const MARGIN = 1.01;

/** Azure's duration of one write of a kind, in ms. */
export interface DurationSample {
  kind: string;
  ms: number;
}

/** Told when a duration is recorded, and when a kind is asked for that has none (tasks/duration-sharing.ts). */
export interface DurationsListener {
  recorded(): void;
  missed(kind: string): void;
}

export class WriteDurations {
  readonly #byKind = new Map<string, number[]>();
  /** Recorded here, not yet handed to the other replicas (takeUnshared). */
  #unshared: DurationSample[] = [];
  #listener: DurationsListener | undefined;

  /** Azure's duration of a write of `kind` that ended (ms from its startTime to its endTime). */
  record(kind: string, ms: number): void {
    if (!Number.isFinite(ms) || ms <= 0) return;
    const sample = { kind, ms: Math.round(ms) };
    this.#keep(kind, [sample.ms]);
    this.#unshared.push(sample);
    this.#listener?.recorded();
  }

  #keep(kind: string, samples: readonly number[]): void {
    this.#byKind.set(kind, keptDurations(this.#byKind.get(kind) ?? [], samples));
  }

  /** The durations recorded since the last call, oldest first: for the other replicas (given back if not shared). */
  takeUnshared(): DurationSample[] {
    const taken = this.#unshared;
    this.#unshared = [];
    return taken;
  }

  /** Samples taken that could not be shared: shared with the next ones. */
  giveBack(samples: readonly DurationSample[]): void {
    this.#unshared = [...samples, ...this.#unshared];
  }

  /**
   * The durations every replica shared, by kind, oldest first (this replica's shared ones among them), in place of
   * what this replica kept: its own not yet shared come after them.
   */
  adopt(shared: ReadonlyMap<string, readonly number[]>): void {
    for (const [kind, samples] of shared) {
      const own = this.#unshared.filter((s) => s.kind === kind).map((s) => s.ms);
      this.#byKind.set(kind, keptDurations(samples, own));
    }
  }

  /** One listener (the sharing with the other replicas); a second replaces it. */
  listen(listener: DurationsListener | undefined): void {
    this.#listener = listener;
  }

  /**
   * How long after Azure accepted it a write of `kind` can be expected to have ended: the longest of the durations
   * kept, a hundredth later; undefined before one was seen.
   */
  expectedMs(kind: string): number | undefined {
    const kept = this.#byKind.get(kind);
    if (!kept || kept.length < LEAST) {
      this.#listener?.missed(kind);
      return undefined;
    }
    return Math.round(Math.max(...kept) * MARGIN);
  }

  /** The expectation and the record of one kind, as a long-running write takes them (LongRunningOptions.duration). */
  of(kind: string): WriteDuration {
    return { expectedMs: () => this.expectedMs(kind), record: (ms) => this.record(kind, ms) };
  }
}

/** A kind's durations kept after `added`: the most recent DURATIONS_KEPT, oldest first (here and in the task stores). */
export function keptDurations(kept: readonly number[], added: readonly number[]): number[] {
  return [...kept, ...added].slice(-DURATIONS_KEPT);
}

/** The samples by kind, in their order. */
export function samplesByKind(samples: readonly DurationSample[]): Map<string, number[]> {
  return new Map([...Map.groupBy(samples, (s) => s.kind)].map(([kind, of]) => [kind, of.map((s) => s.ms)]));
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
