// Throughput and memory: sizes.sets × sizes.perSet tasks submitted by 16 callers at once, D = throughputD, on a fresh
// service (1 replica, SQLite, polling at the simulator's pace): tasks per second times CPU per task (the cores kept
// busy), and the peak RSS. Measured `runs` times (5; 2 with --smoke), each on a fresh service and a fresh store: the
// figures are the medians, and every run's own value is kept beside them, since one run's peak RSS moves by 10-15 MB
// on this machine. Leaves the scale sets tp-0… for the submissions.
import type { Bench } from "../context.ts";
import { median, procStats } from "../measure.ts";
import type { Figure, Row } from "../table.ts";
import { PEAK_RSS_GUARD_MB } from "../guards.ts";

/** One run of the throughput figure on a fresh service. */
async function throughputRun(b: Bench) {
  const { sets, perSet } = b.sizes;
  const tp = await b.service({ TASK_STORE: "sqlite", DATA_DIR: b.tempDir(), ...b.fastPolls });
  const idle = procStats(tp.child.pid!);
  const totalTasks = sets * perSet;
  const start = Date.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < totalTasks) {
        const i = next++;
        ids[i] = await b.submit(tp, `tp-${i % sets}`, 2 + (Math.floor(i / sets) % 3));
      }
    }),
  );
  const burstEnd = Date.now();
  const tasks = await b.waitAll(tp, ids, 20);
  const end = Math.max(...tasks.map((t) => t.endTimeMs ?? 0));
  const stats = procStats(tp.child.pid!);
  await b.stop(tp);
  const cpuMsPerTask = (stats.cpuMs - idle.cpuMs) / totalTasks;
  const wallSeconds = (end - start) / 1000;
  const perSecond = totalTasks / wallSeconds;
  const coresUsed = (stats.cpuMs - idle.cpuMs) / 1000 / wallSeconds;
  const run = {
    wallSeconds,
    perSecond,
    submissionBurstPerSecond: totalTasks / ((burstEnd - start) / 1000),
    cpuMsPerTask,
    coresUsed,
    // A CPU-bound single Node process keeps about one core busy: this is throughput / (1 core / CPU per task).
    ratio: perSecond * (cpuMsPerTask / 1000),
    failed: tasks.filter((t) => t.status.failed).length,
    idleRssMb: idle.rssMb,
    peakRssMb: stats.peakRssMb,
  };
  b.log(
    `throughput: ${perSecond.toFixed(0)} tasks/s, ${coresUsed.toFixed(2)} cores, peak RSS ${stats.peakRssMb.toFixed(0)} MB (idle ${idle.rssMb.toFixed(0)})`,
  );
  return run;
}

const list = (xs: number[], digits: number) => xs.map((x) => x.toFixed(digits)).join(", ");

export async function measureThroughput(b: Bench) {
  const { sets, perSet } = b.sizes;
  const totalTasks = sets * perSet;
  const runCount = b.smoke ? 2 : 5;
  // Its own write duration: run alone (--only-memory), no earlier figure has set it (the makespans' D is 500 ms).
  await b.setWriteDuration(b.throughputD);
  for (let i = 0; i < sets; i++) await b.scaleSet(`tp-${i}`);
  const runs: Awaited<ReturnType<typeof throughputRun>>[] = [];
  for (let r = 0; r < runCount; r++) runs.push(await throughputRun(b));
  const of = (key: Exclude<keyof (typeof runs)[number], "failed">) => median(runs.map((run) => run[key]));
  const peaks = runs.map((run) => run.peakRssMb);
  const ratios = runs.map((run) => run.ratio);
  const throughput = {
    tasks: totalTasks,
    runs: runCount,
    wallSeconds: of("wallSeconds"),
    perSecond: of("perSecond"),
    submissionBurstPerSecond: of("submissionBurstPerSecond"),
    cpuMsPerTask: of("cpuMsPerTask"),
    coresUsed: of("coresUsed"),
    ratio: of("ratio"),
    ratioRuns: ratios,
    failed: runs.reduce((sum, run) => sum + run.failed, 0),
    idleRssMb: of("idleRssMb"),
    idleRssRunsMb: runs.map((run) => run.idleRssMb),
    peakRssMb: of("peakRssMb"),
    peakRssRunsMb: peaks,
  };
  const rows: Row[] = [
    {
      figure: `${totalTasks} tasks on ${sets} scale sets, D = ${b.throughputD} ms: throughput × CPU per task (cores kept busy)`,
      measured: throughput.ratio,
      target: "≥ 0.7",
      met: throughput.ratio >= 0.7,
      detail: `median of ${runCount}: ${throughput.perSecond.toFixed(0)} tasks/s, ${throughput.cpuMsPerTask.toFixed(2)} ms CPU per task (runs: ${list(ratios, 2)})`,
    },
    {
      figure: "the same: peak RSS (MB), 8 MB semi-spaces",
      measured: throughput.peakRssMb,
      target: `≤ ${PEAK_RSS_GUARD_MB} (guard)`,
      met: throughput.peakRssMb <= PEAK_RSS_GUARD_MB,
      detail: `median of ${runCount}: ${throughput.peakRssMb.toFixed(0)} MB (runs: ${list(peaks, 0)}); idle ${throughput.idleRssMb.toFixed(0)} MB`,
    },
  ];
  return { rows, results: { throughput } } satisfies Figure;
}
