// Leases on SQLite, on this host's clock: renewing the ones a process still holds, and giving one back.
import { FENCE, type SqliteDb } from "./db.ts";

/** Extends the leases `owner` still holds (not expired) among `ids`; returns those ids, in the order asked. */
export function renew(db: SqliteDb, owner: string, ids: string[], leaseMs: number): string[] {
  if (ids.length === 0) return [];
  return db.write(() => {
    const now = Date.now();
    const stmt = db.stmt(`UPDATE tasks SET lease_expires_at_ms = ? WHERE id = ? AND ${FENCE}`);
    return ids.filter((id) => Number(stmt.run(now + leaseMs, id, owner, now).changes) === 1);
  });
}

/** Clears a lease `owner` holds; the task stays as it is, and another process may claim it at once. */
export function release(db: SqliteDb, owner: string, id: string): void {
  db.stmt(`UPDATE tasks SET lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = ? AND ${FENCE}`).run(
    id,
    owner,
    Date.now(),
  );
}
