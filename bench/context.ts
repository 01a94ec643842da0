// What every figure of `npm run bench` shares: the sizes (smoke or full), one simulator in this process, PostgreSQL's
// admin connection, and the services, folders and databases a figure starts or makes, all ended by close().
//
// The service runs as a user starts it (npm start's command, `node --max-semi-space-size=8 src/main.js`, default
// settings, external simulator in this process: the service learns the simulator's clock from the simulator, and
// paces its ARM budget and its re-reads by it), but where a figure is bound by the end of a write, it polls at the
// simulator's pace (fastPolls); its CPU time and peak RSS are read from /proc. One setting differs where reads are
// measured: the per-caller read limit (RATE_LIMIT_READS, 60,000 a minute) is raised, since one caller reading as
// fast as it can passes it within seconds; the limiter still counts every request.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import pg from "pg";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { SimulatorControl, startSimulator, type RunningSimulator } from "vmss-simulator";
import { SIMULATOR_CA_FILE, startChildService, type ChildService } from "../testkit/child-service.ts";
import type { BenchArgs } from "./run-args.ts";
import type { TaskView } from "./task-view.ts";

const execFileAsync = promisify(execFile);
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

export type Sizes = ReturnType<typeof sizesFor>;

/** Azure's poll interval of a write in flight (the simulator's AZURE_RETRY_AFTER: 30 s for updates). */
const AZURE_POLL_MS = 30_000;

/** The simulator's time scale: Azure's 30 s poll interval lasts pollHint ms. */
function timeScaleOf(sizes: Sizes): number {
  return sizes.pollHint / AZURE_POLL_MS;
}

function sizesFor(smoke: boolean) {
  return smoke
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
        startRounds: 5,
        claimQueue: [10, 10_000],
        claimRounds: 60,
      };
}

/**
 * The fleet: scale sets and operations in one subscription, 3 replicas on PostgreSQL, the simulator at Azure's
 * throttling figures at a time scale chosen so that the subscription's budget bounds the run at about `boundS`
 * seconds. FLEET_SETS / FLEET_OPS scale it down on a small machine (reported with the figures).
 */
function fleetSizesFor(smoke: boolean) {
  return smoke
    ? { sets: 2, ops: 4, replicas: 2, boundS: 2 }
    : {
        sets: Number(process.env.FLEET_SETS ?? 1000),
        ops: Number(process.env.FLEET_OPS ?? 5000),
        replicas: 3,
        boundS: Number(process.env.FLEET_BOUND_S ?? 90),
      };
}

/**
 * The fleet at ten times the size: `sets` scale sets spread evenly over `subscriptions` subscriptions (one account
 * each, one simulator each: Azure keeps a subscription's buckets apart from another's), `ops` operations, 4 replicas
 * on PostgreSQL, the time scale chosen so that the busiest subscription's budget bounds the run at about `boundS`
 * seconds. FLEET10_SUBSCRIPTIONS / FLEET10_SETS / FLEET10_OPS / FLEET10_BOUND_S shape a smaller run of the same kind.
 */
function fleet10SizesFor(smoke: boolean) {
  return smoke
    ? { subscriptions: 2, sets: 4, ops: 8, replicas: 2, boundS: 2 }
    : {
        subscriptions: Number(process.env.FLEET10_SUBSCRIPTIONS ?? 10),
        sets: Number(process.env.FLEET10_SETS ?? 10_000),
        ops: Number(process.env.FLEET10_OPS ?? 50_000),
        replicas: Number(process.env.FLEET10_REPLICAS ?? 4),
        boundS: Number(process.env.FLEET10_BOUND_S ?? 1200),
      };
}

/** Reads as fast as one caller can send them pass the default per-caller read limit; the limiter still counts them. */
export const UNLIMITED_READS = { RATE_LIMIT_READS: "1000000000" };

/** What bench/plain-sdk.ts prints last: the CPU it spent on its resizes, or the outcome of its burst. */
export interface PlainSdkRun {
  n: number;
  failed: number;
  cpuMs: number;
  wallMs: number;
}
export interface PlainSdkBurst {
  n: number;
  succeeded: number;
  refused: number;
  otherFailures: number;
}

export function resize(name: string, desired: number) {
  return { credentials: "demo", region: "eastus", serverGroupName: name, capacity: { min: 0, max: 10, desired } };
}

/** The load average now, to two decimals, as results.json records it beside a figure. */
export function loadAverage(): number[] {
  return loadavg().map((x) => Number(x.toFixed(2)));
}

/** A run's databases older than this, with nobody connected, were left behind whatever made them. */
const STALE_DATABASE_S = 24 * 3600;

/** Whether process `pid` of this machine is alive. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Drops the benchmark databases a killed run left behind (its close() never ran), with no connection open: those
 * whose name says the process that made them has ended, or that they were made over STALE_DATABASE_S ago, or that
 * carry neither (made before names did). Another run's database in use has a live maker, or replicas connected.
 */
async function dropStaleDatabases(admin: pg.Client): Promise<void> {
  const { rows } = await admin.query<{ datname: string }>(
    `SELECT d.datname FROM pg_database d
     WHERE d.datname LIKE 'vmss\\_ops\\_bench\\_%'
       AND NOT EXISTS (SELECT 1 FROM pg_stat_activity a WHERE a.datname = d.datname)`,
  );
  const nowS = Date.now() / 1000;
  for (const { datname } of rows) {
    const made = /^vmss_ops_bench_(\d{10})_(\d+)_/.exec(datname);
    if (made && nowS - Number(made[1]) < STALE_DATABASE_S && alive(Number(made[2]))) continue;
    await admin.query(`DROP DATABASE IF EXISTS ${datname}`).catch(() => {});
  }
}

export class Bench {
  readonly smoke: boolean;
  readonly sizes: Sizes;
  readonly fleetSizes: ReturnType<typeof fleetSizesFor>;
  readonly fleet10Sizes: ReturnType<typeof fleet10SizesFor>;
  /** The write duration of every figure but the makespans. */
  readonly throughputD: number;
  /**
   * The simulator advertises a write's Retry-After as Azure does, in whole seconds (at least 1), while its writes
   * last D = 50 or 500 ms: at its default cap (120 s) the service would wait a second before its first poll, and every
   * figure bound by the end of a write would measure that second. A user running against a fast simulator caps the
   * wait at the simulator's pace, Azure's poll interval of a write (30 s) at the simulator's time scale, as the tests
   * do: the makespans, the ARM calls per resize, the CPU per task and the throughput are measured so (the plain SDK
   * script polls at the same interval).
   */
  readonly fastPolls: Record<string, string>;
  readonly sim: RunningSimulator;
  readonly control: SimulatorControl;
  readonly caFile = SIMULATOR_CA_FILE;
  private readonly admin: pg.Client;
  private readonly dirs: string[] = [];
  private readonly children: ChildService[] = [];
  private readonly databases: string[] = [];

  private constructor(smoke: boolean, sim: RunningSimulator, admin: pg.Client) {
    this.smoke = smoke;
    this.sizes = sizesFor(smoke);
    this.fleetSizes = fleetSizesFor(smoke);
    this.fleet10Sizes = fleet10SizesFor(smoke);
    this.throughputD = smoke ? 20 : 50;
    this.fastPolls = { LRO_MAX_POLL_INTERVAL_MS: String(Math.round(AZURE_POLL_MS * timeScaleOf(this.sizes))) };
    this.sim = sim;
    this.control = new SimulatorControl(sim);
    this.admin = admin;
  }

  static async open(args: BenchArgs): Promise<Bench> {
    const sizes = sizesFor(args.smoke);
    const sim = await startSimulator({ port: 0, writeDurationMs: sizes.D, timeScale: timeScaleOf(sizes), seed: false });
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    await dropStaleDatabases(admin);
    return new Bench(args.smoke, sim, admin);
  }

  log(line: string): void {
    process.stderr.write(`bench: ${line}\n`);
  }

  /** The machine, and the share of a core a busy process got at the start of the run and now. */
  machine(cpuShareAtStart: number, cpuShareAtEnd: number) {
    return {
      cores: cpus().length,
      model: cpus()[0]?.model,
      memoryGiB: Number((totalmem() / 2 ** 30).toFixed(1)),
      node: process.version,
      loadAverage: loadAverage(),
      cpuShareAtStart: Number(cpuShareAtStart.toFixed(2)),
      cpuShareAtEnd: Number(cpuShareAtEnd.toFixed(2)),
    };
  }

  settings() {
    return {
      writeDurationMs: this.sizes.D,
      timeScale: timeScaleOf(this.sizes),
      throughputWriteDurationMs: this.throughputD,
      lroMaxPollIntervalMs: this.sizes.pollHint,
    };
  }

  tempDir(): string {
    const d = mkdtempSync(join(tmpdir(), "vmss-ops-bench-"));
    this.dirs.push(d);
    return d;
  }

  /** PostgreSQL's admin connection (the server's own counters: pg_stat_database, pg_stat_activity). */
  async adminQuery<R extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<R[]> {
    return (await this.admin.query<R>(sql, params)).rows;
  }

  async database(): Promise<string> {
    // Its start and its maker in the name: a later run tells a database left behind by a killed run from one in use.
    const name = `vmss_ops_bench_${Math.floor(Date.now() / 1000)}_${process.pid}_${randomBytes(4).toString("hex")}`;
    await this.admin.query(`CREATE DATABASE ${name}`);
    this.databases.push(name);
    return Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString();
  }

  /** A scale set of one VM in demo-rg, not load balanced. */
  async scaleSet(name: string): Promise<void> {
    await this.control.putScaleSet("demo-rg", name, { capacity: 1, loadBalanced: false });
  }

  /**
   * The service started as npm start starts it, against this simulator, ended by close() if not by stop(). Told where
   * the simulator is, not its clock: the service asks the simulator (SIMULATOR_TIME_SCALE is the simulator's setting).
   */
  async child(
    env: Record<string, string>,
    options: { waitForListen?: boolean; tree?: string } = {},
  ): Promise<ChildService> {
    const s = await startChildService(
      { SIMULATOR_URL: this.sim.url, SIMULATOR_CA_FILE: this.caFile, SIMULATOR_TIME_SCALE: "", ...env },
      { ...options, nodeArgs: START_HEAP_FLAGS },
    );
    this.children.push(s);
    return s;
  }

  /**
   * The service as a user starts it (npm start's command, default settings, the external simulator), warmed up by one
   * resize; `tree`: started out of another checkout (the previous release's), this one's by default.
   */
  async service(env: Record<string, string>, tree?: string): Promise<ChildService> {
    const s = await this.child({ LOG_LEVEL: "info", ...env }, { tree });
    const name = `warm-${this.children.length}`;
    await this.scaleSet(name);
    await this.waitAll(s, [await this.warmUp(s, name)], 5);
    return s;
  }

  async stop(s: ChildService): Promise<void> {
    s.child.kill("SIGKILL");
    await s.exited;
  }

  async setWriteDuration(ms: number): Promise<void> {
    await this.control.request("PUT", "/_sim/config", { body: { writeDurationMs: ms } });
  }

  /**
   * The first submission, sent again while it is answered 503 with Retry-After, as a client would: a fresh process on
   * a loaded machine may not answer it within its request deadline (TASK_STORE_REQUEST_DEADLINE_MS).
   */
  async warmUp(via: ChildService, name: string): Promise<string> {
    for (let attempt = 1; ; attempt++) {
      const res = await via.api<{ id: string }>(
        "POST",
        `/azure/ops/resizeServerGroup?clientRequestId=${name}`,
        resize(name, 2),
      );
      if (res.status === 202) return res.body.id;
      if (res.status !== 503 || !res.headers.get("retry-after") || attempt >= 10)
        throw new Error(`submit ${name}: ${res.status} ${JSON.stringify(res.body)}`);
      await sleep(1000);
    }
  }

  async submit(via: ChildService, name: string, desired: number): Promise<string> {
    const res = await via.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(name, desired));
    if (res.status !== 202) throw new Error(`submit ${name}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id;
  }

  /** Waits for every task, polling each in turn; returns them. */
  async waitAll(via: ChildService, ids: string[], pollMs = 20): Promise<TaskView[]> {
    const out: TaskView[] = [];
    for (const id of ids) {
      for (;;) {
        const { status, body } = await via.api<TaskView>("GET", `/task/${id}`);
        // A 503 (with Retry-After) is "not now": a loaded replica's read missed its deadline. Ask again.
        if (status === 503) {
          await sleep(1000);
          continue;
        }
        if (status !== 200) throw new Error(`GET /task/${id} answered ${status}: ${JSON.stringify(body)}`);
        if (body.status.completed) {
          out.push(body);
          break;
        }
        await sleep(pollMs);
      }
    }
    return out;
  }

  /**
   * Runs bench/plain-sdk.ts `mode` against demo-rg of this simulator, with the rest of its arguments (asynchronously:
   * the simulator it talks to lives in this process).
   */
  async plainSdk<R extends PlainSdkRun | PlainSdkBurst>(mode: "resizes" | "burst", ...rest: string[]): Promise<R> {
    const argv = [mode, this.sim.url, this.caFile, this.sim.subscriptionId, "demo-rg", ...rest];
    const script = join(import.meta.dirname, "plain-sdk.ts");
    const { stdout } = await execFileAsync(process.execPath, [script, ...argv], { encoding: "utf8" });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as R;
  }

  /** Ends every service still running, drops the databases, closes the simulator and removes the folders. */
  async close(): Promise<void> {
    for (const c of this.children) c.child.kill("SIGKILL");
    await Promise.all(this.children.map((c) => c.exited));
    for (const name of this.databases)
      await this.admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await this.admin.end();
    await this.sim.close();
    for (const d of this.dirs) rmSync(d, { recursive: true, force: true });
  }
}
