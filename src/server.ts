// Entry point: read configuration, start the embedded simulator when asked, listen, and stop cleanly on signals.
//
// Started by src/main.js (`node src/main.js`, npm start, the image), which turns Node's compile cache on before any
// TypeScript is read; `node src/server.ts` works too, and turns it on here. First the process itself: V8's heap
// settings, which may restart it in place (src/node-process.ts), and the compile cache. Everything else is imported
// dynamically, after that: static imports would all be loaded (read, type-stripped, compiled) before the first line
// here runs.
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { compileCacheDir, enableModuleCompileCache } from "./compile-cache.js";
import { applyRuntimeHeapFlags, restartWithHeapFlags } from "./node-process.ts";
import type { Config } from "./config.ts";
import type { SimulatorConfig } from "vmss-simulator/settings";
import type { TaskStore } from "./tasks/task-store.ts";

// Only as the entry point (this file or src/main.js): restarting replaces the whole process, whoever imported this.
// Imported otherwise (scripts/warm-compile-cache.ts, which fills the image's compile cache), it starts nothing.
const entryPoint = process.argv[1] && resolve(process.argv[1]);
const isEntryPoint =
  entryPoint === fileURLToPath(import.meta.url) || entryPoint === fileURLToPath(new URL("./main.js", import.meta.url));
if (isEntryPoint) {
  const cacheDir = compileCacheDir();
  // The cache named in the environment, so that the restarted process has it on before it reads its entry point.
  restartWithHeapFlags(cacheDir ? { ...process.env, NODE_COMPILE_CACHE: cacheDir } : process.env);
  enableModuleCompileCache(cacheDir);
}
const { buildApp, printBanner, writeLogLine } = await import("./app.ts");
const { AccountSetupError } = await import("./azure/client.ts");
const { ConfigError } = await import("./config.ts");
const { loadStartupConfig } = await import("./startup-config.ts");
const { createTaskStore, TaskStoreOpenError } = await import("./tasks/create-task-store.ts");
const { listenToAllArmResponses } = await import("./azure/arm-listeners.ts");
const { parseTimeScale, readSimulatorTimeScale, TIME_SCALE_HEADER } = await import("./config/simulator.ts");
const { startTracing } = await import("./tracing/sdk.ts");

async function main(): Promise<void> {
  const { config, simulator } = readConfiguration();
  // Before anything that makes spans; nothing of the SDK is loaded unless OTEL_EXPORTER_OTLP_ENDPOINT is set.
  const tracing = await startTracing(process.env, config.tasks.replicaId);
  const stopSimulator =
    config.simulator.mode === "embedded" && simulator ? await startEmbeddedSimulator(config, simulator) : undefined;
  // Asked while the store opens: the budget is made with the clock the simulator states.
  const learning = config.simulator.mode === "external" ? learnSimulatorClock(config) : undefined;
  const store = await openStore(config, stopSimulator);
  await learning;
  followSimulatorClock(config);
  const service = await buildService(config, store, stopSimulator);
  // Warm before listening: a restarted replica meets its clients' pent-up requests the moment it listens, and its
  // runner claims a batch of tasks at once; what either would load then (the Azure SDK, the schema compilers) is read
  // and compiled synchronously while every request that came waits unread, seconds on a loaded machine
  // (docs/faults.md, "A replica restarted"). Until it listens, a client is refused and tries again, or another replica.
  service.warm();
  try {
    await service.app.listen({ host: config.host, port: config.port });
  } catch (err) {
    console.error(`vmss-ops: ${listenProblem(err, config.host, config.port, "PORT")}`);
    await service.close(1000).catch(() => undefined);
    await stopSimulator?.();
    process.exit(2);
  }
  // Tasks are taken once the service answers: a task's ?wait= and GET /task/{id} can be asked from the start.
  service.runner.start();
  service.durationSharing.start();
  const port = (service.app.server.address() as { port: number }).port;
  printBanner(bannerLines(config, `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${port}`));
  for (const warning of store.openWarnings ?? []) service.app.log.warn({ taskStore: "vacuum" }, warning);
  applyRuntimeHeapFlags();
  probeAccountsSoon(service, config.observability.readyTimeoutMs);
  stopOnSignals(service, config.tasks.shutdownTimeoutMs, async () => {
    await stopSimulator?.();
    // The spans of the tasks just handed over, sent before the process ends.
    await tracing?.shutdown().catch(() => undefined);
  });
}

type Service = Awaited<ReturnType<typeof buildApp>>;
type Stop = () => Promise<void>;

/** The configuration, or exit 2 with what is wrong in it. */
function readConfiguration(): { config: Config; simulator?: SimulatorConfig } {
  try {
    return loadStartupConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`vmss-ops: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
}

/** The simulator in this process, with the simulator accounts pointed at it; returns how to stop it. */
async function startEmbeddedSimulator(config: Config, simulatorConfig: SimulatorConfig): Promise<Stop> {
  const { startSimulator } = await import("vmss-simulator");
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  try {
    sim = await startSimulator({
      ...simulatorConfig.settings,
      host: simulatorConfig.host,
      port: simulatorConfig.port,
      subscriptionId: simulatorConfig.subscriptionId,
      throttling: simulatorConfig.throttling.enabled,
      seed: true,
      // SIMULATOR_STATE_DIR: the embedded simulator keeps its world across the service's restarts, as vmss-sim --state.
      ...(simulatorConfig.stateDir !== undefined ? { stateDir: simulatorConfig.stateDir } : {}),
    });
  } catch (err) {
    console.error(
      `vmss-ops: the embedded simulator: ${listenProblem(err, simulatorConfig.host, simulatorConfig.port, "SIMULATOR_PORT")}`,
    );
    process.exit(2);
  }
  // Only now is the simulator's address known: point the simulator accounts at it.
  for (const account of config.accounts) {
    if (account.credential.kind === "simulator") {
      account.endpoint = sim.url;
      account.caPem = sim.caPem;
    }
  }
  config.simulator.url = sim.url;
  config.simulator.clock.set(simulatorConfig.settings.timeScale, "simulator");
  return () => sim.close();
}

/**
 * An external simulator's clock, from its control API (GET /_sim/config): the service paces its re-reads and its ARM
 * budget by it, whatever SIMULATOR_TIME_SCALE says here (that is the simulator's setting, read where it runs). A
 * simulator that does not answer does not stop the start: a service is often started before its simulator (a compose
 * file, a test harness). It then paces by SIMULATOR_TIME_SCALE if set, else by Azure's own clock (1, never faster
 * than the simulator refills), until the simulator's first ARM answer states its clock (followSimulatorClock).
 */
async function learnSimulatorClock(config: Config): Promise<void> {
  const { clock, url } = config.simulator;
  const before = clock.source === "environment" ? clock.timeScale : undefined;
  try {
    const timeScale = await readSimulatorTimeScale(config.simulator);
    if (before !== undefined && before !== timeScale) saidOtherwise(before, timeScale, url!);
    clock.set(timeScale, "simulator");
  } catch (err) {
    writeLogLine(
      "warn",
      `the simulator at ${url} did not state its time scale (${(err as Error).message}): pacing the ARM budget and re-reads by ${before === undefined ? "Azure's own clock (time scale 1)" : `SIMULATOR_TIME_SCALE=${before}`} until its first ARM answer states it`,
    );
  }
}

function saidOtherwise(environment: number, simulator: number, url: string): void {
  writeLogLine(
    "warn",
    `SIMULATOR_TIME_SCALE=${environment} here, but the simulator at ${url} runs at time scale ${simulator}: pacing by the simulator's (the variable is the simulator's own setting; a service needs it only for an embedded simulator)`,
  );
}

/**
 * A change of the simulator's clock while the service runs (PUT /_sim/config {"timeScale":…}) is followed from the
 * header that states it on every ARM answer of the simulator: the next call after the change re-paces the budget and
 * the re-reads, with no poll of the control API (which would lag a change by its interval, and a fleet run changes
 * the clock just before it spends), and a simulator that did not answer at start is learned from its first answer.
 * Only the simulator's own answers count (real Azure states nothing of the kind).
 */
function followSimulatorClock(config: Config): void {
  const { clock, url } = config.simulator;
  if (!url) return;
  listenToAllArmResponses({
    onArmResponse(info) {
      const stated = info.headers.get(TIME_SCALE_HEADER);
      if (stated === undefined || !info.url.startsWith(`${url}/`)) return;
      const timeScale = parseTimeScale(stated);
      if (timeScale === undefined || (timeScale === clock.timeScale && clock.source === "simulator")) return;
      if (clock.source === "environment" && timeScale !== clock.timeScale)
        saidOtherwise(clock.timeScale, timeScale, url);
      else if (timeScale !== clock.timeScale)
        writeLogLine("info", `the simulator's clock changed: time scale ${timeScale} (was ${clock.timeScale})`);
      clock.set(timeScale, "simulator");
    },
  });
}

/** The task store, or exit 2 with why it cannot be opened. */
async function openStore(config: Config, stopSimulator: Stop | undefined): Promise<TaskStore> {
  try {
    return await createTaskStore(config, {
      onPoolError: (err) => writeLogLine("error", `database connection error: ${err.message}`),
    });
  } catch (err) {
    if (err instanceof TaskStoreOpenError) {
      console.error(`vmss-ops: cannot open the task store: ${err.message}`);
      await stopSimulator?.();
      process.exit(2);
    }
    throw err;
  }
}

/** The service, or exit 2 when an account cannot be set up as configured. */
async function buildService(config: Config, store: TaskStore, stopSimulator: Stop | undefined): Promise<Service> {
  try {
    return await buildApp({ config, store });
  } catch (err) {
    if (!(err instanceof AccountSetupError)) throw err;
    console.error(`vmss-ops: configuration error: ${err.message}`);
    await store.close();
    await stopSimulator?.();
    process.exit(2);
  }
}

/** What a person starting the service reads first: where it listens, what it talks to, and what to try. */
function bannerLines(config: Config, base: string): string[] {
  return [
    `vmss-ops listening on ${base}`,
    config.simulator.url
      ? `Azure simulator: ${config.simulator.url} (${config.simulator.mode}); control API under ${config.simulator.url}/_sim`
      : "Azure: real accounts only",
    `accounts: ${config.accounts.map((a) => a.name).join(", ")}; tasks: ${whereTasksAreKept(config)} (replica ${config.tasks.replicaId})`,
    ...(config.simulator.mode === "embedded" && config.store.kind !== "memory"
      ? [
          `note: tasks are kept (${config.store.kind}) while the embedded simulator starts fresh: after a restart, old tasks name scale set states that are gone`,
        ]
      : []),
    `status page: ${base}/ui`,
    "try:",
    `  curl -s -X POST ${base}/azure/ops/resizeServerGroup -H 'content-type: application/json' \\`,
    `    -d '{"credentials":"demo","region":"eastus","serverGroupName":"web-prod-v001","capacity":{"min":1,"max":10,"desired":5}}'`,
    `  curl -s ${base}/task/<id>`,
    `  curl -s ${base}/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001`,
    `API documentation: ${base}/docs (OpenAPI: ${base}/openapi.json)`,
  ];
}

function whereTasksAreKept(config: Config): string {
  if (config.store.kind === "sqlite") return `SQLite in ${config.store.dataDir}/`;
  if (config.store.kind === "postgres") return "PostgreSQL";
  if (config.simulator.mode === "embedded")
    return "in memory, like the embedded simulator's scale sets: both start fresh at every start";
  return "in memory";
}

/**
 * A credential that builds but cannot get a token (a wrong secret, an unknown tenant, no managed identity here)
 * shows only when it is used: try each account once, soon after start-up, so the log says which one. Not at once:
 * the first requests (a restarted replica's clients' pent-up ones among them) go first. /ready probes on its own.
 */
function probeAccountsSoon(service: Service, timeoutMs: number): void {
  setTimeout(() => {
    for (const name of service.accounts.names()) {
      void service.accounts.probe(name, timeoutMs).then((result) => {
        if (!result.ok)
          service.app.log.error(
            { account: name, problem: result.problem, detail: result.detail },
            `account "${name}" cannot reach Azure with its credential: ${result.problem}${result.detail ? `: ${result.detail}` : ""} (GET /ready shows this too)`,
          );
      });
    }
  }, STARTUP_PROBE_DELAY_MS).unref();
}

/**
 * On SIGTERM or SIGINT, new requests get 503 with Retry-After at once; tasks in flight keep their checkpoints and
 * give their leases back, so another replica (or this one after its restart) continues them without writing again.
 */
function stopOnSignals(service: Service, shutdownTimeoutMs: number, stopSimulator: Stop | undefined): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.drain();
    service.app.log.info({ signal }, "shutting down");
    const force = setTimeout(() => {
      service.app.log.error({ timeoutMs: shutdownTimeoutMs + 2000 }, "shutdown took too long; exiting");
      process.exit(1);
    }, shutdownTimeoutMs + 2000);
    force.unref();
    await service.close(shutdownTimeoutMs);
    await stopSimulator?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

/** How long after listening the accounts are first probed (see above). */
const STARTUP_PROBE_DELAY_MS = 1000;

/** A listen that failed, in one line that says what to change. */
function listenProblem(err: unknown, host: string, port: number, variable: string): string {
  const code = (err as { code?: string }).code;
  if (code === "EADDRINUSE")
    return `port ${port} (${variable}) on ${host} is already in use, often by an earlier npm start: stop that, or choose another port, e.g. ${variable}=${port + 10}`;
  if (code === "EACCES")
    return `port ${port} (${variable}) on ${host} needs privileges this process does not have: choose a port above 1023`;
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return `cannot listen on ${host} (HOST or SIMULATOR_HOST): not an address of this machine; 127.0.0.1 or 0.0.0.0 are`;
  return `cannot listen on ${host}:${port}: ${(err as Error).message}`;
}

if (isEntryPoint) {
  main().catch((err) => {
    // One line, no stack: what a person starting the service can act on. The stack is for LOG_LEVEL=debug.
    console.error(`vmss-ops failed to start: ${(err as Error).message ?? String(err)}`);
    if (process.env.LOG_LEVEL === "debug" || process.env.LOG_LEVEL === "trace") console.error(err);
    process.exit(1);
  });
}
