// The backlog: tasks created and not yet started. Counted by the store, read at most once per BACKLOG_READ_MS
// however many submissions, scrapes and probes ask, and the one place that decides whether a submission is taken.
import type { Backlog, TaskStore } from "./task-store.ts";

/** A figure this fresh is good enough for a metric, a probe or admission: the count moves by submissions, not ms. */
const BACKLOG_READ_MS = 1000;

/** A submission refused because TASK_BACKLOG_LIMIT tasks already wait. */
export class BacklogFullError extends Error {
  override name = "BacklogFullError";
  readonly retryAfterSeconds: number;
  readonly queued: number;
  readonly limit: number;
  constructor(backlog: Backlog, limit: number, retryAfterSeconds: number) {
    super(
      `${backlog.queued} tasks are waiting to start, the most this service takes (TASK_BACKLOG_LIMIT ${limit}); nothing was created, retry after ${retryAfterSeconds} s`,
    );
    this.retryAfterSeconds = retryAfterSeconds;
    this.queued = backlog.queued;
    this.limit = limit;
  }
}

export interface BacklogView {
  queued: number;
  /** Seconds the oldest queued task has waited (0 when none waits). */
  oldestAgeSeconds: number;
}

export class BacklogMonitor {
  readonly #store: Pick<TaskStore, "backlog">;
  readonly #limit: number;
  readonly #retryAfterSeconds: number;
  #last: { at: number; backlog: Backlog } | undefined;
  /** Submissions this replica admitted since the figure was read: a burst counts before the next read shows it. */
  #admittedSince = 0;
  #reading: Promise<Backlog> | undefined;

  /** limit: refuse submissions from this many queued tasks on (0: never). */
  constructor(store: Pick<TaskStore, "backlog">, options: { limit: number; retryAfterSeconds: number }) {
    this.#store = store;
    this.#limit = options.limit;
    this.#retryAfterSeconds = options.retryAfterSeconds;
  }

  /** The backlog, read from the store when the last figure is older than BACKLOG_READ_MS; undefined if the store cannot count. */
  async current(): Promise<Backlog | undefined> {
    if (!this.#store.backlog) return undefined;
    if (this.#last && Date.now() - this.#last.at < BACKLOG_READ_MS) return this.#last.backlog;
    this.#reading ??= this.#store.backlog().finally(() => (this.#reading = undefined));
    const backlog = await this.#reading;
    if (!this.#last || this.#last.backlog !== backlog) {
      this.#last = { at: Date.now(), backlog };
      this.#admittedSince = 0;
    }
    return backlog;
  }

  /**
   * The count, and the oldest task's wait: the store's figure (on its own clock, never against this replica's), plus
   * the time since it was read.
   */
  async view(): Promise<BacklogView | undefined> {
    const b = await this.current();
    if (!b) return undefined;
    if (b.oldestQueuedForMs === undefined) return { queued: b.queued, oldestAgeSeconds: 0 };
    const sinceReadMs = this.#last?.backlog === b ? Math.max(0, Date.now() - this.#last.at) : 0;
    return { queued: b.queued, oldestAgeSeconds: (b.oldestQueuedForMs + sinceReadMs) / 1000 };
  }

  /** Throws BacklogFullError when TASK_BACKLOG_LIMIT tasks wait already. */
  async admit(): Promise<void> {
    if (this.#limit <= 0) return;
    const b = await this.current();
    if (!b) return;
    const queued = b.queued + this.#admittedSince;
    if (queued >= this.#limit) throw new BacklogFullError({ ...b, queued }, this.#limit, this.#retryAfterSeconds);
    this.#admittedSince++;
  }
}
