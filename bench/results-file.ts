// bench/results.json as the partial runs (--only-fleet, --only-burst, --only-makespan) update it.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

interface ResultsFile {
  table: { figure: string }[];
  [key: string]: unknown;
}

/**
 * Rows replace those of the same figure (numbers aside) in DIR/results.json, where the first of them stood ("the
 * same …" rows read after the row before them; a figure measured at several sizes is all its rows), the others go at
 * the end; extra keys are set beside them. A folder with no
 * results yet gets a fresh file: a partial run never loses what it measured. Returns the file's path.
 */
export function mergeResults(
  dir: string,
  rows: { figure: string }[],
  extra: Record<string, unknown>,
  drop: (figure: string) => boolean = () => false,
): string {
  const path = join(dir, "results.json");
  const earlier: ResultsFile = existsSync(path)
    ? (JSON.parse(readFileSync(path, "utf8")) as ResultsFile)
    : { table: [] };
  const shape = (f: string) => f.replace(/\d[\d,]*/g, "#");
  // The run's rows by shape, all of them: a figure measured at several sizes is several rows of one shape.
  const fresh = new Map<string, { figure: string }[]>();
  for (const r of rows) fresh.set(shape(r.figure), [...(fresh.get(shape(r.figure)) ?? []), r]);
  const placed = new Set<string>();
  const kept = earlier.table.flatMap((r) => {
    const s = shape(r.figure);
    if (placed.has(s)) return [];
    const replacements = fresh.get(s);
    if (replacements) {
      fresh.delete(s);
      placed.add(s);
      return replacements;
    }
    return drop(r.figure) ? [] : [r];
  });
  const merged: ResultsFile = { ...earlier, ...extra, table: [...kept, ...[...fresh.values()].flat()] };
  mkdirSync(dir, { recursive: true });
  writeFileSync(path, JSON.stringify(merged, null, 2) + "\n");
  return path;
}

/**
 * The rows whose figure matches `rows` and the keys `keys` of DIR/results.json, as the run that wrote it measured
 * them (--skip-fleet keeps the fleet and claim figures so).
 */
export function keptResults<R extends { figure: string }>(
  dir: string,
  rows: RegExp,
  keys: readonly string[],
): { rows: R[]; results: Record<string, unknown> } {
  const earlier = JSON.parse(readFileSync(join(dir, "results.json"), "utf8")) as { table: R[]; [key: string]: unknown };
  return {
    rows: earlier.table.filter((r) => rows.test(r.figure)),
    results: Object.fromEntries(keys.map((k) => [k, earlier[k]])),
  };
}
