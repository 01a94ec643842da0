// Entry point: read configuration, start the embedded simulator when asked, listen, and stop cleanly on signals.
//
// First the process itself (src/node-process.ts): V8's heap settings, which may restart it in place, and the compile
// cache. Everything else is imported dynamically, after that: static imports would all be loaded (read,
// type-stripped, compiled) before the first line here runs.
import { flushCompileCache } from "node:module";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { applyRuntimeHeapFlags, compileCacheDir, enableModuleCompileCache, restartWithHeapFlags } from "./node-process.ts";
import type { Config } from "./config.ts";
import type { TaskStore } from "./tasks/task-store.ts";

// Only as the entry point: restarting replaces the whole process, whoever imported this.
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const cacheDir = compileCacheDir();
  // The cache named in the environment, so that the restarted process finds this file in it too (and never loads
  // the type stripper, which holds some 18 MB once loaded).
  restartWithHeapFlags(cacheDir ? { ...process.env, NODE_COMPILE_CACHE: cacheDir } : process.env);
  enableModuleCompileCache(cacheDir);
}
const { buildApp, printBanner, writeLogLine } = await import("./app.ts");
const { AccountSetupError } = await import("./azure/client.ts");
const { ConfigError, loadConfig } = await import("./config.ts");
const { createTaskStore, TaskStoreOpenError } = await import("./tasks/create-task-store.ts");

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`vmss-ops: configuration error: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }

  let stopSimulator: (() => Promise<void>) | undefined;
  if (config.simulator.mode === "embedded") {
    const { startSimulator } = await import("./simulator/simulator.ts");
    const sim = await startSimulator({
      ...config.simulator.settings,
      host: config.simulator.host,
      port: config.simulator.port,
      subscriptionId: config.simulator.subscriptionId,
      throttling: config.simulator.throttling.enabled,
      seed: true,
    });
    stopSimulator = () => sim.close();
    // Only now is the simulator's address known: point the simulator accounts at it.
    for (const account of config.accounts) {
      if (account.credential.kind === "simulator") {
        account.endpoint = sim.url;
        account.caPem = sim.caPem;
      }
    }
    config.simulator.url = sim.url;
  }

  let store: TaskStore;
  try {
    store = await createTaskStore(config, { onPoolError: (err) => writeLogLine("error", `database connection error: ${err.message}`) });
  } catch (err) {
    if (err instanceof TaskStoreOpenError) {
      console.error(`vmss-ops: cannot open the task store: ${err.message}`);
      await stopSimulator?.();
      process.exit(2);
    }
    throw err;
  }

  let service: Awaited<ReturnType<typeof buildApp>>;
  try {
    service = await buildApp({ config, store });
  } catch (err) {
    if (!(err instanceof AccountSetupError)) throw err;
    console.error(`vmss-ops: configuration error: ${err.message}`);
    await store.close();
    await stopSimulator?.();
    process.exit(2);
  }
  await service.app.listen({ host: config.host, port: config.port });
  const base = `http://${config.host === "0.0.0.0" ? "127.0.0.1" : config.host}:${(service.app.server.address() as { port: number }).port}`;
  const lines = [
    `vmss-ops listening on ${base}`,
    config.simulator.url ? `Azure simulator: ${config.simulator.url} (${config.simulator.mode}); control API under ${config.simulator.url}/_sim` : "Azure: real accounts only",
    `accounts: ${config.accounts.map((a) => a.name).join(", ")}; tasks: ${config.store.kind === "sqlite" ? `SQLite in ${config.store.dataDir}/` : config.store.kind === "postgres" ? "PostgreSQL" : "in memory"} (replica ${config.tasks.replicaId})`,
    "try:",
    `  curl -s -X POST ${base}/azure/ops/resizeServerGroup -H 'content-type: application/json' \\`,
    `    -d '{"credentials":"demo","region":"eastus","serverGroupName":"web-prod-v001","capacity":{"min":1,"max":10,"desired":5}}'`,
    `  curl -s ${base}/task/<id>`,
    `  curl -s ${base}/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001`,
    `API documentation: ${base}/docs (OpenAPI: ${base}/openapi.json)`,
  ];
  printBanner(lines);
  applyRuntimeHeapFlags();
  // Written now, not only at exit: a replica that is killed still starts faster next time.
  flushCompileCache();

  // A credential that builds but cannot get a token (a wrong secret, an unknown tenant, no managed identity here)
  // shows only when it is used: try each account once now, so the log says which one at start-up.
  void Promise.all(
    service.accounts.names().map(async (name) => {
      const result = await service.accounts.probe(name, config.observability.readyTimeoutMs);
      if (!result.ok) service.app.log.error({ account: name, problem: result.problem, detail: result.detail }, `account "${name}" cannot reach Azure with its credential: ${result.problem}${result.detail ? `: ${result.detail}` : ""} (GET /ready shows this too)`);
    }),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    // New requests get 503 with Retry-After at once; tasks in flight keep their checkpoints and give their leases
    // back, so another replica (or this one after its restart) continues them without writing again.
    service.drain();
    service.app.log.info({ signal }, "shutting down");
    const force = setTimeout(() => {
      service.app.log.error({ timeoutMs: config.tasks.shutdownTimeoutMs + 2000 }, "shutdown took too long; exiting");
      process.exit(1);
    }, config.tasks.shutdownTimeoutMs + 2000);
    force.unref();
    await service.close(config.tasks.shutdownTimeoutMs);
    await stopSimulator?.();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
}

main().catch((err) => {
  console.error("vmss-ops failed to start:", err);
  process.exit(1);
});
