// Entry point: read configuration, start the embedded simulator when asked, listen, and stop cleanly on signals.
//
// Everything else is imported dynamically, after the compile cache is on: static imports would all be loaded (read,
// type-stripped, compiled) before the first line here runs.
import { lstatSync, mkdirSync } from "node:fs";
import { enableCompileCache, flushCompileCache } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "./config.ts";
import type { TaskStore } from "./tasks/task-store.ts";

/**
 * Node's compile cache: the type-stripped sources and V8's compiled code of the modules, kept between starts (about a
 * fifth of start-up). In a directory of this user's own under the temp dir, used only if nobody else can write
 * to it (what is in it runs as code). NODE_COMPILE_CACHE and NODE_DISABLE_COMPILE_CACHE, Node's own, take
 * precedence. Without it, start-up is slower and nothing else changes.
 */
function enableModuleCompileCache(): void {
  if (process.env.NODE_COMPILE_CACHE || process.env.NODE_DISABLE_COMPILE_CACHE) return;
  const uid = process.getuid?.();
  const dir = join(tmpdir(), `vmss-ops-compile-cache${uid === undefined ? "" : `-${uid}`}`);
  try {
    mkdirSync(dir, { mode: 0o700, recursive: true });
    const st = lstatSync(dir);
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid) || (st.mode & 0o022) !== 0) return;
    enableCompileCache(dir);
  } catch {
    // An unwritable temp dir: no cache.
  }
}

enableModuleCompileCache();
const { buildApp } = await import("./app.ts");
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
    store = await createTaskStore(config, { onPoolError: (err) => console.error(`vmss-ops: database connection error: ${err.message}`) });
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
  console.log(lines.join("\n"));
  // Written now, not only at exit: a replica that is killed still starts faster next time.
  flushCompileCache();

  // A credential that builds but cannot get a token (a wrong secret, an unknown tenant, no managed identity here)
  // shows only when it is used: try each account once now, so the log says which one at start-up.
  void Promise.all(
    service.accounts.names().map(async (name) => {
      const result = await service.accounts.probe(name, config.observability.readyTimeoutMs);
      if (!result.ok) console.error(`vmss-ops: account "${name}" cannot reach Azure with its credential: ${result.problem}${result.detail ? `: ${result.detail}` : ""} (GET /ready shows this too)`);
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
      console.error("vmss-ops: shutdown took too long; exiting");
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
