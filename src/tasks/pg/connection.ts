// The pool a PostgreSQL task store sends its statements through: one statement at a time, sent again on another
// connection when it is safe to run twice and its connection died; or a transaction on a connection of its own.
import pg from "pg";
import { TaskStoreOpenError } from "../migrations.ts";
import { requestDeadlineAtMs } from "../request-deadline.ts";
import { RequestDeadlineError } from "../store-outage.ts";
import type { Row } from "./tables.ts";

export interface PgPoolOptions {
  /** postgres://user:password@host:port/database (DATABASE_URL). */
  connectionString: string;
  /** Pool size (default 10). */
  poolMax?: number;
  /** How long to wait for a connection (default 10000 ms). */
  connectionTimeoutMs?: number;
  /**
   * The client's bound on one statement (pg's query_timeout; default none): past it the call fails and its connection
   * is dropped from the pool, so a link that went silent does not keep it forever.
   */
  queryTimeoutMs?: number;
  /** The server's bound on one statement (statement_timeout; default none). Not for the migrations at open. */
  statementTimeoutMs?: number;
  /** Errors of idle pooled connections (the server restarted, the network dropped): logged, never thrown. */
  onPoolError?: (err: Error) => void;
}

/** The connection string without its password, for messages. */
export function redactConnectionString(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(DATABASE_URL, unparseable)";
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The connection died under the query (the server restarted or dropped it; the network failed). */
export function connectionLost(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (
    typeof code === "string" &&
    (/^08/.test(code) || ["57P01", "57P02", "57P03", "ECONNRESET", "EPIPE"].includes(code))
  )
    return true;
  return /Connection terminated/i.test(message(err));
}

/**
 * A pooled connection while it is out of the pool: its errors (the server or the link dropped it) are caught, as pg's
 * pool.query catches them, and it goes back (or is dropped, with an error) once, on the first release or error.
 */
function checkedOut(client: pg.PoolClient): { client: pg.PoolClient; release: (err?: Error) => void } {
  let released = false;
  const release = (err?: Error) => {
    if (released) return;
    released = true;
    client.removeListener("error", release);
    client.release(err);
  };
  client.on("error", release);
  return { client, release };
}

/** What bounds one statement beside the pool's own bounds. */
export interface SendOptions {
  /** performance.now() past which the statement is not sent, nor waited for (default: its request's, if any). */
  deadlineAtMs?: number;
  /**
   * Asked once a connection is in hand, just before the statement goes: false, and it does not go (a batch whose every
   * part was dropped meanwhile). It may change `params` in place (what is still to be sent).
   */
  beforeSend?: () => boolean;
}

export class PgConnection {
  readonly #pool: pg.Pool;
  readonly #poolMax: number;
  /** pg's query_timeout for every statement (PgPoolOptions.queryTimeoutMs); Infinity: none. */
  readonly #queryTimeoutMs: number;
  /** For connections outside the pool (LISTEN). */
  readonly connectionString: string;
  /** The name of each statement text that named() was asked for: one name a text on every connection. */
  readonly #names = new Map<string, string>();

  private constructor(pool: pg.Pool, poolMax: number, connectionString: string, queryTimeoutMs: number | undefined) {
    this.#pool = pool;
    this.#poolMax = poolMax;
    this.connectionString = connectionString;
    this.#queryTimeoutMs = queryTimeoutMs ? queryTimeoutMs : Infinity;
  }

  /**
   * Connects and runs `prepare` (the migrations) on one connection. Fails with a TaskStoreOpenError naming `where`
   * (password redacted) when it cannot connect or prepare; the pool is closed then.
   */
  static async open(
    options: PgPoolOptions,
    where: string,
    prepare: (client: pg.ClientBase) => Promise<void>,
  ): Promise<PgConnection> {
    const poolMax = options.poolMax ?? 10;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: poolMax,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
      application_name: "vmss-ops",
      keepAlive: true,
      ...(options.queryTimeoutMs ? { query_timeout: options.queryTimeoutMs } : {}),
      ...(options.statementTimeoutMs ? { statement_timeout: options.statementTimeoutMs } : {}),
    });
    const onPoolError =
      options.onPoolError ??
      ((err: Error) =>
        process.stderr.write(`vmss-ops task store: idle PostgreSQL connection failed: ${err.message}\n`));
    pool.on("error", (err) => onPoolError(err));
    try {
      // The migrations on a connection of their own, without the statement bounds: a migration of a large table
      // may take longer than any request should.
      const client = new pg.Client({
        connectionString: options.connectionString,
        connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
        application_name: "vmss-ops",
      });
      try {
        await client.connect();
      } catch (err) {
        await client.end().catch(() => {});
        throw new TaskStoreOpenError(
          `cannot connect to the task store database (${redactConnectionString(options.connectionString)}): ${message(err)}`,
        );
      }
      try {
        await prepare(client);
      } finally {
        await client.end().catch(() => {});
      }
    } catch (err) {
      await pool.end().catch(() => {});
      if (err instanceof TaskStoreOpenError) throw err;
      throw new TaskStoreOpenError(`cannot prepare the task store in ${where}: ${message(err)}`);
    }
    return new PgConnection(pool, poolMax, options.connectionString, options.queryTimeoutMs);
  }

  /**
   * A prepared statement's name for `sql`, the same for the same text: for a statement a task sends several times
   * (its updates, the reads of it), which PostgreSQL then parses once per connection and, after a few runs, plans
   * once (a generic plan, where the plans it would make for each call's values cost no less). A text built from a
   * change's shape (journal.ts) gets a name per shape: a few dozen at most.
   */
  named(sql: string): string {
    let name = this.#names.get(sql);
    if (name === undefined) {
      name = `vmss_ops_${this.#names.size + 1}`;
      this.#names.set(sql, name);
    }
    return name;
  }

  /**
   * One statement. `idempotent`: running it twice does no harm (reads, renew, release, prune), so when its
   * connection turns out dead it is sent again on another one; after a server restart every idle pooled connection
   * is dead and each failure removes one, hence up to poolMax + 1 tries. Anything else fails and the caller decides
   * (the outcome of a write whose connection died is unknown). `name`: a prepared statement's, for a statement sent
   * often whose planning costs more than its rows.
   */
  async query<R extends pg.QueryResultRow = Row>(
    sql: string,
    params: unknown[],
    idempotent: boolean,
    name?: string,
    options: SendOptions = {},
  ): Promise<pg.QueryResult<R>> {
    // The request's deadline, if a request made the call (request-deadline.ts).
    const deadlineAtMs = options.deadlineAtMs ?? requestDeadlineAtMs();
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#send<R>(sql, params, name, deadlineAtMs, options.beforeSend);
      } catch (err) {
        if (!idempotent || !connectionLost(err) || attempt > this.#poolMax) throw err;
      }
    }
  }

  /**
   * One statement, sent once: a pooled connection is waited for until `deadlineAtMs` at most, then beforeSend is
   * asked, and the statement goes with a client-side bound of min(query_timeout, the time left). Not sent (the
   * deadline passed first, or beforeSend said no): a RequestDeadlineError with `sent` false, nothing done.
   */
  async #send<R extends pg.QueryResultRow>(
    sql: string,
    params: unknown[],
    name: string | undefined,
    deadlineAtMs: number | undefined,
    beforeSend: (() => boolean) | undefined,
  ): Promise<pg.QueryResult<R>> {
    const started = performance.now();
    const { client, release } = checkedOut(await this.#connect(deadlineAtMs));
    const leftMs = deadlineAtMs === undefined ? Infinity : deadlineAtMs - performance.now();
    if (leftMs <= 0 || (beforeSend !== undefined && !beforeSend())) {
      release();
      throw new RequestDeadlineError("statement", false, performance.now() - started);
    }
    const timeoutMs = Math.min(this.#queryTimeoutMs, leftMs);
    try {
      // Named: prepared once per connection, so the server parses and plans it once, not at every call.
      const result = await client.query<R>({
        text: sql,
        values: params,
        ...(name !== undefined ? { name } : {}),
        ...(timeoutMs < Infinity ? { query_timeout: Math.max(1, Math.ceil(timeoutMs)) } : {}),
      } as pg.QueryConfig);
      release();
      return result;
    } catch (err) {
      // As pg's pool.query: a connection whose statement failed is not given back (its state is not known).
      release(err as Error);
      if (timeoutMs < this.#queryTimeoutMs && /Query read timeout/i.test(message(err)))
        throw new RequestDeadlineError("statement", true, performance.now() - started);
      throw err;
    }
  }

  /**
   * A pooled connection, waited for until `deadlineAtMs` at most (besides the pool's own connect timeout). One that
   * comes after the deadline is given back at once.
   */
  async #connect(deadlineAtMs: number | undefined): Promise<pg.PoolClient> {
    if (deadlineAtMs === undefined) return this.#pool.connect();
    const started = performance.now();
    const leftMs = deadlineAtMs - started;
    if (leftMs <= 0) throw new RequestDeadlineError("statement", false, 0);
    const connecting = this.#pool.connect();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<"late">((resolve) => (timer = setTimeout(() => resolve("late"), leftMs)));
    const first = await Promise.race([connecting, late]).finally(() => clearTimeout(timer));
    if (first !== "late") return first;
    connecting.then(
      (c) => c.release(),
      () => {},
    );
    throw new RequestDeadlineError("statement", false, performance.now() - started);
  }

  /** Runs work in one transaction on a connection of its own; a connection that broke is not given back. */
  async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const { client, release } = checkedOut(await this.#connect(requestDeadlineAtMs()));
    let broken = false;
    try {
      await client.query("BEGIN");
      try {
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (err) {
        broken = connectionLost(err);
        await client.query("ROLLBACK").catch(() => (broken = true));
        throw err;
      }
    } finally {
      release(broken ? new Error("the connection broke") : undefined);
    }
  }

  async end(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}
