// The buckets one replica alone spends, kept in its memory even when the ledger is shared: an operation's (Compute's
// GetOperation per operation), which only the replica holding its task's lease polls. Each is new with its
// operation, so in a shared ledger it cost a statement at the operation's first poll (no replica held a slice of it)
// and a row in arm_budget. A replica that takes a task over starts the operation's bucket full: at the service's
// pace (a poll no sooner than Azure's Retry-After) nothing comes near its burst, and Azure's 429 still empties it.
import type { BucketFigures } from "./figures.ts";
import { type Level, levelAt, msUntil, SWEEP_EVERY } from "./in-process-ledger.ts";
import type { ChargedBucket } from "./routes.ts";

export class LocalBuckets {
  readonly #levels = new Map<string, Level>();
  readonly #now: () => number;
  #takes = 0;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #level(b: { key: string; figures: BucketFigures }, now: number): Level {
    let level = this.#levels.get(b.key);
    if (!level)
      this.#levels.set(b.key, (level = { tokens: b.figures.burst, atMs: now, blockedUntilMs: 0, figures: b.figures }));
    return level;
  }

  /** ms until every one of `buckets` gives a token (0: now), and the bucket waited for longest. */
  wait(buckets: readonly ChargedBucket[]): { waitMs: number; emptyKey?: string } {
    const now = this.#now();
    let waitMs = 0;
    let emptyKey: string | undefined;
    for (const b of buckets) {
      const level = this.#levels.get(b.key);
      if (!level) continue;
      const wait = Math.max(level.blockedUntilMs - now, msUntil(levelAt(level, b.figures, now), 1, b.figures));
      if (wait > waitMs) [waitMs, emptyKey] = [wait, b.key];
    }
    return emptyKey === undefined ? { waitMs } : { waitMs, emptyKey };
  }

  /** A token from each of `buckets` (wait() said they have one). */
  take(buckets: readonly ChargedBucket[]): void {
    if (buckets.length === 0) return;
    const now = this.#now();
    if (++this.#takes % SWEEP_EVERY === 0) this.#sweep(now);
    for (const b of buckets) {
      const level = this.#level(b, now);
      Object.assign(level, { tokens: levelAt(level, b.figures, now) - 1, atMs: now });
    }
  }

  /** Azure's count: the level is lowered to `remaining` if it is above. */
  correct(b: ChargedBucket, remaining: number): void {
    const now = this.#now();
    const level = this.#level(b, now);
    if (remaining < levelAt(level, b.figures, now)) Object.assign(level, { tokens: remaining, atMs: now });
  }

  /** A 429: empty, nothing given for `blockMs`, then one token (Azure's Retry-After). */
  drain(b: ChargedBucket, blockMs: number): void {
    const now = this.#now();
    Object.assign(this.#level(b, now), { tokens: 1, atMs: now + blockMs, blockedUntilMs: now + blockMs });
  }

  #sweep(now: number): void {
    for (const [key, level] of this.#levels)
      if (level.blockedUntilMs <= now && levelAt(level, level.figures, now) >= level.figures.burst)
        this.#levels.delete(key);
  }
}
