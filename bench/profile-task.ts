// Where a task's CPU goes: the service as a user starts it (SQLite, an external simulator in this process) under
// `node --cpu-prof`, given resizes one at a time or many at once, then the profile's self time summed by function
// and by package. What docs/benchmarks.md's "where a task's CPU goes" shows.
//
//   node bench/profile-task.ts [--tasks N] [--at-once K] [--warm W] [--top N] [--poll] [--wait] [--no-profile] [--alloc] [--plain] [--env K=V] [--trace-gc] [--idle S] [--keep DIR]
//     N resizes (default 100), K at a time (default 1), each polled every 25 ms until it ends (--wait: one
//     GET /task/{id}?wait=60 instead); --poll: GET /task/{id} of an unchanged task N × 20 times instead (the read
//     path, K at a time); --warm W: W resizes first, not measured (the steady state: the first few hundred pay for
//     V8 compiling); --tasks 0: the idle service, per second, for --idle S seconds (default 5); --no-profile: only the CPU from /proc;
//     --plain: then the plain SDK script (bench/plain-sdk.ts) makes the same N resizes, K at a time, against the same
//     simulator, and the ratio of CPU per task is printed (what bench/run.ts's "CPU per task" figures compare);
//     --alloc: instead of the CPU, what the measured part allocates (V8's sampling heap profiler, freed objects
//     included: a task's garbage), per task, by function and by the nearest frame of the service's own code;
//     --keep: leave the .cpuprofile in DIR (Chrome's DevTools open it); --node-args "A B": node's heap arguments instead of
//     npm start's (e.g. "--max-semi-space-size=4"); --tree DIR: the service of another checkout (an earlier commit's
//     tree, as bench/previous-release.ts makes one), to see what a hot spot was before.
import { execFile } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";
import { cpuMsOf } from "./measure.ts";
import type { TaskView } from "./task-view.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const TASKS = option("--tasks", 100);
const AT_ONCE = option("--at-once", 1);
const TOP = option("--top", 25);
/** Resizes made before the measured ones (not measured): V8 compiles the hot paths during the first few hundred. */
const WARM = option("--warm", 0);
const POLL = args.includes("--poll");
/** The client waits for each task with one GET /task/{id}?wait=60 instead of polling it every 25 ms. */
const HELD = args.includes("--wait");
/** What the measured part allocates instead of where its CPU goes (bench/alloc-sampler.mjs). */
const ALLOC = args.includes("--alloc");
/** No CPU profiler: only the CPU the service took, from /proc. */
const UNPROFILED = args.includes("--no-profile") || ALLOC;
/** --env K=V (repeatable): a setting for the service, e.g. LOG_LEVEL=warn to see what logging costs. */
const EXTRA_ENV = Object.fromEntries(
  args.flatMap((a, i) => (a === "--env" ? [args[i + 1].split(/=(.*)/s).slice(0, 2) as [string, string]] : [])),
);
/** Seconds the service is left idle before the work, to measure what it costs doing nothing (--tasks 0: profiled). */
const IDLE_S = option("--idle", 5);
/** V8's --trace-gc: the collections during the work, counted and timed. */
const TRACE_GC = args.includes("--trace-gc");
/** The plain SDK script makes the same resizes afterwards: CPU per task, the service's against its. */
const PLAIN = args.includes("--plain");
const KEEP = args.includes("--keep") ? args[args.indexOf("--keep") + 1] : undefined;
/** Another checkout whose service is profiled instead of this tree's. */
const TREE = args.includes("--tree") ? args[args.indexOf("--tree") + 1] : undefined;
const HEAP_ARGS = args.includes("--node-args")
  ? args[args.indexOf("--node-args") + 1].split(" ").filter(Boolean)
  : START_HEAP_FLAGS;

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  startTime: number;
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface AllocationNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: AllocationNode[];
}
interface AllocationProfile {
  head: AllocationNode;
}

/** The allocation profile per task: by allocating function, and by the nearest frame in the service's own src/. */
function printAllocations(profile: AllocationProfile, per: number): void {
  const byFunction = new Map<string, number>();
  const bySource = new Map<string, number>();
  const place = (url: string) => url.replace(/^file:\/\/.*?\/(node_modules|src)\//, "$1/");
  let total = 0;
  const walk = (node: AllocationNode, nearestSrc: string) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const frame = `${functionName || "(anonymous)"} ${place(url)}${url ? `:${lineNumber + 1}` : ""}`;
    const src = /\/src\//.test(url) && !url.includes("/node_modules/") ? frame : nearestSrc;
    if (node.selfSize > 0) {
      total += node.selfSize;
      byFunction.set(frame, (byFunction.get(frame) ?? 0) + node.selfSize);
      bySource.set(src, (bySource.get(src) ?? 0) + node.selfSize);
    }
    for (const child of node.children) walk(child, src);
  };
  walk(profile.head, "(no frame of src/: Node, the HTTP server, timers)");
  const kb = (bytes: number) => `${(bytes / 1024 / per).toFixed(1).padStart(7)} KB`;
  const top = (m: Map<string, number>) =>
    [...m]
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, v]) => `${kb(v)}  ${k}`)
      .join("\n");
  console.log(`\nallocated per ${POLL ? "poll" : "task"}: ${kb(total)} (sampled every 16 KB, freed objects included)`);
  console.log(`\nby the nearest function of src/ on the stack:\n${top(bySource)}`);
  console.log(`\nby allocating function:\n${top(byFunction)}`);
}

const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: 25 / 30_000, seed: false });
const control = new SimulatorControl(sim);
const profDir = KEEP ?? mkdtempSync(join(tmpdir(), "vmss-ops-profile-"));
const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-profile-data-"));
const allocFile = join(profDir, "allocations.json");
const allocEnv: Record<string, string> = ALLOC
  ? {
      NODE_OPTIONS: `--import=${join(dirname(fileURLToPath(import.meta.url)), "alloc-sampler.mjs")} ${EXTRA_ENV.NODE_OPTIONS ?? ""}`,
      ALLOC_PROFILE_FILE: allocFile,
    }
  : {};
const resize = (name: string, desired: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: name,
  capacity: { min: 0, max: 10, desired },
});
try {
  for (let i = 0; i < TASKS; i++) {
    await control.putScaleSet("demo-rg", `prof-${i}`, { capacity: 1, loadBalanced: false });
    if (PLAIN) await control.putScaleSet("demo-rg", `plain-${i}`, { capacity: 1, loadBalanced: false });
  }
  for (let i = 0; i < WARM; i++)
    await control.putScaleSet("demo-rg", `warm-${i}`, { capacity: 1, loadBalanced: false });
  await control.putScaleSet("demo-rg", "prof-warm", { capacity: 1, loadBalanced: false });
  const s = await startChildService(
    {
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "sqlite",
      DATA_DIR: dataDir,
      LOG_LEVEL: "info",
      RATE_LIMIT_READS: "1000000000",
      ...EXTRA_ENV,
      ...allocEnv,
    },
    {
      nodeArgs: [
        ...HEAP_ARGS,
        ...(UNPROFILED ? [] : ["--cpu-prof", "--cpu-prof-dir", profDir]),
        ...(TRACE_GC ? ["--trace-gc"] : []),
      ],
      tree: TREE,
    },
  );
  const submit = async (name: string, desired: number) =>
    (await s.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(name, desired))).body.id;
  /** count resizes of <prefix>0…, AT_ONCE at a time, each waited for as the options say. */
  const resizes = async (prefix: string, count: number) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (next < count) {
          const id = await submit(`${prefix}${next++}`, 2);
          if (HELD) while (!(await s.api<TaskView>("GET", `/task/${id}?wait=60`)).body.status.completed);
          else await s.waitForTask(id);
        }
      }),
    );
  };
  const warm = await submit("prof-warm", 2);
  await s.waitForTask(warm);
  // --warm N: N resizes first, as many at a time, so that what is measured is the steady state, not V8 compiling.
  await resizes("warm-", WARM);
  // From here on (the profile's clock is the monotonic one, in µs): start-up and the warm-up are left out.
  // What the service costs doing nothing: its timers (claims, lease renewals, metrics), per second.
  const idle0 = cpuMsOf(s.child.pid!);
  const idleFrom = Number(process.hrtime.bigint() / 1000n);
  await new Promise((r) => setTimeout(r, IDLE_S * 1000));
  const idleMsPerSecond = (cpuMsOf(s.child.pid!) - idle0) / IDLE_S;
  const from = TASKS === 0 ? idleFrom : Number(process.hrtime.bigint() / 1000n);
  if (ALLOC) s.child.kill("SIGUSR2");
  const cpu0 = cpuMsOf(s.child.pid!);
  const outputFrom = s.output().length;
  const wall0 = performance.now();
  if (POLL) {
    let polled = 0;
    await Promise.all(
      Array.from({ length: AT_ONCE }, async () => {
        while (polled++ < TASKS * 20) await s.api("GET", `/task/${warm}`);
      }),
    );
  } else await resizes("prof-", TASKS);
  const cpuMs = cpuMsOf(s.child.pid!) - cpu0;
  if (TRACE_GC) {
    const lines = s.output().slice(outputFrom).split("\n");
    for (const kind of ["Scavenge", "Mark-Compact", "Mark-Compact (reduce)"]) {
      const ms = lines
        .filter((l) => l.includes(`: ${kind} `))
        .map((l) => Number(/, ([\d.]+) \/ [\d.]+ ms/.exec(l)?.[1] ?? 0));
      console.log(`${kind}: ${ms.length} collections, ${ms.reduce((a, b) => a + b, 0).toFixed(1)} ms`);
    }
  }
  const wallS = (performance.now() - wall0) / 1000;
  console.log(
    `idle: ${idleMsPerSecond.toFixed(2)} ms of CPU a second; the work took ${wallS.toFixed(1)} s (${((wallS / (POLL ? TASKS * 20 : TASKS)) * 1000).toFixed(0)} ms each)`,
  );
  s.child.kill("SIGTERM");
  await s.exited;
  if (UNPROFILED) {
    console.log(
      `${POLL ? `${TASKS * 20} polls` : `${TASKS} resizes, ${AT_ONCE} at once${HELD ? ", each waited for with ?wait=" : ""}`}: ${(cpuMs / (POLL ? TASKS * 20 : TASKS)).toFixed(2)} ms of CPU each (/proc)`,
    );
  }
  if (PLAIN && !POLL && TASKS > 0) {
    // Its own process, run asynchronously: the simulator it talks to lives in this one.
    const script = join(dirname(fileURLToPath(import.meta.url)), "plain-sdk.ts");
    const argv = [
      "resizes",
      sim.url,
      SIMULATOR_CA_FILE,
      sim.subscriptionId,
      "demo-rg",
      "plain-",
      String(TASKS),
      String(AT_ONCE),
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [script, ...argv], { encoding: "utf8" });
    const plain = JSON.parse(stdout.trim().split("\n").at(-1)!) as { cpuMs: number; failed: number };
    const service = cpuMs / TASKS;
    console.log(
      `plain SDK script: ${(plain.cpuMs / TASKS).toFixed(2)} ms of CPU per resize (${plain.failed} failed); service / plain: ${(service / (plain.cpuMs / TASKS)).toFixed(2)}${UNPROFILED ? "" : " (the service profiled)"}`,
    );
  }
  if (ALLOC)
    printAllocations(JSON.parse(readFileSync(allocFile, "utf8")) as AllocationProfile, POLL ? TASKS * 20 : TASKS);
  if (UNPROFILED) process.exit(0);
  // The main thread's is the largest (a loader thread writes one of its own).
  const file = readdirSync(profDir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .sort((a, b) => statSync(join(profDir, b)).size - statSync(join(profDir, a)).size)[0];
  if (!file) throw new Error(`no profile written in ${profDir}`);
  const profile = JSON.parse(readFileSync(join(profDir, file), "utf8")) as Profile;
  const self = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= from) self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const where = (url: string) => {
    const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
    if (m) return m[1];
    if (url.includes("/src/")) return `src/${url.split("/src/")[1].split("/")[0]}`;
    return url.startsWith("node:") ? "node:" + url.slice(5).split("/")[0] : url || "(V8: gc, program, idle)";
  };
  const byFunction = new Map<string, number>();
  const byPackage = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === "(idle)") continue;
    const key = `${functionName || "(anonymous)"} ${url ? `${url.replace(/^.*\/(node_modules|src)\//, "$1/")}:${lineNumber + 1}` : ""}`;
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    byPackage.set(where(url), (byPackage.get(where(url)) ?? 0) + us);
  }
  const work =
    total -
    [...self].filter(([id]) => byId.get(id)!.callFrame.functionName === "(idle)").reduce((a, [, us]) => a + us, 0);
  const per = POLL ? TASKS * 20 : TASKS || IDLE_S;
  const table = (m: Map<string, number>) =>
    [...m]
      .filter(([k]) => k !== "(idle) ")
      .sort((a, b) => b[1] - a[1])
      .slice(0, TOP)
      .map(([k, us]) => `${((100 * us) / work).toFixed(1).padStart(5)} %  ${(us / 1000 / per).toFixed(3)} ms  ${k}`)
      .join("\n");
  console.log(
    `${POLL ? `${per} polls` : `${TASKS} resizes, ${AT_ONCE} at once`}: ${(cpuMs / per).toFixed(2)} ms of CPU each (/proc, profiler included); profiled ${(work / 1000 / per).toFixed(2)} ms each (samples are wall time: inflated on a loaded machine, shares still hold)\n`,
  );
  console.log(
    `by package or folder (self time):\n${table(byPackage)}\n\nby function (self time):\n${table(byFunction)}`,
  );
} finally {
  await sim.close();
  if (!KEEP) rmSync(profDir, { recursive: true, force: true });
  rmSync(dataDir, { recursive: true, force: true });
}
