// The backlog on SQLite: tasks waiting for a runner (queued, no lease), counted, with the oldest's creation time.
import type { Backlog } from "../task-store.ts";
import type { SqliteDb } from "./db.ts";

export function backlog(db: SqliteDb): Backlog {
  const row = db
    .stmt(
      "SELECT count(*) AS n, min(created_at_ms) AS oldest FROM tasks WHERE state = 'queued' AND lease_owner IS NULL",
    )
    .get() as {
    n: number | bigint;
    oldest: number | bigint | null;
  };
  return row.oldest === null
    ? { queued: Number(row.n) }
    : {
        queued: Number(row.n),
        oldestQueuedAtMs: Number(row.oldest),
        oldestQueuedForMs: Math.max(0, Date.now() - Number(row.oldest)),
      };
}
