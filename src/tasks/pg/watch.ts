// Wake-ups on PostgreSQL: creating a task and finishing one NOTIFY the schema's channel at commit; watch LISTENs.
import pg from "pg";
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
