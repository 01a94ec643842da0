// What one run of a task writes into the store: its history lines and its changes, one commit per step. Lines wait
// in a buffer and go with the next change, or on their own once the lines logged together have all arrived
// (setImmediate). Every write goes through one chain, so they land in order although the harness logs
// synchronously. Every write is fenced by the lease: one the store refuses means another replica runs the task now.
import type { HistoryEntry } from "./task.ts";
import type { TaskChange, TaskStore } from "./task-store.ts";

/** This replica no longer holds the task's lease: another one runs it now. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** Why a run stopped before its task ended: this replica shuts down, or another one holds the lease now. */
export type Interruption = "shutdown" | "leaseLost";

/**
 * Whether `err`, thrown out of a run whose interrupt signal is `signal`, is an interruption, and which: a lost
 * lease aborts the signal with a LeaseLostError; anything else that aborted it is the shutdown. Undefined: an error.
 */
export function interruptionOf(signal: AbortSignal, err: unknown): Interruption | undefined {
  if (!signal.aborted && !(err instanceof LeaseLostError)) return undefined;
  return signal.reason instanceof LeaseLostError ? "leaseLost" : "shutdown";
}

/**
 * What one write commits: the change with the lines logged since the last write, in their order. The first write
 * of a queued task also moves it to running (task-state.ts), unless the change itself ends it. Empty: no write.
 */
export function commitOf(change: TaskChange, lines: HistoryEntry[], running: boolean): TaskChange {
  const full: TaskChange = lines.length > 0 ? { ...change, history: lines } : change;
  return running ? full : { state: "running", ...full };
}

export interface TaskJournalOptions {
  store: Pick<TaskStore, "update" | "release">;
  owner: string;
  taskId: string;
  /** The task is past queued (a run before this one wrote it). */
  running: boolean;
  /** Aborted with a LeaseLostError when a write is refused: whatever the run awaits stops at once. */
  interrupt: AbortController;
}

export class TaskJournal {
  readonly #store: TaskJournalOptions["store"];
  readonly #owner: string;
  readonly #id: string;
  readonly #interrupt: AbortController;
  #running: boolean;
  #lines: HistoryEntry[] = [];
  #chain: Promise<unknown> = Promise.resolve();
  #flushScheduled = false;

  constructor(options: TaskJournalOptions) {
    this.#store = options.store;
    this.#owner = options.owner;
    this.#id = options.taskId;
    this.#running = options.running;
    this.#interrupt = options.interrupt;
  }

  /** Adds a history line; it is written with the next change, or alone once the current burst of lines ends. */
  record(phase: string, status: string): void {
    this.#lines.push({ phase, status, timeMs: Date.now() });
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    setImmediate(() => this.#flush());
  }

  /** Writes the change (with the lines waiting); throws LeaseLostError, and interrupts the run, if the store refuses. */
  async change(change: TaskChange): Promise<void> {
    if (!(await this.#write(change))) {
      this.#leaseLost();
      throw new LeaseLostError(`lease on ${this.#id} lost`);
    }
  }

  /**
   * The run stopped before the task ended: waits for the writes under way. On shutdown, the lines left and the ARM
   * calls are written and the lease is given back, so that another replica may go on at once; a lost lease leaves
   * the task to its new owner. Either way the checkpoint stays for whoever continues the task.
   */
  async interrupted(why: Interruption, armCalls: number): Promise<void> {
    await this.#chain;
    if (why === "leaseLost") return;
    await this.#store.update(this.#owner, this.#id, { armCalls, ...(this.#lines.length > 0 ? { history: this.#lines } : {}) }).catch(() => false);
    await this.#store.release(this.#owner, this.#id);
  }

  /** Lines alone: no change followed them within the burst that logged them. */
  #flush(): void {
    this.#flushScheduled = false;
    if (this.#lines.length === 0) return;
    // Nobody awaits this write: a refusal or an error can only interrupt the run.
    this.#write({}).then(
      (ok) => ok || this.#leaseLost(),
      () => this.#leaseLost(),
    );
  }

  /** Queues a write behind the others; true when it was written (or there was nothing to write). */
  #write(change: TaskChange): Promise<boolean> {
    const p = this.#chain.then(() => {
      // The lines logged until now go with this write, those logged after it was asked for included.
      const commit = commitOf(change, this.#lines, this.#running);
      this.#lines = [];
      if (Object.keys(commit).length === 0) return true;
      return this.#store.update(this.#owner, this.#id, commit).then((ok) => {
        if (ok) this.#running = true;
        return ok;
      });
    });
    this.#chain = p.catch(() => {});
    return p;
  }

  #leaseLost(): void {
    this.#interrupt.abort(new LeaseLostError(`lease on ${this.#id} lost`));
  }
}
