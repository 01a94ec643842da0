// Growth since the previous release: this tree's service and the previous release's (bench/previous-release, its tree
// made by bench/previous-release.ts), started alike beside each other on one simulator, and measured in alternated
// rounds (each round the other one first, as the load other work puts on the machine drifts): the service's CPU per
// task of resizes 32 at once and one at a time (as bench/figures/cpu.ts measures it), and GET /task/{id} a second.
// Each is a ratio, current / previous (for reads, the time per read), held to GROWTH_GUARD. A clone without the
// previous release (shallow) skips the figure with its reason.
import type { ChildService } from "../../testkit/child-service.ts";
import { loadAverage, UNLIMITED_READS, type Bench } from "../context.ts";
import { GROWTH_GUARD, GROWTH_ROUNDS } from "../guards.ts";
import { cpuMsOf, median, readRate } from "../measure.ts";
import { previousTree } from "../previous-release.ts";
import type { Figure, Row } from "../table.ts";
import { serviceAtOnce, serviceOneAtATime } from "./cpu.ts";

/** The rows of this figure, which --only-cpu and --only-growth replace. */
export const GROWTH_ROWS = /^growth since the previous release/;

type Side = "current" | "previous";
type PerSide = { current: number[]; previous: number[] };

/** The sizes of a round: resizes 32 at once, one at a time, and seconds of reads of each side. */
function sizesOf(b: Bench) {
  return {
    atOnceN: b.smoke ? 6 : 96,
    oneN: b.smoke ? 3 : 60,
    readS: b.smoke ? 0.3 : 2,
    rounds: b.smoke ? 1 : GROWTH_ROUNDS,
  };
}

/** Every round's figures of both sides, each round the other side first. */
async function rounds(b: Bench, services: Record<Side, ChildService>) {
  const { atOnceN, oneN, readS, rounds } = sizesOf(b);
  const runs = {
    atOnce: { current: [], previous: [] } as PerSide,
    oneAtATime: { current: [], previous: [] } as PerSide,
    reads: { current: [], previous: [] } as PerSide,
    readCpuUs: { current: [], previous: [] } as PerSide,
  };
  const readTask: Partial<Record<Side, string>> = {};
  let failed = 0;
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ["current", "previous"] : ["previous", "current"];
    for (const side of order) {
      const prefix = `grow-${side}-${round}-`;
      for (let i = 0; i < atOnceN; i++) await b.scaleSet(`${prefix}a${i}`);
      for (let i = 0; i < oneN; i++) await b.scaleSet(`${prefix}s${i}`);
    }
    for (const side of order) {
      const r = await serviceAtOnce(b, services[side], `grow-${side}-${round}-a`, atOnceN);
      runs.atOnce[side].push(r.cpuMs / atOnceN);
      readTask[side] ??= r.ids[0];
      failed += r.failed;
    }
    for (const side of order) {
      const r = await serviceOneAtATime(b, services[side], `grow-${side}-${round}-s`, oneN);
      runs.oneAtATime[side].push(r.cpuMs / oneN);
      failed += r.failed;
    }
    for (const side of order) {
      const cpu0 = cpuMsOf(services[side].child.pid!);
      const perSecond = await readRate(`${services[side].url}/task/${readTask[side]}`, readS);
      runs.reads[side].push(perSecond);
      runs.readCpuUs[side].push(((cpuMsOf(services[side].child.pid!) - cpu0) * 1000) / (perSecond * readS));
    }
    b.log(
      `growth, round ${round + 1}: CPU per task 32 at once ${runs.atOnce.current[round].toFixed(2)} / ${runs.atOnce.previous[round].toFixed(2)} ms, ` +
        `one at a time ${runs.oneAtATime.current[round].toFixed(2)} / ${runs.oneAtATime.previous[round].toFixed(2)} ms, ` +
        `reads ${runs.reads.current[round].toFixed(0)} / ${runs.reads.previous[round].toFixed(0)} a second, ` +
        `${runs.readCpuUs.current[round].toFixed(0)} / ${runs.readCpuUs.previous[round].toFixed(0)} µs of CPU each (current / previous)`,
    );
  }
  return { runs, failed };
}

const medians = (xs: PerSide) => ({
  current: median(xs.current),
  previous: median(xs.previous),
  runsCurrent: xs.current,
  runsPrevious: xs.previous,
});

/** The figure's results and rows from its rounds. */
function growthOf(b: Bench, commit: string, { runs, failed }: Awaited<ReturnType<typeof rounds>>): Figure {
  const { atOnceN, oneN, readS, rounds } = sizesOf(b);
  const atOnce = medians(runs.atOnce);
  const oneAtATime = medians(runs.oneAtATime);
  const reads = medians(runs.reads);
  const readCpu = medians(runs.readCpuUs);
  const growth = {
    takenAt: new Date().toISOString(),
    loadAverage: loadAverage(),
    previousRelease: commit,
    rounds,
    tasks: { atOnce: atOnceN, oneAtATime: oneN },
    cpuMsPerTaskAtOnce: atOnce,
    cpuMsPerTaskOneAtATime: oneAtATime,
    readsPerSecond: reads,
    cpuUsPerRead: readCpu,
    atOnceRatio: atOnce.current / atOnce.previous,
    oneAtATimeRatio: oneAtATime.current / oneAtATime.previous,
    readCpuRatio: readCpu.current / readCpu.previous,
    readsRatio: reads.current / reads.previous,
    failed,
  };
  const detail = (x: ReturnType<typeof medians>, unit: string, digits: number) =>
    `${x.current.toFixed(digits)} ${unit} against ${x.previous.toFixed(digits)} ${unit} of the previous release ${commit.slice(0, 7)} (medians of ${rounds} alternated rounds)`;
  const target = `≤ ${GROWTH_GUARD} (guard)`;
  const rows: Row[] = [
    {
      figure: "growth since the previous release: service CPU per task, current / previous, 32 at once",
      measured: growth.atOnceRatio,
      target,
      met: growth.atOnceRatio <= GROWTH_GUARD && failed === 0,
      detail: `${detail(atOnce, "ms", 2)}, ${atOnceN} resizes a round` + (failed ? `; ${failed} failed` : ""),
    },
    {
      figure: "growth since the previous release: the same, one at a time, each waited for with GET /task/{id}?wait=",
      measured: growth.oneAtATimeRatio,
      target,
      met: growth.oneAtATimeRatio <= GROWTH_GUARD && failed === 0,
      detail: `${detail(oneAtATime, "ms", 2)}, ${oneN} resizes a round`,
    },
    {
      figure: "growth since the previous release: service CPU per GET /task/{id}, current / previous",
      measured: growth.readCpuRatio,
      target,
      met: growth.readCpuRatio <= GROWTH_GUARD,
      detail: `${detail(readCpu, "µs", 1)}, reads of ${readS} s each`,
    },
    {
      figure: "growth since the previous release: GET /task/{id} a second, current / previous",
      measured: growth.readsRatio,
      target: "reported beside it",
      met: null,
      detail: `${detail(reads, "a second", 0)}; a rate is the machine's as much as the service's, its CPU is guarded`,
    },
  ];
  return { rows, results: { growth } };
}

export async function measureGrowth(b: Bench): Promise<Figure> {
  const previous = await previousTree(b.tempDir());
  if (!previous.ok) {
    b.log(`growth since the previous release: SKIPPED, ${previous.reason}`);
    return { rows: [], results: { growth: { skipped: previous.reason } } };
  }
  const env = () => ({ TASK_STORE: "sqlite", DATA_DIR: b.tempDir(), ...UNLIMITED_READS, ...b.fastPolls });
  const services: Record<Side, ChildService> = {
    current: await b.service(env()),
    previous: await b.service(env(), previous.tree),
  };
  try {
    await b.setWriteDuration(b.throughputD);
    return growthOf(b, previous.commit, await rounds(b, services));
  } finally {
    await b.stop(services.current);
    await b.stop(services.previous);
  }
}
