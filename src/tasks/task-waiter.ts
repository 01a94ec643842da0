// Holds requests (?wait=<seconds>) until a task ends or the time runs out, cheaply: a waiter is a callback in a
// map and a timer, nothing more. A task this replica ran wakes its waiters at once (notify, from the runner); a task
// another replica runs is noticed by one shared poll of the store for every task waited on, every pollMs, while
// anyone waits: its revision alone, and the task only when that moved (a task waiting in the queue costs the poll an
// index lookup, not a task read). A waiter whose client went away (signal) is removed at once.
import { FINISHED_STATES, type Task } from "./task.ts";
import type { TaskStore } from "./task-store.ts";

export interface TaskWaiterOptions {
  store: Pick<TaskStore, "get" | "revision">;
  /** How often the tasks waited on are read from the store (for tasks other replicas run). */
  pollMs: number;
}

type Wake = () => void;

export class TaskWaiter {
  readonly #store: Pick<TaskStore, "get" | "revision">;
  readonly #pollMs: number;
  /** Task id → the waiters on it. */
  readonly #waiting = new Map<string, Set<Wake>>();
  /** Task id → the revision its waiters last read: the poll reads the task again only when it moved. */
  readonly #seen = new Map<string, number>();
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
    const set = this.#waiting.get(id);
    if (!set) return;
    this.#waiting.delete(id);
    this.#seen.delete(id);
    for (const wake of set) wake();
    this.#stopPollingIfIdle();
  }

  /**
   * Resolves with the task once it has ended, or as it is when timeoutMs has passed or signal aborts (the client
   * went away); undefined if the task does not exist (any more). `read` is the task as the caller has just read it
   * from the store (or created it), so that the wait does not read it again before it sleeps: an end committed since
   * moved its revision, which the store poll notices if no notification came.
   */
  async waitForEnd(id: string, timeoutMs: number, signal?: AbortSignal, read?: Task): Promise<Task | undefined> {
    const end = Date.now() + timeoutMs;
    let task = read ?? (await this.#store.get(id));
    for (;;) {
      if (!task || FINISHED_STATES.has(task.state)) return task;
      const left = end - Date.now();
      if (left <= 0 || signal?.aborted || this.#closed) return task;
      // Recorded only for a wait that sleeps: its waiter's removal lets it go (an entry kept for a wait that has
      // already answered would stay for good).
      this.#seen.set(id, task.revision);
      // Woken by notify (this replica ended it, or the poll saw it end), the timeout or the client leaving; each
      // way the loop reads the task again and decides.
      await this.#sleepUntilWoken(id, left, signal);
      task = await this.#store.get(id);
      if (signal?.aborted) return task;
    }
  }

  #sleepUntilWoken(id: string, ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      let set = this.#waiting.get(id);
      if (!set) this.#waiting.set(id, (set = new Set()));
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        const current = this.#waiting.get(id);
        current?.delete(done);
        if (current?.size === 0) {
          this.#waiting.delete(id);
          this.#seen.delete(id);
        }
        this.#stopPollingIfIdle();
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
      set.add(done);
      this.#startPolling();
    });
  }

  #startPolling(): void {
    if (this.#poll) return;
    this.#poll = setInterval(() => void this.#pollOnce(), this.#pollMs);
    this.#poll.unref();
  }

  #stopPollingIfIdle(): void {
    if (this.#waiting.size > 0 || !this.#poll) return;
    clearInterval(this.#poll);
    this.#poll = undefined;
  }

  /** One revision read per task waited on, the task read only when it moved; a slow store never stacks polls. */
  async #pollOnce(): Promise<void> {
    if (this.#polling) return;
    this.#polling = true;
    try {
      for (const id of [...this.#waiting.keys()]) {
        const seen = this.#seen.get(id);
        const revision = await this.#store.revision(id).catch(() => undefined);
        if (revision !== undefined && revision === seen) continue;
        const task = await this.#store.get(id).catch(() => undefined);
        if (!task || FINISHED_STATES.has(task.state)) this.notify(id);
        else if (this.#waiting.has(id)) this.#seen.set(id, task.revision);
      }
    } finally {
      this.#polling = false;
    }
  }

  /** Wakes every waiter (shutdown): each answers with the task as it is. */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#waiting.keys()]) this.notify(id);
    this.#stopPollingIfIdle();
  }
}
