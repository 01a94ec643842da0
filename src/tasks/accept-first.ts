// Accept first: a submission is answered before task work goes on. Accepting and running share one event loop, and
// without an order between them a burst of submissions queues behind the running tasks' SDK calls, store writes and
// log lines: an orchestrator's submit times out while tasks it already handed over make progress it cannot see.
//
// Task work asks for its turn at each step (a claim, each ARM call of a task). While submissions are being accepted
// the step waits; it goes on once none has been accepted for QUIET_MS, or once it has waited MAX_WAIT_MS, so that a
// steady stream of submissions slows tasks down but never stops them. A refused submission (backlog full) holds
// nothing back: when the store is full, running the tasks is what makes room.

/** Without a submission for this long, the burst is over: task work goes on. Longer than a caller's round trip. */
export const QUIET_MS = 5;
/** No step waits longer: task work keeps at least one step per task per this long, whatever arrives. */
export const MAX_WAIT_MS = 250;
/**
 * While submissions still arrive, the steps that waited their longest go one per SPACING_MS (so a step may wait
 * MAX_WAIT_MS plus SPACING_MS for each step ahead of it). 32 tasks' steps let go together were a lump of work (32
 * SDK calls, their answers, their commits) that every submission of the moment waited behind: what made the p99.
 */
export const SPACING_MS = 4;

/** The clock and timer it runs on; tests pass a hand-moved one. */
export interface AcceptFirstClock {
  now(): number;
  /** Calls fn once after ms; returns a function that cancels it. */
  after(ms: number, fn: () => void): () => void;
}

const realClock: AcceptFirstClock = {
  now: () => performance.now(),
  after(ms, fn) {
    const timer = setTimeout(fn, ms);
    timer.unref();
    return () => clearTimeout(timer);
  },
};

interface Waiting {
  since: number;
  go: () => void;
}

export class AcceptFirst {
  readonly #clock: AcceptFirstClock;
  /** Submissions admitted and not yet answered. */
  #accepting = 0;
  /** When the last one was answered. */
  #lastAcceptedAt = Number.NEGATIVE_INFINITY;
  /** Steps waiting for their turn, oldest first. */
  #waiting: Waiting[] = [];
  #cancelTimer: (() => void) | undefined;
  #timerAt = Number.POSITIVE_INFINITY;
  /** While busy, no step goes before this (SPACING_MS after the last that went). */
  #spacedUntil = Number.NEGATIVE_INFINITY;

  constructor(clock: AcceptFirstClock = realClock) {
    this.#clock = clock;
  }

  /** A submission is being accepted; call what this returns once it is answered, or has failed. */
  accepting(): () => void {
    this.#accepting++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      this.#accepting--;
      this.#lastAcceptedAt = this.#clock.now();
      this.#schedule();
    };
  }

  /** Whether a step asking now would wait. */
  get busy(): boolean {
    return this.#accepting > 0 || this.#clock.now() - this.#lastAcceptedAt < QUIET_MS;
  }

  /** Steps waiting for their turn now. */
  get waiting(): number {
    return this.#waiting.length;
  }

  /** Resolves when task work may take its step; undefined when it may at once (no promise, no turn of the loop). */
  turn(): Promise<void> | undefined {
    if (!this.busy) return undefined;
    return new Promise<void>((go) => {
      this.#waiting.push({ since: this.#clock.now(), go });
      this.#schedule();
    });
  }

  /** Lets go the steps whose turn it is, and sets the timer for the next. */
  #release(): void {
    this.#cancelTimer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.#clock.now();
    if (!this.busy) {
      const going = this.#waiting;
      this.#waiting = [];
      for (const w of going) w.go();
      return;
    }
    const oldest = this.#waiting[0];
    if (oldest !== undefined && now - oldest.since >= MAX_WAIT_MS && now >= this.#spacedUntil) {
      this.#waiting.shift();
      this.#spacedUntil = now + SPACING_MS;
      oldest.go();
    }
    this.#schedule();
  }

  /** One timer: for the end of the quiet time, or the oldest step's turn (its longest wait, spaced), whichever comes first. */
  #schedule(): void {
    if (this.#waiting.length === 0) return;
    const quietAt = this.#accepting > 0 ? Number.POSITIVE_INFINITY : this.#lastAcceptedAt + QUIET_MS;
    const at = Math.min(quietAt, Math.max(this.#waiting[0].since + MAX_WAIT_MS, this.#spacedUntil));
    if (at >= this.#timerAt) return;
    this.#cancelTimer?.();
    this.#timerAt = at;
    this.#cancelTimer = this.#clock.after(Math.max(0, at - this.#clock.now()), () => this.#release());
  }
}
