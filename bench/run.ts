// npm run bench: the service's figures against their targets, as ratios measured in one run (this machine is
// shared and noisy: both sides of a ratio see the same noise). Writes bench/results.json and bench/makespan.svg
// (or, with --smoke, tiny sizes into the directory given by --out: what `npm test` runs so this cannot rot; the
// smoke figures mean nothing and are never asserted). Each figure is measured by its own module in bench/figures/;
// what they share (the simulator, the services they start, the sizes) is bench/context.ts. The plain-SDK baseline
// and the bare fastify reference run as processes of their own (bench/plain-sdk.ts, bench/bare-fastify.ts).
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { Bench, loadAverage, UNLIMITED_READS } from "./context.ts";
import { measureBursts } from "./figures/bursts.ts";
import { measureClaims } from "./figures/claims.ts";
import { measureCpu } from "./figures/cpu.ts";
import { measureFleet, measureFleet10 } from "./figures/fleet.ts";
import { measureOrdering, writeMakespanChart } from "./figures/ordering.ts";
import { measureReads } from "./figures/reads.ts";
import { measureSoak } from "./figures/soak.ts";
import { measureStartup } from "./figures/startup.ts";
import { measureStoreLatency } from "./figures/store-latency.ts";
import { measureSubmissions } from "./figures/submissions.ts";
import { measureThroughput } from "./figures/throughput.ts";
import { cpuShare } from "./measure.ts";
import { keptResults, mergeResults } from "./results-file.ts";
import { parseBenchArgs, USAGE } from "./run-args.ts";
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
/** The rows of the fleet and claim figures, which --only-fleet replaces and --skip-fleet keeps. */
const FLEET_ROWS = /^fleet:|^claim with|^the same with each replica|^the same, SQLite$/;
/** The rows of the CPU figure as earlier runs named them, which --only-cpu replaces. */
const CPU_ROWS = /^service CPU per task|^the same, one (task )?at a time, each/;

const b = await Bench.open(parsed.args);
const shareAtStart = cpuShare();
const shares = () => ({
  cpuShareAtStart: Number(shareAtStart.toFixed(2)),
  cpuShareAtEnd: Number(cpuShare().toFixed(2)),
});

/** The claims, then the fleet (measured in that order); their rows the fleet's first. */
async function fleetAndClaims() {
  const claims = await measureClaims(b);
  const fleet = await measureFleet(b);
  return { rows: [...fleet.rows, ...claims.rows], results: { ...claims.results, ...fleet.results } };
}

/** A partial run: its rows and results merged into DIR/results.json (see mergeResults), then printed. */
function merge(rows: Row[], results: Record<string, unknown>, drop?: (figure: string) => boolean): void {
  const path = mergeResults(out, rows, results, drop);
  b.log(`merged into ${path}; npm run bench:table writes the README's table from it`);
  printTable(rows);
}

/** Every figure, in the order measured; the table in the order the README reads it. */
async function everyFigure(): Promise<void> {
  // First the fleet and the claims (with --skip-fleet, those of the last run).
  const fleet = part === "skip-fleet" ? keptResults<Row>(out, FLEET_ROWS, ["claims", "fleet"]) : await fleetAndClaims();
  // The makespans, the plain script's burst and the ARM calls of a resize on `one`, which then measures the CPU per
  // task and the reads.
  const oneDir = b.tempDir();
  const one = await b.service({ TASK_STORE: "sqlite", DATA_DIR: oneDir, ...UNLIMITED_READS, ...b.fastPolls });
  const ordering = await measureOrdering(b, one);
  writeMakespanChart(out, ordering.results.makespan, b.sizes.D);
  const cpu = await measureCpu(b, one);
  const reads = await measureReads(b, one, oneDir, cpu.readTaskId);
  await b.stop(one);
  const throughput = await measureThroughput(b);
  const submissions = await measureSubmissions(b);
  const bursts = await measureBursts(b);
  const startup = await measureStartup(b);

  // The fleet at ten times the size is measured only by --only-fleet10 (about half an hour): kept as last measured.
  const fleet10 = existsSync(join(out, "results.json"))
    ? keptResults<Row>(out, /^fleet ×10/, ["fleet10"])
    : { rows: [], results: {} };
  const table = [ordering, cpu, throughput, reads, submissions, startup, bursts, fleet, fleet10].flatMap((f) => f.rows);
  const results = {
    takenAt: new Date().toISOString(),
    machine: b.machine(shareAtStart, cpuShare()),
    smoke,
    settings: b.settings(),
    table,
    ...ordering.results,
    ...cpu.results,
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
  if (part === "only-burst") {
    const { rows, results } = await measureBursts(b);
    merge(rows, { bursts: { ...results.bursts, takenAt: new Date().toISOString(), ...shares() } });
  } else if (part === "only-makespan") {
    const one = await b.service({ TASK_STORE: "sqlite", DATA_DIR: b.tempDir(), ...UNLIMITED_READS, ...b.fastPolls });
    const { rows, results } = await measureOrdering(b, one);
    await b.stop(one);
    writeMakespanChart(out, results.makespan, b.sizes.D);
    const makespan = { ...results.makespan, takenAt: new Date().toISOString(), loadAverage: loadAverage() };
    merge(rows, { makespan, armCalls: results.armCalls });
  } else if (part === "only-cpu") {
    // On a service of its own, started as everyFigure starts the one that measures it (after the makespans there).
    const one = await b.service({ TASK_STORE: "sqlite", DATA_DIR: b.tempDir(), ...UNLIMITED_READS, ...b.fastPolls });
    const { rows, results } = await measureCpu(b, one);
    await b.stop(one);
    const takenAt = new Date().toISOString();
    merge(
      rows,
      { cpu: { ...results.cpu, takenAt, ...shares() }, cpuSerial: { ...results.cpuSerial, takenAt } },
      (figure) => CPU_ROWS.test(figure),
    );
  } else if (part === "only-fleet") {
    // The other figures stay those of the run that wrote results.json; these rows replace their own.
    const { rows, results } = await fleetAndClaims();
    const fleet = { ...results.fleet, takenAt: new Date().toISOString(), loadAverage: loadAverage() };
    merge(rows, { claims: results.claims, fleet: { ...fleet, ...shares() } }, (figure) => FLEET_ROWS.test(figure));
  } else if (part === "only-fleet10") {
    const { rows, results } = await measureFleet10(b);
    merge(rows, { fleet10: { ...results.fleet10, takenAt: new Date().toISOString(), ...shares() } });
  } else if (part === "only-soak") {
    const { rows, results } = await measureSoak(b);
    merge(rows, results);
  } else if (part === "only-store-latency") {
    const { rows, results } = await measureStoreLatency(b);
    merge(rows, results);
  } else if (part === "only-memory") {
    // The throughput figure's runs (their peak RSS, and the throughput beside it) and the starts.
    const throughput = await measureThroughput(b);
    const startup = await measureStartup(b);
    const at = () => ({ takenAt: new Date().toISOString(), loadAverage: loadAverage() });
    merge([...throughput.rows, ...startup.rows], {
      throughput: { ...throughput.results.throughput, ...at() },
      startup: { ...startup.results.startup, ...at() },
    });
  } else await everyFigure();
} finally {
  await b.close();
}
