// Brings tasks.db up to the code's version (src/tasks/migrations.ts). Processes that open a new file together
// migrate once: the run holds SQLite's write lock (BEGIN IMMEDIATE), and reads the version again under it.
import type { DatabaseSync } from "node:sqlite";
import { type Migration, pendingMigrations, SQLITE_MIGRATIONS, TaskStoreOpenError } from "../migrations.ts";

/** Reads what the file holds (no writes): throws if it is not a task store, or one newer than this code. */
export function inspect(db: DatabaseSync, path: string): Migration[] {
  const tables = (
    db.prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all() as {
      name: string;
    }[]
  ).map((r) => r.name);
  if (tables.length > 0 && !tables.includes("schema_migrations")) {
    throw new TaskStoreOpenError(
      `${path} is a SQLite database but not a vmss-ops task store (it has tables ${tables.join(", ")} and no schema_migrations); it was left as it is`,
    );
  }
  const current =
    tables.length === 0
      ? 0
      : Number((db.prepare("SELECT coalesce(max(version), 0) AS v FROM schema_migrations").get() as { v: number }).v);
  return pendingMigrations(SQLITE_MIGRATIONS, current, path);
}

export function migrate(db: DatabaseSync, path: string): void {
  db.exec("BEGIN IMMEDIATE");
  try {
    // Again under the write lock: another process may have migrated since the first inspect.
    const pending = inspect(db, path);
    if (pending.length > 0) {
      db.exec(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)",
      );
    }
    for (const m of pending) {
      db.exec(m.sql);
      db.prepare("INSERT INTO schema_migrations (version, description, applied_at_ms) VALUES (?, ?, ?)").run(
        m.version,
        m.description,
        Date.now(),
      );
    }
    db.exec("COMMIT");
  } catch (err) {
    db.exec("ROLLBACK");
    throw err;
  }
}
