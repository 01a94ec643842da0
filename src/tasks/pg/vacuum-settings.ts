// Whether PostgreSQL will vacuum the task store's tables: read once when the store opens, and said in the log when it
// will not. Every claim, journal write and end leaves dead row versions in tasks, task_ready, task_scale_sets,
// task_wakes and arm_budget; without autovacuum they stay, and each claim reads through them (docs/scaling.md: a claim
// took 0.3 s late in a 50,000-operation run on a server without it). Nothing is refused for it: a team may vacuum
// on a schedule of its own.
import type pg from "pg";

export interface VacuumSettings {
  /** The server's `autovacuum` setting. */
  autovacuum: boolean;
  /** The server's `track_counts`: without it autovacuum cannot tell which tables need it. */
  trackCounts: boolean;
  /** The store's tables set `autovacuum_enabled = false` (storage parameters), by name. */
  tablesWithout: string[];
}

export async function readVacuumSettings(client: pg.ClientBase, schema: string): Promise<VacuumSettings> {
  const { rows } = await client.query<{ autovacuum: string; track_counts: string; tables: string[] | null }>(
    `SELECT current_setting('autovacuum') AS autovacuum, current_setting('track_counts') AS track_counts,
            (SELECT array_agg(c.relname::text ORDER BY c.relname) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
              WHERE n.nspname = $1 AND c.relkind = 'r' AND 'autovacuum_enabled=false' = ANY (c.reloptions)) AS tables`,
    [schema],
  );
  const r = rows[0];
  return { autovacuum: r.autovacuum === "on", trackCounts: r.track_counts === "on", tablesWithout: r.tables ?? [] };
}

/** What an operator should be told about `settings`, a line each; none when autovacuum looks after every table. */
export function vacuumWarnings(settings: VacuumSettings, where: string): string[] {
  const consequence =
    "dead row versions of claims, journal writes and ends stay, and every claim reads through them: vacuum the store's tables on a schedule, or turn autovacuum on (docs/task-stores.md)";
  const warnings: string[] = [];
  if (!settings.autovacuum)
    warnings.push(`the task store's PostgreSQL runs with autovacuum = off (${where}): ${consequence}`);
  else if (!settings.trackCounts)
    warnings.push(
      `the task store's PostgreSQL runs with track_counts = off, so autovacuum cannot tell which tables need it (${where}): ${consequence}`,
    );
  if (settings.tablesWithout.length > 0)
    warnings.push(
      `the task store's tables ${settings.tablesWithout.join(", ")} have autovacuum_enabled = false (${where}): ${consequence}`,
    );
  return warnings;
}
