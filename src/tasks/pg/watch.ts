// Wake-ups on PostgreSQL: creating a task NOTIFYs the schema's channel at commit, a task's end right after its
// commit (EndNotifier); watch LISTENs.
import pg from "pg";
import type { PgConnection } from "./connection.ts";
import { type PgTables, quoteIdent } from "./tables.ts";

/**
 * A connection of its own, outside the pool: LISTEN lasts as long as the session. If it drops, the runner's timer
 * still finds the work; the next watch() (a restart) listens again. Returns the unsubscribe.
 */
export async function watch(connectionString: string, t: PgTables, onWork: () => void): Promise<() => Promise<void>> {
  const client = new pg.Client({ connectionString, application_name: "vmss-ops-listen", keepAlive: true });
  client.on("error", () => {});
  client.on("notification", () => onWork());
  await client.connect();
  await client.query(`LISTEN ${quoteIdent(t.channel)}`);
  return async () => {
    await client.end().catch(() => {});
  };
}

/**
 * The NOTIFY of the tasks that ended, sent after their commits in a statement of its own, one in flight at a time:
 * the ends asked for while one is sent share the next. A transaction that NOTIFYs holds a lock of the whole database
 * from its NOTIFY to the end of its commit, flush to disk included, so that transactions that NOTIFY commit one at a
 * time, never together. With the NOTIFY inside each end, the 32 tasks a replica runs ending together queued their
 * commits one flush each, and a burst's creates (which NOTIFY in their own statement) waited behind them:
 * bench/burst-ab.ts found the creates' statements waiting on that lock and the ends queued for it, p99 of a
 * submission 150-200 ms at load 5-7. Now the ends commit together, and one NOTIFY stands for all of them.
 *
 * The NOTIFY comes after the end committed, so whoever it wakes sees the end and its wake-ups. If it is never sent
 * (the replica stopped, the database is unreachable), the ends' wake-ups are in task_wakes all the same and the
 * replicas' claim timer finds them: a lost NOTIFY costs time, never a task.
 */
/**
 * The NOTIFY, in a transaction that does not wait for its commit to reach the disk (synchronous_commit off for this
 * transaction alone): it writes nothing that must last (a notification is never kept across a restart), and it would
 * hold the database's NOTIFY lock through a flush, which every other NOTIFY (the creates') then waits for.
 */
const NOTIFY_SQL = "SELECT set_config('synchronous_commit', 'off', true), pg_notify($1, '')";

export class EndNotifier {
  readonly #db: PgConnection;
  readonly #channel: string;
  /** An end asked for a NOTIFY that no statement sent yet has covered. */
  #wanted = false;
  #sending: Promise<void> | undefined;

  constructor(db: PgConnection, t: PgTables) {
    this.#db = db;
    this.#channel = t.channel;
  }

  /** A task's end has committed: NOTIFY the replicas, with the ends asked for meanwhile. */
  ended(): void {
    this.#wanted = true;
    this.#sending ??= this.#send();
  }

  async #send(): Promise<void> {
    while (this.#wanted) {
      this.#wanted = false;
      await this.#db.query(NOTIFY_SQL, [this.#channel], true).catch(() => {});
    }
    this.#sending = undefined;
  }

  /** Waits until every end asked for so far was notified (or failed to be). */
  async drain(): Promise<void> {
    while (this.#sending !== undefined) await this.#sending;
  }
}
