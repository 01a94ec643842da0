// How long this process's event loop is held up, by how late a timer runs. A request that arrived while the loop was
// held was not read until it turned again: what /ready judges the replica by, and how long a request parsed now may
// already have waited (api/arrival.ts counts its deadline from then, and sheds it when that is too long).

/** How often a turn of the loop is timed. */
const TICK_MS = 100;

export class EventLoopLag {
  #lastTickAt = performance.now();
  /** How late the last timer ran. */
  #lastLateMs = 0;
  /** The latest any timer ran since takeLongestMs() last read it. */
  #longestMs = 0;
  #timer: NodeJS.Timeout | undefined;

  /** Starts timing (the app once ready: what start-up holds the loop up by is no request's wait). */
  start(): void {
    if (this.#timer) return;
    this.#lastTickAt = performance.now();
    this.#timer = setInterval(() => {
      const now = performance.now();
      this.#lastLateMs = Math.max(0, now - this.#lastTickAt - TICK_MS);
      this.#longestMs = Math.max(this.#longestMs, this.#lastLateMs);
      this.#lastTickAt = now;
    }, TICK_MS);
    this.#timer.unref();
  }

  /**
   * How long the loop was held up just now: the lateness of its last timer, or of the one overdue as this is asked (a
   * request read in the turn that ends a hold may come before the timer). An upper bound of how long a request read
   * now waited unread: one sent at the end of a hold is counted as if it came at its start.
   */
  heldMs(): number {
    if (!this.#timer) return 0;
    return Math.max(this.#lastLateMs, performance.now() - this.#lastTickAt - TICK_MS, 0);
  }

  /** The longest the loop was held up since the last call (or since it was made). */
  takeLongestMs(): number {
    const longest = Math.max(this.#longestMs, this.heldMs());
    this.#longestMs = 0;
    return longest;
  }

  /**
   * Counts from now: what held the loop before (start-up's warm-up, which no request waited through) is forgotten, as
   * if timing had just started.
   */
  restart(): void {
    this.#lastTickAt = performance.now();
    this.#lastLateMs = 0;
    this.#longestMs = 0;
    if (this.#timer) this.#timer.refresh();
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
