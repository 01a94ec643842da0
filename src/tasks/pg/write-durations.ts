// Azure's write durations on PostgreSQL, by kind (TaskStore.shareWriteDurations), shared by the replicas: one row a
// kind, its most recent durations oldest first. A replica's samples are appended in one statement for all kinds,
// each row keeping its last DURATIONS_KEPT, whatever other replicas append meanwhile (the row's lock orders them).
import { DURATIONS_KEPT, samplesByKind, type DurationSample } from "../../azure/write-durations.ts";
import type { PgConnection } from "./connection.ts";
import { integerLiteral, jsonParam, type PgTables } from "./tables.ts";

export async function shareWriteDurations(
  db: PgConnection,
  t: PgTables,
  samples: readonly DurationSample[],
): Promise<void> {
  if (samples.length === 0) return;
  const kept = integerLiteral(DURATIONS_KEPT);
  await db.query(
    `INSERT INTO ${t.durations} AS w (kind, samples)
       SELECT e.key, ARRAY(SELECT v::int FROM jsonb_array_elements_text(e.value) AS v)
       FROM jsonb_each($1::jsonb) AS e
     ON CONFLICT (kind) DO UPDATE
       SET samples = (w.samples || excluded.samples)[greatest(1, cardinality(w.samples || excluded.samples) - ${kept} + 1):]`,
    [jsonParam(Object.fromEntries(samplesByKind(samples)))],
    false,
  );
}

export async function sharedWriteDurations(db: PgConnection, t: PgTables): Promise<Map<string, number[]>> {
  const { rows } = await db.query<{ kind: string; samples: number[] }>(
    `SELECT kind, samples FROM ${t.durations}`,
    [],
    true,
  );
  // int[] comes back as numbers (node-postgres parses int4 arrays).
  return new Map(rows.map((r) => [r.kind, r.samples]));
}
