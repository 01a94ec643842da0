// The partial runs of npm run bench (--only-…): each measures its figures alone and merges them into the
// results.json already there (bench/results-file.ts), the other rows kept as the run that wrote it measured them.
import { Bench, loadAverage, UNLIMITED_READS } from "./context.ts";
import { measureBursts } from "./figures/bursts.ts";
import { CPU_ROWS, measureCpu } from "./figures/cpu.ts";
import { measureClaims } from "./figures/claims.ts";
import { GROWTH_ROWS, measureGrowth } from "./figures/growth.ts";
import { measureReads, READS_ROWS } from "./figures/reads.ts";
import { FLEET_ROWS, measureFleet, measureFleet10 } from "./figures/fleet.ts";
import { measureOrdering, writeMakespanChart } from "./figures/ordering.ts";
import { measureSoak } from "./figures/soak.ts";
import { measureAzureLink } from "./figures/azure-link.ts";
import { measureDeploy } from "./figures/deploy.ts";
import { measureTracing } from "./figures/tracing.ts";
import { measureStoreLatency } from "./figures/store-latency.ts";
import { measureStartup } from "./figures/startup.ts";
import { measureThroughput } from "./figures/throughput.ts";
import { measureWal } from "./figures/wal.ts";
import { cpuShare } from "./measure.ts";
import type { BenchPart } from "./run-args.ts";
import type { Row } from "./table.ts";

/** The claims, then the fleet (measured in that order); their rows the fleet's first. */
export async function fleetAndClaims(b: Bench) {
  const claims = await measureClaims(b);
  const fleet = await measureFleet(b);
  return { rows: [...fleet.rows, ...claims.rows], results: { ...claims.results, ...fleet.results } };
}

/** The reads on a service started as everyFigure starts the one that measures them, of a task it ran. */
async function readsAlone(b: Bench) {
  const oneDir = b.tempDir();
  const one = await b.service({ TASK_STORE: "sqlite", DATA_DIR: oneDir, ...UNLIMITED_READS, ...b.fastPolls });
  await b.setWriteDuration(b.throughputD);
  await b.scaleSet("reads-task");
  const id = await b.submit(one, "reads-task", 2);
  await b.waitAll(one, [id]);
  const { rows, results } = await measureReads(b, one, oneDir, id);
  await b.stop(one);
  const at = { takenAt: new Date().toISOString(), loadAverage: loadAverage() };
  return { rows, results: { reads: { ...results.reads, ...at }, waiting: { ...results.waiting, ...at } } };
}

type Merge = (rows: Row[], results: Record<string, unknown>, drop?: (figure: string) => boolean) => void;

/** `part` of the run (neither "all" nor "skip-fleet"), merged with `merge`; `tree`: --only-wal's tree before. */
export async function runPart(
  b: Bench,
  part: Exclude<BenchPart, "all" | "skip-fleet">,
  out: string,
  merge: Merge,
  tree?: string,
): Promise<void> {
  const shareAtStart = cpuShare();
  const shares = () => ({
    cpuShareAtStart: Number(shareAtStart.toFixed(2)),
    cpuShareAtEnd: Number(cpuShare().toFixed(2)),
  });
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
    // Then against the previous release: the ratio to the plain script moves with the script's own cost.
    const growth = await measureGrowth(b);
    merge(
      [...rows, ...growth.rows],
      {
        cpu: { ...results.cpu, takenAt, ...shares() },
        cpuSerial: { ...results.cpuSerial, takenAt },
        ...growth.results,
      },
      (figure) => CPU_ROWS.test(figure) || GROWTH_ROWS.test(figure),
    );
  } else if (part === "only-reads") {
    const { rows, results } = await readsAlone(b);
    merge(rows, results, (figure) => READS_ROWS.test(figure));
  } else if (part === "only-growth") {
    const { rows, results } = await measureGrowth(b);
    merge(rows, results, (figure) => GROWTH_ROWS.test(figure));
  } else if (part === "only-fleet") {
    // The other figures stay those of the run that wrote results.json; these rows replace their own.
    const { rows, results } = await fleetAndClaims(b);
    const fleet = { ...results.fleet, takenAt: new Date().toISOString(), loadAverage: loadAverage() };
    merge(rows, { claims: results.claims, fleet: { ...fleet, ...shares() } }, (figure) => FLEET_ROWS.test(figure));
  } else if (part === "only-fleet10") {
    const { rows, results } = await measureFleet10(b);
    merge(rows, { fleet10: { ...results.fleet10, takenAt: new Date().toISOString(), ...shares() } });
  } else if (part === "only-soak") {
    const { rows, results } = await measureSoak(b);
    merge(rows, results);
  } else if (part === "only-azure-link") {
    const { rows, results } = await measureAzureLink(b);
    merge(rows, results);
  } else if (part === "only-tracing") {
    const { rows, results } = await measureTracing(b);
    merge(rows, results);
  } else if (part === "only-wal") {
    const { rows, results } = await measureWal(b, tree);
    merge(rows, results);
  } else if (part === "only-deploy") {
    const { rows, results } = await measureDeploy(b);
    merge(rows, results);
  } else if (part === "only-store-latency") {
    const { rows, results } = await measureStoreLatency(b);
    merge(rows, results);
  } else {
    // --only-memory: the throughput figure's runs (their peak RSS, and the throughput beside it) and the starts.
    const throughput = await measureThroughput(b);
    const startup = await measureStartup(b);
    const at = () => ({ takenAt: new Date().toISOString(), loadAverage: loadAverage() });
    merge([...throughput.rows, ...startup.rows], {
      throughput: { ...throughput.results.throughput, ...at() },
      startup: { ...startup.results.startup, ...at() },
    });
  }
}
