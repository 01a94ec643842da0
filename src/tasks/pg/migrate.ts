// Brings a PostgreSQL schema up to the code's version (src/tasks/migrations.ts), creating it if missing. Replicas
// that start together migrate once: the whole run holds a transaction-scoped advisory lock of the schema, and DDL is
// transactional, so a failed migration leaves nothing behind.
import type pg from "pg";
import { POSTGRES_MIGRATIONS, pendingMigrations, TaskStoreOpenError } from "../migrations.ts";
import { quoteIdent } from "./tables.ts";

/** Lock class for pg_advisory_xact_lock(class, hashtext(schema)) while migrating: "vmss" in ASCII. */
const MIGRATION_LOCK_CLASS = 0x766d7373;

/** Fails with a TaskStoreOpenError when the schema is newer than the code, or holds a tasks table that is not ours. */
export async function migrate(client: pg.ClientBase, schema: string, where: string): Promise<void> {
  await client.query("BEGIN");
  try {
    // Held until COMMIT/ROLLBACK: a second replica waits here, then finds the schema migrated.
    await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]);
    const exists = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
    await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
    const found = await client.query<{ migrations: string | null; tasks: string | null }>(
      "SELECT to_regclass($1)::text AS migrations, to_regclass($2)::text AS tasks",
      [`${quoteIdent(schema)}.schema_migrations`, `${quoteIdent(schema)}.tasks`],
    );
    if (found.rows[0].tasks && !found.rows[0].migrations) {
      throw new TaskStoreOpenError(
        `${where} has a tasks table but no schema_migrations: it is not a vmss-ops task store; it was left as it is`,
      );
    }
    await client.query(
      "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
    );
    const current = (
      await client.query<{ v: number }>("SELECT coalesce(max(version), 0)::int AS v FROM schema_migrations")
    ).rows[0].v;
    for (const m of pendingMigrations(POSTGRES_MIGRATIONS, current, where)) {
      await client.query(m.sql);
      await client.query("INSERT INTO schema_migrations (version, description) VALUES ($1, $2)", [
        m.version,
        m.description,
      ]);
    }
    await client.query("COMMIT");
  } catch (err) {
    await client.query("ROLLBACK").catch(() => {});
    throw err;
  }
}
