// npm run bench: the service's figures against their targets, as ratios measured in one run (this machine is
// shared and noisy: both sides of a ratio see the same noise). Writes bench/results.json and bench/makespan.svg
// (or, with --smoke, tiny sizes into the directory given by --out: what `npm test` runs so this cannot rot; the
// smoke figures mean nothing and are never asserted).
//
// The service runs as a user starts it (npm start's command, `node --max-semi-space-size=8 src/main.js`, default
// settings, external simulator in this process), but where a figure is bound by the end of a write, it polls at the simulator's pace (FAST_POLLS); its
// CPU time and peak RSS are read from /proc. One setting differs where reads are measured: the per-caller read limit
// (RATE_LIMIT_READS, 60,000 a minute) is raised, since one caller reading as fast as it can passes it within
// seconds; the limiter still counts every request. The plain-SDK baseline and the bare fastify reference run as
// processes of their own (bench/plain-sdk.ts, bench/bare-fastify.ts).
import { execFile, spawn } from "node:child_process";
import { promisify } from "node:util";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { Agent, request } from "undici";
import { SimulatorControl } from "../src/simulator/control-client.ts";
import { startSimulator } from "../src/simulator/simulator.ts";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { freePort, SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import { makespanChart } from "./chart.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import type { TaskStore } from "../src/tasks/task-store.ts";
import { AZURE_ARM_BUDGETS, budgetFigures, chargeOf } from "../src/azure/arm-budget.ts";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { holdWaiters, WAITERS } from "./waiters.ts";
import { procStats, readRate } from "./measure.ts";
import { parseBenchArgs, USAGE } from "./run-args.ts";
import { mergeResults } from "./results-file.ts";
import type { TaskView } from "./task-view.ts";

const execFileAsync = promisify(execFile);
const HERE = dirname(fileURLToPath(import.meta.url));
const parsed = parseBenchArgs(process.argv.slice(2), HERE);
if (!parsed.ok) {
  process.stderr.write(`bench: ${parsed.message}\n\n${USAGE}`);
  process.exit(2);
}
if (parsed.args.help) {
  process.stdout.write(USAGE);
  process.exit(0);
}
const SMOKE = parsed.args.smoke;
/** Only the fleet and the claim figures, merged into the results.json in --out (a busy machine's shortcut). */
const ONLY_FLEET = parsed.args.part === "only-fleet";
/** The fleet and claim figures are taken from the results.json already in --out, not measured (a busy machine's shortcut). */
const SKIP_FLEET = parsed.args.part === "skip-fleet";
/** Only the burst figures (see burst()), merged into the results.json in --out. */
const ONLY_BURST = parsed.args.part === "only-burst";
/** Only the makespans, the plain script's burst and the ARM calls per resize (see ordering()), merged likewise. */
const ONLY_MAKESPAN = parsed.args.part === "only-makespan";
const OUT = parsed.args.out;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const sizes = SMOKE
  ? {
      D: 40,
      pollHint: 20,
      ks: [1, 2],
      cpuTasks: 6,
      serialTasks: 3,
      sets: 4,
      perSet: 2,
      submissions: 20,
      burst: 40,
      readSeconds: 0.3,
      storeTasks: 50,
      startRounds: 1,
      claimQueue: [10, 100],
      claimRounds: 3,
    }
  : {
      D: 500,
      pollHint: 25,
      ks: [1, 5, 10, 20],
      cpuTasks: 300,
      serialTasks: 60,
      sets: 1000,
      perSet: 5,
      submissions: 2000,
      burst: 10_000,
      readSeconds: 3,
      storeTasks: 10_000,
      startRounds: 3,
      claimQueue: [10, 10_000],
      claimRounds: 60,
    };
/**
 * The fleet: scale sets and operations in one subscription, 3 replicas on PostgreSQL, the simulator at Azure's
 * throttling figures at a time scale chosen so that the subscription's budget bounds the run at about `boundS`
 * seconds. FLEET_SETS / FLEET_OPS scale it down on a small machine (reported with the figures).
 */
const fleetSizes = SMOKE
  ? { sets: 2, ops: 4, replicas: 2, boundS: 2 }
  : {
      sets: Number(process.env.FLEET_SETS ?? 1000),
      ops: Number(process.env.FLEET_OPS ?? 5000),
      replicas: 3,
      boundS: Number(process.env.FLEET_BOUND_S ?? 90),
    };
const THROUGHPUT_D = SMOKE ? 20 : 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const log = (line: string) => process.stderr.write(`bench: ${line}\n`);

const sim = await startSimulator({
  port: 0,
  writeDurationMs: sizes.D,
  timeScale: sizes.pollHint / 30_000,
  seed: false,
});
const control = new SimulatorControl(sim);
const caFile = SIMULATOR_CA_FILE;
const dirs: string[] = [];
const children: ChildService[] = [];
const databases: string[] = [];
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "vmss-ops-bench-"));
  dirs.push(d);
  return d;
}

async function database(): Promise<string> {
  const name = `vmss_ops_bench_${randomBytes(4).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  databases.push(name);
  return Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
}

/** Reads as fast as one caller can send them pass the default per-caller read limit; the limiter still counts them. */
const UNLIMITED_READS = { RATE_LIMIT_READS: "1000000000" };

/**
 * The simulator advertises a write's Retry-After as Azure does, in whole seconds (at least 1), while its writes last
 * D = 50 or 500 ms: at its default cap (120 s) the service would wait a second before its first poll, and every
 * figure bound by the end of a write would measure that second. A user running against a fast simulator caps the
 * wait at the simulator's scaled poll interval, as the tests do: the makespans, the ARM calls per resize, the CPU per
 * task and the throughput are measured so (the plain SDK script polls at the same interval: see plainSdk()).
 */
const FAST_POLLS = { LRO_MAX_POLL_INTERVAL_MS: String(sizes.pollHint) };
/** Replicas on one PostgreSQL database for the makespan of K resizes submitted round-robin. */
const MAKESPAN_REPLICAS = 3;

/** The service as a user starts it (npm start's command, default settings, the external simulator), warmed up by one resize. */
async function service(env: Record<string, string>): Promise<ChildService> {
  const s = await startChildService(
    { SIMULATOR_URL: sim.url, SIMULATOR_CA_FILE: caFile, LOG_LEVEL: "info", ...env },
    { nodeArgs: START_HEAP_FLAGS },
  );
  children.push(s);
  const name = `warm-${children.length}`;
  await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
  await waitAll(s, [await submit(s, name, 2)], 5);
  return s;
}

async function stop(s: ChildService): Promise<void> {
  s.child.kill("SIGKILL");
  await s.exited;
}

async function setWriteDuration(ms: number) {
  await control.request("PUT", "/_sim/config", { body: { writeDurationMs: ms } });
}

function resize(name: string, desired: number) {
  return { credentials: "demo", region: "eastus", serverGroupName: name, capacity: { min: 0, max: 10, desired } };
}

async function submit(via: ChildService, name: string, desired: number): Promise<string> {
  const res = await via.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(name, desired));
  if (res.status !== 202) throw new Error(`submit ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

/** Waits for every task, polling each in turn; returns them. */
async function waitAll(via: ChildService, ids: string[], pollMs = 20): Promise<TaskView[]> {
  const out: TaskView[] = [];
  for (const id of ids) {
    for (;;) {
      const { body } = await via.api<TaskView>("GET", `/task/${id}`);
      if (body.status.completed) {
        out.push(body);
        break;
      }
      await sleep(pollMs);
    }
  }
  return out;
}

// ---- 1. K resizes of one scale set, in order: makespan against K·D ----
async function makespan(label: string, replicas: ChildService[], k: number) {
  const name = `mk-${label}-${k}`;
  await control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
  await control.clearCalls();
  const wanted = Array.from({ length: k }, (_, i) => (i % 2 === 0 ? 2 : 1));
  const t0 = Date.now();
  const ids: string[] = [];
  for (let i = 0; i < k; i++) ids.push(await submit(replicas[i % replicas.length], name, wanted[i]));
  const tasks = await waitAll(replicas[0], ids, 5);
  const end = Math.max(...tasks.map((t) => t.endTimeMs ?? 0));
  const calls = (await control.calls()).filter((c) => c.path.toLowerCase().endsWith(`/${name}`));
  const writes = calls.filter((c) => c.method === "PATCH" || c.method === "PUT");
  const capacity = ((await control.getScaleSet("demo-rg", name)).vmss as { sku: { capacity: number } }).sku.capacity;
  return {
    k,
    makespanMs: end - t0,
    boundMs: k * sizes.D,
    ratio: (end - t0) / (k * sizes.D),
    writes: writes.length,
    refused: calls.filter((c) => c.status === 409 || c.status === 412).length,
    failedTasks: tasks.filter((t) => t.status.failed).length,
    lastSubmittedWins: capacity === wanted.at(-1),
  };
}

/** What bench/plain-sdk.ts prints last: the CPU it spent on its resizes, or the outcome of its burst. */
interface PlainSdkRun {
  n: number;
  failed: number;
  cpuMs: number;
  wallMs: number;
}
interface PlainSdkBurst {
  n: number;
  succeeded: number;
  refused: number;
  otherFailures: number;
}

/** Runs bench/plain-sdk.ts (asynchronously: the simulator it talks to lives in this process). */
async function plainSdk<R extends PlainSdkRun | PlainSdkBurst>(argv: string[]): Promise<R> {
  const { stdout } = await execFileAsync(process.execPath, [join(HERE, "plain-sdk.ts"), ...argv], { encoding: "utf8" });
  return JSON.parse(stdout.trim().split("\n").at(-1)!) as R;
}

// ---- 5. GET /task/{id} against a bare fastify route with the same body ----

async function bareFastify(bodyFile: string): Promise<{ url: string; kill: () => void }> {
  const child = spawn(process.execPath, [join(HERE, "bare-fastify.ts"), bodyFile], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /listening (\d+)/.exec(out);
      if (m) resolve(Number(m[1]));
    });
    child.on("exit", (code) => reject(new Error(`bare fastify exited ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, kill: () => child.kill("SIGKILL") };
}

// ---- 7. Start to first /health ----
async function startToHealth(dataDir: string): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const s = await startChildService(
    { SIMULATOR_URL: sim.url, SIMULATOR_CA_FILE: caFile, TASK_STORE: "sqlite", DATA_DIR: dataDir, PORT: String(port) },
    { waitForListen: false, nodeArgs: START_HEAP_FLAGS },
  );
  children.push(s);
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  const ms = performance.now() - t0;
  await stop(s);
  return ms;
}

async function submissionRate(via: ChildService, prefix: string, n: number): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < n) {
        const i = next++;
        await submit(via, `${prefix}${i % sizes.sets}`, 2 + (i % 3));
      }
    }),
  );
  return n / ((performance.now() - t0) / 1000);
}

/**
 * How much of a core a busy process gets right now: CPU time over wall time of a 300 ms spin. On a quiet machine
 * about 1; well below 1, other work is competing and every absolute figure here is inflated.
 */
function cpuShare(): number {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < 300);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / (performance.now() - t0);
}

// ---- 9. Claim cost with a deep queue against a shallow one ----
/**
 * A store with `queued` tasks waiting behind a running one on a busy scale set, settled (on PostgreSQL vacuumed and
 * analyzed, as autovacuum leaves a queue that waits).
 */
async function queuedStore(store: TaskStore, queued: number, settle?: () => Promise<void>): Promise<TaskStore> {
  const op = { name: "resizeServerGroup", description: resize("claim", 2) };
  await store.create({ operations: [op], scaleSets: ["bench/rg/busy"] });
  for (let i = 0; i < queued; i += 500) {
    await Promise.all(
      Array.from({ length: Math.min(500, queued - i) }, () =>
        store.create({ operations: [op], scaleSets: ["bench/rg/busy"] }),
      ),
    );
  }
  const running = await store.claim("bench", 3_600_000, 10);
  if (running.length !== 1) throw new Error(`claim cost: expected the head of the queue, got ${running.length}`);
  await settle?.();
  return store;
}

/** One claim that takes one task on a free scale set while the queue waits: what every task's end costs a replica. */
async function timedClaim(store: TaskStore, round: number): Promise<number> {
  const op = { name: "resizeServerGroup", description: resize("claim", 2) };
  await store.create({ operations: [op], scaleSets: [`bench/rg/free-${round}`] });
  const t0 = performance.now();
  const got = await store.claim("bench", 3_600_000, 10);
  const ms = performance.now() - t0;
  if (got.length !== 1) throw new Error(`claim cost: expected the free task, got ${got.length}`);
  await store.update("bench", got[0].id, { state: "succeeded", finishedAtMs: Date.now() });
  return ms;
}

/**
 * The median claim time of each store, the stores' claims alternating round by round (the store alone, in this
 * process): the load other work puts on the machine drifts within seconds, and alternating lays it on every depth
 * alike, so the ratio compares like with like.
 */
async function claimCosts(stores: TaskStore[]): Promise<number[]> {
  const times: number[][] = stores.map(() => []);
  for (let round = 0; round < sizes.claimRounds; round++) {
    for (const [i, store] of stores.entries()) times[i].push(await timedClaim(store, round));
  }
  for (const store of stores) await store.close();
  return times.map(median);
}

// ---- 10. The fleet: one subscription's budget shared by 3 replicas ----
/** The bound a subscription's budget sets on a run: per bucket, the calls beyond its burst over its refill rate. */
function budgetBoundMs(
  calls: { method: string; path: string; ifMatch: string | null }[],
  refillScale: number,
): { boundMs: number; bucket: string; perBucket: Record<string, number> } {
  const figures = budgetFigures({ refillScale });
  const counts = new Map<string, { n: number; burst: number; perMinute: number }>();
  for (const c of calls) {
    const request = {
      url: `https://arm.invalid${c.path}`,
      method: c.method,
      headers: { get: (h: string) => (h === "if-match" ? (c.ifMatch ?? undefined) : undefined) },
    };
    const charge = chargeOf(request as never, figures);
    for (const b of charge?.buckets ?? []) {
      const entry = counts.get(b.key) ?? { n: 0, burst: b.figures.burst, perMinute: b.figures.refillPerMinute };
      entry.n++;
      counts.set(b.key, entry);
    }
  }
  let boundMs = 0;
  let bucket = "";
  const perBucket: Record<string, number> = {};
  for (const [key, { n, burst, perMinute }] of counts) {
    const ms = (Math.max(0, n - burst) * 60_000) / perMinute;
    if (!key.includes("/", key.indexOf("/") + 1) || key.includes("arm:"))
      perBucket[key.slice(key.indexOf("/") + 1)] = n;
    if (ms > boundMs) [boundMs, bucket] = [ms, key.slice(key.indexOf("/") + 1)];
  }
  return { boundMs, bucket, perBucket };
}

async function fleet(shared: boolean, timeScale: number) {
  const databaseUrl = await database();
  const env = {
    TASK_STORE: "postgres",
    DATABASE_URL: databaseUrl,
    // The simulator's time scale: the budget refills as fast as the simulator's buckets.
    SIMULATOR_TIME_SCALE: String(timeScale),
    ARM_BUDGET_REFILL_SCALE: String(1 / timeScale),
    ARM_BUDGET_SHARED: String(shared),
    LOG_LEVEL: "warn",
  };
  const replicas = await Promise.all(
    Array.from({ length: fleetSizes.replicas }, (_, i) =>
      service({ ...env, REPLICA_ID: `fleet-${shared ? "shared" : "apart"}-${i}` }),
    ),
  );
  for (let i = 0; i < fleetSizes.sets; i++)
    await control.putScaleSet("demo-rg", `fleet-${i}`, { capacity: 1, loadBalanced: false });
  // Full buckets, Azure's figures, at the fleet's time scale; only this run's calls in the log.
  await control.setConfig({ timeScale });
  await control.setThrottling({ enabled: true, scale: 1, policies: {} });
  await control.clearCalls();
  const t0 = Date.now();
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < fleetSizes.ops) {
        const i = next++;
        const via = replicas[i % replicas.length];
        const name = `fleet-${i % fleetSizes.sets}`;
        const kind = Math.floor(i / fleetSizes.sets) % 3;
        const body = { credentials: "demo", region: "eastus", serverGroupName: name };
        const res =
          kind === 0
            ? await via.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(name, 2 + (i % 2)))
            : await via.api<{ id: string }>(
                "POST",
                `/azure/ops/${kind === 1 ? "disableServerGroup" : "enableServerGroup"}`,
                body,
              );
        if (res.status !== 202) throw new Error(`fleet submit ${name}: ${res.status} ${JSON.stringify(res.body)}`);
        ids[i] = res.body.id;
      }
    }),
  );
  const tasks = await waitAll(replicas[0], ids, 100);
  const end = Math.max(...tasks.map((t) => t.endTimeMs ?? 0));
  const calls = await control.calls();
  const refillScale = 1 / timeScale;
  const bound = budgetBoundMs(calls, refillScale);
  for (const r of replicas) await stop(r);
  await control.setThrottling({ enabled: false });
  return {
    shared,
    scaleSets: fleetSizes.sets,
    operations: fleetSizes.ops,
    replicas: fleetSizes.replicas,
    makespanMs: end - t0,
    budgetBoundMs: Math.round(bound.boundMs),
    boundingBucket: bound.bucket,
    // A run that fits in the buckets' bursts has no bound from the budget (at smoke sizes): 0.
    ratio: bound.boundMs > 0 ? (end - t0) / bound.boundMs : 0,
    armCalls: calls.length,
    throttled: calls.filter((c) => c.status === 429).length,
    failedTasks: tasks.filter((t) => t.status.failed).length,
    callsPerSubscriptionBucket: bound.perBucket,
  };
}

// ---- 11. A burst of submissions while tasks run ----
/** Callers sending the burst, each its next submission as soon as the last is answered. */
const BURST_CALLERS = 32;
/** Refusals that lose nothing: the caller is told when to come back. */
const REFUSALS = new Set([429, 503]);

/**
 * sizes.burst submissions from BURST_CALLERS callers onto sizes.sets scale sets (created here when missing), into a
 * fresh replica whose tasks run meanwhile, at D = THROUGHPUT_D: the rate they are accepted at, each answer's
 * latency, that none is lost (each 202, or 429/503 with Retry-After; a refused one is not sent again) and that every
 * accepted task then runs to its end. The per-caller submission limit is off: a burst this size comes from many
 * pipelines, not one caller.
 */
async function burst(env: Record<string, string>) {
  for (let i = 0; i < sizes.sets; i++)
    await control.putScaleSet("demo-rg", `burst-${i}`, { capacity: 1, loadBalanced: false });
  const s = await service({ ...env, RATE_LIMIT_SUBMISSIONS: "0" });
  const n = sizes.burst;
  const agent = new Agent({ connections: BURST_CALLERS });
  const latencies: number[] = [];
  const ids: string[] = [];
  const refused: { status: number; retryAfter: string | undefined }[] = [];
  const lost: string[] = [];
  const cpu0 = procStats(s.child.pid!).cpuMs;
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: BURST_CALLERS }, async () => {
      while (next < n) {
        const i = next++;
        const sent = performance.now();
        try {
          const res = await request(`${s.url}/azure/ops/resizeServerGroup`, {
            dispatcher: agent,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(resize(`burst-${i % sizes.sets}`, 2 + (Math.floor(i / sizes.sets) % 3))),
          });
          const body = (await res.body.json()) as { id?: string };
          latencies.push(performance.now() - sent);
          const retryAfter = res.headers["retry-after"] as string | undefined;
          if (res.statusCode === 202 && body.id) ids.push(body.id);
          else if (REFUSALS.has(res.statusCode) && retryAfter) refused.push({ status: res.statusCode, retryAfter });
          else lost.push(`${res.statusCode} ${JSON.stringify(body)}`);
        } catch (err) {
          lost.push(String(err));
        }
      }
    }),
  );
  const burstS = (performance.now() - t0) / 1000;
  const acceptCpuMs = procStats(s.child.pid!).cpuMs - cpu0;
  await agent.close();
  // Every accepted task must end; one that has not after a minute without any task ending is reported, not waited
  // for (a task left in the queue would hang the benchmark).
  const tasks: TaskView[] = [];
  let lastProgress = performance.now();
  for (const id of ids) {
    for (;;) {
      const { body } = await s.api<TaskView>("GET", `/task/${id}`);
      if (body.status.completed) {
        tasks.push(body);
        lastProgress = performance.now();
        break;
      }
      if (performance.now() - lastProgress > 60_000) break;
      await sleep(20);
    }
  }
  const ranS = (performance.now() - t0) / 1000;
  await stop(s);
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return {
    submissions: n,
    callers: BURST_CALLERS,
    acceptedPerSecond: ids.length / burstS,
    answeredPerSecond: latencies.length / burstS,
    burstSeconds: burstS,
    p50Ms: pct(50),
    p99Ms: pct(99),
    maxMs: sorted.at(-1) ?? 0,
    accepted: ids.length,
    refusedWithRetryAfter: refused.length,
    lost: lost.length,
    lostExamples: lost.slice(0, 3),
    tasksRun: tasks.length,
    tasksNeverRun: ids.length - tasks.length,
    tasksFailed: tasks.filter((t) => t.status.failed).length,
    secondsToRunAll: ranS,
    serviceCpuMsDuringBurst: acceptCpuMs,
  };
}

type BurstResult = Awaited<ReturnType<typeof burst>>;

function burstRow(store: string, target: number, b: BurstResult) {
  const met =
    b.acceptedPerSecond >= target && b.p99Ms <= 50 && b.lost === 0 && b.tasksRun === b.accepted && b.tasksFailed === 0;
  return {
    figure: `a burst of ${b.submissions} submissions while tasks run, 1 replica, ${store}: accepted per second (/ ${target.toLocaleString("en")})`,
    measured: b.acceptedPerSecond / target,
    target: "≥ 1, p99 ≤ 50 ms, none lost, every task run",
    met,
    detail: `${b.acceptedPerSecond.toFixed(0)}/s from ${b.callers} callers, p50 ${b.p50Ms.toFixed(1)} ms, p99 ${b.p99Ms.toFixed(1)} ms; ${b.accepted} accepted, ${b.refusedWithRetryAfter} refused with Retry-After, ${b.lost} lost; ${b.tasksRun} run (${b.tasksFailed} failed)${b.tasksNeverRun ? `, ${b.tasksNeverRun} NEVER RAN` : ""} ${b.secondsToRunAll.toFixed(0)} s after the first`,
  };
}

async function bursts() {
  await setWriteDuration(THROUGHPUT_D);
  const sqlite = await burst({ TASK_STORE: "sqlite", DATA_DIR: tempDir() });
  log(`burst, SQLite: ${burstRow("SQLite", 2000, sqlite).detail}`);
  const postgres = await burst({ TASK_STORE: "postgres", DATABASE_URL: await database(), REPLICA_ID: "burst" });
  log(`burst, PostgreSQL: ${burstRow("PostgreSQL", 1000, postgres).detail}`);
  return {
    result: { sqlite, postgres, loadAverage: loadavg().map((x) => Number(x.toFixed(2))) },
    rows: [burstRow("SQLite", 2000, sqlite), burstRow("PostgreSQL", 1000, postgres)],
  };
}

// ---- 1 to 3. K resizes of one scale set in order; the same K from a plain script; the ARM calls of a resize ----
/**
 * The makespans of K resizes of one scale set against K·D, on `one` (1 replica, SQLite) and on MAKESPAN_REPLICAS
 * replicas sharing PostgreSQL (started here, stopped at the end), both polling at the simulator's scaled interval;
 * the plain SDK script sending the same K at once; the ARM calls of one uncontended resize on `one`.
 */
async function ordering(one: ChildService) {
  await setWriteDuration(sizes.D);
  const databaseUrl = await database();
  // Started side by side (start-up is what takes longest at smoke sizes).
  const replicas = await Promise.all(
    Array.from({ length: MAKESPAN_REPLICAS }, (_, i) =>
      service({ TASK_STORE: "postgres", DATABASE_URL: databaseUrl, REPLICA_ID: `bench-${i}`, ...FAST_POLLS }),
    ),
  );
  const makespanOne = [];
  for (const k of sizes.ks) makespanOne.push(await makespan("one", [one], k));
  log(`makespan, 1 replica: ${makespanOne.map((m) => `K=${m.k} ${m.ratio.toFixed(2)}`).join(", ")}`);
  const makespanReplicated = [];
  for (const k of sizes.ks) makespanReplicated.push(await makespan("replicated", replicas, k));
  log(
    `makespan, ${MAKESPAN_REPLICAS} replicas on PostgreSQL: ${makespanReplicated.map((m) => `K=${m.k} ${m.ratio.toFixed(2)}`).join(", ")}`,
  );
  for (const r of replicas) await stop(r);

  // The plain SDK script sending the same K changes at once.
  const kMax = sizes.ks.at(-1)!;
  await control.putScaleSet("demo-rg", "mk-plain", { capacity: 1, loadBalanced: false });
  const plainBurst = await plainSdk<PlainSdkBurst>([
    "burst",
    sim.url,
    caFile,
    sim.subscriptionId,
    "demo-rg",
    "mk-plain",
    String(kMax),
  ]);
  log(`plain SDK burst of ${kMax}: ${plainBurst.refused} refused with 409`);

  // The ARM calls of one uncontended resize.
  await control.putScaleSet("demo-rg", "calls-1", { capacity: 1, loadBalanced: false });
  await control.clearCalls();
  const [callTask] = await waitAll(one, [await submit(one, "calls-1", 3)], 5);
  let seenWrite = false;
  const breakdown = { read: 0, write: 0, poll: 0, finalGet: 0 };
  for (const c of await control.calls()) {
    if (c.method === "PATCH") {
      breakdown.write++;
      seenWrite = true;
    } else if (/\/operations\//i.test(c.path)) breakdown.poll++;
    else if (c.method === "GET" && seenWrite) breakdown.finalGet++;
    else if (c.method === "GET") breakdown.read++;
  }
  // The final GET, and the VM list that confirms the result (a capacity is confirmed only when the VMs agree).
  const minimumCalls = 1 + 1 + Math.ceil(sizes.D / sizes.pollHint) + 1 + 1;
  const armCalls = {
    ...breakdown,
    total: callTask.armCalls,
    minimum: minimumCalls,
    ratio: callTask.armCalls / minimumCalls,
  };
  log(`ARM calls per resize: ${armCalls.total} (minimum ${minimumCalls})`);

  const one20 = makespanOne.at(-1)!;
  const many20 = makespanReplicated.at(-1)!;
  const rows = [
    {
      figure: `K = ${one20.k} resizes of one scale set, 1 replica: makespan / (K·D)`,
      measured: one20.ratio,
      target: "≤ 1.1, exactly K writes, 0 refused",
      met: one20.ratio <= 1.1 && one20.writes === one20.k && one20.refused === 0,
      detail: `${one20.makespanMs} ms for K·D = ${one20.boundMs} ms; ${one20.writes} writes, ${one20.refused} refused`,
    },
    {
      figure: `the same on ${MAKESPAN_REPLICAS} replicas sharing PostgreSQL`,
      measured: many20.ratio,
      target: "≤ 1.1, exactly K writes, 0 refused, last submitted wins",
      met: many20.ratio <= 1.1 && many20.writes === many20.k && many20.refused === 0 && many20.lastSubmittedWins,
      detail: `${many20.makespanMs} ms; ${many20.writes} writes, ${many20.refused} refused, last submitted ${many20.lastSubmittedWins ? "wins" : "LOST"}`,
    },
    {
      figure: `the same ${kMax} changes sent at once by a plain SDK script`,
      measured: plainBurst.refused,
      target: "reported beside it",
      met: null,
      detail: `${plainBurst.succeeded} succeeded, ${plainBurst.refused} refused with 409`,
    },
    {
      figure: "ARM calls per uncontended resize / minimum",
      measured: armCalls.ratio,
      target: "1 (1 read + 1 write + ⌈D / poll⌉ + 1 final GET + 1 VM list that confirms)",
      met: armCalls.total <= minimumCalls,
      detail: `${armCalls.total}: ${breakdown.read} read + ${breakdown.write} write + ${breakdown.poll} polls + ${breakdown.finalGet} final GET and VM list; minimum ${minimumCalls}`,
    },
  ];
  return {
    makespan: {
      oneReplicaSqlite: makespanOne,
      replicasPostgres: { replicas: MAKESPAN_REPLICAS, runs: makespanReplicated },
      plainSdkBurst: plainBurst,
      lroMaxPollIntervalMs: sizes.pollHint,
    },
    armCalls,
    rows,
  };
}

type Makespans = Awaited<ReturnType<typeof ordering>>["makespan"];

function writeChart(m: Makespans): void {
  mkdirSync(OUT, { recursive: true });
  writeFileSync(
    join(OUT, "makespan.svg"),
    makespanChart(
      [
        {
          label: "1 replica, SQLite",
          color: "#1f77b4",
          points: m.oneReplicaSqlite.map((x) => [x.boundMs, x.makespanMs]),
        },
        {
          label: `${m.replicasPostgres.replicas} replicas, PostgreSQL`,
          color: "#d62728",
          points: m.replicasPostgres.runs.map((x) => [x.boundMs, x.makespanMs]),
        },
      ],
      `K resizes of one scale set, D = ${sizes.D} ms, polls every ${m.lroMaxPollIntervalMs} ms at most`,
      1.1,
    ),
  );
}

const FLEET_ROWS = /^fleet:|^claim with|^the same with each replica|^the same, SQLite$/;

/** The fleet and claim figures of the run that wrote DIR/results.json (--skip-fleet). */
function earlierFleetAndClaims() {
  const earlier = JSON.parse(readFileSync(join(OUT, "results.json"), "utf8")) as {
    table: { figure: string; measured: number; target: string; met: boolean | null; detail: string }[];
    claims: Record<string, unknown>;
    fleet: Record<string, unknown>;
  };
  const newRows = earlier.table.filter((r) => FLEET_ROWS.test(r.figure));
  return { claims: earlier.claims, fleetResult: earlier.fleet, newRows };
}

/** Merges rows into DIR/results.json (see mergeResults) and says where. */
function mergeIntoResults(
  rows: { figure: string }[],
  extra: Record<string, unknown>,
  drop: (figure: string) => boolean = () => false,
): void {
  const path = mergeResults(OUT, rows, extra, drop);
  log(`merged into ${path}; npm run bench:table writes the README's table from it`);
}

const results: Record<string, unknown> = {};
const shareAtStart = cpuShare();
try {
  sections: {
    log(
      `machine: ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(1)} GiB${SMOKE ? "; smoke sizes" : ""}`,
    );
    if (ONLY_BURST) {
      const { result, rows } = await bursts();
      mergeIntoResults(rows, {
        bursts: {
          ...result,
          takenAt: new Date().toISOString(),
          cpuShareAtStart: Number(shareAtStart.toFixed(2)),
          cpuShareAtEnd: Number(cpuShare().toFixed(2)),
        },
      });
      for (const r of rows)
        console.log(`| ${r.figure} | ${r.measured.toFixed(2)} | ${r.target} | ${r.met ? "yes" : "no"} | ${r.detail} |`);
      break sections;
    }
    if (ONLY_MAKESPAN) {
      const one = await service({ TASK_STORE: "sqlite", DATA_DIR: tempDir(), ...UNLIMITED_READS, ...FAST_POLLS });
      const order = await ordering(one);
      await stop(one);
      mergeIntoResults(order.rows, {
        makespan: {
          ...order.makespan,
          takenAt: new Date().toISOString(),
          loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
        },
        armCalls: order.armCalls,
      });
      writeChart(order.makespan);
      for (const r of order.rows)
        console.log(
          `| ${r.figure} | ${r.measured.toFixed(2)} | ${r.target} | ${r.met === null ? "—" : r.met ? "yes" : "no"} | ${r.detail} |`,
        );
      break sections;
    }
    // First, the figures of the fleet and the claims (alone with --only-fleet; with --skip-fleet, those of the last run).
    const measureFleetAndClaims = async () => {
      // 9. Claim cost: 10,000 tasks queued behind a busy scale set against 10, on PostgreSQL and SQLite.
      const claimMs: Record<string, Record<number, number>> = { postgres: {}, sqlite: {} };
      const settled = (url: string) => async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        await c.query("VACUUM ANALYZE tasks, task_scale_sets, task_ready, task_history");
        await c.end();
      };
      const pgStores: TaskStore[] = [];
      const sqliteStores: TaskStore[] = [];
      for (const queued of sizes.claimQueue) {
        const url = await database();
        pgStores.push(await queuedStore(await PostgresTaskStore.open({ connectionString: url }), queued, settled(url)));
        sqliteStores.push(await queuedStore(await SqliteTaskStore.open({ dataDir: tempDir() }), queued));
      }
      for (const [store, list] of [
        ["postgres", pgStores],
        ["sqlite", sqliteStores],
      ] as const) {
        const ms = await claimCosts(list);
        sizes.claimQueue.forEach((queued, i) => (claimMs[store][queued] = ms[i]));
      }
      const [shallow, deep] = sizes.claimQueue;
      const claims = {
        queued: sizes.claimQueue,
        postgresMs: claimMs.postgres,
        sqliteMs: claimMs.sqlite,
        postgresRatio: claimMs.postgres[deep] / claimMs.postgres[shallow],
        sqliteRatio: claimMs.sqlite[deep] / claimMs.sqlite[shallow],
      };
      log(
        `claim with ${deep} queued / ${shallow} queued: PostgreSQL ${claims.postgresRatio.toFixed(2)}, SQLite ${claims.sqliteRatio.toFixed(2)}`,
      );

      // 10. The fleet, budget shared and not: the time scale makes the subscription's ARM write budget (1,200 a burst,
      // 20 a minute) bound the run at about boundS seconds.
      const timeScaleBefore = ((await control.getConfig()) as unknown as { timeScale: number }).timeScale;
      await setWriteDuration(THROUGHPUT_D);
      // About one write per two operations in this mix (an enable of an enabled scale set writes nothing).
      const azureBoundMs =
        (Math.max(0, fleetSizes.ops / 2 - AZURE_ARM_BUDGETS.writes.burst) * 60_000) /
        AZURE_ARM_BUDGETS.writes.refillPerMinute;
      const fleetTimeScale = azureBoundMs > 0 ? (fleetSizes.boundS * 1000) / azureBoundMs : 0.001;
      const fleetShared = await fleet(true, fleetTimeScale);
      log(
        `fleet, budget shared: ${fleetShared.makespanMs} ms against a bound of ${fleetShared.budgetBoundMs} ms (${fleetShared.boundingBucket}), ${fleetShared.throttled} × 429`,
      );
      const fleetApart = await fleet(false, fleetTimeScale);
      log(`fleet, each replica its own budget: ${fleetApart.makespanMs} ms, ${fleetApart.throttled} × 429`);
      await control.setConfig({ timeScale: timeScaleBefore });
      await control.setThrottling({ enabled: true });
      const fleetResult = { timeScale: fleetTimeScale, shared: fleetShared, apart: fleetApart };

      const newRows = [
        {
          figure: `fleet: ${fleetShared.operations} operations on ${fleetShared.scaleSets} scale sets, ${fleetShared.replicas} replicas on PostgreSQL, Azure's limits: makespan / budget bound`,
          measured: fleetShared.ratio,
          target: "≤ 1.1, 0 × 429",
          met: fleetShared.ratio <= 1.1 && fleetShared.throttled === 0,
          detail: `${(fleetShared.makespanMs / 1000).toFixed(1)} s against ${(fleetShared.budgetBoundMs / 1000).toFixed(1)} s (${fleetShared.boundingBucket}); ${fleetShared.throttled} × 429, ${fleetShared.armCalls} ARM calls, ${fleetShared.failedTasks} failed`,
        },
        {
          figure: "the same with each replica its own budget (ARM_BUDGET_SHARED=false)",
          measured: fleetApart.ratio,
          target: "reported beside it",
          met: null,
          detail: `${(fleetApart.makespanMs / 1000).toFixed(1)} s; ${fleetApart.throttled} × 429, ${fleetApart.armCalls} ARM calls, ${fleetApart.failedTasks} failed`,
        },
        {
          figure: `claim with ${deep} tasks queued / with ${shallow}, PostgreSQL`,
          measured: claims.postgresRatio,
          target: "≤ 1.5",
          met: claims.postgresRatio <= 1.5,
          detail: `${claimMs.postgres[deep].toFixed(2)} ms against ${claimMs.postgres[shallow].toFixed(2)} ms`,
        },
        {
          figure: `the same, SQLite`,
          measured: claims.sqliteRatio,
          target: "≤ 1.5",
          met: claims.sqliteRatio <= 1.5,
          detail: `${claimMs.sqlite[deep].toFixed(2)} ms against ${claimMs.sqlite[shallow].toFixed(2)} ms`,
        },
      ];
      return { claims, fleetResult, newRows };
    };
    const { claims, fleetResult, newRows } = SKIP_FLEET ? earlierFleetAndClaims() : await measureFleetAndClaims();
    if (ONLY_FLEET) {
      // The other figures stay those of the run that wrote results.json; these rows replace their own.
      mergeIntoResults(
        newRows,
        {
          claims,
          fleet: {
            ...fleetResult,
            takenAt: new Date().toISOString(),
            loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
            cpuShareAtStart: Number(shareAtStart.toFixed(2)),
            cpuShareAtEnd: Number(cpuShare().toFixed(2)),
          },
        },
        (figure) => FLEET_ROWS.test(figure),
      );
      for (const r of newRows)
        console.log(
          `| ${r.figure} | ${r.measured.toFixed(2)} | ${r.target} | ${r.met === null ? "—" : r.met ? "yes" : "no"} | ${r.detail} |`,
        );
      break sections;
    }

    // 1 to 3: the makespans, the plain script's burst, the ARM calls of a resize (the first on `one`, which then
    // measures the CPU per task and the reads).
    const oneDir = tempDir();
    const one = await service({ TASK_STORE: "sqlite", DATA_DIR: oneDir, ...UNLIMITED_READS, ...FAST_POLLS });
    const order = await ordering(one);
    writeChart(order.makespan);

    // 4. CPU per task: the service (1 replica, SQLite) against the plain SDK script, same resizes, D = THROUGHPUT_D,
    // both polling a write every sizes.pollHint ms: the same calls on both sides.
    await setWriteDuration(THROUGHPUT_D);
    for (let i = 0; i < sizes.cpuTasks; i++) {
      await control.putScaleSet("demo-rg", `cpu-svc-${i}`, { capacity: 1, loadBalanced: false });
      await control.putScaleSet("demo-rg", `cpu-sdk-${i}`, { capacity: 1, loadBalanced: false });
    }
    const cpu0 = procStats(one.child.pid!).cpuMs;
    const cpuIds: string[] = [];
    for (let i = 0; i < sizes.cpuTasks; i += 32) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(32, sizes.cpuTasks - i) }, (_, j) => submit(one, `cpu-svc-${i + j}`, 2)),
      );
      cpuIds.push(...batch);
    }
    const cpuTasks = await waitAll(one, cpuIds, 50);
    const serviceCpuPerTask = (procStats(one.child.pid!).cpuMs - cpu0) / sizes.cpuTasks;
    const plain = await plainSdk<PlainSdkRun>([
      "resizes",
      sim.url,
      caFile,
      sim.subscriptionId,
      "demo-rg",
      "cpu-sdk-",
      String(sizes.cpuTasks),
      "32",
      String(sizes.pollHint),
    ]);
    const plainCpuPerTask = plain.cpuMs / sizes.cpuTasks;
    // Beside it, the script that also lists the VMs after each write, as the service confirms what it did: the part
    // of the difference that is the confirming read, and the part that is the service.
    for (let i = 0; i < sizes.cpuTasks; i++)
      await control.putScaleSet("demo-rg", `cpu-sdk-${i}`, { capacity: 1, loadBalanced: false });
    const confirming = await plainSdk<PlainSdkRun>([
      "resizes",
      sim.url,
      caFile,
      sim.subscriptionId,
      "demo-rg",
      "cpu-sdk-",
      String(sizes.cpuTasks),
      "32",
      String(sizes.pollHint),
      "confirm",
    ]);
    const confirmingCpuPerTask = confirming.cpuMs / sizes.cpuTasks;
    const cpu = {
      serviceMsPerTask: serviceCpuPerTask,
      plainSdkMsPerTask: plainCpuPerTask,
      ratio: serviceCpuPerTask / plainCpuPerTask,
      confirmingSdkMsPerTask: confirmingCpuPerTask,
      ratioToConfirming: serviceCpuPerTask / confirmingCpuPerTask,
      failed: cpuTasks.filter((t) => t.status.failed).length + plain.failed + confirming.failed,
    };
    log(`CPU per task: service ${serviceCpuPerTask.toFixed(2)} ms, plain SDK ${plainCpuPerTask.toFixed(2)} ms`);

    // 4b. The same, one task at a time: what a task costs that concurrency does not share out (timers, commits,
    // its submission and the one GET /task/{id}?wait= that waits for it, as an orchestrator holding the read would).
    for (let i = 0; i < sizes.serialTasks; i++) {
      await control.putScaleSet("demo-rg", `one-svc-${i}`, { capacity: 1, loadBalanced: false });
      await control.putScaleSet("demo-rg", `one-sdk-${i}`, { capacity: 1, loadBalanced: false });
    }
    const serial0 = procStats(one.child.pid!).cpuMs;
    let serialFailed = 0;
    for (let i = 0; i < sizes.serialTasks; i++) {
      const id = await submit(one, `one-svc-${i}`, 2);
      let task: TaskView;
      do task = (await one.api<TaskView>("GET", `/task/${id}?wait=60`)).body;
      while (!task.status.completed);
      if (task.status.failed) serialFailed++;
    }
    const serialServiceMs = (procStats(one.child.pid!).cpuMs - serial0) / sizes.serialTasks;
    const serialPlain = await plainSdk<PlainSdkRun>([
      "resizes",
      sim.url,
      caFile,
      sim.subscriptionId,
      "demo-rg",
      "one-sdk-",
      String(sizes.serialTasks),
      "1",
      String(sizes.pollHint),
    ]);
    const serialPlainMs = serialPlain.cpuMs / sizes.serialTasks;
    for (let i = 0; i < sizes.serialTasks; i++)
      await control.putScaleSet("demo-rg", `one-sdk-${i}`, { capacity: 1, loadBalanced: false });
    const serialConfirming = await plainSdk<PlainSdkRun>([
      "resizes",
      sim.url,
      caFile,
      sim.subscriptionId,
      "demo-rg",
      "one-sdk-",
      String(sizes.serialTasks),
      "1",
      String(sizes.pollHint),
      "confirm",
    ]);
    const serialConfirmingMs = serialConfirming.cpuMs / sizes.serialTasks;
    const cpuSerial = {
      tasks: sizes.serialTasks,
      serviceMsPerTask: serialServiceMs,
      plainSdkMsPerTask: serialPlainMs,
      ratio: serialServiceMs / serialPlainMs,
      confirmingSdkMsPerTask: serialConfirmingMs,
      ratioToConfirming: serialServiceMs / serialConfirmingMs,
      failed: serialFailed + serialPlain.failed + serialConfirming.failed,
    };
    log(
      `CPU per task, one at a time: service ${serialServiceMs.toFixed(2)} ms, plain SDK ${serialPlainMs.toFixed(2)} ms`,
    );

    // 5. Reads: GET /task/{id} against bare fastify with the same body.
    const pollUrl = `${one.url}/task/${cpuIds[0]}`;
    const bodyFile = join(tempDir(), "task.json");
    writeFileSync(bodyFile, JSON.stringify((await one.api("GET", `/task/${cpuIds[0]}`)).body));
    const bare = await bareFastify(bodyFile);
    // The same task through a second replica on the same SQLite file that keeps no answers: every poll reads the
    // task, builds and serializes it, as the first poll after each change does.
    const building = await service({
      TASK_STORE: "sqlite",
      DATA_DIR: oneDir,
      TASK_BODY_CACHE_ENTRIES: "0",
      ...UNLIMITED_READS,
    });
    const buildingUrl = `${building.url}/task/${cpuIds[0]}`;
    await readRate(`${bare.url}/task/${cpuIds[0]}`, sizes.readSeconds / 3); // warm-up
    await readRate(pollUrl, sizes.readSeconds / 3);
    await readRate(buildingUrl, sizes.readSeconds / 3);
    // Three rounds, alternating, medians: the load other work puts on the machine drifts within seconds.
    const bareRates: number[] = [];
    const serviceRates: number[] = [];
    const buildingRates: number[] = [];
    for (let round = 0; round < 3; round++) {
      bareRates.push(await readRate(`${bare.url}/task/${cpuIds[0]}`, sizes.readSeconds / 3));
      serviceRates.push(await readRate(pollUrl, sizes.readSeconds / 3));
      buildingRates.push(await readRate(buildingUrl, sizes.readSeconds / 3));
    }
    const bareRate = median(bareRates);
    const serviceRate = median(serviceRates);
    const buildingRate = median(buildingRates);
    bare.kill();
    await stop(building);
    const reads = {
      servicePerSecond: serviceRate,
      bareFastifyPerSecond: bareRate,
      ratio: serviceRate / bareRate,
      unkeptPerSecond: buildingRate,
      unkeptRatio: buildingRate / bareRate,
    };
    log(
      `GET /task/{id}: ${serviceRate.toFixed(0)}/s (${buildingRate.toFixed(0)}/s keeping no answers) against bare fastify ${bareRate.toFixed(0)}/s`,
    );

    // 5b. The same reads while WAITERS requests are held by ?wait= on a task whose write outlasts the measurement.
    await control.putScaleSet("demo-rg", "wait-held", { capacity: 1, loadBalanced: false });
    await setWriteDuration(sizes.readSeconds * 3000 + 10_000);
    const heldTask = await submit(one, "wait-held", 2);
    const waiters = await holdWaiters(`${one.url}/task/${heldTask}`, WAITERS);
    // Let the held requests connect and settle: the figure is what they cost while held, not while arriving.
    await sleep(2000);
    const heldRate = await readRate(pollUrl, sizes.readSeconds);
    const stillRunning = (await one.api<TaskView>("GET", `/task/${heldTask}`)).body.state === "running";
    await waiters.release();
    const freeRate = await readRate(pollUrl, sizes.readSeconds);
    await setWriteDuration(THROUGHPUT_D);
    const waiting = {
      waiters: WAITERS,
      withWaitersPerSecond: heldRate,
      withoutPerSecond: freeRate,
      ratio: heldRate / freeRate,
      heldTaskStillRunning: stillRunning,
    };
    log(
      `GET /task/{id} with ${WAITERS} waiters held: ${heldRate.toFixed(0)}/s against ${freeRate.toFixed(0)}/s without`,
    );
    await stop(one);

    // 6. Throughput and memory: sets × perSet tasks, D = THROUGHPUT_D, a fresh service (1 replica, SQLite).
    for (let i = 0; i < sizes.sets; i++)
      await control.putScaleSet("demo-rg", `tp-${i}`, { capacity: 1, loadBalanced: false });
    const [tp, subSqlite] = await Promise.all([
      service({ TASK_STORE: "sqlite", DATA_DIR: tempDir(), ...FAST_POLLS }),
      service({ TASK_STORE: "sqlite", DATA_DIR: tempDir() }),
    ]);
    const tpIdle = procStats(tp.child.pid!);
    const totalTasks = sizes.sets * sizes.perSet;
    const tpStart = Date.now();
    const tpIds: string[] = [];
    let nextTp = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (nextTp < totalTasks) {
          const i = nextTp++;
          tpIds[i] = await submit(tp, `tp-${i % sizes.sets}`, 2 + (Math.floor(i / sizes.sets) % 3));
        }
      }),
    );
    const burstEnd = Date.now();
    const tpTasks = await waitAll(tp, tpIds, 20);
    const tpEnd = Math.max(...tpTasks.map((t) => t.endTimeMs ?? 0));
    const tpStats = procStats(tp.child.pid!);
    const tpCpuPerTask = (tpStats.cpuMs - tpIdle.cpuMs) / totalTasks;
    const tpWallS = (tpEnd - tpStart) / 1000;
    const throughputPerSecond = totalTasks / tpWallS;
    const coresUsed = (tpStats.cpuMs - tpIdle.cpuMs) / 1000 / tpWallS;
    const throughput = {
      tasks: totalTasks,
      wallSeconds: tpWallS,
      perSecond: throughputPerSecond,
      submissionBurstPerSecond: totalTasks / ((burstEnd - tpStart) / 1000),
      cpuMsPerTask: tpCpuPerTask,
      coresUsed,
      // A CPU-bound single Node process keeps about one core busy: this is throughput / (1 core / CPU per task).
      ratio: throughputPerSecond * (tpCpuPerTask / 1000),
      failed: tpTasks.filter((t) => t.status.failed).length,
      idleRssMb: tpIdle.rssMb,
      peakRssMb: tpStats.peakRssMb,
    };
    log(
      `throughput: ${throughputPerSecond.toFixed(0)} tasks/s, ${coresUsed.toFixed(2)} cores, peak RSS ${tpStats.peakRssMb.toFixed(0)} MB`,
    );
    await stop(tp);

    // 7. Submissions per second: SQLite and PostgreSQL (tasks run meanwhile, as they would).
    const sqliteRate = await submissionRate(subSqlite, "tp-", sizes.submissions);
    await stop(subSqlite);
    const subPostgres = await service({
      TASK_STORE: "postgres",
      DATABASE_URL: await database(),
      REPLICA_ID: "bench-submissions",
    });
    const pgRate = await submissionRate(subPostgres, "tp-", sizes.submissions);
    await stop(subPostgres);
    const submissions = { sqlitePerSecond: sqliteRate, postgresPerSecond: pgRate };
    log(`submissions: SQLite ${sqliteRate.toFixed(0)}/s, PostgreSQL ${pgRate.toFixed(0)}/s`);

    // 7b. A burst of submissions while tasks run: accepted first, none lost, every task run.
    const burstFigures = await bursts();

    // 8. Start to first /health with storeTasks finished tasks in the store (and with an empty one).
    const fullDir = tempDir();
    const store = await SqliteTaskStore.open({ dataDir: fullDir });
    for (let i = 0; i < sizes.storeTasks; i++)
      await store.create({ operations: [{ name: "resizeServerGroup", description: resize(`old-${i}`, 1) }] });
    for (;;) {
      const claimed = await store.claim("bench", 60_000, 500);
      if (claimed.length === 0) break;
      for (const c of claimed) await store.update("bench", c.id, { state: "succeeded", finishedAtMs: Date.now() });
    }
    await store.close();
    const emptyDir = tempDir();
    const startFull: number[] = [];
    const startEmpty: number[] = [];
    for (let i = 0; i < sizes.startRounds; i++) {
      startEmpty.push(await startToHealth(emptyDir));
      startFull.push(await startToHealth(fullDir));
    }
    const startup = {
      fullStoreMs: median(startFull),
      emptyStoreMs: median(startEmpty),
      tasksInStore: sizes.storeTasks,
      ratio: median(startFull) / 400,
    };
    log(
      `start to /health: ${startup.fullStoreMs.toFixed(0)} ms with ${sizes.storeTasks} tasks, ${startup.emptyStoreMs.toFixed(0)} ms empty`,
    );

    const table = [
      ...order.rows,
      {
        figure: "service CPU per task / plain SDK script CPU per task",
        measured: cpu.ratio,
        target: "≤ 1.25",
        met: cpu.ratio <= 1.25,
        detail: `${cpu.serviceMsPerTask.toFixed(2)} ms against ${cpu.plainSdkMsPerTask.toFixed(2)} ms (${sizes.cpuTasks} resizes, D = ${THROUGHPUT_D} ms); ${cpu.ratioToConfirming.toFixed(2)} × the script listing the VMs after each write (${cpu.confirmingSdkMsPerTask.toFixed(2)} ms)`,
      },
      {
        figure: "the same, one task at a time, each waited for with GET /task/{id}?wait=",
        measured: cpuSerial.ratio,
        target: "≤ 1.25",
        met: cpuSerial.ratio <= 1.25,
        detail: `${cpuSerial.serviceMsPerTask.toFixed(2)} ms against ${cpuSerial.plainSdkMsPerTask.toFixed(2)} ms (${cpuSerial.tasks} resizes, D = ${THROUGHPUT_D} ms); ${cpuSerial.ratioToConfirming.toFixed(2)} × the script listing the VMs after each write (${cpuSerial.confirmingSdkMsPerTask.toFixed(2)} ms)`,
      },
      {
        figure: `${totalTasks} tasks on ${sizes.sets} scale sets, D = ${THROUGHPUT_D} ms: throughput × CPU per task (cores kept busy)`,
        measured: throughput.ratio,
        target: "≥ 0.7",
        met: throughput.ratio >= 0.7,
        detail: `${throughput.perSecond.toFixed(0)} tasks/s over ${throughput.wallSeconds.toFixed(1)} s, ${throughput.cpuMsPerTask.toFixed(2)} ms CPU per task`,
      },
      {
        figure: "the same: peak RSS (MB)",
        measured: throughput.peakRssMb,
        target: "≤ 150",
        met: throughput.peakRssMb <= 150,
        detail: `idle ${throughput.idleRssMb.toFixed(0)} MB`,
      },
      {
        figure: "GET /task/{id} / bare fastify, same body",
        measured: reads.ratio,
        target: "≥ 0.6",
        met: reads.ratio >= 0.6,
        detail: `${reads.servicePerSecond.toFixed(0)}/s against ${reads.bareFastifyPerSecond.toFixed(0)}/s`,
      },
      {
        figure: "the same, every poll building its answer (TASK_BODY_CACHE_ENTRIES=0)",
        measured: reads.unkeptRatio,
        target: "reported beside it",
        met: null,
        detail: `${reads.unkeptPerSecond.toFixed(0)}/s`,
      },
      {
        figure: `GET /task/{id} with ${WAITERS} ?wait= requests held / with none`,
        measured: waiting.ratio,
        target: "≥ 0.9",
        met: waiting.ratio >= 0.9 && waiting.heldTaskStillRunning,
        detail: `${waiting.withWaitersPerSecond.toFixed(0)}/s against ${waiting.withoutPerSecond.toFixed(0)}/s; the waited task ${waiting.heldTaskStillRunning ? "was still running" : "ENDED during the measurement"}`,
      },
      {
        figure: "submissions per second, SQLite (/ 1,500)",
        measured: submissions.sqlitePerSecond / 1500,
        target: "≥ 1",
        met: submissions.sqlitePerSecond >= 1500,
        detail: `${submissions.sqlitePerSecond.toFixed(0)}/s`,
      },
      {
        figure: "submissions per second, PostgreSQL (/ 1,000)",
        measured: submissions.postgresPerSecond / 1000,
        target: "≥ 1",
        met: submissions.postgresPerSecond >= 1000,
        detail: `${submissions.postgresPerSecond.toFixed(0)}/s`,
      },
      {
        figure: `start to first /health, ${sizes.storeTasks} tasks in the store (/ 0.4 s)`,
        measured: startup.ratio,
        target: "≤ 1",
        met: startup.ratio <= 1,
        detail: `${startup.fullStoreMs.toFixed(0)} ms (empty store ${startup.emptyStoreMs.toFixed(0)} ms)`,
      },
      ...burstFigures.rows,
      ...newRows,
    ];
    Object.assign(results, {
      takenAt: new Date().toISOString(),
      machine: {
        cores: cpus().length,
        model: cpus()[0]?.model,
        memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
        node: process.version,
        loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
        cpuShareAtStart: Number(shareAtStart.toFixed(2)),
        cpuShareAtEnd: Number(cpuShare().toFixed(2)),
      },
      smoke: SMOKE,
      settings: {
        writeDurationMs: sizes.D,
        timeScale: sizes.pollHint / 30_000,
        throughputWriteDurationMs: THROUGHPUT_D,
        lroMaxPollIntervalMs: sizes.pollHint,
      },
      table,
      makespan: order.makespan,
      armCalls: order.armCalls,
      cpu,
      cpuSerial,
      reads,
      waiting,
      throughput,
      submissions,
      bursts: burstFigures.result,
      startup,
      claims,
      fleet: fleetResult,
    });
    mkdirSync(OUT, { recursive: true });
    writeFileSync(join(OUT, "results.json"), JSON.stringify(results, null, 2) + "\n");
    log(`wrote ${join(OUT, "results.json")}${SMOKE ? "" : "; npm run bench:table writes the README's table from it"}`);
    const m = results.machine as { cpuShareAtStart: number; cpuShareAtEnd: number; loadAverage: number[] };
    console.log(
      `machine: ${cpus().length} cores, load average ${m.loadAverage.join(" ")}, a busy process got ${m.cpuShareAtStart} / ${m.cpuShareAtEnd} of a core (start / end)\n`,
    );
    const fmt = (x: unknown) => (typeof x === "number" ? (Number.isInteger(x) ? String(x) : x.toFixed(2)) : String(x));
    console.log(`| figure | measured | target | met | detail |\n|---|---|---|---|---|`);
    for (const r of table)
      console.log(
        `| ${r.figure} | ${fmt(r.measured)} | ${r.target} | ${r.met === null ? "—" : r.met ? "yes" : "no"} | ${r.detail} |`,
      );
  }
} finally {
  for (const c of children) c.child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
  await admin.end();
  await sim.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}
