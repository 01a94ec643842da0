// The fleet: fleetSizes.ops operations (resize, disable, enable) on fleetSizes.sets scale sets of one subscription,
// fleetSizes.replicas replicas on PostgreSQL, the simulator at Azure's throttling figures, at a time scale that makes
// the subscription's ARM write budget (1,200 a burst, 20 a minute) bound the run at about fleetSizes.boundS seconds:
// the makespan against that bound, with the budget shared by the replicas and with each replica its own.
import { readdirSync, readFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { startSimulator, SimulatorControl, type RunningSimulator } from "vmss-simulator";
import { AZURE_ARM_BUDGETS, budgetFigures } from "../../src/azure/arm-budget/figures.ts";
import { chargeOf } from "../../src/azure/arm-budget/routes.ts";
import type { ChildService } from "../../testkit/child-service.ts";
import { cpus } from "node:os";
import { loadAverage, resize, type Bench } from "../context.ts";
import { BenchAutovacuum } from "../autovacuum.ts";
import { measureClaims } from "./claims.ts";
import { CLK_TCK, cpuMsOf } from "../measure.ts";
import { predictFleet, timeScaleForBound, type PerCallCosts } from "../scaling-model.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";
import { MODEL_COUNTS_WITHIN, MODEL_CPU_WITHIN } from "../guards.ts";

/**
 * The bound the subscriptions' budgets set on a run: per bucket, the calls beyond its burst over its refill rate; the
 * run's bound is the busiest bucket's (subscriptions spend in parallel). perBucket: the busiest subscription's calls
 * per subscription bucket.
 */
function budgetBoundMs(
  calls: { method: string; path: string; ifMatch: string | null }[],
  refillScale: number,
): { boundMs: number; bucket: string; perBucket: Record<string, number>; busiest: string } {
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
  let busiest = "";
  for (const [key, { n, burst, perMinute }] of counts) {
    const ms = (Math.max(0, n - burst) * 60_000) / perMinute;
    if (ms > boundMs || busiest === "")
      [boundMs, bucket, busiest] = [ms, key.slice(key.indexOf("/") + 1), key.slice(0, key.indexOf("/"))];
  }
  const perBucket: Record<string, number> = {};
  for (const [key, { n }] of counts) {
    const [sub, ...rest] = key.split("/");
    // The subscription's own buckets: its policies' and ARM's (a resource's bucket has a third part).
    if (sub === busiest && rest.length === 1) perBucket[rest[0]] = n;
  }
  return { boundMs, bucket, perBucket, busiest };
}

/**
 * The statements the replicas' ARM budgets have sent their shared ledger (PostgreSQL) since they started: the sum of
 * vmssops_arm_budget_ledger_statements_total over their /metrics.
 */
async function ledgerStatements(replicas: ChildService[]): Promise<number> {
  let statements = 0;
  for (const r of replicas) {
    const text = await (await fetch(`${r.url}/metrics`)).text();
    statements += Number(/^vmssops_arm_budget_ledger_statements_total (\S+)$/m.exec(text)?.[1] ?? 0);
  }
  return statements;
}

/** Where a fleet's scale sets live: an account of the service and the simulator that plays its subscription. */
interface FleetSubscription {
  account: string;
  resourceGroup: string;
  control: SimulatorControl;
}

interface FleetShape {
  sets: number;
  ops: number;
  replicas: number;
  subscriptions: FleetSubscription[];
  /** What the replicas are started with besides the fleet's own settings (the accounts of the 10× fleet). */
  env?: Record<string, string>;
  label: string;
  /** Read the run's table sizes once it has ended. */
  tables?: boolean;
}

/** Scale set `s` of the fleet lives in subscription s mod n: the sets, and so the operations, spread evenly. */
const subscriptionOf = (shape: FleetShape, s: number) => shape.subscriptions[s % shape.subscriptions.length];

/** Submits the fleet's operations round-robin over `replicas`, 16 at a time; returns the tasks' ids. */
async function submitAll(shape: FleetShape, replicas: ChildService[]): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < shape.ops) {
        const i = next++;
        const via = replicas[i % replicas.length];
        const s = i % shape.sets;
        const name = `fleet-${s}`;
        const kind = Math.floor(i / shape.sets) % 3;
        const credentials = subscriptionOf(shape, s).account;
        const body = { credentials, region: "eastus", serverGroupName: name };
        const res =
          kind === 0
            ? await via.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", {
                ...resize(name, 2 + (i % 2)),
                credentials,
              })
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
  return ids;
}

/** Waits for every task, 8 lanes each polling its share in turn (one lane would read 50,000 tasks one by one). */
async function waitAllTasks(b: Bench, via: ChildService, ids: string[]): Promise<TaskView[]> {
  const lanes = 8;
  const parts = await Promise.all(
    Array.from({ length: lanes }, (_, lane) =>
      b.waitAll(
        via,
        ids.filter((_, i) => i % lanes === lane),
        100,
      ),
    ),
  );
  return parts.flat();
}

/** A PostgreSQL process as /proc shows it: its parent, its title and its CPU ms, its own and its ended children's. */
interface PostgresProcess {
  pid: number;
  ppid: number;
  title: string;
  ownMs: number;
  childrenMs: number;
}

function postgresProcesses(): PostgresProcess[] {
  const out: PostgresProcess[] = [];
  for (const pid of readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      if (readFileSync(`/proc/${pid}/comm`, "utf8").trim() !== "postgres") continue;
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
      const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.push({
        pid: Number(pid),
        ppid: Number(f[1]),
        title: readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ").trim(),
        ownMs: ((Number(f[11]) + Number(f[12])) * 1000) / CLK_TCK,
        childrenMs: ((Number(f[13]) + Number(f[14])) * 1000) / CLK_TCK,
      });
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return out;
}

/**
 * What PostgreSQL's CPU is made of at one instant: every server process's CPU (those that ended included, counted in
 * their parent's children's time), the backends of `database` alive now by pid (a backend's title names its
 * database), and the CPU of the postmaster's children that have ended, backends of any database among them.
 */
export interface PostgresCpu {
  serverMs: number;
  backends: Map<number, number>;
  endedMs: number;
}

export function postgresCpu(database: string): PostgresCpu {
  const procs = postgresProcesses();
  const pids = new Set(procs.map((p) => p.pid));
  const backends = new Map<number, number>();
  let serverMs = 0;
  let endedMs = 0;
  for (const p of procs) {
    serverMs += p.ownMs + p.childrenMs;
    // The postmaster: the one PostgreSQL process whose parent is not one.
    if (!pids.has(p.ppid)) endedMs += p.childrenMs;
    else if (p.title.split(" ").includes(database)) backends.set(p.pid, p.ownMs);
  }
  return { serverMs, backends, endedMs };
}

/**
 * The CPU `database`'s backends spent between two snapshots: those alive at the end, from what each had at the start
 * (nothing, if it connected since), and those that ended meanwhile, from the postmaster's children's time less what
 * they had spent before the start. A pool closes a connection idle for 10 s and opens another when it needs one, so
 * over a long run much of the work is done by backends that are gone at its end; the backends of other databases
 * that ended meanwhile are counted too (on the benchmark's server, none but its own short admin connections).
 */
export function backendsCpuBetween(before: PostgresCpu, after: PostgresCpu): number {
  let ms = after.endedMs - before.endedMs;
  for (const [pid, cpu] of after.backends) ms += cpu - (before.backends.get(pid) ?? 0);
  for (const [pid, cpu] of before.backends) if (!after.backends.has(pid)) ms -= cpu;
  return ms;
}

/** How many connections `database` has (the replicas' pools at the end of a run). */
async function databaseConnections(b: Bench, database: string): Promise<number> {
  const rows = await b.adminQuery<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = $1", [database]);
  return rows.length;
}

/** How many times each value occurs. */
function countBy(values: string[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const v of values) out[v] = (out[v] ?? 0) + 1;
  return out;
}

/**
 * Waits until `database` has no backend left (a backend's counts reach pg_stat_database as it ends), up to 30 s; past
 * that the figure goes on with what has been reported, and says so.
 */
async function backendsEnded(b: Bench, database: string): Promise<void> {
  const until = performance.now() + 30_000;
  for (;;) {
    const connections = await databaseConnections(b, database);
    if (connections === 0) return;
    if (performance.now() > until) {
      b.log(`fleet: ${connections} backends of ${database} still open 30 s after the replicas stopped; counted as is`);
      return;
    }
    await sleep(50);
  }
}

/** Transactions committed and rolled back in `database`: for the service's autocommit statements, its statements. */
async function databaseTransactions(b: Bench, database: string): Promise<number> {
  await b.adminQuery("SELECT pg_stat_clear_snapshot()");
  const [row] = await b.adminQuery<{ n: string }>(
    "SELECT xact_commit + xact_rollback AS n FROM pg_stat_database WHERE datname = $1",
    [database],
  );
  return Number(row?.n ?? 0);
}

/**
 * The run's tables in PostgreSQL once it has ended: rows, table and index bytes, dead rows and autovacuum runs (what
 * docs/scaling.md scales to a million operations a day).
 */
async function tableSizes(databaseUrl: string) {
  const c = new pg.Client({ connectionString: databaseUrl });
  await c.connect();
  try {
    const { rows } = await c.query<{
      table: string;
      rows: string;
      dead: string;
      tableBytes: string;
      indexBytes: string;
      autovacuums: string;
    }>(
      `SELECT relname AS table, n_live_tup AS rows, n_dead_tup AS dead,
              pg_table_size(relid) AS "tableBytes", pg_indexes_size(relid) AS "indexBytes",
              autovacuum_count + vacuum_count AS autovacuums
         FROM pg_stat_user_tables ORDER BY pg_total_relation_size(relid) DESC`,
    );
    return rows.map((r) => ({
      table: r.table,
      rows: Number(r.rows),
      dead: Number(r.dead),
      tableBytes: Number(r.tableBytes),
      indexBytes: Number(r.indexBytes),
      vacuums: Number(r.autovacuums),
    }));
  } finally {
    await c.end();
  }
}

/** The fleet's scale sets, 64 at a time; full buckets, Azure's figures, at the fleet's time scale; the call log clear. */
async function prepareSimulators(shape: FleetShape, timeScale: number): Promise<void> {
  const { sets } = shape;
  for (let s = 0; s < sets; s += 64)
    await Promise.all(
      Array.from({ length: Math.min(64, sets - s) }, (_, k) => {
        const sub = subscriptionOf(shape, s + k);
        return sub.control.putScaleSet(sub.resourceGroup, `fleet-${s + k}`, { capacity: 1, loadBalanced: false });
      }),
    );
  for (const { control } of shape.subscriptions) {
    await control.setConfig({ timeScale });
    await control.setThrottling({ enabled: true, scale: 1, policies: {} });
    await control.clearCalls();
  }
}

/** A fleet run's CPU, in all and per ARM call. */
function runCpu(
  m: { replicaCpuMs: number; benchCpu: NodeJS.CpuUsage; postgresCpuMs: number; backendsCpuMs: number },
  armCalls: number,
) {
  const benchMs = (m.benchCpu.user + m.benchCpu.system) / 1000;
  const per = (ms: number) => (armCalls ? ms / armCalls : 0);
  return {
    replicasMs: Math.round(m.replicaCpuMs),
    benchProcessMs: Math.round(benchMs),
    postgresServerMs: Math.round(m.postgresCpuMs),
    postgresBackendsMs: Math.round(m.backendsCpuMs),
    replicasMsPerArmCall: per(m.replicaCpuMs),
    postgresServerMsPerArmCall: per(m.postgresCpuMs),
    benchProcessMsPerArmCall: per(benchMs),
    postgresBackendsMsPerArmCall: per(m.backendsCpuMs),
  };
}

/** The fleet's replicas on a database of the run's. */
async function startReplicas(b: Bench, shared: boolean, shape: FleetShape) {
  const databaseUrl = await b.database();
  const database = new URL(databaseUrl).pathname.slice(1);
  const env = {
    TASK_STORE: "postgres",
    DATABASE_URL: databaseUrl,
    // No clock: the services learn the simulator's time scale from its answers, and refill as fast as its buckets.
    ARM_BUDGET_SHARED: String(shared),
    LOG_LEVEL: "warn",
    ...shape.env,
  };
  const replicas = await Promise.all(
    Array.from({ length: shape.replicas }, (_, i) =>
      b.service({ ...env, REPLICA_ID: `${shape.label}-${shared ? "shared" : "apart"}-${i}` }),
    ),
  );
  return { databaseUrl, database, replicas };
}

async function fleet(b: Bench, shared: boolean, timeScale: number, shape: FleetShape) {
  const { databaseUrl, database, replicas } = await startReplicas(b, shared, shape);
  const { sets, ops, replicas: count } = shape;
  await prepareSimulators(shape, timeScale);
  const cpuBefore = {
    replicas: replicas.map((r) => cpuMsOf(r.child.pid!)),
    bench: process.cpuUsage(),
    postgres: postgresCpu(database),
    transactions: await databaseTransactions(b, database),
  };
  // The replicas' warm-up took from the budget too: only this run's statements count.
  const statementsBefore = await ledgerStatements(replicas);
  // Where the server runs without autovacuum, the benchmark does its work (bench/autovacuum.ts).
  const autovacuum = await BenchAutovacuum.start(databaseUrl);
  const wall0 = performance.now();
  const t0 = Date.now();
  const ids = await submitAll(shape, replicas);
  const tasks = await waitAllTasks(b, replicas[0], ids);
  const vacuumed = await autovacuum?.stop();
  const end = Math.max(...tasks.map((t) => t.endTimeMs ?? 0));
  const replicaCpuMs = replicas.reduce((sum, r, i) => sum + cpuMsOf(r.child.pid!) - cpuBefore.replicas[i], 0);
  const benchCpu = process.cpuUsage(cpuBefore.bench);
  const postgresAfter = postgresCpu(database);
  const postgresCpuMs = postgresAfter.serverMs - cpuBefore.postgres.serverMs;
  // The stand-in's vacuums are PostgreSQL's work, as autovacuum's workers' would be: its connection to the run's
  // database has ended by now, so its backend is counted with the ended ones.
  const backendsCpuMs = backendsCpuBetween(cpuBefore.postgres, postgresAfter);
  const connections = await databaseConnections(b, database);
  b.log(
    `${shape.label}: PostgreSQL backends of the run ${Math.round(backendsCpuMs)} ms of CPU; the whole server ${Math.round(postgresCpuMs)} ms`,
  );
  const calls = (await Promise.all(shape.subscriptions.map(({ control }) => control.calls()))).flat();
  const bound = budgetBoundMs(calls, 1 / timeScale);
  const budgetStatements = (await ledgerStatements(replicas)) - statementsBefore;
  for (const r of replicas) await b.stop(r);
  // The stopped replicas' backends report their last counts as they end.
  await backendsEnded(b, database);
  const transactions = (await databaseTransactions(b, database)) - cpuBefore.transactions;
  const tables = shape.tables ? await tableSizes(databaseUrl) : undefined;
  for (const { control } of shape.subscriptions) await control.setThrottling({ enabled: false });
  const armCalls = calls.length;
  return {
    shared,
    subscriptions: shape.subscriptions.length,
    scaleSets: sets,
    operations: ops,
    replicas: count,
    makespanMs: end - t0,
    budgetBoundMs: Math.round(bound.boundMs),
    boundingBucket: bound.bucket,
    // A run that fits in the buckets' bursts has no bound from the budget (at smoke sizes): 0.
    ratio: bound.boundMs > 0 ? (end - t0) / bound.boundMs : 0,
    armCalls,
    throttled: calls.filter((c) => c.status === 429).length,
    failedTasks: tasks.filter((t) => t.status.failed).length,
    callsPerSubscriptionBucket: bound.perBucket,
    /** The statements the ARM budget sent its ledger over the run (the replicas' /metrics), and per ARM call. */
    budgetStatements,
    statementsPerArmCall: armCalls ? budgetStatements / armCalls : 0,
    /** The run's wall time, submissions to the last task read. */
    wallMs: Math.round(performance.now() - wall0),
    /**
     * CPU over the run: the replicas (from /proc), this process (the simulators and the driver), PostgreSQL's server
     * processes (every database: other work on the server is included) and the backends of this run's database, those
     * that ended during the run included.
     */
    cpu: runCpu({ replicaCpuMs, benchCpu, postgresCpuMs, backendsCpuMs }, armCalls),
    /**
     * PostgreSQL's own count of the statements the replicas sent: transactions committed or rolled back in this
     * run's database (pg_stat_database), each autocommit statement one; per ARM call and per task.
     */
    postgres: {
      /** The run database's backends at the end: the replicas' connections. */
      connections,
      transactions,
      transactionsPerArmCall: armCalls ? transactions / armCalls : 0,
      transactionsPerTask: transactions / ops,
    },
    busiestSubscription: bound.busiest,
    /**
     * The benchmark's stand-in for autovacuum, when the server runs without it: the vacuums and analyzes it ran by
     * autovacuum's rule, per table, and its CPU (counted in postgresBackendsMs); absent when autovacuum is on.
     */
    ...(vacuumed
      ? {
          autovacuumStandIn: {
            cpuMs: Math.round(vacuumed.cpuMs),
            vacuums: countBy(vacuumed.runs.filter((r) => r.kind === "vacuum").map((r) => r.table)),
            analyzes: countBy(vacuumed.runs.filter((r) => r.kind === "analyze").map((r) => r.table)),
          },
        }
      : {}),
    ...(tables ? { tables } : {}),
  };
}

export async function measureFleet(b: Bench) {
  const timeScaleBefore = ((await b.control.getConfig()) as unknown as { timeScale: number }).timeScale;
  await b.setWriteDuration(b.throughputD);
  // About one write per two operations in this mix (an enable of an enabled scale set writes nothing).
  const azureBoundMs =
    (Math.max(0, b.fleetSizes.ops / 2 - AZURE_ARM_BUDGETS.writes.burst) * 60_000) /
    AZURE_ARM_BUDGETS.writes.refillPerMinute;
  const timeScale = azureBoundMs > 0 ? (b.fleetSizes.boundS * 1000) / azureBoundMs : 0.001;
  const shape: FleetShape = {
    ...b.fleetSizes,
    subscriptions: [{ account: "demo", resourceGroup: "demo-rg", control: b.control }],
    label: "fleet",
  };
  const shared = await fleet(b, true, timeScale, shape);
  b.log(
    `fleet, budget shared: ${shared.makespanMs} ms against a bound of ${shared.budgetBoundMs} ms (${shared.boundingBucket}), ${shared.throttled} × 429, ${shared.statementsPerArmCall.toFixed(3)} budget statements per ARM call`,
  );
  const apart = await fleet(b, false, timeScale, shape);
  b.log(`fleet, each replica its own budget: ${apart.makespanMs} ms, ${apart.throttled} × 429`);
  await b.control.setConfig({ timeScale: timeScaleBefore });
  await b.control.setThrottling({ enabled: true });
  const rows: Row[] = [
    {
      figure: `fleet: ${shared.operations} operations on ${shared.scaleSets} scale sets, ${shared.replicas} replicas on PostgreSQL, Azure's limits: makespan / budget bound`,
      measured: shared.ratio,
      target: "≤ 1.1, 0 × 429",
      met: shared.ratio <= 1.1 && shared.throttled === 0,
      detail: `${(shared.makespanMs / 1000).toFixed(1)} s against ${(shared.budgetBoundMs / 1000).toFixed(1)} s (${shared.boundingBucket}); ${shared.throttled} × 429, ${shared.armCalls} ARM calls, ${shared.failedTasks} failed`,
    },
    {
      figure: "the same with each replica its own budget (ARM_BUDGET_SHARED=false)",
      measured: apart.ratio,
      target: "reported beside it",
      met: null,
      detail: `${(apart.makespanMs / 1000).toFixed(1)} s; ${apart.throttled} × 429, ${apart.armCalls} ARM calls, ${apart.failedTasks} failed`,
    },
  ];
  return { rows, results: { fleet: { timeScale, shared, apart } } } satisfies Figure;
}

/** What a fleet run cost per ARM call: the model's inputs (bench/scaling-model.ts), as measured. */
function costsPerCall(run: Awaited<ReturnType<typeof fleet>>): PerCallCosts {
  const per = (n: number) => (run.armCalls > 0 ? n / run.armCalls : 0);
  return {
    replicaCpuMs: per(run.cpu.replicasMs),
    simulatorCpuMs: per(run.cpu.benchProcessMs),
    postgresCpuMs: per(run.cpu.postgresBackendsMs),
    postgresTransactions: per(run.postgres.transactions),
  };
}

/** The rows of the fleet and claim figures, which --only-fleet replaces and --skip-fleet keeps. */
export const FLEET_ROWS = /^fleet:|^claim with|^the same with each replica|^the same, SQLite$/;

/** A subscription's id for the 10× fleet: a GUID that says which it is. */
const fleetSubscriptionId = (k: number) => `00000000-0000-4000-8000-${String(100 + k).padStart(12, "0")}`;

/**
 * The fleet at ten times the size: b.fleet10Sizes.sets scale sets over b.fleet10Sizes.subscriptions subscriptions,
 * each subscription an account of the service (ACCOUNTS) on a simulator of its own, in this process (a simulator
 * plays one subscription; Azure keeps a subscription's buckets apart from another's), the budget shared by the
 * replicas. The time scale makes the busiest subscription's write budget bound the run at about boundS seconds.
 */
export async function measureFleet10(b: Bench) {
  const sizes = b.fleet10Sizes;
  const mix = { operations: sizes.ops, scaleSets: sizes.sets, subscriptions: sizes.subscriptions };
  const timeScale = timeScaleForBound(mix, sizes.boundS);
  const sims: RunningSimulator[] = [];
  try {
    for (let k = 0; k < sizes.subscriptions; k++)
      sims.push(
        await startSimulator({
          port: 0,
          writeDurationMs: b.throughputD,
          timeScale,
          seed: false,
          subscriptionId: fleetSubscriptionId(k),
        }),
      );
    const { shape, calibrationShape, oneTimeScale } = fleet10Shapes(b, sims, timeScale);
    b.log(
      `fleet ×10: ${sizes.ops} operations on ${sizes.sets} scale sets in ${sizes.subscriptions} subscription${sizes.subscriptions === 1 ? "" : "s"}, ${sizes.replicas} replicas, time scale ${timeScale.toPrecision(3)}`,
    );
    // Claims flat with depth: one claim with as many tasks queued as the fleet submits, against 10.
    const claims = await measureClaims(b, [10, sizes.ops], "fleet ×10: ");
    const calibration = await fleet(b, true, oneTimeScale, calibrationShape);
    const costs = costsPerCall(calibration);
    b.log(
      `fleet ×10, one subscription: ${calibration.makespanMs} ms against ${calibration.budgetBoundMs} ms, ${calibration.throttled} × 429; per ARM call ${JSON.stringify(costs)}`,
    );
    const shared = await fleet(b, true, timeScale, shape);
    b.log(
      `fleet ×10: ${shared.makespanMs} ms against a bound of ${shared.budgetBoundMs} ms (${shared.boundingBucket}), ${shared.throttled} × 429, ${shared.failedTasks} failed, wall ${shared.wallMs} ms`,
    );
    // The model of docs/scaling.md, from the costs per call measured at one subscription, against this run.
    const predicted = predictFleet({ ...mix, timeScale, cores: cpus().length }, costs);
    const model = modelCheck(b, predicted, shared);
    const rows: Row[] = [fleet10Row(shared), ...claims.rows, model.row];
    const oneSubscription = {
      timeScale: oneTimeScale,
      ...pick(calibration, ["scaleSets", "operations", "makespanMs", "budgetBoundMs", "ratio", "armCalls"]),
      ...pick(calibration, ["throttled", "failedTasks", "statementsPerArmCall"]),
      costsPerCall: costs,
    };
    const { predictedVsMeasured, coresUsed } = model;
    return {
      rows,
      results: {
        fleet10: {
          timeScale,
          ...shared,
          /** The run at one subscription whose costs per call the model takes. */
          oneSubscription,
          ...{ predicted, predictedVsMeasured, coresUsed, claims: claims.results.claims, loadAverage: loadAverage() },
        },
      },
    } satisfies Figure;
  } finally {
    await Promise.all(sims.map((s) => s.close()));
  }
}

function pick<T extends object, K extends keyof T>(o: T, keys: K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((k) => [k, o[k]])) as Pick<T, K>;
}

/**
 * The 10× fleet's shape over its simulators, and the calibration's: one subscription of the same shape (its share
 * of the scale sets and operations), the same replicas, at the same ARM calls a second (its bound the fleet's over
 * the subscriptions), whose costs per call the model takes (measured in this run, not carried from another day's
 * load).
 */
function fleet10Shapes(b: Bench, sims: RunningSimulator[], timeScale: number) {
  const sizes = b.fleet10Sizes;
  const subscriptions: FleetSubscription[] = sims.map((sim, k) => ({
    account: `fleet-${k}`,
    resourceGroup: "fleet-rg",
    control: new SimulatorControl(sim),
  }));
  const accounts = sims.map((sim, k) => ({
    name: `fleet-${k}`,
    subscriptionId: sim.subscriptionId,
    endpoint: sim.url,
    credential: "simulator",
    defaultResourceGroup: "fleet-rg",
    serverGroupResourceGroup: "account",
    regions: ["eastus"],
  }));
  // Every operation is submitted at once, by one caller: the backlog limit (10,000 waiting by default) is raised
  // to hold them, and the per-caller submission limit (6,000 a minute a replica) lifted, since what is measured is
  // the fleet's work against Azure's budgets, not one caller's flood.
  const envFor = (runAccounts: typeof accounts, runTimeScale: number) => ({
    ACCOUNTS: JSON.stringify(runAccounts),
    TASK_BACKLOG_LIMIT: String(sizes.ops + 1000),
    RATE_LIMIT_SUBMISSIONS: "0",
    // A service follows the clock of one simulator, SIMULATOR_URL's (the benchmark's own, at another time scale);
    // these accounts answer from simulators of their own, so the fleet's clock is given: without it the replicas
    // refilled their budget a hundred times too fast and 4,005 calls were refused with 429 (2026-11-27 16:12).
    ARM_BUDGET_REFILL_SCALE: String(1 / runTimeScale),
    AZURE_SCALE_SET_READS_PER_MINUTE: String(Math.max(1, Math.round(12 / runTimeScale))),
  });
  const shape: FleetShape = {
    ...{ sets: sizes.sets, ops: sizes.ops, replicas: sizes.replicas, subscriptions },
    ...{ env: envFor(accounts, timeScale), label: "fleet10", tables: true },
  };
  const one = {
    operations: Math.round(sizes.ops / sizes.subscriptions),
    scaleSets: Math.round(sizes.sets / sizes.subscriptions),
    subscriptions: 1,
  };
  const oneTimeScale = timeScaleForBound(one, sizes.boundS / sizes.subscriptions);
  const calibrationShape: FleetShape = {
    ...{ sets: one.scaleSets, ops: one.operations, replicas: sizes.replicas, subscriptions: subscriptions.slice(0, 1) },
    ...{ env: envFor(accounts.slice(0, 1), oneTimeScale), label: "fleet10-one" },
  };
  return { shape, calibrationShape, oneTimeScale };
}

type FleetRun = Awaited<ReturnType<typeof fleet>>;

function fleet10Row(shared: FleetRun): Row {
  return {
    figure: `fleet ×10: ${shared.operations} operations on ${shared.scaleSets} scale sets in ${shared.subscriptions} subscriptions, ${shared.replicas} replicas on PostgreSQL, Azure's limits: makespan / the busiest subscription's budget bound`,
    measured: shared.ratio,
    target: "≤ 1.1, 0 × 429, none failed",
    met: shared.ratio <= 1.1 && shared.throttled === 0 && shared.failedTasks === 0,
    detail: `${(shared.makespanMs / 1000).toFixed(1)} s against ${(shared.budgetBoundMs / 1000).toFixed(1)} s (${shared.boundingBucket}); ${shared.throttled} × 429, ${shared.armCalls} ARM calls, ${shared.failedTasks} failed; ${shared.postgres.transactionsPerArmCall.toFixed(2)} PostgreSQL statements per ARM call`,
  };
}

/** The model's prediction against the run: the counts within MODEL_COUNTS_WITHIN, the CPU within MODEL_CPU_WITHIN. */
function modelCheck(b: Bench, predicted: ReturnType<typeof predictFleet>, shared: FleetRun) {
  const vs = (p: number, m: number) => (p > 0 ? m / p : 0);
  const counts = {
    armCalls: vs(predicted.armCalls, shared.armCalls),
    budgetBound: vs(predicted.budgetBoundMs, shared.budgetBoundMs),
    postgresTransactions: vs(predicted.postgresTransactions, shared.postgres.transactions),
  };
  const cpu = {
    replicaCpu: vs(predicted.replicaCpuMs, shared.cpu.replicasMs),
    simulatorCpu: vs(predicted.simulatorCpuMs, shared.cpu.benchProcessMs),
    postgresCpu: vs(predicted.postgresCpuMs, shared.cpu.postgresBackendsMs),
  };
  // The makespan is the machine's as much as the service's: on a shared machine the run gets what CPU is left
  // (coresUsed), so it is reported beside the others, not judged with them.
  const makespan = vs(predicted.makespanMs, shared.makespanMs);
  const predictedVsMeasured = { ...counts, makespan, ...cpu };
  const furthest = (o: Record<string, number>) => Math.max(...Object.values(o).map((r) => Math.abs(r - 1)));
  const worstCounts = furthest(counts);
  const worstCpu = furthest(cpu);
  const totalCpuMs = shared.cpu.replicasMs + shared.cpu.benchProcessMs + shared.cpu.postgresBackendsMs;
  const coresUsed = totalCpuMs / shared.makespanMs;
  b.log(`fleet ×10, measured / predicted: ${JSON.stringify(predictedVsMeasured)}`);
  const list = (o: Record<string, number>) =>
    Object.entries(o)
      .map(([k, r]) => `${k} ${r.toFixed(2)}`)
      .join(", ");
  const row: Row = {
    figure:
      "fleet ×10: measured / predicted by bench/scaling-model.ts (ARM calls, budget bound, PostgreSQL statements; CPU), the furthest",
    measured: 1 + Math.max(worstCounts, worstCpu),
    target: `counts within ${MODEL_COUNTS_WITHIN * 100} %, CPU within ${MODEL_CPU_WITHIN * 100} % (guard)`,
    met: worstCounts <= MODEL_COUNTS_WITHIN && worstCpu <= MODEL_CPU_WITHIN,
    detail: `${list(counts)}; ${list(cpu)}; makespan ${makespan.toFixed(2)} with ${coresUsed.toFixed(2)} cores used`,
  };
  return { row, predictedVsMeasured, coresUsed };
}
