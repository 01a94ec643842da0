// The benchmark's table: one row per figure against its target, as results.json keeps it and as the run prints it.

/** One figure against its target; `met` is null where the figure is reported beside another, with no target. */
export interface Row {
  figure: string;
  measured: number;
  target: string;
  met: boolean | null;
  detail: string;
}

/** What a figure's measurement returns: its rows of the table and its keys of results.json. */
export interface Figure<R extends Record<string, unknown> = Record<string, unknown>> {
  rows: Row[];
  results: R;
}

const fmt = (x: number) => (Number.isInteger(x) ? String(x) : x.toFixed(2));

/** Prints rows as a Markdown table on stdout, then a line for each row outside its target or guard. */
export function printTable(rows: readonly Row[]): void {
  console.log(`| figure | measured | target | met | detail |\n|---|---|---|---|---|`);
  for (const r of rows)
    console.log(
      `| ${r.figure} | ${fmt(r.measured)} | ${r.target} | ${r.met === null ? "—" : r.met ? "yes" : "no"} | ${r.detail} |`,
    );
  for (const r of rows.filter((x) => x.met === false))
    console.log(
      `OUTSIDE ${/guard/.test(r.target) ? "ITS GUARD" : "ITS TARGET"}: ${r.figure}: ${fmt(r.measured)}, ${r.target}`,
    );
}
