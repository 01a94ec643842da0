// Leases on PostgreSQL, on the database's clock: renewing the ones a replica still holds, and giving one back.
// Both are safe to run twice, so a statement whose connection died is sent again (PgConnection.query).
import type { PgConnection } from "./connection.ts";
import { fenceSql, NOW_MS, type PgTables } from "./tables.ts";

/** Extends the leases `owner` still holds (not expired) among `ids`; returns those ids, in the order asked. */
export async function renew(
  db: PgConnection,
  t: PgTables,
  owner: string,
  ids: string[],
  leaseMs: number,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<{ id: string }>(
    `UPDATE ${t.tasks} SET lease_expires_at_ms = ${NOW_MS} + $3::bigint
     WHERE id = ANY($2::text[]) AND ${fenceSql("$1")}
     RETURNING id`,
    [owner, ids, Math.round(leaseMs)],
    true,
  );
  const held = new Set(rows.map((r) => r.id));
  return ids.filter((id) => held.has(id));
}

/** Clears a lease `owner` holds; the task stays as it is, and another replica may claim it at once. */
export async function release(db: PgConnection, t: PgTables, owner: string, id: string): Promise<void> {
  await db.query(
    `UPDATE ${t.tasks} SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = $1 AND ${fenceSql("$2")}`,
    [id, owner],
    true,
  );
}
