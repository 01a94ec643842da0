// The task store out of reach: the one rule that tells an outage (PostgreSQL stopped, restarting, the network cut)
// from anything else, the error that carries it, and the watch every store call goes through, so an outage is
// known at once (readiness) and answered as one (503 with Retry-After, never "internal error").
import type { TaskStore } from "./task-store.ts";
import { CallBounds } from "./call-bounds.ts";
import { requestDeadlineAtMs, withoutRequestDeadline } from "./request-deadline.ts";

/** Connection-level error codes of Node's sockets and DNS: the database could not be reached or the link broke. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ECONNABORTED",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * PostgreSQL SQLSTATEs that mean "not now": class 08 (connection exception), 57P01-57P03 (shut down by an
 * administrator, crash shutdown, cannot connect now: starting or stopping), 53300 (too many connections).
 */
function isUnavailableSqlState(code: string): boolean {
  return /^08[0-9A-Z]{3}$/.test(code) || code === "57P01" || code === "57P02" || code === "57P03" || code === "53300";
}

/**
 * SQLite's primary result codes that mean "not now" rather than "wrong" (node:sqlite's errcode may carry an extended
 * code: the primary one is its low byte): the disk is full, an I/O error, the database cannot be written (a
 * read-only mount), busy past its timeout. The file is as it was before the failed statement (SQLite's transactions).
 */
const SQLITE_OUTAGES = new Map([
  [5, "SQLITE_BUSY"],
  [8, "SQLITE_READONLY"],
  [10, "SQLITE_IOERR"],
  [13, "SQLITE_FULL"],
]);

/** SQLite's outage code for a node:sqlite error, or undefined. */
function sqliteOutage(e: { code?: unknown; errcode?: unknown }): string | undefined {
  if (e.code !== "ERR_SQLITE_ERROR" || typeof e.errcode !== "number") return undefined;
  return SQLITE_OUTAGES.get(e.errcode & 0xff);
}

/**
 * 57014 (query_canceled): the service cancels statements only by its statement timeout
 * (TASK_STORE_STATEMENT_TIMEOUT_MS), so a canceled one is a store too slow to answer in time.
 */
const STATEMENT_TIMEOUT_SQLSTATE = "57014";

/**
 * Why the store is out of reach, as a stable code (a socket error code, a SQLSTATE, or one of ours), or undefined
 * when `err` is not an outage (a bug, bad data: those stay 500s and are logged as such). SQLite's are its own: a
 * full disk, an I/O error, a read-only file, busy past its timeout.
 */
export function storeOutageReason(err: unknown): string | undefined {
  if (err instanceof TaskStoreUnavailableError) return err.reason;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== "object") return undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  if (code && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) return code;
  if (code === STATEMENT_TIMEOUT_SQLSTATE) return "StatementTimeout";
  const sqlite = sqliteOutage(e);
  if (sqlite) return sqlite;
  // Node reports a refused connection to every address of a name as an AggregateError of them.
  if (Array.isArray(e.errors))
    for (const inner of e.errors) if (storeOutageReason(inner)) return storeOutageReason(inner);
  const message = typeof e.message === "string" ? e.message : "";
  // pg's own wording: a connection that died under a query, a pool that could not connect in time.
  if (/Connection terminated/i.test(message)) return "ConnectionTerminated";
  if (/timeout exceeded when trying to connect/i.test(message)) return "ConnectTimeout";
  if (code === "StoreCallTimeout" || code === "RequestDeadline") return code;
  if (/Client has encountered a connection error/i.test(message)) return "ConnectionError";
  // pg's client-side bound on a query (query_timeout): no answer in time, whatever the connection's state.
  if (/Query read timeout/i.test(message)) return "QueryTimeout";
  // Wrapped on its way up (a task's failed write): the outage underneath.
  const cause = (err as { cause?: unknown }).cause;
  return cause !== undefined && cause !== err ? storeOutageReason(cause) : undefined;
}

/** A store call failed because the store is out of reach; `reason` is storeOutageReason's code. */
export class TaskStoreUnavailableError extends Error {
  override name = "TaskStoreUnavailableError";
  readonly reason: string;
  constructor(reason: string, cause: unknown) {
    super(`the task store is unavailable (${reason}): ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.reason = reason;
  }
}

/**
 * A create whose statement was sent and whose outcome is not known: its caller's bound passed while it ran, or its
 * connection died under it. The task may exist; `clientRequestId` (the caller's, or one given to it before it was
 * sent) finds it, or creates it once, when the caller repeats the request with it.
 */
export class CreateOutcomeUnknownError extends TaskStoreUnavailableError {
  override name = "CreateOutcomeUnknownError";
  /** Undefined only when the caller gave none (the API always gives one). */
  readonly clientRequestId: string | undefined;
  constructor(reason: string, clientRequestId: string | undefined, cause: unknown) {
    super(reason, cause);
    this.clientRequestId = clientRequestId;
    this.message = `the create was sent and its outcome is not known (${reason}): the task may exist${clientRequestId !== undefined ? `, clientRequestId ${clientRequestId} finds it` : ""}`;
  }
}

/**
 * Outages that only a write can be seen to end: SQLite on a full disk, a read-only file, an I/O error reads on (its
 * pages are cached or its file readable) and refuses every write, so a read that succeeds says nothing of them.
 */
const WRITE_OUTAGES = new Set(["SQLITE_FULL", "SQLITE_READONLY", "SQLITE_IOERR"]);

/** A change of StoreHealth.down: the first call that met an outage, or the first that showed it over. */
export type StoreHealthChange =
  { state: "down"; reason: string; err: unknown } | { state: "up"; reason: string; downForMs: number };

/** What the last store calls said: an outage is noticed by the first call that meets it, not by the next probe. */
export class StoreHealth {
  /** Date.now() of the last call that met an outage, and of the last that succeeded. */
  lastOutageAtMs = 0;
  lastSuccessAtMs = 0;
  lastReason: string | undefined;
  /** Date.now() of the last call that met a write outage (WRITE_OUTAGES), and of the last write known to be written. */
  #writeOutageAtMs = 0;
  #lastWriteAtMs = 0;
  #downSinceMs = 0;
  #downReason = "";
  /** Told when `down` changes (once when an outage starts, once when it clears). */
  onChange: ((change: StoreHealthChange) => void) | undefined;

  outage(reason: string, err?: unknown): void {
    const was = this.down;
    this.lastOutageAtMs = Date.now();
    this.lastReason = reason;
    if (WRITE_OUTAGES.has(reason)) this.#writeOutageAtMs = this.lastOutageAtMs;
    if (!was) {
      this.#downSinceMs = this.lastOutageAtMs;
      this.#downReason = reason;
      this.onChange?.({ state: "down", reason, err });
    }
  }

  /** A call succeeded; `wrote`: it wrote to the store (what ends a write outage). */
  success(wrote = false): void {
    const was = this.down;
    this.lastSuccessAtMs = Date.now();
    if (wrote) this.#lastWriteAtMs = this.lastSuccessAtMs;
    if (was && !this.down)
      this.onChange?.({ state: "up", reason: this.#downReason, downForMs: this.lastSuccessAtMs - this.#downSinceMs });
  }

  /** A write outage met, and no write has succeeded since: what readiness must see a write to clear. */
  get writeDown(): boolean {
    return this.#writeOutageAtMs > 0 && this.#writeOutageAtMs >= this.#lastWriteAtMs;
  }

  /** An outage met, and no call has succeeded since; or a write outage met, and no write has succeeded since. */
  get down(): boolean {
    return (this.lastOutageAtMs > 0 && this.lastOutageAtMs >= this.lastSuccessAtMs) || this.writeDown;
  }
}

/**
 * Calls the stores answer without asking the database (nothing to renew, nothing to look up): the runner makes them
 * every claim interval, and their success says nothing of the store's.
 */
function answeredAlone(method: PropertyKey, args: unknown[]): boolean {
  if (method === "renew") return Array.isArray(args[1]) && args[1].length === 0;
  if (method === "cancelRequested") return Array.isArray(args[0]) && args[0].length === 0;
  return false;
}

/**
 * Whether a call that succeeded wrote to the store: the calls that write at least a row when they answer so (a
 * create that created, a fenced write that passed its fence) and the write probe. Claims, renewals and releases are
 * not counted: with nothing to claim or renew they succeed having written nothing, so they prove no write possible.
 */
function wrote(method: PropertyKey, value: unknown): boolean {
  switch (method) {
    case "create":
      return (value as { created?: unknown } | undefined)?.created === true;
    case "update":
    case "appendHistory":
    case "requeueRetryable":
      return value === true;
    case "recordAudit":
    case "shareWriteDurations":
    case "probeWrite":
      return true;
    default:
      return false;
  }
}

/** A store call that did not settle within its bound (watchStoreOutages' callTimeoutMs). */
export class StoreCallTimeoutError extends Error {
  override name = "StoreCallTimeoutError";
  readonly code = "StoreCallTimeout";
  constructor(method: string, timeoutMs: number) {
    super(`${method} did not answer within ${timeoutMs} ms`);
  }
}

/**
 * A store call cut by its request's deadline (request-deadline.ts): not sent, because the deadline had passed before it
 * could start (`sent` false: nothing was done), or not answered within the time the request had left.
 */
export class RequestDeadlineError extends Error {
  override name = "RequestDeadlineError";
  readonly code = "RequestDeadline";
  readonly sent: boolean;
  /** How long the call waited before it was cut. */
  readonly waitedMs: number;
  constructor(method: string, sent: boolean, waitedMs: number) {
    super(
      sent
        ? `${method} did not answer within its request's deadline (${Math.round(waitedMs)} ms)`
        : `${method} was not sent: its request's deadline had passed${waitedMs > 0 ? ` after ${Math.round(waitedMs)} ms of waiting` : ""}`,
    );
    this.sent = sent;
    this.waitedMs = waitedMs;
  }
}

/** Calls not bounded: a subscription that lives as long as the store, and the close that drains it. */
const UNBOUNDED_CALLS = new Set<PropertyKey>(["watch", "close"]);

/**
 * Calls only the runner makes, for tasks that outlive the request that created them: never bounded by a request's
 * deadline, whichever async context they are made in (a claim woken by a submission runs in the submission's).
 */
const RUNNER_CALLS = new Set<PropertyKey>([
  "claim",
  "renew",
  "release",
  "appendHistory",
  "update",
  "cancelRequested",
  "prune",
  "pruneAudit",
]);

export interface StoreCallBounds {
  /** Each call (but watch and close) fails as an outage once it has not settled within this long (0: unbounded). */
  callTimeoutMs?: number;
}

/**
 * The store, with every call watched: a call that meets an outage, or does not answer within callTimeoutMs, tells
 * `health` and throws a TaskStoreUnavailableError (what the HTTP layer answers 503 for); one that succeeds tells
 * `health` the store is back. A slow store is then told from a dead one by nobody: both are an outage, answered at once.
 *
 * On a store whose calls wait for a server (boundedByRequestDeadlines), a call made for a request (request-deadline.ts)
 * is bounded by min(callTimeoutMs, the request's time left), and one that cannot start before the request's deadline
 * is not made at all. A call cut by the deadline tells `health` only
 * when it had waited half a call's bound: one cut because its request had little time left says nothing of the store.
 * A store that answers each create by its deadline itself (answersCreatesByDeadline: it knows whether the create was
 * sent) is left to.
 */
export function watchStoreOutages(store: TaskStore, health: StoreHealth, bounds: StoreCallBounds = {}): TaskStore {
  const callTimeoutMs = bounds.callTimeoutMs ?? 0;
  const outageAfterMs = callTimeoutMs > 0 ? callTimeoutMs / 2 : 1000;
  const failed = (err: unknown): never => {
    const reason = storeOutageReason(err);
    if (reason === undefined) throw err;
    const cause = err instanceof TaskStoreUnavailableError ? err.cause : err;
    if (!(cause instanceof RequestDeadlineError) || cause.waitedMs >= outageAfterMs) health.outage(reason, err);
    throw err instanceof TaskStoreUnavailableError ? err : new TaskStoreUnavailableError(reason, err);
  };
  // A call's bound is a StoreCallTimeoutError once timeoutMs has passed without it settling (a RequestDeadlineError
  // when the bound was the request's time left). The call itself goes on: a statement sent cannot be taken back, and
  // the store's own bounds (the statement timeout, pg's query_timeout) end it and free its connection.
  const inFlight = new CallBounds();
  const bounded = <T>(promise: Promise<T>, method: string, timeoutMs: number, byDeadline: boolean): Promise<T> => {
    const started = performance.now();
    return inFlight.bound(promise, started + timeoutMs, () =>
      byDeadline
        ? new RequestDeadlineError(method, true, performance.now() - started)
        : new StoreCallTimeoutError(method, timeoutMs),
    );
  };
  const selfBounded = new Set<PropertyKey>(store.answersCreatesByDeadline === true ? ["create"] : []);
  const requestBounded = store.boundedByRequestDeadlines === true;
  const watched = new Map<
    PropertyKey,
    { method: (...a: unknown[]) => unknown; watching: (...a: unknown[]) => unknown }
  >();
  return new Proxy(store, {
    get(target, property) {
      // Read from the store itself (not through the proxy): a getter may use its private fields.
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== "function") return value;
      const known = watched.get(property);
      if (known !== undefined && known.method === value) return known.watching;
      const method = value as (...a: unknown[]) => unknown;
      // Made once per method, not per call: the store is called on every request (a poll reads a revision).
      const succeeded = <T>(v: T): T => {
        health.success(wrote(property, v));
        return v;
      };
      const runnerCall = RUNNER_CALLS.has(property);
      const watching = (...args: unknown[]) => {
        const deadlineAtMs =
          !requestBounded || runnerCall || UNBOUNDED_CALLS.has(property) ? undefined : requestDeadlineAtMs();
        const leftMs = deadlineAtMs === undefined ? Infinity : deadlineAtMs - performance.now();
        // Nothing sent: the request is answered 503 "nothing was done" at once.
        if (leftMs <= 0) return Promise.reject(new RequestDeadlineError(String(property), false, 0)).catch(failed);
        // Bound to the store itself: its private fields are not the proxy's.
        const result = runnerCall
          ? withoutRequestDeadline(() => method.apply(target, args))
          : method.apply(target, args);
        if (!(result instanceof Promise) || answeredAlone(property, args)) return result;
        const boundMs = Math.min(callTimeoutMs > 0 ? callTimeoutMs : Infinity, leftMs);
        const settled =
          boundMs < Infinity && !UNBOUNDED_CALLS.has(property) && !selfBounded.has(property)
            ? bounded(result, String(property), boundMs, boundMs < callTimeoutMs || callTimeoutMs <= 0)
            : result;
        return settled.then(succeeded, failed);
      };
      watched.set(property, { method, watching });
      return watching;
    },
  });
}
