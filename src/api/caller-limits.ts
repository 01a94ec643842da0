// Per-caller request limits: so many requests of a kind (submissions, reads) per caller in a fixed window that
// starts with the caller's first request. The decision alone, on a clock it is given; overload.ts hooks it into
// the routes. It replaces @fastify/rate-limit, whose every request went through five promises (key, allow list,
// maximum, the store's count, the hook) and set three x-ratelimit-* headers on every answer.
//
// The counts live in this replica's memory, on purpose: behind a load balancer a caller gets up to N times the
// limit from N replicas, and the limit is sized per replica (docs/configuration.md, docs/scaling.md). A count shared
// in PostgreSQL would cost a statement per request and tie every read to the database; what Azure is spent is
// shared already (the ARM budget).

export interface LimitRefusal {
  /** Seconds until the caller's window ends, at least 1 (Retry-After). */
  retryAfterSeconds: number;
}

interface Window {
  endsAtMs: number;
  count: number;
}

export class CallerLimits {
  readonly #windowMs: number;
  readonly #windows = new Map<string, Window>();
  /** When windows that have ended are next swept out (at most once a window). */
  #sweepAtMs: number;

  constructor(windowMs: number, nowMs: number) {
    this.#windowMs = windowMs;
    this.#sweepAtMs = nowMs + windowMs;
  }

  /** Counts a request of `key`: undefined when it is within `max` for the window, else when to come back. */
  take(key: string, max: number, nowMs: number): LimitRefusal | undefined {
    if (nowMs >= this.#sweepAtMs) this.#sweep(nowMs);
    let window = this.#windows.get(key);
    if (window === undefined || nowMs >= window.endsAtMs) {
      window = { endsAtMs: nowMs + this.#windowMs, count: 0 };
      this.#windows.set(key, window);
    }
    window.count++;
    if (window.count <= max) return undefined;
    return { retryAfterSeconds: Math.max(1, Math.ceil((window.endsAtMs - nowMs) / 1000)) };
  }

  /** Callers counted in a window that has not ended. */
  get size(): number {
    return this.#windows.size;
  }

  #sweep(nowMs: number): void {
    for (const [key, window] of this.#windows) if (nowMs >= window.endsAtMs) this.#windows.delete(key);
    this.#sweepAtMs = nowMs + this.#windowMs;
  }
}
