// The bounds of the store calls in flight (store-outage.ts), all on one timer. A timer of its own per call (armed,
// raced against the call, then cleared) cost a poll of GET /task/{id} about a fifth of its CPU on SQLite, whose calls
// settle within the turn that makes them: the bound is kept for every call all the same, but the timer is armed only
// for the earliest bound in flight and is left armed when calls settle (undici bounds its sockets with one timer for
// the same reason). When it fires, the calls past their bound are rejected, and it is armed for the next bound.

interface InFlight {
  atMs: number;
  late: () => void;
}

export class CallBounds {
  readonly #inFlight = new Set<InFlight>();
  #timer: NodeJS.Timeout | undefined;
  /** performance.now() the timer is armed for; Infinity when none is. */
  #timerAtMs = Infinity;

  /**
   * `call`, or the error `lateError` makes once performance.now() passes `atMs` without it settling. Rejected after
   * the poll phase that follows the timer: when the event loop was held up past the bound, an answer already waiting
   * on the socket still wins. The call itself goes on (its answer, if it comes, is dropped).
   */
  bound<T>(call: Promise<T>, atMs: number, lateError: () => Error): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const entry: InFlight = { atMs, late: () => reject(lateError()) };
      if (this.#inFlight.size === 0) this.#timer?.ref();
      this.#inFlight.add(entry);
      call.then(
        (value) => {
          this.#settled(entry);
          resolve(value);
        },
        (err: Error) => {
          this.#settled(entry);
          reject(err);
        },
      );
      if (atMs < this.#timerAtMs) this.#arm(atMs);
    });
  }

  /** Calls in flight. */
  get pending(): number {
    return this.#inFlight.size;
  }

  /** Whether the timer keeps the process alive: only while a call is in flight, as a timer of its own would. */
  get holdsProcess(): boolean {
    return this.#timer?.hasRef() ?? false;
  }

  #settled(entry: InFlight): void {
    this.#inFlight.delete(entry);
    if (this.#inFlight.size === 0) this.#timer?.unref();
  }

  #arm(atMs: number): void {
    clearTimeout(this.#timer);
    this.#timerAtMs = atMs;
    this.#timer = setTimeout(() => this.#fired(), Math.max(0, atMs - performance.now()));
    if (this.#inFlight.size === 0) this.#timer.unref();
  }

  #fired(): void {
    this.#timer = undefined;
    this.#timerAtMs = Infinity;
    setImmediate(() => {
      const now = performance.now();
      let next = Infinity;
      for (const entry of this.#inFlight) {
        if (entry.atMs <= now) {
          this.#settled(entry);
          entry.late();
        } else next = Math.min(next, entry.atMs);
      }
      if (next < this.#timerAtMs) this.#arm(next);
    });
  }
}
