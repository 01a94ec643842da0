// npm run bench: the service's figures against their targets, as ratios measured in one run (this machine is
// shared and noisy: both sides of a ratio see the same noise). Writes bench/results.json and bench/makespan.svg
// (or, with --smoke, tiny sizes into the directory given by --out: what `npm test` runs so this cannot rot; the
// smoke figures mean nothing and are never asserted). Each figure is measured by its own module in bench/figures/;
// what they share (the simulator, the services they start, the sizes) is bench/context.ts. The plain-SDK baseline
// and the bare fastify reference run as processes of their own (bench/plain-sdk.ts, bench/bare-fastify.ts).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { Bench, UNLIMITED_READS } from "./context.ts";
import { measureBursts } from "./figures/bursts.ts";
import { measureCpu } from "./figures/cpu.ts";
import { FLEET_ROWS } from "./figures/fleet.ts";
import { measureGrowth } from "./figures/growth.ts";
import { measureOrdering, writeMakespanChart } from "./figures/ordering.ts";
import { measureReads } from "./figures/reads.ts";
import { measureStartup } from "./figures/startup.ts";
import { measureSubmissions } from "./figures/submissions.ts";
import { measureThroughput } from "./figures/throughput.ts";
import { cpuShare } from "./measure.ts";
import { keptResults, mergeResults } from "./results-file.ts";
import { parseBenchArgs, USAGE } from "./run-args.ts";
import { fleetAndClaims, runPart } from "./run-part.ts";
import { printTable, type Row } from "./table.ts";

const parsed = parseBenchArgs(process.argv.slice(2), import.meta.dirname);
if (!parsed.ok) {
  process.stderr.write(`bench: ${parsed.message}\n\n${USAGE}`);
  process.exit(2);
}
if (parsed.args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const { smoke, out, part } = parsed.args;

const b = await Bench.open(parsed.args);
const shareAtStart = cpuShare();

/** A partial run: its rows and results merged into DIR/results.json (see mergeResults), then printed. */
function merge(rows: Row[], results: Record<string, unknown>, drop?: (figure: string) => boolean): void {
  const path = mergeResults(out, rows, results, drop);
  b.log(`merged into ${path}; npm run bench:table writes the README's table from it`);
  printTable(rows);
}

/** Every figure, in the order measured; the table in the order the README reads it. */
async function everyFigure(): Promise<void> {
  // First the fleet and the claims (with --skip-fleet, those of the last run).
  const fleet =
    part === "skip-fleet" ? keptResults<Row>(out, FLEET_ROWS, ["claims", "fleet"]) : await fleetAndClaims(b);
  // The makespans, the plain script's burst and the ARM calls of a resize on `one`, which then measures the CPU per
  // task and the reads.
  const oneDir = b.tempDir();
  const one = await b.service({ TASK_STORE: "sqlite", DATA_DIR: oneDir, ...UNLIMITED_READS, ...b.fastPolls });
  const ordering = await measureOrdering(b, one);
  writeMakespanChart(out, ordering.results.makespan, b.sizes.D);
  const cpu = await measureCpu(b, one);
  const reads = await measureReads(b, one, oneDir, cpu.readTaskId);
  await b.stop(one);
  const growth = await measureGrowth(b);
  const throughput = await measureThroughput(b);
  const submissions = await measureSubmissions(b);
  const bursts = await measureBursts(b);
  const startup = await measureStartup(b);

  // The fleet at ten times the size is measured only by --only-fleet10 (about half an hour): kept as last measured.
  const fleet10 = existsSync(join(out, "results.json"))
    ? keptResults<Row>(out, /^fleet ×10/, ["fleet10"])
    : { rows: [], results: {} };
  const table = [ordering, cpu, growth, throughput, reads, submissions, startup, bursts, fleet, fleet10].flatMap(
    (f) => f.rows,
  );
  const results = {
    takenAt: new Date().toISOString(),
    machine: b.machine(shareAtStart, cpuShare()),
    smoke,
    settings: b.settings(),
    table,
    ...ordering.results,
    ...cpu.results,
    ...growth.results,
    ...reads.results,
    ...throughput.results,
    ...submissions.results,
    ...bursts.results,
    ...startup.results,
    ...fleet.results,
    ...(fleet10.results.fleet10 === undefined ? {} : fleet10.results),
  };
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "results.json"), JSON.stringify(results, null, 2) + "\n");
  b.log(`wrote ${join(out, "results.json")}${smoke ? "" : "; npm run bench:table writes the README's table from it"}`);
  const m = results.machine;
  console.log(
    `machine: ${m.cores} cores, load average ${m.loadAverage.join(" ")}, a busy process got ${m.cpuShareAtStart} / ${m.cpuShareAtEnd} of a core (start / end)\n`,
  );
  printTable(table);
}

try {
  b.log(
    `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB${smoke ? "; smoke sizes" : ""}`,
  );
  if (part === "all" || part === "skip-fleet") await everyFigure();
  else await runPart(b, part, out, merge, parsed.args.tree);
} finally {
  await b.close();
}
