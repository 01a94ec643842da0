// Azure's write durations on SQLite, by kind (TaskStore.shareWriteDurations): one row a kind, its most recent
// durations as a JSON array, oldest first. What a restarted replica expects of a write before it has seen one end.
import { keptDurations, samplesByKind, type DurationSample } from "../../azure/write-durations.ts";
import type { SqliteDb } from "./db.ts";

export function shareWriteDurations(db: SqliteDb, samples: readonly DurationSample[]): void {
  if (samples.length === 0) return;
  db.write(() => {
    for (const [kind, ms] of samplesByKind(samples)) {
      const row = db.stmt("SELECT samples FROM write_durations WHERE kind = ?").get(kind) as
        { samples: string } | undefined;
      const kept = keptDurations(row ? (JSON.parse(row.samples) as number[]) : [], ms);
      db.stmt(
        "INSERT INTO write_durations (kind, samples) VALUES (?, ?) ON CONFLICT (kind) DO UPDATE SET samples = excluded.samples",
      ).run(kind, JSON.stringify(kept));
    }
  });
}

export function sharedWriteDurations(db: SqliteDb): Map<string, number[]> {
  const rows = db.stmt("SELECT kind, samples FROM write_durations").all() as { kind: string; samples: string }[];
  return new Map(rows.map((r) => [r.kind, JSON.parse(r.samples) as number[]]));
}
