// Writes the README's benchmark table from bench/results.json, between its markers: each figure the project sets a
// target for, as bench/results.json last recorded it, against that target. A figure the file does not hold (a run
// that stopped early, a shortcut that measured part of it, an older layout) reads "not measured", never a guess.
//   npm run bench:table             write the table
//   npm run bench:table -- --check  exit 1 if README.md's table differs from bench/results.json (test/readme-bench-table.test.ts)
import { readFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { runAsScript, writeOrCheck } from "./generated-part.ts";
import {
  CPU_GUARD_AT_ONCE,
  CPU_GUARD_ONE_AT_A_TIME,
  MODEL_COUNTS_WITHIN,
  MODEL_CPU_WITHIN,
  GROWTH_GUARD,
  PEAK_RSS_GUARD_MB,
} from "../bench/guards.ts";
import { DEPLOY_TARGET, WAL_TARGET } from "../bench/targets.ts";

export const README = fileURLToPath(new URL("../README.md", import.meta.url));
export const RESULTS = fileURLToPath(new URL("../bench/results.json", import.meta.url));
const START = "<!-- benchmark table: generated from bench/results.json by npm run bench:table -->";
const END = "<!-- end of benchmark table -->";

/**
 * What one row shows: the figure as measured and whether it meets its target; null when it was measured at other
 * sizes than the target's (a scaled-down run), so that it cannot be said. A row reads undefined: not measured.
 */
interface Reading {
  measured: string;
  met: boolean | null;
}

interface Row {
  figure: string;
  target: string;
  read(results: Results): Reading | undefined;
}

/**
 * The parts of bench/results.json the table reads, as bench/run.ts writes them. Any of them may be missing (a run that
 * stopped early, an older layout): every row checks its figures with finite() before it reads them.
 */
interface Results {
  takenAt?: string;
  smoke?: boolean;
  machine?: { cores?: number };
  fleet?: { takenAt?: string; shared?: { ratio: number; throttled: number; operations: number; scaleSets: number } };
  fleet10?: {
    takenAt?: string;
    ratio: number;
    throttled: number;
    failedTasks: number;
    operations: number;
    scaleSets: number;
    subscriptions: number;
    replicas: number;
    predictedVsMeasured?: Record<string, number>;
  };
  claims?: { postgresRatio: number; sqliteRatio: number };
  bursts?: { takenAt?: string } & Partial<Record<"sqlite" | "postgres", Burst>>;
  cpu?: CpuFigures & { plainSdkMsPerTask?: number };
  cpuSerial?: CpuFigures;
  reads?: { ratio: number };
  startup?: { fullStoreMs: number };
  throughput?: { peakRssMb: number };
  soak?: {
    takenAt?: string;
    settings?: { durationS: number };
    secondHalfGrowthMbPerMin: number;
    lost: number;
    acceptedTwice: number;
    submissions?: { unavailableBare: number };
    reads?: { unavailableBare: number };
    /** Requests answered past the client's 5 s patience (or never), a share of all. */
    pastPatience?: number;
  };
  growth?: { takenAt?: string; atOnceRatio: number; oneAtATimeRatio: number; readCpuRatio: number; failed?: number };
  deploy?: {
    takenAt?: string;
    runs?: { strategy: string; instances: number; setup: string; ratio: number }[];
    /** The same deploy at a slower time scale (bench/figures/deploy.ts, PACE_CHECK). */
    paceCheck?: { ratio: number; timeScale: number }[];
  };
  /** baseline: the commit compared against (the previous release's, or --tree's). */
  wal?: { takenAt?: string; walRatio: number; statementsRatio: number; failedTasks?: number; baseline?: string };
  makespan?: {
    takenAt?: string;
    oneReplicaSqlite?: MakespanRun[];
    replicasPostgres?: { replicas: number; runs?: MakespanRun[] };
    /** An older layout's keys (twoReplicasPostgres, …): not read. */
    [olderKey: string]: unknown;
  };
}

interface Burst {
  acceptedPerSecond: number;
  p99Ms: number;
  lost: number;
  tasksRun: number;
  accepted: number;
  tasksFailed?: number;
  submissions: number;
}

interface CpuFigures {
  ratio: number;
  ratioToConfirming?: number;
  serviceOnlyMsPerTask?: number;
  /** Each run's ratio, where the row is their median (bench/guards.ts CPU_RUNS). */
  runs?: number[];
  failed?: number;
  sameArmCalls?: boolean;
}

const n = (x: number, digits = 0) =>
  x.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const ratio = (x: number) => n(x, 2);
const finite = (...xs: unknown[]) => xs.every((x) => typeof x === "number" && Number.isFinite(x));

function burstRow(store: "sqlite" | "postgres", label: string, perSecond: number): Row {
  return {
    figure: `burst of 10,000 submissions, ${label}`,
    target: `≥ ${n(perSecond)}/s, p99 ≤ 50 ms, none lost, all run`,
    read: (r) => {
      const b = r.bursts?.[store];
      if (!b || !finite(b?.acceptedPerSecond, b?.p99Ms, b?.lost, b?.tasksRun, b?.accepted)) return undefined;
      const allRun = b.tasksRun === b.accepted && (b.tasksFailed ?? 0) === 0;
      const measured = `${n(b.acceptedPerSecond)}/s, p99 ${n(b.p99Ms)} ms, ${n(b.lost)} lost, ${allRun ? "all run" : `${n(b.tasksRun)} of ${n(b.accepted)} run`}`;
      if (b.submissions !== 10_000) return { measured: `${measured} (${n(b.submissions)} submissions)`, met: null };
      return { measured, met: b.acceptedPerSecond >= perSecond && b.p99Ms <= 50 && b.lost === 0 && allRun };
    },
  };
}

/**
 * The target is the ratio to the script making the same ARM calls (it lists the VMs after each write, as the service
 * confirms); beside it, the service-only cost (the service's CPU per task minus that script's) and the ratio to the
 * script without the VM list. A results file from before the confirming script reads "not measured".
 */
function cpuRow(figure: string, key: "cpu" | "cpuSerial", guard: number): Row {
  return {
    figure,
    target: `≤ ${guard} (guard)`,
    read: (r) => {
      const c = r[key];
      if (!c || !finite(c.ratio, c.ratioToConfirming)) return undefined;
      const serviceOnly = finite(c.serviceOnlyMsPerTask)
        ? `; service-only ${n(c.serviceOnlyMsPerTask!, 2)} ms a task`
        : "";
      // Runs since the guards: the median of several; before, one run.
      const runs = Array.isArray(c.runs) && c.runs.length > 1 ? `median of ${c.runs.length}` : "one run";
      return {
        measured: `${ratio(c.ratioToConfirming!)} (${runs}${serviceOnly})`,
        // As the benchmark judges it: a run whose resizes failed, or whose two sides made unlike calls, is not met.
        met: c.ratioToConfirming! <= guard && (c.failed ?? 0) === 0 && c.sameArmCalls !== false,
      };
    },
  };
}

interface MakespanRun {
  ratio: number;
  writes: number;
  k: number;
  refused: number;
  lastSubmittedWins: boolean;
}

function makespanReading(run: MakespanRun | undefined, lastMustWin: boolean): Reading | undefined {
  if (!run || !finite(run.ratio, run.writes, run.k, run.refused)) return undefined;
  const exact = run.writes === run.k && run.refused === 0 && (!lastMustWin || run.lastSubmittedWins);
  return {
    measured: `${ratio(run.ratio)}${exact ? "" : `, ${run.writes} writes, ${run.refused} refused${run.lastSubmittedWins ? "" : ", last lost"}`}`,
    met: run.ratio <= 1.1 && exact,
  };
}

/** The project's targets, in the order the README lists them. */
export const ROWS: Row[] = [
  {
    figure: "fleet: 5,000 operations, 1,000 scale sets, 3 replicas: makespan / budget bound",
    target: "≤ 1.1, 0 × 429",
    read: (r) => {
      const f = r.fleet?.shared;
      if (!f || !finite(f?.ratio, f?.throttled, f?.operations, f?.scaleSets)) return undefined;
      const measured = `${ratio(f.ratio)}, ${n(f.throttled)} × 429`;
      if (f.operations !== 5000 || f.scaleSets !== 1000)
        return { measured: `${measured} (${n(f.operations)} operations, ${n(f.scaleSets)} scale sets)`, met: null };
      return { measured, met: f.ratio <= 1.1 && f.throttled === 0 };
    },
  },
  {
    figure: "fleet ×10: 50,000 operations, 10,000 scale sets, 10 subscriptions, 4 replicas: the same",
    target: "≤ 1.1, 0 × 429, none failed",
    read: (r) => {
      const f = r.fleet10;
      if (!f || !finite(f.ratio, f.throttled, f.failedTasks, f.operations, f.scaleSets, f.subscriptions, f.replicas))
        return undefined;
      const failed = f.failedTasks === 0 ? "" : `, ${n(f.failedTasks)} failed`;
      const measured = `${ratio(f.ratio)}, ${n(f.throttled)} × 429${failed}`;
      if (f.operations < 50_000 || f.scaleSets < 10_000 || f.subscriptions < 10 || f.replicas < 4)
        return {
          measured: `${measured} (${n(f.operations)} operations, ${n(f.scaleSets)} scale sets, ${n(f.subscriptions)} subscription${f.subscriptions === 1 ? "" : "s"}, ${n(f.replicas)} replicas)`,
          met: null,
        };
      return { measured, met: f.ratio <= 1.1 && f.throttled === 0 && f.failedTasks === 0 };
    },
  },
  {
    figure: "fleet ×10 / docs/scaling.md's model, furthest",
    target: `calls, budget bound, statements within ${MODEL_COUNTS_WITHIN * 100} %; CPU within ${MODEL_CPU_WITHIN * 100} % (guard)`,
    read: (r) => {
      const p = r.fleet10?.predictedVsMeasured;
      const counts = [p?.armCalls, p?.budgetBound, p?.postgresTransactions];
      const cpu = [p?.replicaCpu, p?.simulatorCpu, p?.postgresCpu];
      if (!finite(...counts, ...cpu)) return undefined;
      const furthest = (xs: (number | undefined)[]) => Math.max(...xs.map((x) => Math.abs(x! - 1)));
      return {
        measured: `counts ${ratio(1 + furthest(counts))}, CPU ${ratio(1 + furthest(cpu))}`,
        met: furthest(counts) <= MODEL_COUNTS_WITHIN && furthest(cpu) <= MODEL_CPU_WITHIN,
      };
    },
  },
  {
    figure: "claim, 10,000 queued / 10 queued",
    target: "≤ 1.5",
    read: (r) => {
      const c = r.claims;
      if (!c || !finite(c?.postgresRatio, c?.sqliteRatio)) return undefined;
      return {
        measured: `${ratio(c.postgresRatio)} PostgreSQL, ${ratio(c.sqliteRatio)} SQLite`,
        met: c.postgresRatio <= 1.5 && c.sqliteRatio <= 1.5,
      };
    },
  },
  burstRow("sqlite", "SQLite", 2000),
  burstRow("postgres", "PostgreSQL", 1000),
  cpuRow("CPU per task / the script making the same ARM calls, one at a time", "cpuSerial", CPU_GUARD_ONE_AT_A_TIME),
  cpuRow("the same, 300 resizes 32 at a time", "cpu", CPU_GUARD_AT_ONCE),
  {
    figure: "`GET /task/{id}` / bare fastify",
    target: "≥ 0.6",
    read: (r) =>
      r.reads && finite(r.reads.ratio) ? { measured: ratio(r.reads.ratio), met: r.reads.ratio >= 0.6 } : undefined,
  },
  {
    figure: "CPU per task (at once, one at a time), per read / previous release",
    target: `each ≤ ${GROWTH_GUARD} (guard)`,
    read: (r) => {
      const g = r.growth;
      if (!g || !finite(g.atOnceRatio, g.oneAtATimeRatio, g.readCpuRatio)) return undefined;
      const xs = [g.atOnceRatio, g.oneAtATimeRatio, g.readCpuRatio];
      return { measured: xs.map(ratio).join(", "), met: xs.every((x) => x <= GROWTH_GUARD) && (g.failed ?? 0) === 0 };
    },
  },
  {
    figure: "deploys through Orca: makespan / Azure's critical path, furthest",
    target: `≤ ${DEPLOY_TARGET}, 1 and 3 replicas`,
    read: (r) => {
      const runs = r.deploy?.runs ?? [];
      const worst = (setup: RegExp) => Math.max(...runs.filter((x) => setup.test(x.setup)).map((x) => x.ratio));
      const one = worst(/^1 replica/);
      const three = worst(/^3 replicas/);
      if (!finite(one, three)) return undefined;
      const check = r.deploy?.paceCheck?.[0];
      const slower = check && finite(check.ratio) ? `; ${ratio(check.ratio)} at time scale ${check.timeScale}` : "";
      return {
        measured: `${ratio(one)} on 1 replica, ${ratio(three)} on 3${slower}`,
        met: one <= DEPLOY_TARGET && three <= DEPLOY_TARGET && (!check || check.ratio <= DEPLOY_TARGET),
      };
    },
  },
  {
    figure: "PostgreSQL WAL, statements per resize / the tree before",
    target: `≤ ${WAL_TARGET}`,
    read: (r) => {
      const w = r.wal;
      if (!w || !finite(w.walRatio, w.statementsRatio)) return undefined;
      const against = w.baseline && /^[0-9a-f]{7,40}$/.test(w.baseline) ? ` (/ ${w.baseline.slice(0, 7)})` : "";
      return {
        measured: `${ratio(w.walRatio)} WAL, ${ratio(w.statementsRatio)} statements${against}`,
        met: w.walRatio <= WAL_TARGET && w.statementsRatio <= WAL_TARGET && (w.failedTasks ?? 0) === 0,
      };
    },
  },
  {
    figure: "start to first `/health`, 10,000 tasks stored",
    target: "≤ 0.4 s",
    read: (r) =>
      r.startup && finite(r.startup.fullStoreMs)
        ? { measured: `${n(r.startup.fullStoreMs / 1000, 2)} s`, met: r.startup.fullStoreMs <= 400 }
        : undefined,
  },
  {
    figure: "peak RSS, 5,000 tasks, 8 MB semi-spaces",
    target: `≤ ${PEAK_RSS_GUARD_MB} MB (guard)`,
    read: (r) =>
      r.throughput && finite(r.throughput.peakRssMb)
        ? { measured: `${n(r.throughput.peakRssMb)} MB`, met: r.throughput.peakRssMb <= PEAK_RSS_GUARD_MB }
        : undefined,
  },
  {
    figure: "K = 20 resizes of one scale set, 1 replica: makespan / K·D",
    target: "≤ 1.1, K writes, 0 refused",
    read: (r) =>
      makespanReading(
        r.makespan?.oneReplicaSqlite?.find((m) => m.k === 20),
        false,
      ),
  },
  {
    figure: "the same, 3 replicas on PostgreSQL",
    target: "≤ 1.1, K writes, 0 refused, last wins",
    read: (r) =>
      r.makespan?.replicasPostgres?.replicas === 3
        ? makespanReading(
            r.makespan.replicasPostgres.runs?.find((m) => m.k === 20),
            true,
          )
        : undefined,
  },
  {
    figure: "overload soak, 10 min, 2 replicas: RSS growth, second half",
    target: "≤ 2 MB/min, 0 lost, 0 bare 503",
    read: (r) => {
      const s = r.soak;
      if (!s || !finite(s.secondHalfGrowthMbPerMin, s.lost, s.acceptedTwice, s.settings?.durationS)) return undefined;
      const bare = (s.submissions?.unavailableBare ?? 0) + (s.reads?.unavailableBare ?? 0);
      const measured = `${n(s.secondHalfGrowthMbPerMin, 1)} MB/min, ${n(s.lost)} lost, ${n(bare)} bare 503`;
      if (s.settings!.durationS < 600) return { measured: `${measured} (${n(s.settings!.durationS)} s)`, met: null };
      return { measured, met: s.secondHalfGrowthMbPerMin <= 2 && s.lost === 0 && s.acceptedTwice === 0 && bare === 0 };
    },
  },
  {
    figure: "the same soak: answered past 5 s (or never)",
    target: "0",
    read: (r) => {
      const s = r.soak;
      if (!s || !finite(s.pastPatience, s.settings?.durationS)) return undefined;
      const measured = s.pastPatience === 0 ? "none" : `${n(s.pastPatience! * 100, 2)} %`;
      if (s.settings!.durationS < 600) return { measured: `${measured} (${n(s.settings!.durationS)} s)`, met: null };
      return { measured, met: s.pastPatience === 0 };
    },
  },
];

/** When each part of the file was measured: the whole run, and the parts that shortcuts measured again since. */
function takenAt(r: Results): string {
  const day = (iso: unknown) => (typeof iso === "string" ? iso.slice(0, 10) : undefined);
  const parts = [
    ["most figures", day(r.takenAt)],
    ["the fleet", day(r.fleet?.takenAt)],
    ["the fleet ×10", day(r.fleet10?.takenAt)],
    ["the bursts", day(r.bursts?.takenAt)],
    ["the makespans", day(r.makespan?.takenAt)],
    ["growth", day(r.growth?.takenAt)],
    ["the deploys", day(r.deploy?.takenAt)],
    ["the WAL", day(r.wal?.takenAt)],
  ].filter(([what, d]) => d && (what === "most figures" || d !== day(r.takenAt)));
  // Parts of one day named together: "growth, the deploys and the WAL 2026-12-02".
  const days = [...new Set(parts.map(([, d]) => d))];
  return days
    .map((d) => {
      const names = parts.filter(([, x]) => x === d).map(([what]) => what!);
      const named = names.length > 1 ? `${names.slice(0, -1).join(", ")} and ${names.at(-1)}` : names[0];
      return `${named} ${d}`;
    })
    .join(", ");
}

/** The table, as bench/results.json has it. */
export function benchTable(results: Results): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const rows = ROWS.map((row) => {
    const reading = row.read(results);
    return `| ${cell(row.figure)} | ${reading ? cell(reading.measured) : "not measured"} | ${cell(row.target)} | ${reading?.met == null ? "—" : reading.met ? "yes" : "**no**"} |`;
  });
  const when = takenAt(results);
  // A yardstick of the machine itself: the rates and times above are its as much as the service's.
  const plainSdkMs = results.cpu?.plainSdkMsPerTask;
  const yardstick =
    plainSdkMs !== undefined && finite(plainSdkMs)
      ? `, where the plain SDK script spent ${ratio(plainSdkMs)} ms of CPU per resize`
      : "";
  return [
    "| figure | measured | target | met |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    `On ${results.machine?.cores ?? "?"} cores${results.smoke ? ", smoke sizes" : ""}${when ? ` (${when})` : ""}${yardstick}; the loads and [what bounds each figure](docs/benchmarks.md#what-bounds-each-figure): the benchmarks page.`,
  ].join("\n");
}

/** The README with its table replaced by the one bench/results.json gives. */
export function withBenchTable(readme: string, results: Results): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`README.md has no benchmark table markers (${START} … ${END})`);
  return `${readme.slice(0, start)}${START}\n${benchTable(results)}\n${readme.slice(end)}`;
}

async function main(argv: string[]): Promise<number> {
  const readme = await readFile(README, "utf8");
  const wanted = withBenchTable(readme, JSON.parse(await readFile(RESULTS, "utf8")) as Results);
  return writeOrCheck(
    {
      path: README,
      current: readme,
      wanted,
      what: "README.md's benchmark table",
      source: "bench/results.json",
      command: "npm run bench:table",
    },
    argv,
  );
}

runAsScript(import.meta.url, "write-bench-table", main);
