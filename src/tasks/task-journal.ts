// What one run of a task writes into the store: its history lines and its changes, one commit per step. Lines wait
// in a buffer and go with the next change, or on their own after LINES_WAIT_MS: the opening lines and the line
// before a write then share the commit of the checkpoint that follows them (a commit costs more than the lines).
// A change nothing waits for (recordChange) waits the same way. Every write goes through one chain, so they land in
// order although the harness logs synchronously. Every write is fenced by the lease: one the store refuses means
// another replica runs the task now.
import type { HistoryEntry } from "./task.ts";
import type { TaskChange, TaskStore } from "./task-store.ts";
import { storeOutageReason } from "./store-outage.ts";

/** This replica no longer holds the task's lease: another one runs it now. */
export class LeaseLostError extends Error {
  override name = "LeaseLostError";
}

/** A write of the task met a store outage: what it held is not known to be stored, so the run stops here. */
export class StoreWriteFailedError extends Error {
  override name = "StoreWriteFailedError";
  readonly reason: string;
  constructor(taskId: string, reason: string, cause: unknown) {
    super(`a write of task ${taskId} to the task store failed (${reason})`, { cause });
    this.reason = reason;
  }
}

/**
 * This replica's ARM calls have gone unanswered for too long (azure/arm-link.ts): the task is handed back, for a
 * replica that reaches Azure to go on from its checkpoint. `line` is what the task's history says of it.
 */
export class ArmLinkDownError extends Error {
  override name = "ArmLinkDownError";
  readonly line: string;
  constructor(taskId: string, line: string) {
    super(`task ${taskId} handed back: ${line}`);
    this.line = line;
  }
}

/**
 * Why a run stopped before its task ended: this replica shuts down, another one holds the lease now, the store
 * failed a write (the task is handed back once the store answers), or Azure does not answer this replica (handed back).
 */
export type Interruption = "shutdown" | "leaseLost" | "storeFailed" | "armLinkDown";

/**
 * Whether `err`, thrown out of a run whose interrupt signal is `signal`, is an interruption, and which: a lost
 * lease aborts the signal with a LeaseLostError, a failed write with a StoreWriteFailedError; anything else that
 * aborted it is the shutdown. Undefined: an error.
 */
export function interruptionOf(signal: AbortSignal, err: unknown): Interruption | undefined {
  if (!signal.aborted && !(err instanceof LeaseLostError) && !(err instanceof StoreWriteFailedError)) return undefined;
  const reason: unknown = signal.aborted ? signal.reason : err;
  if (reason instanceof LeaseLostError) return "leaseLost";
  if (reason instanceof StoreWriteFailedError) return "storeFailed";
  return reason instanceof ArmLinkDownError ? "armLinkDown" : "shutdown";
}

/** The history line of a run that stopped on a store outage, written when the task is handed back. */
export function storeFailedLine(reason: string): string {
  return `The task store could not be written (${reason}); the task was handed back when it answered again, to go on from its last checkpoint`;
}

/**
 * What one write commits: the change with the lines logged since the last write, in their order. The first write
 * of a queued task also moves it to running (task-state.ts), unless the change itself ends it. Empty: no write.
 */
export function commitOf(change: TaskChange, lines: HistoryEntry[], running: boolean): TaskChange {
  const full: TaskChange = lines.length > 0 ? { ...change, history: lines } : change;
  return running ? full : { state: "running", ...full };
}

/**
 * How long lines (and changes recorded with recordChange) wait for a change to go with, before they are written
 * alone. Short beside how often anyone reads a task's history; long enough for the read and the write that follow a
 * task's opening lines against a nearby ARM endpoint.
 */
export const LINES_WAIT_MS = 200;

export interface TaskJournalOptions {
  store: Pick<TaskStore, "update" | "release">;
  owner: string;
  taskId: string;
  /** The task is past queued (a run before this one wrote it). */
  running: boolean;
  /** Aborted with a LeaseLostError when a write is refused: whatever the run awaits stops at once. */
  interrupt: AbortController;
  /** After a store outage: how long to keep trying to hand the task back (its lease ends then anyway), and how often. */
  handBackWithinMs?: number;
  handBackEveryMs?: number;
  /**
   * Whether this replica's lease on the task still runs by its own clock (lease-deadline.ts): past it, nothing more is
   * written for the task, not even what waits in the chain. Absent: the store's fence alone decides.
   */
  leaseLive?: () => boolean;
  /** LINES_WAIT_MS unless given; 0: lines go at the end of the turn of the event loop that logged them. */
  linesWaitMs?: number;
}

export class TaskJournal {
  readonly #store: TaskJournalOptions["store"];
  readonly #owner: string;
  readonly #id: string;
  readonly #interrupt: AbortController;
  #running: boolean;
  #lines: HistoryEntry[] = [];
  /** A change recorded to go with the next write (recordChange). */
  #pending: TaskChange | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  #flushScheduled = false;
  readonly #handBackWithinMs: number;
  readonly #handBackEveryMs: number;
  readonly #linesWaitMs: number;
  readonly #leaseLive: () => boolean;

  constructor(options: TaskJournalOptions) {
    this.#store = options.store;
    this.#handBackWithinMs = options.handBackWithinMs ?? 30_000;
    this.#handBackEveryMs = options.handBackEveryMs ?? 1000;
    this.#linesWaitMs = options.linesWaitMs ?? LINES_WAIT_MS;
    this.#leaseLive = options.leaseLive ?? (() => true);
    this.#owner = options.owner;
    this.#id = options.taskId;
    this.#running = options.running;
    this.#interrupt = options.interrupt;
  }

  /** Adds a history line; it is written with the next change, or alone within linesWaitMs. */
  record(phase: string, status: string): void {
    this.#lines.push({ phase, status, timeMs: Date.now() });
    this.#scheduleFlush();
  }

  /**
   * A change that nothing waits for (a write in flight that ended: a process taking over would only follow it to
   * its end again, sending nothing): it goes with the next write, or alone within linesWaitMs, as lines do.
   */
  recordChange(change: TaskChange): void {
    this.#pending = { ...this.#pending, ...change };
    this.#scheduleFlush();
  }

  #scheduleFlush(): void {
    if (this.#flushScheduled) return;
    this.#flushScheduled = true;
    if (this.#linesWaitMs <= 0) setImmediate(() => this.#flush());
    // Unref'd: a shutdown writes what waits itself (interrupted), and the timer keeps no process alive.
    else setTimeout(() => this.#flush(), this.#linesWaitMs).unref();
  }

  /** Writes the change (with the lines waiting); throws LeaseLostError, and interrupts the run, if the store refuses. */
  async change(change: TaskChange): Promise<void> {
    let written: boolean;
    try {
      written = await this.#write(change);
    } catch (err) {
      const failed = this.#storeFailed(err);
      if (failed) throw failed;
      throw err;
    }
    if (!written) {
      this.#leaseLost();
      throw new LeaseLostError(`lease on ${this.#id} lost`);
    }
  }

  /**
   * The run stopped before the task ended: waits for the writes under way. On shutdown, the lines left and the ARM
   * calls are written and the lease is given back, so that another replica may go on at once; a lost lease leaves
   * the task to its new owner. Either way the checkpoint stays for whoever continues the task. Handed back because
   * Azure does not answer this replica: as on shutdown, with a line that says so.
   */
  async interrupted(why: Interruption, armCalls: number): Promise<void> {
    // The task is another replica's (or may be, past the local deadline): nothing to wait for, nothing to write. A
    // write still under way with a store that does not answer must not hold the run, and its slot, until it does.
    if (why === "leaseLost") return;
    await this.#chain;
    if (!this.#leaseLive()) return;
    if (why === "storeFailed") return this.#handBack(armCalls);
    const reason: unknown = this.#interrupt.signal.reason;
    if (why === "armLinkDown" && reason instanceof ArmLinkDownError)
      this.#lines.push({ phase: "ORCHESTRATION", status: reason.line, timeMs: Date.now() });
    await this.#store
      .update(this.#owner, this.#id, {
        ...this.#takePending(),
        armCalls,
        ...(this.#lines.length > 0 ? { history: this.#lines } : {}),
      })
      .catch(() => false);
    await this.#store.release(this.#owner, this.#id);
  }

  /** Lines (and a recorded change) alone: no change followed them within linesWaitMs. */
  #flush(): void {
    this.#flushScheduled = false;
    if (this.#lines.length === 0 && !this.#pending) return;
    // Nobody awaits this write: a refusal or an error can only interrupt the run.
    this.#write({}).then(
      (ok) => ok || this.#leaseLost(),
      (err) => this.#storeFailed(err) ?? this.#leaseLost(),
    );
  }

  /** A write met a store outage: the run stops at once (StoreWriteFailedError). Not an outage: undefined. */
  #storeFailed(err: unknown): StoreWriteFailedError | undefined {
    const reason = storeOutageReason(err);
    if (reason === undefined) return undefined;
    const failed =
      this.#interrupt.signal.reason instanceof StoreWriteFailedError
        ? this.#interrupt.signal.reason
        : new StoreWriteFailedError(this.#id, reason, err);
    if (!this.#interrupt.signal.aborted) this.#interrupt.abort(failed);
    return failed;
  }

  /**
   * After a store outage: the lines not written, a line that says what happened and the ARM calls, then the lease
   * given back, tried until the store answers, so that this replica (or another) claims the task again at once
   * instead of waiting for its lease to run out. Past the lease there is nothing left to give back.
   */
  async #handBack(armCalls: number): Promise<void> {
    const reason = (this.#interrupt.signal.reason as StoreWriteFailedError).reason;
    const until = Date.now() + this.#handBackWithinMs;
    const line: HistoryEntry = { phase: "ORCHESTRATION", status: storeFailedLine(reason), timeMs: Date.now() };
    for (;;) {
      if (!this.#leaseLive()) return;
      try {
        const history = [...this.#lines, line];
        if (await this.#store.update(this.#owner, this.#id, { armCalls, history })) {
          this.#lines = [];
          await this.#store.release(this.#owner, this.#id);
        }
        return;
      } catch (err) {
        if (storeOutageReason(err) === undefined || Date.now() + this.#handBackEveryMs > until) return;
        await new Promise((r) => setTimeout(r, this.#handBackEveryMs));
      }
    }
  }

  /** Queues a write behind the others; true when it was written (or there was nothing to write). */
  #write(change: TaskChange): Promise<boolean> {
    // A change recorded before this one was asked for goes with it (this one, newer, wins where both say something).
    const asked = { ...this.#takePending(), ...change };
    const p = this.#chain.then(() => {
      // The lines logged until now go with this write, those logged after it was asked for included.
      const commit = commitOf(asked, this.#lines, this.#running);
      this.#lines = [];
      if (Object.keys(commit).length === 0) return true;
      // Past the lease's local deadline the write is not sent: as refused by the fence, the run stops.
      if (!this.#leaseLive()) return false;
      return this.#store.update(this.#owner, this.#id, commit).then(
        (ok) => {
          if (ok) this.#running = true;
          return ok;
        },
        (err: unknown) => {
          // Not known to be stored: the lines go again with the next write (the hand-back after an outage).
          if (commit.history) this.#lines = [...commit.history, ...this.#lines];
          throw err;
        },
      );
    });
    this.#chain = p.catch(() => {});
    return p;
  }

  #takePending(): TaskChange {
    const pending = this.#pending ?? {};
    this.#pending = undefined;
    return pending;
  }

  #leaseLost(): void {
    this.#interrupt.abort(new LeaseLostError(`lease on ${this.#id} lost`));
  }
}
