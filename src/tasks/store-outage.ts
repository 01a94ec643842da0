// The task store out of reach: the one rule that tells an outage (PostgreSQL stopped, restarting, the network cut)
// from anything else, the error that carries it, and the watch every store call goes through, so an outage is
// known at once (readiness) and answered as one (503 with Retry-After, never "internal error").
import type { TaskStore } from "./task-store.ts";

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
 * Why the store is out of reach, as a stable code (a socket error code, a SQLSTATE, or one of ours), or undefined
 * when `err` is not an outage (a bug, bad data: those stay 500s and are logged as such). SQLite and memory stores
 * live in this process: they have no outage of this kind.
 */
export function storeOutageReason(err: unknown): string | undefined {
  if (err instanceof TaskStoreUnavailableError) return err.reason;
  const e = err as { code?: unknown; message?: unknown; errors?: unknown } | null;
  if (!e || typeof e !== "object") return undefined;
  const code = typeof e.code === "string" ? e.code : undefined;
  if (code && (NETWORK_CODES.has(code) || isUnavailableSqlState(code))) return code;
  // Node reports a refused connection to every address of a name as an AggregateError of them.
  if (Array.isArray(e.errors))
    for (const inner of e.errors) if (storeOutageReason(inner)) return storeOutageReason(inner);
  const message = typeof e.message === "string" ? e.message : "";
  // pg's own wording: a connection that died under a query, a pool that could not connect in time.
  if (/Connection terminated/i.test(message)) return "ConnectionTerminated";
  if (/timeout exceeded when trying to connect/i.test(message)) return "ConnectTimeout";
  if (/Client has encountered a connection error/i.test(message)) return "ConnectionError";
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

/** What the last store calls said: an outage is noticed by the first call that meets it, not by the next probe. */
export class StoreHealth {
  /** Date.now() of the last call that met an outage, and of the last that succeeded. */
  lastOutageAtMs = 0;
  lastSuccessAtMs = 0;
  lastReason: string | undefined;

  outage(reason: string): void {
    this.lastOutageAtMs = Date.now();
    this.lastReason = reason;
  }

  success(): void {
    this.lastSuccessAtMs = Date.now();
  }

  /** An outage met, and no call has succeeded since. */
  get down(): boolean {
    return this.lastOutageAtMs > 0 && this.lastOutageAtMs >= this.lastSuccessAtMs;
  }
}

/**
 * The store, with every call watched: a call that meets an outage tells `health` and throws a
 * TaskStoreUnavailableError (what the HTTP layer answers 503 for); one that succeeds tells `health` the store is back.
 */
export function watchStoreOutages(store: TaskStore, health: StoreHealth): TaskStore {
  // Made once, not per call: the store is called on every request (a poll reads a revision).
  const succeeded = <T>(v: T): T => {
    health.success();
    return v;
  };
  const failed = (err: unknown): never => {
    const reason = storeOutageReason(err);
    if (reason === undefined) throw err;
    health.outage(reason);
    throw err instanceof TaskStoreUnavailableError ? err : new TaskStoreUnavailableError(reason, err);
  };
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
      const watching = (...args: unknown[]) => {
        // Bound to the store itself: its private fields are not the proxy's.
        const result = method.apply(target, args);
        return result instanceof Promise ? result.then(succeeded, failed) : result;
      };
      watched.set(property, { method, watching });
      return watching;
    },
  });
}
