// The ARM budget's levels in PostgreSQL: one bucket row per subscription policy (and per scale set), shared by every
// replica, on the database's clock. The table and the take function come with the task store's migrations
// (src/tasks/migrations.ts, versions 6, 8 and 11). Each method is one statement on a small pool of its own; a take
// serves every call of a replica's waiting line at once, gives back the unspent tokens of the replica's slices that
// ended, and leases it new ones (budget.ts).
import pg from "pg";
import type { BucketFigures } from "./figures.ts";
import type { BudgetLedger, CallAnswer, LeaseRequest, TakeRequest, TakeResult } from "./ledger.ts";

const NOW_MS = "floor(extract(epoch from clock_timestamp()) * 1000)::bigint";

/** Every this many calls taken, buckets untouched for two hours are deleted. */
const SWEEP_EVERY = 1000;

/**
 * The parameters of arm_budget_take_lease (migration 11): each bucket once (its key, burst and refill, Azure's count
 * to lower it to or -1, the tokens given back, the tokens wanted and the floor they are leased above), the share, then
 * every call's buckets as an index into those with its need, and where each call's buckets end.
 */
export function takeLeaseParams(calls: TakeRequest[][], lease: LeaseRequest): unknown[] {
  const slotOf = new Map<string, number>();
  const names: string[] = [];
  const bursts: number[] = [];
  const refills: number[] = [];
  const caps: number[] = [];
  const gives: number[] = [];
  const wants: number[] = [];
  const floors: number[] = [];
  const slotFor = (key: string, figures: BucketFigures): number => {
    let slot = slotOf.get(key);
    if (slot === undefined) {
      slotOf.set(key, (slot = names.length + 1));
      names.push(key);
      bursts.push(figures.burst);
      refills.push(figures.refillPerMinute);
      caps.push(-1);
      gives.push(0);
      wants.push(0);
      floors.push(0);
    }
    return slot;
  };
  const slots: number[] = [];
  const needs: number[] = [];
  const ends: number[] = [];
  for (const requests of calls) {
    for (const r of requests) {
      slots.push(slotFor(r.key, r.figures));
      needs.push(r.need);
    }
    ends.push(slots.length);
  }
  for (const c of lease.caps) {
    const slot = slotFor(c.key, c.figures) - 1;
    caps[slot] = caps[slot] < 0 ? c.tokens : Math.min(caps[slot], c.tokens);
  }
  for (const g of lease.gives) gives[slotFor(g.key, g.figures) - 1] += g.tokens;
  for (const w of lease.wants) {
    const slot = slotFor(w.key, w.figures) - 1;
    wants[slot] = w.tokens;
    floors[slot] = w.floor;
  }
  return [names, bursts, refills, caps, gives, wants, floors, lease.share, slots, needs, ends];
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
  readonly #takeLease: string;

  constructor(options: PostgresLedgerOptions) {
    const schema = quoteIdent(options.schema ?? "public");
    // Bounded as the task store is: the budget must never hold ARM calls hostage to the ledger. A connection that hangs
    // (a half-open socket after a network cut) fails its query at the client's bound, a statement that waits in the
    // database at the server's; the waiting line then sends the calls without the budget, and says so (budget.ts).
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
    this.#takeLease = `${schema}.arm_budget_take_lease`;
  }

  #takes = 0;
  #statements = 0;

  /** Statements sent since start: takes, corrections, drains and sweeps (each one round trip). */
  get statements(): number {
    return this.#statements;
  }

  readonly shared = true;

  /** `name`: a prepared statement's, for the take a replica sends many times a second (parsed once a connection). */
  #query<R extends pg.QueryResultRow>(text: string, values?: unknown[], name?: string): Promise<pg.QueryResult<R>> {
    this.#statements++;
    return this.#pool.query<R>(name === undefined ? { text, values } : { name, text, values });
  }

  async takeInOrder(calls: TakeRequest[][]): Promise<CallAnswer[]> {
    return (await this.takeAndLease(calls, { caps: [], gives: [], wants: [], share: 0 })).answers;
  }

  async takeAndLease(calls: TakeRequest[][], lease: LeaseRequest): Promise<TakeResult> {
    // A row per operation polled and per VM read: rows untouched for two hours are full again (the slowest of Azure's
    // buckets, ARM's writes, refills in one) and are deleted, now and then, by whichever replica comes by.
    const before = this.#takes;
    this.#takes += calls.length;
    if (Math.floor(this.#takes / SWEEP_EVERY) > Math.floor(before / SWEEP_EVERY)) {
      await this.#query(
        `DELETE FROM ${this.#table} WHERE at_ms < ${NOW_MS} - 7200000 AND blocked_until_ms < ${NOW_MS}`,
      ).catch(() => {});
    }
    const { rows } = await this.#query<{
      n: number;
      granted: boolean;
      wait_ms: string | null;
      empty_key: string | null;
      leased: number | null;
    }>(
      `SELECT * FROM ${this.#takeLease}($1::text[], $2::float8[], $3::float8[], $4::float8[], $5::float8[], $6::float8[], $7::float8[], $8::float8, $9::int[], $10::float8[], $11::int[])`,
      takeLeaseParams(calls, lease),
      "vmss_ops_budget_take_lease",
    );
    const answers: CallAnswer[] = calls.map(() => "held");
    const leased = new Map<string, number>();
    for (const row of rows) {
      if (row.n === 0) {
        if (row.empty_key !== null && row.leased !== null) leased.set(row.empty_key, Number(row.leased));
        continue;
      }
      answers[row.n - 1] =
        row.wait_ms === null
          ? "held"
          : {
              granted: row.granted,
              waitMs: Number(row.wait_ms),
              ...(row.empty_key ? { emptyKey: row.empty_key } : {}),
            };
    }
    return { answers, leased };
  }

  async correct(key: string, figures: BucketFigures, remaining: number): Promise<void> {
    // Lowered only: Azure's count is the truth at its answer, and calls of ours it has not counted yet are in flight.
    await this.#query(
      `INSERT INTO ${this.#table} AS a (key, tokens, at_ms) VALUES ($1, $2, ${NOW_MS})
       ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at_ms = excluded.at_ms
       WHERE least($3::float8, a.tokens + greatest(0, excluded.at_ms - a.at_ms) * $4::float8 / 60000.0) > excluded.tokens`,
      [key, remaining, figures.burst, figures.refillPerMinute],
    );
  }

  async drain(key: string, _figures: BucketFigures, blockMs: number): Promise<void> {
    await this.#query(
      `INSERT INTO ${this.#table} (key, tokens, at_ms, blocked_until_ms) VALUES ($1, 1, ${NOW_MS} + $2::bigint, ${NOW_MS} + $2::bigint)
       ON CONFLICT (key) DO UPDATE SET tokens = 1, at_ms = excluded.at_ms, blocked_until_ms = excluded.blocked_until_ms`,
      [key, Math.round(blockMs)],
    );
  }

  async close(): Promise<void> {
    if (!this.#pool.ended) await this.#pool.end();
  }
}
