// The backlog on PostgreSQL: tasks waiting for a runner (queued, no lease), counted, with the oldest's creation time
// and its wait, both on the database's clock.
import type { Backlog } from "../task-store.ts";
import type { PgConnection } from "./connection.ts";
import { NOW_MS, type PgTables } from "./tables.ts";
import { WAITING_SQL } from "./read.ts";

export async function backlog(db: PgConnection, t: PgTables): Promise<Backlog> {
  const { rows } = await db.query<{ n: string; oldest: string | null; now: string }>(
    `SELECT count(*) AS n, min(created_at_ms) AS oldest, ${NOW_MS} AS now FROM ${t.tasks} t
     WHERE ${WAITING_SQL("t")}`,
    [],
    true,
  );
  return rows[0].oldest === null
    ? { queued: Number(rows[0].n) }
    : {
        queued: Number(rows[0].n),
        oldestQueuedAtMs: Number(rows[0].oldest),
        oldestQueuedForMs: Math.max(0, Number(rows[0].now) - Number(rows[0].oldest)),
      };
}
