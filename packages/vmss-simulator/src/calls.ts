// The call log: every ARM request the simulator received, oldest first (control-API requests are not logged).

export interface CallRecord {
  method: string;
  /** URL pathname as received, without the query. */
  path: string;
  /** Status sent; null while unanswered or when the connection was dropped. */
  status: number | null;
  /** The If-Match header, or null when absent. */
  ifMatch: string | null;
  /** The If-None-Match header, only when one was sent (a create's `*`). */
  ifNoneMatch?: string;
  /** The User-Agent header, when one was sent: which client (and which replica of vmss-ops) made the call. */
  userAgent?: string;
  /** Arrival time, ms since the epoch. */
  time: number;
  /** When the answer was sent, ms since the epoch; absent while unanswered or when the connection was dropped. */
  answeredAt?: number;
  /**
   * A write Azure accepted as a long-running operation: its id, as its Azure-AsyncOperation URL names it. When it
   * ended (its `endTime`) is the operation's, under GET /_sim/operations.
   */
  operationId?: string;
  /** Set when an injected fault handled the request: respond, failOperation or dropConnection. */
  fault?: string;
  /** A write Azure made itself, not a request the simulator received: autoscale's change of a capacity. */
  origin?: "autoscale";
}

/** The log keeps this many calls; older ones are dropped. A benchmark of a fleet makes tens of thousands. */
export const MAX_CALLS = 200_000;

export class CallLog {
  #calls: CallRecord[] = [];

  add(record: CallRecord): CallRecord {
    this.#calls.push(record);
    if (this.#calls.length > MAX_CALLS) this.#calls.splice(0, this.#calls.length - MAX_CALLS);
    return record;
  }

  list(): CallRecord[] {
    return this.#calls.map((c) => ({ ...c }));
  }

  clear(): void {
    this.#calls = [];
  }
}
