// Can tasks.db be written? SQLite on a full disk (or a read-only mount, a failing device) goes on answering reads and
// refuses writes, and a write that changes nothing is no test of it (SQLite writes no page for an UPDATE that leaves
// every value as it was, and a BEGIN IMMEDIATE ... ROLLBACK only takes the write lock): measured on a full tmpfs, both
// succeed where any insert fails with SQLITE_FULL. So the probe changes bytes: the file header's user_version, which
// the task store uses for nothing else, counts the probes (mod 2^31). Committed, it is a WAL frame to append, as a
// task's write is.
import type { SqliteDb } from "./db.ts";

export function probeWrite(db: SqliteDb): void {
  const current = Number((db.stmt("PRAGMA user_version").get() as { user_version: number }).user_version);
  // PRAGMA takes no bound parameter: the value is an integer made here.
  db.exec(`PRAGMA user_version = ${(current + 1) % 2 ** 31}`);
}
