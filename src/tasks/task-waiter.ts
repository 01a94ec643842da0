// Holds requests (?wait=<seconds>) until a task ends or the time runs out, cheaply: a waiter is a callback in a
// map and a timer, nothing more. A task this replica ran wakes its waiters at once (notify, from the runner); a task
// another replica runs is noticed by one shared poll of the store every pollMs, while anyone waits: one statement for
// every task waited on, each one's revision and state, and a task read only once it has ended (a task queued or
// running costs the poll an index lookup, not a task read). Each poll that finds a task as its waiters hold it
// confirms it, so that a hold over can answer it without another read (held-read.ts decides when). A waiter whose client went away (signal) is removed at
// once.
import { FINISHED_STATES, type Task } from "./task.ts";
import type { TaskStore } from "./task-store.ts";
import { afterWake, type HeldReadBounds } from "./held-read.ts";
import { withoutRequestDeadline } from "./request-deadline.ts";
import { RequestDeadlineError, TaskStoreUnavailableError } from "./store-outage.ts";

export interface TaskWaiterOptions {
  store: Pick<TaskStore, "get" | "revisions">;
  /** How often the tasks waited on are read from the store (for tasks other replicas run). */
  pollMs: number;
}

/** The task as the store last said it is (undefined: it does not exist), and when (performance.now() of the read). */
interface Confirmed {
  task: Task | undefined;
  atMs: number;
}

/** Why a waiter woke: `moved`, a notice that the task changed that did not say how; `confirmed`, the last word on it. */
interface Woken {
  moved: boolean;
  confirmed: Confirmed | undefined;
}

type Wake = (woken: Woken) => void;

export interface HoldOptions extends Partial<HeldReadBounds> {
  /** performance.now() when the hold is over. */
  holdEndsAtMs: number;
  /** The client went away: answer at once. */
  signal?: AbortSignal;
  /** The task as the caller has just read (or created) it, where the hold starts from. */
  read?: Task;
}

/** A store call that failed, told from a task that is not there (undefined). */
const FAILED = Symbol("failed");

export class TaskWaiter {
  readonly #store: Pick<TaskStore, "get" | "revisions">;
  readonly #pollMs: number;
  /** Task id → the waiters on it. */
  readonly #waiting = new Map<string, Set<Wake>>();
  /** Task id → the store's last word on it, as its waiters or the poll read it: the poll reads the task again only
   * when its revision moved. */
  readonly #seen = new Map<string, Confirmed>();
  #poll: NodeJS.Timeout | undefined;
  #polling = false;
  #closed = false;

  constructor(options: TaskWaiterOptions) {
    this.#store = options.store;
    this.#pollMs = options.pollMs;
  }

  /** Requests held now (metrics, tests). */
  get waiters(): number {
    let n = 0;
    for (const set of this.#waiting.values()) n += set.size;
    return n;
  }

  /** Task ids this waiter keeps any state for (tests): never more than the tasks somebody waits on now. */
  get tasksKept(): number {
    return new Set([...this.#waiting.keys(), ...this.#seen.keys()]).size;
  }

  /** A task ended (or may have: a cheap hint, re-checked by the waiters): wake those waiting on it. */
  notify(id: string): void {
    this.#wake(id, { moved: true, confirmed: this.#seen.get(id) });
  }

  #wake(id: string, woken: Woken): void {
    const set = this.#waiting.get(id);
    if (!set) return;
    this.#waiting.delete(id);
    this.#seen.delete(id);
    for (const wake of set) wake(woken);
    this.#stopPollingIfIdle();
  }

  /**
   * Resolves with the task once it has ended, or as it is when timeoutMs has passed or signal aborts (the client
   * went away); undefined if the task does not exist (any more). Every wake reads the task again, within the store
   * call's own bound. `read`: as in hold().
   */
  waitForEnd(id: string, timeoutMs: number, signal?: AbortSignal, read?: Task): Promise<Task | undefined> {
    return this.hold(id, { holdEndsAtMs: performance.now() + timeoutMs, signal, read });
  }

  /**
   * A held read (held-read.ts): the task once it has ended, or as it is when the hold is over or signal aborts;
   * undefined if the task does not exist (any more). Once woken, it answers the task as last confirmed when that is
   * fresh enough (freshForMs), else reads it again (a read made in the caller's async context: bounded by its request
   * deadline, deadlineAtMs), and throws a TaskStoreUnavailableError when no time is left for that. `read` is the task
   * as the caller has just read it from the store (or created it), so that the hold does not read it again before it
   * sleeps: an end committed since moved its revision, which the store poll notices if no notification came.
   */
  async hold(id: string, options: HoldOptions): Promise<Task | undefined> {
    const { holdEndsAtMs, deadlineAtMs, freshForMs = 0, signal } = options;
    let confirmedAtMs = performance.now();
    let task = options.read ?? (await this.#store.get(id));
    for (;;) {
      if (!task || FINISHED_STATES.has(task.state)) return task;
      const left = holdEndsAtMs - performance.now();
      if (left <= 0 || signal?.aborted || this.#closed) return task;
      // Recorded only for a wait that sleeps: its waiter's removal lets it go (an entry kept for a wait that has
      // already answered would stay for good). The newest word on the task wins: its revision only grows.
      const seen = this.#seen.get(id);
      if (!seen || seen.atMs <= confirmedAtMs) this.#seen.set(id, { task, atMs: confirmedAtMs });
      // Woken by notify (this replica ended it), the poll (it saw it end), the hold's end or the client leaving.
      const woken = await this.#sleepUntilWoken(id, left, signal);
      if (woken.confirmed && woken.confirmed.atMs >= confirmedAtMs) {
        ({ task, atMs: confirmedAtMs } = woken.confirmed);
      }
      const now = performance.now();
      const next = afterWake({ nowMs: now, deadlineAtMs, confirmedAtMs, freshForMs, moved: woken.moved });
      if (next.next === "unavailable")
        throw new TaskStoreUnavailableError(
          "RequestDeadline",
          new RequestDeadlineError("get", false, now - confirmedAtMs),
        );
      if (next.next === "read") {
        confirmedAtMs = now;
        task = await this.#store.get(id);
      }
      if (signal?.aborted) return task;
    }
  }

  #sleepUntilWoken(id: string, ms: number, signal?: AbortSignal): Promise<Woken> {
    return new Promise<Woken>((resolve) => {
      let set = this.#waiting.get(id);
      if (!set) this.#waiting.set(id, (set = new Set()));
      const done: Wake = (woken) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", byItself);
        const current = this.#waiting.get(id);
        current?.delete(done);
        if (current?.size === 0) {
          this.#waiting.delete(id);
          this.#seen.delete(id);
        }
        this.#stopPollingIfIdle();
        resolve(woken);
      };
      // The hold's end or the client leaving: the last word on the task is the poll's (or the waiter's own).
      const byItself = () => done({ moved: false, confirmed: this.#seen.get(id) });
      const timer = setTimeout(byItself, ms);
      signal?.addEventListener("abort", byItself, { once: true });
      set.add(done);
      this.#startPolling();
    });
  }

  #startPolling(): void {
    if (this.#poll) return;
    // Shared by every hold: its store calls are no request's (a hold's deadline is its own, not the poll's).
    this.#poll = withoutRequestDeadline(() => setInterval(() => void this.#pollOnce(), this.#pollMs));
    this.#poll.unref();
  }

  #stopPollingIfIdle(): void {
    if (this.#waiting.size > 0 || !this.#poll) return;
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  /**
   * One statement for every task waited on, where each stands (its revision and state); a task read only once it
   * has ended, for its waiters' answer. A task that moved and has not ended keeps its last confirmation: a hold over
   * on it reads it again if that is too old (held-read.ts). A slow store never stacks polls; a poll that fails says
   * nothing.
   */
  async #pollOnce(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      const ids = [...this.#waiting.keys()];
      if (ids.length === 0) return;
      const sentAtMs = performance.now();
      const standing = await this.#store.revisions(ids).catch((): typeof FAILED => FAILED);
      if (standing === FAILED) return;
      for (const id of ids) {
        const now = standing.get(id);
        const seen = this.#seen.get(id);
        if (now === undefined) {
          this.#wake(id, { moved: false, confirmed: { task: undefined, atMs: sentAtMs } });
          continue;
        }
        if (seen?.task !== undefined && now.revision === seen.task.revision) {
          if (this.#waiting.has(id) && this.#seen.get(id) === seen)
            this.#seen.set(id, { task: seen.task, atMs: sentAtMs });
          continue;
        }
        if (!FINISHED_STATES.has(now.state)) continue;
        const task = await this.#store.get(id).catch((): typeof FAILED => FAILED);
        if (task === FAILED) continue;
        const confirmed = { task, atMs: sentAtMs };
        if (!task || FINISHED_STATES.has(task.state)) this.#wake(id, { moved: false, confirmed });
        else if (this.#waiting.has(id)) this.#seen.set(id, confirmed);
      }
    } finally {
      this.#polling = false;
    }
  }

  /** Wakes every waiter (shutdown): each answers with the task as it is. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#waiting.keys()]) this.#wake(id, { moved: false, confirmed: this.#seen.get(id) });
    this.#stopPollingIfIdle();
  }
}
