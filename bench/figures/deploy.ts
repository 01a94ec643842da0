// A deploy's overhead against Azure's critical path. Orca's stand-in (testkit/orca.ts, each step citing spinnaker/orca)
// drives a red/black (the deploy stage's createServerGroup with health gating into the load balancer's pools, then
// disableCluster and scaleDownCluster of the older group) and a rolling red/black 10/50/100 of a Uniform cluster of n
// instances, through the service, against the simulator at Azure's recorded durations scaled by one time factor, its
// health probe and autoscale's evaluation on (the older group carries an autoscale setting, which the deploy copies).
// Azure's critical path is read from the same run's call log and operations (bench/critical-path.ts).
//
// Orca's own time is not the service's: Orca polls a task every 5 s (MonitorKatoTask's backoff, scaled) and reads
// between its tasks. The time between Orca's tasks (a task's end to the next one's creation) that Azure did not
// spend on its critical path is Orca's, and is taken out; the rest of the makespan beyond the critical path is what
// the service added, split into our polls, our reads, queueing and the rest (our CPU, the store, the claims).
import { setTimeout as sleep } from "node:timers/promises";
import {
  SimulatorControl,
  startSimulator,
  type CallRecord,
  type OperationRecord,
  type RunningSimulator,
} from "vmss-simulator";
import type { ChildService } from "../../testkit/child-service.ts";
import { bakeImage, convertServerGroupCommandToDeployConfiguration, deckCommand } from "../../testkit/deck.ts";
import type { Json } from "../../testkit/json.ts";
import { cleanupBase, newStage, Orca, type Api, type Stage } from "../../testkit/orca.ts";
import {
  attributeGaps,
  azureSpans,
  criticalPath,
  pollLags,
  type GapShares,
  type TaskWindow,
} from "../critical-path.ts";
import { loadAverage, type Bench } from "../context.ts";
import { cpuMsOf } from "../measure.ts";
import type { Figure, Row } from "../table.ts";
import { DEPLOY_TARGET } from "../targets.ts";

/** Orca's MonitorKatoTask backoff, in Azure's (real) ms: scaled by the run's time factor. */
const ORCA_POLL_MS = 5000;
/** Azure's poll interval of a write (the simulator's Retry-After for updates): the service's poll cap, scaled. */
const AZURE_POLL_MS = 30_000;
const REGION = "eastus";
/** The read cache's TTL (READ_CACHE_TTL_MS's default), in Azure's ms: scaled by the run's time factor. */
const READ_CACHE_TTL_MS = 10_000;
/** RETRY_BUSY_POLL_INTERVAL_MS's default, in Azure's ms: scaled by the run's time factor. */
const BUSY_POLL_FLOOR_MS = 500;

function deploySizes(smoke: boolean) {
  // timeScale 0.02: a 30 s write lasts 600 ms; the rolling red/black of 100 (50 instances taken out one VM write at
  // a time, as Azure serialises a scale set's writes) lasts about 40 s.
  return smoke ? { sizes: [2], timeScale: 0.005, replicas: 2 } : { sizes: [10, 100], timeScale: 0.02, replicas: 3 };
}

/**
 * The check of "at Azure's own pace": the same red/black of 10 on the replicas sharing PostgreSQL at a time scale five
 * times slower (a 30 s write lasts 3 s), where our own milliseconds weigh a fifth of what they weigh at 0.02, after
 * one unmeasured, as the other rows come after the runs before them. Not in the smoke run.
 */
const PACE_CHECK = { instances: 10, timeScale: 0.1, strategy: "redblack" } as const;

type Strategy = "redblack" | "rollingredblack";

interface Setup {
  label: string;
  services: ChildService[];
}

/** The figure's own Azure: a simulator with the demo network (vnet, demo-nsg, demo-lb), and its control API. */
interface Azure {
  sim: RunningSimulator;
  control: SimulatorControl;
}

/** Orca's API: each request to the next replica, as a load balancer in front of them spreads them; task ids kept. */
function orcaApi(services: ChildService[], taskIds: string[]): Api {
  let i = 0;
  const api = async (method: string, path: string, body?: unknown) => {
    const via = services[i++ % services.length];
    const res = await via.api<{ id?: unknown }>(method, path, body);
    if (method === "POST" && path.startsWith("/azure/ops") && res.status === 202) taskIds.push(String(res.body.id));
    return res;
  };
  return api as Api;
}

/** The deploy stage's context, as Deck builds it and DetermineSourceServerGroupTask completes it. */
async function deployStage(orca: Orca, application: string, n: number, strategy: Strategy) {
  const config = convertServerGroupCommandToDeployConfiguration(
    deckCommand(application, { sku: { capacity: n }, strategy, scaleDown: true }),
  );
  const stage = newStage(config);
  await orca.determineSourceServerGroup(stage);
  return stage;
}

/** The server groups the deploy stage made (MonitorKatoTask's deploy.server.groups), in this region. */
function deployedGroups(stage: Stage): string[] {
  return (stage.context["deploy.server.groups"] as Record<string, string[]>)[REGION];
}

/** The cluster's first group (not measured), with an autoscale setting that holds it at n. */
async function sourceGroup(azure: Azure, orca: Orca, application: string, n: number): Promise<string> {
  const stage = await deployStage(orca, application, n, "redblack");
  await orca.deployStage(stage, { bake: await bakeImage(azure.sim, application) });
  const [name] = deployedGroups(stage);
  const rg = `/subscriptions/${azure.sim.subscriptionId}/resourceGroups/demo-rg`;
  const res = await azure.control.request(
    "PUT",
    `${rg}/providers/Microsoft.Insights/autoscalesettings/${name}-autoscale?api-version=2022-10-01`,
    {
      headers: { authorization: "Bearer bench" },
      body: {
        location: REGION,
        properties: {
          enabled: true,
          targetResourceUri: `${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`,
          profiles: [{ name: "default", capacity: { minimum: `${n}`, maximum: `${n}`, default: `${n}` }, rules: [] }],
        },
      },
    },
  );
  if (res.status !== 200 && res.status !== 201) throw new Error(`autoscale setting: ${res.status}`);
  return name;
}

/** Orca's red/black (RedBlackStrategy.groovy l.58-153) after the deploy stage: disableCluster, scaleDownCluster. */
async function redBlack(orca: Orca, application: string, deployed: string): Promise<void> {
  await orca.disableCluster(cleanupBase(REGION, application), [deployed]);
  await orca.scaleDownCluster(cleanupBase(REGION, application), [deployed]);
}

/** The measured deploy: the deploy stage, then the strategy's steps, as Orca runs them. */
async function runDeploy(
  azure: Azure,
  orca: Orca,
  application: string,
  n: number,
  strategy: Strategy,
  source: string,
  bake: Awaited<ReturnType<typeof bakeImage>>,
) {
  const stage = await deployStage(orca, application, n, strategy);
  if (strategy === "rollingredblack") {
    // RollingRedBlackStrategy.groovy l.72-91: the new group created at 0, its capacity saved.
    stage.context.targetPercentages = [10, 50, 100];
    stage.context.savedCapacity = { ...(stage.context.capacity as Record<string, number>) };
    stage.context.capacity = { min: 0, max: 0, desired: 0 };
  }
  await orca.deployStage(stage, { bake });
  const [deployed] = deployedGroups(stage);
  if (strategy === "redblack") await redBlack(orca, application, deployed);
  else
    await orca.rollingRedBlack({
      base: cleanupBase(REGION, application),
      source,
      deployed,
      savedCapacity: stage.context.savedCapacity as { min: number; max: number; desired: number },
      targetPercentages: [10, 50, 100],
    });
}

/** The tasks of the run, as the service reports them: when each was created and ended. */
async function taskWindows(via: ChildService, ids: string[]): Promise<TaskWindow[]> {
  const out: TaskWindow[] = [];
  for (const id of ids) {
    const { body } = await via.api<{ startTimeMs: number; endTimeMs?: number; operations: string[] }>(
      "GET",
      `/task/${id}`,
    );
    out.push({ start: body.startTimeMs, end: body.endTimeMs ?? Date.now(), label: body.operations.join(",") });
  }
  return out;
}

/** One measured deploy of `strategy` of n instances on `setup`. */
async function measureOne(azure: Azure, setup: Setup, strategy: Strategy, n: number, timeScale: number, tag = "") {
  const application = `${strategy === "redblack" ? "rb" : "rrb"}${n}r${setup.services.length}${tag}`;
  const taskIds: string[] = [];
  const orca = new Orca(orcaApi(setup.services, taskIds), { pollMs: Math.round(ORCA_POLL_MS * timeScale) });
  const source = await sourceGroup(azure, orca, application, n);
  // The bake stage's image (before the deploy stage, not measured).
  const bake = await bakeImage(azure.sim, `${application}n`);
  taskIds.length = 0;
  const cpu0 = setup.services.map((s) => cpuMsOf(s.child.pid!));
  const t0 = Date.now();
  await runDeploy(azure, orca, application, n, strategy, source, bake);
  const t1 = Date.now();
  const cpuMs = setup.services.reduce((sum, s, i) => sum + cpuMsOf(s.child.pid!) - cpu0[i], 0);
  // The operations ended; the simulator's state settles on this read.
  await sleep(0);
  const [calls, operations] = await Promise.all([azure.control.calls(), azure.control.operations()]);
  const tasks = await taskWindows(setup.services[0], taskIds);
  const config = await azure.control.getConfig();
  const probeMs = (config.healthProbeSeconds ?? 0) * 1000 * config.timeScale;
  return analyse({ calls, operations, tasks, t0, t1, probeMs, cpuMs, strategy, n, setup: setup.label, timeScale });
}

/** The run's makespan against Azure's critical path, and where the rest went. */
function analyse(run: {
  calls: CallRecord[];
  operations: OperationRecord[];
  tasks: TaskWindow[];
  t0: number;
  t1: number;
  probeMs: number;
  cpuMs: number;
  strategy: Strategy;
  n: number;
  setup: string;
  timeScale: number;
}) {
  const inRun = run.calls.filter((c) => c.time >= run.t0 && c.time <= run.t1);
  const path = criticalPath(azureSpans(inRun, run.operations, { probeMs: run.probeMs }));
  const gaps = attributeGaps(path.chain, inRun, run.tasks, run.t0, run.t1);
  const makespanMs = run.t1 - run.t0;
  const serviceMs = makespanMs - gaps.orcaMs;
  const opsInRun = run.operations.filter((o) => o.startedAt >= run.t0 && o.startedAt <= run.t1);
  const lags = pollLags(inRun, opsInRun).map((l) => l.lagMs);
  return {
    strategy: run.strategy,
    instances: run.n,
    setup: run.setup,
    makespanMs,
    serviceMs,
    criticalPathMs: path.ms,
    ratio: Number((serviceMs / path.ms).toFixed(3)),
    atAzurePace: atAzurePace(path.ms, gaps, run.timeScale),
    gaps,
    tasks: run.tasks.length,
    armCalls: inRun.filter((c) => c.origin === undefined).length,
    operations: opsInRun.length,
    pollLagMs: { total: lags.reduce((x, y) => x + y, 0), max: Math.max(0, ...lags) },
    cpuMs: Math.round(run.cpuMs),
    chain: path.chain.map((s) => `${s.label}: ${s.end - s.start} ms`),
  };
}

type DeployRun = ReturnType<typeof analyse>;

/**
 * The same ratio at Azure's own pace (time scale 1): the critical path and our polls (paced by Azure's intervals and
 * our re-read budget, which follow its clock) scaled up, our own milliseconds (queueing, reads, CPU) as measured.
 * Not a bound: at a fast time scale the simulator's Retry-After (whole seconds) rounds up and the poll cap decides,
 * so the polls need not keep their share of the path (PACE_CHECK measures the same deploy at a slower scale).
 */
function atAzurePace(criticalPathMs: number, gaps: GapShares, timeScale: number): number {
  const paced = (criticalPathMs + gaps.pollMs) / timeScale;
  return Number(((paced + gaps.queueMs + gaps.readMs + gaps.otherMs) / (criticalPathMs / timeScale)).toFixed(3));
}

async function setups(b: Bench, azure: Azure, timeScale: number, replicas: number, withOne = true): Promise<Setup[]> {
  // The service as npm start starts it, against this figure's simulator; it polls a write no slower than Azure's 30 s
  // interval at this time scale (the other figures' fastPolls). The source group's deploy warms each up.
  const env = {
    SIMULATOR_URL: azure.sim.url,
    LOG_LEVEL: "warn",
    LRO_MAX_POLL_INTERVAL_MS: String(Math.round(AZURE_POLL_MS * timeScale)),
    // Orca's reads are answered from a cache of 10 s; at this time scale that is 10 s of Azure's time too.
    READ_CACHE_TTL_MS: String(Math.round(READ_CACHE_TTL_MS * timeScale)),
    // The floor under the re-reads of a busy scale set (500 ms, real time) is 25 Azure-seconds at this scale, above
    // the read budget's pace (20 s): scaled, the budget paces them, as at Azure's own pace.
    RETRY_BUSY_POLL_INTERVAL_MS: String(Math.max(1, Math.round(BUSY_POLL_FLOOR_MS * timeScale))),
  };
  const databaseUrl = await b.database();
  const many = await Promise.all(
    Array.from({ length: replicas }, (_, i) =>
      b.child({ ...env, TASK_STORE: "postgres", DATABASE_URL: databaseUrl, REPLICA_ID: `deploy-${i}` }),
    ),
  );
  const shared = { label: `${replicas} replicas, PostgreSQL`, services: many };
  if (!withOne) return [shared];
  const one = await b.child({ ...env, TASK_STORE: "sqlite", DATA_DIR: b.tempDir() });
  return [{ label: "1 replica, SQLite", services: [one] }, shared];
}

function rowOf(r: DeployRun, timeScale?: number): Row {
  const g = r.gaps;
  const scale = timeScale === undefined ? "" : ` at time scale ${timeScale}`;
  return {
    figure: `deploy: ${r.strategy === "redblack" ? "red/black" : "rolling red/black 10/50/100"} of ${r.instances} instances, ${r.setup}${scale}: makespan (Orca's own time out) / Azure's critical path`,
    measured: r.ratio,
    target: `≤ ${DEPLOY_TARGET}`,
    met: r.ratio <= DEPLOY_TARGET,
    detail: `${(r.serviceMs / 1000).toFixed(1)} s for a critical path of ${(r.criticalPathMs / 1000).toFixed(1)} s (${r.operations} Azure operations); the rest: polls ${g.pollMs} ms, reads ${g.readMs} ms, queueing ${g.queueMs} ms, other ${g.otherMs} ms (service CPU ${r.cpuMs} ms); Orca's own ${g.orcaMs} ms out of ${(r.makespanMs / 1000).toFixed(1)} s; polls and path scaled to Azure's pace ${r.atAzurePace} ×`,
  };
}

export async function measureDeploy(b: Bench): Promise<Figure> {
  const size = deploySizes(b.smoke);
  // Azure's durations (writeDurationMs null: each kind's recorded seconds) and its health probe, at timeScale.
  const sim = await startSimulator({ port: 0, timeScale: size.timeScale, seed: true });
  const azure = { sim, control: new SimulatorControl(sim) };
  const runs: DeployRun[] = [];
  const paceCheck: DeployRun[] = [];
  try {
    const all = await setups(b, azure, size.timeScale, size.replicas);
    for (const setup of all)
      for (const strategy of ["redblack", "rollingredblack"] as const)
        for (const n of size.sizes) {
          const run = await measureOne(azure, setup, strategy, n, size.timeScale);
          b.log(`deploy: ${strategy} of ${n}, ${setup.label}: ${run.ratio} × the critical path`);
          runs.push(run);
        }
    for (const s of all.flatMap((x) => x.services)) await b.stop(s);
  } finally {
    await azure.control.close();
    await sim.close();
  }
  if (!b.smoke) paceCheck.push(await measurePaceCheck(b, size.replicas));
  const deploy = {
    takenAt: new Date().toISOString(),
    loadAverage: loadAverage(),
    settings: { ...size, orcaPollMs: Math.round(ORCA_POLL_MS * size.timeScale), target: DEPLOY_TARGET },
    runs,
    paceCheck: paceCheck.map((run) => ({ ...run, timeScale: PACE_CHECK.timeScale })),
  } satisfies Record<string, Json>;
  return {
    rows: [...runs.map((run) => rowOf(run)), ...paceCheck.map((run) => rowOf(run, PACE_CHECK.timeScale))],
    results: { deploy },
  };
}

/** PACE_CHECK on a simulator and replicas of its own. */
async function measurePaceCheck(b: Bench, replicas: number): Promise<DeployRun> {
  const { instances, timeScale, strategy } = PACE_CHECK;
  const sim = await startSimulator({ port: 0, timeScale, seed: true });
  const azure = { sim, control: new SimulatorControl(sim) };
  try {
    const [setup] = await setups(b, azure, timeScale, replicas, false);
    // Replicas that have run a deploy before, as a fleet's have: each has seen Azure's durations of the writes it
    // ran (write-durations.ts), where the first deploy of a fresh replica polls as Azure advertises.
    await measureOne(azure, setup, strategy, instances, timeScale, "w");
    const run = await measureOne(azure, setup, strategy, instances, timeScale);
    b.log(
      `deploy: ${strategy} of ${instances}, ${setup.label}, time scale ${timeScale}: ${run.ratio} × the critical path`,
    );
    for (const s of setup.services) await b.stop(s);
    return run;
  } finally {
    await azure.control.close();
    await sim.close();
  }
}
