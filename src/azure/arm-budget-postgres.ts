// The ARM budget's levels in PostgreSQL: one bucket row per subscription policy (and per scale set), shared by every
// replica, on the database's clock. The table and the take function come with the task store's migrations
// (src/tasks/migrations.ts, versions 6 and 8). Each method is one statement on a small pool of its own; a take
// serves every call of a replica's waiting line at once.
import pg from "pg";
import type { BucketFigures, BudgetLedger, CallAnswer, TakeRequest } from "./arm-budget.ts";

const NOW_MS = "floor(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** Every this many calls taken, buckets untouched for two hours are deleted. */
const SWEEP_EVERY = 1000;

/**
 * The parameters of arm_budget_take_calls (migration 8): each bucket once (its key, burst and refill), then every
 * call's buckets as an index into those with its need, and where each call's buckets end.
 */
function takeCallsParams(calls: TakeRequest[][]): [string[], number[], number[], number[], number[], number[]] {
  const slotOf = new Map<string, number>();
  const names: string[] = [];
  const bursts: number[] = [];
  const refills: number[] = [];
  const slots: number[] = [];
  const needs: number[] = [];
  const ends: number[] = [];
  for (const requests of calls) {
    for (const r of requests) {
      let slot = slotOf.get(r.key);
      if (slot === undefined) {
        slotOf.set(r.key, (slot = names.length + 1));
        names.push(r.key);
        bursts.push(r.figures.burst);
        refills.push(r.figures.refillPerMinute);
      }
      slots.push(slot);
      needs.push(r.need);
    }
    ends.push(slots.length);
  }
  return [names, bursts, refills, slots, needs, ends];
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export interface PostgresLedgerOptions {
  connectionString: string;
  /** The task store's schema (default public): its migrations made the table. */
  schema?: string;
  /** Connections (default 4): a replica's waiting line sends one take at a time; corrections and drains go beside it. */
  poolMax?: number;
  /**
   * The client's bound: how long a connection or a statement may take, by this process's clock, before the calls go
   * without the budget (default 2000 ms; the service gives the task store's, TASK_STORE_CALL_TIMEOUT_MS). It ends a
   * statement whatever the link does: a black-holed connection answers nothing, not even an error.
   */
  timeoutMs?: number;
  /**
   * The server's bound (statement_timeout; default 2000 ms; the service gives the task store's,
   * TASK_STORE_STATEMENT_TIMEOUT_MS): a take that waits on a lock or a slow database is canceled there, and its
   * connection is free again at once.
   */
  statementTimeoutMs?: number;
}

export class PostgresLedger implements BudgetLedger {
  readonly #pool: pg.Pool;
  readonly #table: string;
  readonly #takeCalls: string;

  constructor(options: PostgresLedgerOptions) {
    const schema = quoteIdent(options.schema ?? "public");
    // Bounded as the task store is: the budget must never hold ARM calls hostage to the ledger. A connection that hangs
    // (a half-open socket after a network cut) fails its query at the client's bound, a statement that waits in the
    // database at the server's; the waiting line then sends the calls without the budget, and says so (arm-budget.ts).
    this.#pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolMax ?? 4,
      application_name: "vmss-ops-arm-budget",
      keepAlive: true,
      connectionTimeoutMillis: options.timeoutMs ?? 2000,
      query_timeout: options.timeoutMs ?? 2000,
      statement_timeout: options.statementTimeoutMs ?? 2000,
    });
    this.#pool.on("error", () => {});
    this.#table = `${schema}.arm_budget`;
    this.#takeCalls = `${schema}.arm_budget_take_calls`;
  }

  #takes = 0;

  async takeInOrder(calls: TakeRequest[][]): Promise<CallAnswer[]> {
    // A row per operation polled and per VM read: rows untouched for two hours are full again (the slowest of Azure's
    // buckets, ARM's writes, refills in one) and are deleted, now and then, by whichever replica comes by.
    const before = this.#takes;
    this.#takes += calls.length;
    if (Math.floor(this.#takes / SWEEP_EVERY) > Math.floor(before / SWEEP_EVERY)) {
      await this.#pool
        .query(`DELETE FROM ${this.#table} WHERE at_ms < ${NOW_MS} - 7200000 AND blocked_until_ms < ${NOW_MS}`)
        .catch(() => {});
    }
    const { rows } = await this.#pool.query<{
      n: number;
      granted: boolean;
      wait_ms: string | null;
      empty_key: string | null;
    }>(
      `SELECT * FROM ${this.#takeCalls}($1::text[], $2::float8[], $3::float8[], $4::int[], $5::float8[], $6::int[])`,
      takeCallsParams(calls),
    );
    const answers: CallAnswer[] = calls.map(() => "held");
    for (const row of rows) {
      answers[row.n - 1] =
        row.wait_ms === null
          ? "held"
          : {
              granted: row.granted,
              waitMs: Number(row.wait_ms),
              ...(row.empty_key ? { emptyKey: row.empty_key } : {}),
            };
    }
    return answers;
  }

  async correct(key: string, figures: BucketFigures, remaining: number): Promise<void> {
    // Lowered only: Azure's count is the truth at its answer, and calls of ours it has not counted yet are in flight.
    await this.#pool.query(
      `INSERT INTO ${this.#table} AS a (key, tokens, at_ms) VALUES ($1, $2, ${NOW_MS})
       ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at_ms = excluded.at_ms
       WHERE least($3::float8, a.tokens + greatest(0, excluded.at_ms - a.at_ms) * $4::float8 / 60000.0) > excluded.tokens`,
      [key, remaining, figures.burst, figures.refillPerMinute],
    );
  }

  async drain(key: string, _figures: BucketFigures, blockMs: number): Promise<void> {
    await this.#pool.query(
      `INSERT INTO ${this.#table} (key, tokens, at_ms, blocked_until_ms) VALUES ($1, 1, ${NOW_MS} + $2::bigint, ${NOW_MS} + $2::bigint)
       ON CONFLICT (key) DO UPDATE SET tokens = 1, at_ms = excluded.at_ms, blocked_until_ms = excluded.blocked_until_ms`,
      [key, Math.round(blockMs)],
    );
  }

  async close(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}
