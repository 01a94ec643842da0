// The budget's levels in this process: one replica (or a test).
import type { BucketFigures } from "./figures.ts";
import type { BudgetLedger, CallAnswer, LeaseRequest, TakeAnswer, TakeRequest, TakeResult } from "./ledger.ts";

/** A bucket's level as a process keeps it. */
export interface Level {
  tokens: number;
  atMs: number;
  blockedUntilMs: number;
  figures: BucketFigures;
}

/** Every this many takes, buckets back at their burst are forgotten (one per operation polled, per VM read). */
export const SWEEP_EVERY = 1000;

/** The level at `now`: refilled linearly since it was written, up to the burst. */
export function levelAt(level: Level, figures: BucketFigures, now: number): number {
  return Math.min(figures.burst, level.tokens + (Math.max(0, now - level.atMs) * figures.refillPerMinute) / 60_000);
}

/** ms until a bucket at `level` holds `need` tokens. */
export function msUntil(level: number, need: number, figures: BucketFigures): number {
  if (level >= need) return 0;
  return Math.max(1, Math.ceil(((need - level) * 60_000) / figures.refillPerMinute));
}

/** The levels in this process: one replica (or a test). */
export class InProcessLedger implements BudgetLedger {
  readonly #levels = new Map<string, Level>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #takes = 0;

  #level(key: string, figures: BucketFigures, now: number): Level {
    let level = this.#levels.get(key);
    if (!level) this.#levels.set(key, (level = { tokens: figures.burst, atMs: now, blockedUntilMs: 0, figures }));
    return level;
  }

  /** Buckets held: a full one is the same as none, and is forgotten (see SWEEP_EVERY). */
  get size(): number {
    return this.#levels.size;
  }

  #sweep(now: number): void {
    for (const [key, level] of this.#levels) {
      if (level.blockedUntilMs <= now && levelAt(level, level.figures, now) >= level.figures.burst)
        this.#levels.delete(key);
    }
  }

  readonly statements = 0;
  readonly shared = false;

  async takeInOrder(calls: TakeRequest[][]): Promise<CallAnswer[]> {
    return (await this.takeAndLease(calls, { caps: [], gives: [], wants: [], share: 0 })).answers;
  }

  async takeAndLease(calls: TakeRequest[][], lease: LeaseRequest): Promise<TakeResult> {
    const now = this.#now();
    for (const c of lease.caps) await this.correct(c.key, c.figures, c.tokens);
    for (const g of lease.gives) {
      const level = this.#level(g.key, g.figures, now);
      if (level.blockedUntilMs > now) continue;
      Object.assign(level, { tokens: Math.min(g.figures.burst, levelAt(level, g.figures, now) + g.tokens), atMs: now });
    }
    const held = new Set<string>();
    const answers = calls.map((requests): CallAnswer => {
      if (requests.some((r) => held.has(r.key))) return "held";
      const answer = this.#take(requests);
      if (!answer.granted) for (const r of requests) held.add(r.key);
      return answer;
    });
    const leased = new Map<string, number>();
    for (const w of lease.wants) {
      if (held.has(w.key) || w.tokens < 1) continue;
      const level = this.#level(w.key, w.figures, now);
      if (level.blockedUntilMs > now) continue;
      const tokens = levelAt(level, w.figures, now);
      const extra = Math.min(Math.floor(w.tokens), Math.floor((tokens - w.floor) * lease.share));
      if (extra < 1) continue;
      Object.assign(level, { tokens: tokens - extra, atMs: now });
      leased.set(w.key, extra);
    }
    return { answers, leased };
  }

  /** One call's take, all or nothing. */
  #take(requests: TakeRequest[]): TakeAnswer {
    const now = this.#now();
    if (++this.#takes % SWEEP_EVERY === 0) this.#sweep(now);
    let waitMs = 0;
    let emptyKey: string | undefined;
    const levels = requests.map((r) => {
      const level = this.#level(r.key, r.figures, now);
      const tokens = levelAt(level, r.figures, now);
      const wait = Math.max(level.blockedUntilMs - now, msUntil(tokens, r.need, r.figures));
      if (wait > waitMs) [waitMs, emptyKey] = [wait, r.key];
      return tokens;
    });
    if (waitMs > 0) return { granted: false, waitMs, ...(emptyKey ? { emptyKey } : {}) };
    requests.forEach((r, i) => Object.assign(this.#level(r.key, r.figures, now), { tokens: levels[i] - 1, atMs: now }));
    return { granted: true, waitMs: 0 };
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the budget's interface is asynchronous (PostgreSQL's is); this one answers from memory
  async correct(key: string, figures: BucketFigures, remaining: number): Promise<void> {
    const now = this.#now();
    const level = this.#level(key, figures, now);
    const tokens = levelAt(level, figures, now);
    if (remaining < tokens) Object.assign(level, { tokens: remaining, atMs: now });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the budget's interface is asynchronous (PostgreSQL's is); this one answers from memory
  async drain(key: string, figures: BucketFigures, blockMs: number): Promise<void> {
    const now = this.#now();
    // Azure's Retry-After is when its bucket holds a token again: one, then.
    Object.assign(this.#level(key, figures, now), { tokens: 1, atMs: now + blockMs, blockedUntilMs: now + blockMs });
  }

  async close(): Promise<void> {}
}
