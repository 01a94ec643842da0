// When this replica's lease on a task ends, by its own monotonic clock: the store keeps leases on the database's
// clock, which a replica cut off from the store cannot ask. A lease the store granted or extended in answer to a
// call sent at `sentAtMs` began no earlier than that, so it ends no earlier than sentAtMs + leaseMs on any clock that
// runs at the database's rate. The drift margin covers clocks that do not quite, a timer that fires late, and a
// request already on its way when the deadline comes. At the deadline the task stops, whether or not the store has
// answered: another replica may claim it from then on, and two replicas must never act on one task.
import { LeaseLostError } from "./task-journal.ts";

/** The share of a lease kept back for drift: a tenth (a renewal is due after a third, so two thirds are left). */
export const LEASE_DRIFT_SHARE = 0.1;

/** The local deadline of a lease of leaseMs that the store granted in answer to a call sent at sentAtMs. */
export function leaseDeadline(sentAtMs: number, leaseMs: number): number {
  return sentAtMs + leaseMs - Math.ceil(leaseMs * LEASE_DRIFT_SHARE);
}

/** The clock leases are measured on: monotonic, so a step of the wall clock neither ends a lease nor extends one. */
export const monotonicNow = (): number => performance.now();

/** The lease on a task ran out here before the store confirmed a renewal: another replica may run it now. */
export class LeaseExpiredError extends LeaseLostError {
  override name = "LeaseExpiredError";
}

/**
 * One task's lease, as this replica knows it: its local deadline, moved on by each renewal the store confirms, and a
 * timer that calls onExpired at the deadline (once). check() is for the moments before a call that acts for the task
 * (an Azure call, a store write): it throws once the deadline is past, even if the timer has not fired yet.
 */
export class TaskLease {
  readonly #taskId: string;
  readonly #onExpired: (err: LeaseExpiredError) => void;
  readonly #now: () => number;
  #deadline: number;
  #timer: NodeJS.Timeout | undefined;
  #expired: LeaseExpiredError | undefined;

  constructor(taskId: string, deadline: number, onExpired: (err: LeaseExpiredError) => void, now = monotonicNow) {
    this.#taskId = taskId;
    this.#deadline = deadline;
    this.#onExpired = onExpired;
    this.#now = now;
    this.#arm();
  }

  get deadline(): number {
    return this.#deadline;
  }

  /** Whether the lease still runs, by the local clock. */
  get live(): boolean {
    return this.#expired === undefined && this.#now() < this.#deadline;
  }

  /** The store confirmed a renewal asked for at sentAtMs: the deadline moves on (never back, never after expiry). */
  renewed(sentAtMs: number, leaseMs: number): void {
    if (this.#expired) return;
    const next = leaseDeadline(sentAtMs, leaseMs);
    if (next <= this.#deadline) return;
    this.#deadline = next;
    this.#arm();
  }

  /** Throws the LeaseExpiredError (and ends the lease, if the timer has not yet) once the deadline is past. */
  check(): void {
    if (this.#expired) throw this.#expired;
    if (this.#now() >= this.#deadline) {
      this.#expire();
      throw this.#expired!;
    }
  }

  /** The run ended: no timer left behind. */
  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #arm(): void {
    clearTimeout(this.#timer);
    const wait = Math.max(0, this.#deadline - this.#now());
    // Unref'd: a lease keeps no process alive; the run it belongs to does.
    this.#timer = setTimeout(() => this.#onTimer(), wait).unref();
  }

  #onTimer(): void {
    // A timer may fire a little early on some platforms: wait for the deadline itself.
    if (this.#now() < this.#deadline) return this.#arm();
    this.#expire();
  }

  #expire(): void {
    if (this.#expired) return;
    this.stop();
    this.#expired = new LeaseExpiredError(
      `lease on ${this.#taskId} ended at its local deadline without a renewal the store confirmed`,
    );
    this.#onExpired(this.#expired);
  }
}
