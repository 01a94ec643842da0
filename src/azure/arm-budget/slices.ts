// A replica's slices of a shared ledger's buckets: tokens leased ahead of its calls and spent here without a
// statement until the lease ends; what goes back to the ledger with the next take (the unspent tokens of ended
// slices, and Azure's counts that lower a level); and how many calls the replica charged to each bucket lately,
// which sizes the next lease (leaseWant).
import type { BucketFigures } from "./figures.ts";
import type { LeaseRequest, SliceTokens } from "./ledger.ts";
import { leaseWant } from "./pacing.ts";
import type { ArmCall } from "./routes.ts";

/** A replica's slice of a bucket: tokens taken from the shared ledger ahead of its calls, spent here until untilMs. */
interface Slice {
  figures: BucketFigures;
  tokens: number;
  /** Date.now() at which its unspent tokens go back to the ledger (with the next take), no longer spent here. */
  untilMs: number;
}

/** How many calls a replica charged to one bucket lately: in the current lease-long window and the one before. */
interface Demand {
  startMs: number;
  current: number;
  previous: number;
}

export class ReplicaSlices {
  /** 0 when the ledger is this process's: slices save statements, and there are none. */
  readonly leaseMs: number;
  readonly #share: number;
  /** The share of each bucket that cache reads leave: slices are leased above it. */
  readonly #reserve: number;
  readonly #slices = new Map<string, Slice>();
  /** Unspent tokens of slices that ended, given back with the next take. */
  readonly #gives = new Map<string, SliceTokens>();
  /** Azure's counts since the last take, lowering the shared levels with the next one (LeaseRequest.caps). */
  readonly #caps = new Map<string, SliceTokens>();
  readonly #demand = new Map<string, Demand>();

  constructor(leaseMs: number, share: number, reserve: number) {
    this.leaseMs = leaseMs;
    this.#share = share;
    this.#reserve = reserve;
  }

  /** Whether ended slices' tokens wait to go back to the ledger. */
  get givingBack(): boolean {
    return this.#gives.size > 0;
  }

  /** Whether anything waits to go with the next take: tokens given back, or Azure's counts. */
  get forNextTake(): boolean {
    return this.#gives.size > 0 || this.#caps.size > 0;
  }

  /** What the next take gives back and asks to lease: slices of the buckets of its calls, as busy as they were. */
  leaseRequest(calls: ArmCall[]): LeaseRequest {
    const wants: LeaseRequest["wants"] = [];
    if (this.leaseMs > 0) {
      const now = Date.now();
      const seen = new Set<string>();
      for (const call of calls)
        for (const b of call.buckets) {
          if (seen.has(b.key)) continue;
          seen.add(b.key);
          const slice = this.#slices.get(b.key);
          const tokens = leaseWant(this.#recentCalls(b.key, now), slice?.tokens ?? 0, b.figures, this.#share);
          if (tokens >= 1)
            wants.push({ key: b.key, figures: b.figures, tokens, floor: Math.floor(b.figures.burst * this.#reserve) });
        }
    }
    return { caps: [...this.#caps.values()], gives: [...this.#gives.values()], wants, share: this.#share };
  }

  /** What the ledger has been sent (or, out of reach, will not be): given back and corrected, once. */
  sent(): void {
    this.#gives.clear();
    this.#caps.clear();
  }

  /** The tokens a take leased, as slices until a lease from now; whether there were any. */
  addLeased(lease: LeaseRequest, leased: Map<string, number>): boolean {
    if (leased.size === 0) return false;
    const untilMs = Date.now() + this.leaseMs;
    for (const w of lease.wants) {
      const tokens = leased.get(w.key);
      if (!tokens) continue;
      const slice = this.#slices.get(w.key);
      if (slice) Object.assign(slice, { tokens: slice.tokens + tokens, untilMs });
      else this.#slices.set(w.key, { figures: w.figures, tokens, untilMs });
    }
    return true;
  }

  /** Spends a token of every bucket of the call from this replica's slices, if each holds one; whether it did. */
  spend(call: ArmCall): boolean {
    if (this.#slices.size === 0) return false;
    const now = Date.now();
    for (const b of call.buckets) {
      const slice = this.#slices.get(b.key);
      if (!slice || slice.tokens < 1 || slice.untilMs <= now) return false;
    }
    for (const b of call.buckets) this.#slices.get(b.key)!.tokens--;
    return true;
  }

  /** Slices past their lease are spent here no more: their unspent tokens go back with the next take. */
  end(now: number): void {
    for (const [key, slice] of this.#slices) {
      if (slice.untilMs > now && slice.tokens >= 1) continue;
      this.#slices.delete(key);
      if (slice.tokens < 1) continue;
      const give = this.#gives.get(key);
      if (give) give.tokens += slice.tokens;
      else this.#gives.set(key, { key, figures: slice.figures, tokens: slice.tokens });
    }
  }

  /** When the first slice ends (Date.now() ms), or Infinity when there is none. */
  firstEndMs(): number {
    let firstEndMs = Number.POSITIVE_INFINITY;
    for (const slice of this.#slices.values()) firstEndMs = Math.min(firstEndMs, slice.untilMs);
    return firstEndMs;
  }

  /** The unspent tokens of this replica's slice of a bucket. */
  tokensOf(key: string): number {
    return this.#slices.get(key)?.tokens ?? 0;
  }

  /** A 429 or Azure's lower count for a bucket: this replica's slice of it is not spent, nor given back. */
  void(key: string): void {
    this.#slices.delete(key);
    this.#gives.delete(key);
    this.#caps.delete(key);
  }

  /** Azure's count of a bucket, for the next take to lower the shared level to: the lowest since the last take wins. */
  cap(key: string, figures: BucketFigures, tokens: number): void {
    const cap = this.#caps.get(key);
    if (!cap || tokens < cap.tokens) this.#caps.set(key, { key, figures, tokens });
  }

  /** A call charged to its buckets: counted for the size of their next lease. */
  noteDemand(call: ArmCall): void {
    if (this.leaseMs <= 0) return;
    const now = Date.now();
    if (this.#demand.size > 10_000) {
      for (const [key, d] of this.#demand)
        if (now - d.startMs >= 2 * this.leaseMs && !this.#slices.has(key)) this.#demand.delete(key);
    }
    for (const b of call.buckets) {
      const d = this.#demand.get(b.key);
      if (!d) this.#demand.set(b.key, { startMs: now, current: 1, previous: 0 });
      else {
        this.#roll(d, now);
        d.current++;
      }
    }
  }

  #roll(d: Demand, now: number): void {
    const age = now - d.startMs;
    if (age < this.leaseMs) return;
    d.previous = age < 2 * this.leaseMs ? d.current : 0;
    d.current = 0;
    d.startMs = now;
  }

  #recentCalls(key: string, now: number): number {
    const d = this.#demand.get(key);
    if (!d) return 0;
    this.#roll(d, now);
    return Math.max(d.current, d.previous);
  }
}
