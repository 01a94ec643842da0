// The pool a PostgreSQL task store sends its statements through: one statement at a time, sent again on another
// connection when it is safe to run twice and its connection died; or a transaction on a connection of its own.
import pg from "pg";
import { TaskStoreOpenError } from "../migrations.ts";
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

export class PgConnection {
  readonly #pool: pg.Pool;
  readonly #poolMax: number;
  /** For connections outside the pool (LISTEN). */
  readonly connectionString: string;

  private constructor(pool: pg.Pool, poolMax: number, connectionString: string) {
    this.#pool = pool;
    this.#poolMax = poolMax;
    this.connectionString = connectionString;
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
    return new PgConnection(pool, poolMax, options.connectionString);
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
  ): Promise<pg.QueryResult<R>> {
    for (let attempt = 1; ; attempt++) {
      try {
        // Named: prepared once per connection, so the server parses and plans it once, not at every call.
        return await (name === undefined
          ? this.#pool.query<R>(sql, params)
          : this.#pool.query<R>({ name, text: sql, values: params }));
      } catch (err) {
        if (!idempotent || !connectionLost(err) || attempt > this.#poolMax) throw err;
      }
    }
  }

  /** Runs work in one transaction on a connection of its own; a connection that broke is not given back. */
  async inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
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
      client.release(broken);
    }
  }

  async end(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}
