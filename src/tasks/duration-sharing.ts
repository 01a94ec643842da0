// Azure's write durations, shared by the replicas through the task store. Each replica learns how long Azure takes
// for each kind of write from the writes it saw end (azure/write-durations.ts) and polls a write once where it can be
// expected to have ended; alone, a replica that has not run a kind yet (or has just started) polls as Azure
// advertises, and sees the end of a 30 s update 10 s late. So what a replica records goes to the store within
// PUSH_DELAY_MS, and what all recorded comes back every REFRESH_MS, and at once (at most every MISS_REFRESH_MS) when
// a write of a kind this replica knows nothing of is waited for. One statement each way; nothing when idle.
//
// An optimisation, never a condition: a store that fails is tried again at the next turn, and a write waits as Azure
// advertises meanwhile.
import type { WriteDurations } from "../azure/write-durations.ts";
import type { TaskStore } from "./task-store.ts";

/** After a duration is recorded, the wait for more before they go to the store together. */
const PUSH_DELAY_MS = 1000;
/** How often what the replicas shared is read back. */
const REFRESH_MS = 30_000;
/** The least time between two reads asked for by a kind this replica had no duration of. */
const MISS_REFRESH_MS = 5000;
/** How long a stopping replica waits to share its last durations: a stalled store must not hold its shutdown. */
const STOP_WAIT_MS = 1000;

export interface DurationSharingTimes {
  pushDelayMs: number;
  refreshMs: number;
  missRefreshMs: number;
}

type Shared = Pick<TaskStore, "shareWriteDurations" | "sharedWriteDurations">;

export class DurationSharing {
  readonly #store: Shared;
  readonly #durations: WriteDurations;
  readonly #times: DurationSharingTimes;
  #pushTimer: NodeJS.Timeout | undefined;
  #refreshTimer: NodeJS.Timeout | undefined;
  /** The turn under way (a push, then a read): one at a time. */
  #turn: Promise<void> = Promise.resolve();
  #lastRefreshAtMs = -Infinity;
  #started = false;

  constructor(store: Shared, durations: WriteDurations, times: Partial<DurationSharingTimes> = {}) {
    this.#store = store;
    this.#durations = durations;
    this.#times = { pushDelayMs: PUSH_DELAY_MS, refreshMs: REFRESH_MS, missRefreshMs: MISS_REFRESH_MS, ...times };
  }

  /** Listens to the durations and reads what the replicas shared now, then every refreshMs. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    this.#durations.listen({ recorded: () => this.#pushSoon(), missed: () => this.#refreshOnMiss() });
    this.#refreshTimer = setInterval(() => this.#run(false), this.#times.refreshMs).unref();
    this.#run(false);
  }

  /**
   * Stops listening; shares what was recorded and not yet shared (a stopping replica's last durations), waiting
   * STOP_WAIT_MS at most: a store that does not answer by then keeps the shutdown waiting no longer.
   */
  async stop(): Promise<void> {
    if (!this.#started) return;
    this.#started = false;
    this.#durations.listen(undefined);
    clearInterval(this.#refreshTimer);
    clearTimeout(this.#pushTimer);
    this.#pushTimer = undefined;
    const last = this.#turn.then(() => this.#push());
    let bound: NodeJS.Timeout | undefined;
    await Promise.race([last, new Promise<void>((resolve) => (bound = setTimeout(resolve, STOP_WAIT_MS)))]);
    clearTimeout(bound);
  }

  /** The turn under way, ended (tests). */
  settled(): Promise<void> {
    return this.#turn;
  }

  #pushSoon(): void {
    if (this.#pushTimer !== undefined || !this.#started) return;
    this.#pushTimer = setTimeout(() => {
      this.#pushTimer = undefined;
      this.#run(true);
    }, this.#times.pushDelayMs).unref();
  }

  #refreshOnMiss(): void {
    if (performance.now() - this.#lastRefreshAtMs < this.#times.missRefreshMs) return;
    this.#run(false);
  }

  /** One turn after the one under way: the durations recorded go out (when `push`), then all come back. */
  #run(push: boolean): void {
    this.#lastRefreshAtMs = performance.now();
    this.#turn = this.#turn.then(async () => {
      if (push) await this.#push();
      await this.#refresh();
    });
  }

  async #push(): Promise<void> {
    const samples = this.#durations.takeUnshared();
    if (samples.length === 0) return;
    try {
      await this.#store.shareWriteDurations(samples);
    } catch {
      // Shared with the next ones; the store's outage is the store's watch's to report.
      this.#durations.giveBack(samples);
    }
  }

  async #refresh(): Promise<void> {
    try {
      this.#durations.adopt(await this.#store.sharedWriteDurations());
    } catch {
      // Read again at the next turn.
    }
  }
}
