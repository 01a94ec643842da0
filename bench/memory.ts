// Peak memory while the service runs many tasks, as bench/run.ts measures it (the throughput figure: sets × perSet
// resizes, D = 50 ms, 16 submitters, one replica on SQLite polling at the simulator's pace, npm start's
// `node --max-semi-space-size=8 src/main.js`, default settings), and what that peak is made of: the sample with the
// highest RSS of the process's heap spaces, external memory, malloc's arenas and the rest (code, Node's binary,
// SQLite's pages), with the CPU per task beside it. Runs the service once per --env setting, alternated round by
// round, then prints each setting's median peak and every run's.
//
//   node bench/memory.ts [--sets N] [--per-set N] [--rounds N] [--env "label:K=V,K=V"]… [--snapshot DIR]
//     --env: settings of the service for one run, e.g. "semi4:NODE_ARGS=--max-semi-space-size=4" (NODE_ARGS: node's
//     arguments before the script);
//     --snapshot: also write a heap snapshot once every task has ended into DIR (where the peak is); bench/heap-owners.ts
//     then says what holds it.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { procStats } from "./measure.ts";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { REPO, SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const SETS = option("--sets", 1000);
const PER_SET = option("--per-set", 5);
const ROUNDS = option("--rounds", 1);
const SNAPSHOT = args.includes("--snapshot") ? args[args.indexOf("--snapshot") + 1] : undefined;
const envArgs = args.flatMap((a, i) => (a === "--env" ? [args[i + 1]] : []));
const variants = (envArgs.length ? envArgs : ["default:"]).map((v) => {
  const [label, rest] = v.split(/:(.*)/s);
  return {
    label,
    env: Object.fromEntries(
      (rest ?? "")
        .split(",")
        .filter(Boolean)
        .map((kv) => kv.split(/=(.*)/s).slice(0, 2)),
    ) as Record<string, string>,
  };
});

const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: 25 / 30_000, seed: false });
const control = new SimulatorControl(sim);
for (let i = 0; i < SETS; i++) await control.putScaleSet("demo-rg", `tp-${i}`, { capacity: 1, loadBalanced: false });
const resize = (name: string, desired: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: name,
  capacity: { min: 0, max: 10, desired },
});

/** Asks the service for a heap snapshot into dir and waits until it is written (its size stops changing). */
async function heapSnapshot(service: ChildService, dir: string): Promise<void> {
  const before = new Set(readdirSync(dir));
  service.child.kill("SIGUSR1");
  let last = -1;
  for (const until = Date.now() + 300_000; Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 500));
    const file = readdirSync(dir).find((f) => !before.has(f) && f.endsWith(".heapsnapshot"));
    const size = file ? statSync(join(dir, file)).size : -1;
    if (size > 0 && size === last) {
      process.stdout.write(
        `heap snapshot: ${join(dir, file!)} (node --max-old-space-size=4096 bench/heap-owners.ts <it>: what holds the heap)\n`,
      );
      return;
    }
    last = size;
  }
  throw new Error("the heap snapshot was not written within 5 minutes");
}

function status(pid: number, key: string): number {
  return Number(new RegExp(`${key}:\\s+(\\d+)`).exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
}

async function run(env: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-memory-"));
  const { NODE_ARGS, ...serviceEnv } = env;
  const service: ChildService = await startChildService(
    // NODE_OPTIONS in a setting is added to the sampler's; NODE_ARGS are node's arguments before the script.
    {
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      LOG_LEVEL: "info",
      TASK_STORE: "sqlite",
      DATA_DIR: dataDir,
      // As bench/run.ts's services poll: at the simulator's pace (its Retry-After is a whole second).
      LRO_MAX_POLL_INTERVAL_MS: "25",
      ...serviceEnv,
      NODE_OPTIONS: `--import=${join(REPO, "bench", "memory-sampler.mjs")}${SNAPSHOT ? " --heapsnapshot-signal=SIGUSR1 --diagnostic-dir=" + SNAPSHOT : ""} ${env.NODE_OPTIONS ?? ""}`,
    },
    { nodeArgs: NODE_ARGS ? NODE_ARGS.split(" ") : START_HEAP_FLAGS },
  );
  const pid = service.child.pid!;
  await service.waitForTask(
    (await service.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize("tp-0", 2))).body.id,
  );
  const idleMb = status(pid, "VmRSS");
  const idleCpuMs = procStats(pid).cpuMs;
  const burstStart = Date.now();
  const total = SETS * PER_SET;
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < total) {
        const i = next++;
        const res = await service.api<{ id: string }>(
          "POST",
          "/azure/ops/resizeServerGroup",
          resize(`tp-${i % SETS}`, 2 + (Math.floor(i / SETS) % 3)),
        );
        if (res.status !== 202) throw new Error(`submit: ${res.status} ${JSON.stringify(res.body)}`);
        ids[i] = res.body.id;
      }
    }),
  );
  const burstMs = Date.now() - burstStart;
  for (const id of ids) await service.waitForTask(id, 600_000);
  // Before the snapshot, which takes memory of its own to write.
  const peakMb = status(pid, "VmHWM");
  const cpuMsPerTask = (procStats(pid).cpuMs - idleCpuMs) / total;
  if (SNAPSHOT) await heapSnapshot(service, SNAPSHOT);
  service.child.kill("SIGUSR2");
  // After the heap snapshot, if one is being written: the process answers the signal once it is done.
  for (const until = Date.now() + 120_000; !service.output().includes("memory-peak ") && Date.now() < until;)
    await new Promise((r) => setTimeout(r, 20));
  const line = service
    .output()
    .split("\n")
    .find((l) => l.startsWith("memory-peak "));
  service.child.kill("SIGKILL");
  await service.exited;
  rmSync(dataDir, { recursive: true, force: true });
  return {
    idleMb,
    peakMb,
    cpuMsPerTask,
    burstMs,
    runMs: Date.now() - burstStart,
    atPeak: line ? (JSON.parse(line.slice("memory-peak ".length)) as MemoryPeak) : undefined,
  };
}

/** The sample bench/memory-sampler.mjs prints at the peak RSS. */
interface MemoryPeak {
  atMs: number;
  rssAnonMb: number;
  rssFileMb: number;
  heapUsedMb: number;
  heapTotalMb: number;
  externalMb: number;
  arrayBuffersMb: number;
  spaces: Record<string, { size: number; used: number }>;
  malloc?: { mainArenaMb: number; threadArenas: number; threadArenasMb: number };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const peaks = new Map(variants.map((v) => [v.label, { peakMb: [] as number[], cpuMs: [] as number[] }]));
process.stdout.write(`load average ${loadavg()[0].toFixed(2)}; ${SETS * PER_SET} tasks on ${SETS} scale sets\n`);
for (let r = 0; r < ROUNDS; r++) {
  for (const v of r % 2 ? [...variants].reverse() : variants) {
    const m = await run(v.env);
    peaks.get(v.label)!.peakMb.push(m.peakMb);
    peaks.get(v.label)!.cpuMs.push(m.cpuMsPerTask);
    const p = m.atPeak;
    const spaces = p
      ? Object.entries(p.spaces)
          .filter(([, s]) => s.size > 0.5)
          .map(([n, s]) => `${n.replace("_space", "")} ${s.used}/${s.size}`)
          .join(", ")
      : "";
    process.stdout.write(
      `${v.label.padEnd(16)} idle ${m.idleMb.toFixed(0)} MB, peak ${m.peakMb.toFixed(0)} MB, ${m.cpuMsPerTask.toFixed(2)} ms CPU per task (burst ${(m.burstMs / 1000).toFixed(1)} s, all run ${(m.runMs / 1000).toFixed(1)} s, peak at ${((p?.atMs ?? 0) / 1000).toFixed(1)} s of the process); at the peak: anonymous ${p?.rssAnonMb} MB, files ${p?.rssFileMb} MB; heap ${p?.heapUsedMb}/${p?.heapTotalMb} MB, external ${p?.externalMb} MB (array buffers ${p?.arrayBuffersMb}); malloc: main arena ${p?.malloc?.mainArenaMb} MB, ${p?.malloc?.threadArenas} thread arenas ${p?.malloc?.threadArenasMb} MB; spaces used/size: ${spaces}\n`,
    );
  }
}
for (const [label, p] of peaks)
  process.stdout.write(
    `${label.padEnd(16)} median peak ${median(p.peakMb).toFixed(0)} MB (runs: ${p.peakMb.map((x) => x.toFixed(0)).join(", ")}), median ${median(p.cpuMs).toFixed(2)} ms CPU per task (runs: ${p.cpuMs.map((x) => x.toFixed(2)).join(", ")})\n`,
  );
process.stdout.write(`load average ${loadavg()[0].toFixed(2)} at the end\n`);
await sim.close();
