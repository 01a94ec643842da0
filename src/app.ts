// buildApp: the configured service, ready to inject() or listen(). Nothing here listens, reads the environment or
// starts the task runner (the entry point does, once the service listens).
import { flushCompileCache } from "node:module";
import type { Config } from "./config.ts";
import type { AccountRegistry } from "./azure/accounts.ts";
import type { DurationSharing } from "./tasks/duration-sharing.ts";
import type { ArmBudget } from "./azure/arm-budget/budget.ts";
import type { RouteAccessInfo } from "./api/access-control.ts";
import { LazySchemaCompilers } from "./api/schema-compilers.ts";
import { loadAzureSdk } from "./azure/sdk.ts";
import type { FastifyInstance } from "fastify";
import type { ServiceMetrics } from "./observability/metrics.ts";
import type { TaskRunner } from "./tasks/task-runner.ts";
import type { TaskStore } from "./tasks/task-store.ts";
import type { TaskWaiter } from "./tasks/task-waiter.ts";
import {
  accessControl,
  armResponseListeners,
  auditTrail,
  clouddriverForwarder,
  clouddriverForwarding,
  documentedAnswers,
  draining,
  errorHandling,
  jsonBodies,
  openApiGeneration,
  overloadProtection,
  arrivalTimes,
  pageSecurityHeaders,
  requestDeadlines,
  requestLog,
  sharedSchemas,
  type DrainState,
  type RouteRegistry,
} from "./app/cross-cutting.ts";
import { createFastify, openResources, serviceParts } from "./app/parts.ts";
import { serviceRoutes } from "./app/routes.ts";
// For the entry point, whose lines outside the logger are JSON too (it may not import observability/ itself).
export { printBanner, writeLogLine } from "./observability/log-line.ts";

export interface AppOptions {
  config: Config;
  store?: TaskStore;
  accounts?: AccountRegistry;
  /** The ARM call budget (default: as configured, for the accounts built here; none when accounts are given). */
  armBudget?: ArmBudget;
  /** Fastify logger options on top of the service's own (level, redaction); false for none, as most tests have. */
  logger?: boolean | Record<string, unknown>;
  /**
   * Generates the OpenAPI document from the routes (app.swagger()), for scripts/write-openapi.ts. The service serves
   * the checked-in result instead, without loading @fastify/swagger.
   */
  generateOpenApi?: boolean;
}

export interface Service {
  app: FastifyInstance;
  /** Refuses new requests with 503 and Retry-After (graceful shutdown has begun). */
  drain(): void;
  /** Built, not started: the entry point starts it once the service listens (a test that runs tasks does too). */
  runner: TaskRunner;
  /** Azure's write durations shared with the other replicas through the store: started by the entry point too. */
  durationSharing: DurationSharing;
  store: TaskStore;
  /** Requests held by ?wait= until their task ends. */
  waiter: TaskWaiter;
  /** Every route and who may call it (the access-control test walks it). */
  routes: RouteAccessInfo[];
  accounts: AccountRegistry;
  metrics: ServiceMetrics;
  /** Compiles every route schema not compiled yet (they compile on first use); returns how many. */
  compileSchemas(): number;
  /**
   * Loads and compiles now what the first requests and the first tasks would otherwise load and compile while they
   * wait: the schema compilers, the schemas of the routes every replica is asked at once (task reads, /health,
   * /ready), and the Azure SDK, which the runner's first claim needs; then writes the compile cache and restarts the
   * event loop's timing, since no request waited through that. The entry point calls it before it listens (see
   * docs/faults.md, "A replica restarted").
   */
  warm(): { schemas: number };
  /**
   * Stops taking work, interrupts tasks in flight (their checkpoints stay and their leases are given back), waits
   * for them up to timeoutMs, shares the write durations not shared yet, then closes the HTTP server and the store.
   */
  close(timeoutMs?: number): Promise<void>;
}

/**
 * The routes a replica is asked most, and at once after it starts: its clients' polls and its probes. Compiling them
 * loads the compilers (Ajv, fast-json-stringify) too, so that a submission's first use compiles only its own
 * schemas. Not every operation's: 218 schemas, 0.3 s idle and 1-2 s at load 13 on this 2-core machine (2026-12-02).
 */
function servedAtOnce(route: { method: string; url: string }): boolean {
  return route.method === "GET" && ["/task/:id", "/health", "/ready"].includes(route.url);
}

/**
 * Only a store whose calls wait for a server reads a request's deadline (tasks/store-outage.ts, pg/): on SQLite or in
 * memory, carrying one through every request cost a poll of GET /task/{id} CPU for nothing. 0: none.
 */
function requestDeadlineMs(config: Config, store: TaskStore): number {
  return store.boundedByRequestDeadlines === true ? (config.store.requestDeadlineMs ?? 0) : 0;
}

export async function buildApp(options: AppOptions): Promise<Service> {
  const { config } = options;
  const resources = await openResources(config, options);
  const schemas = new LazySchemaCompilers();
  const app = createFastify(config, options.logger, schemas);
  const parts = serviceParts(app, config, resources);
  const { store, runner, durationSharing, waiter, metrics, audit } = parts;
  const drain: DrainState = { draining: false };
  const registry: RouteRegistry = { routes: [] };

  // Before anything else looks at a request: when it arrived.
  await app.register(arrivalTimes, { lag: parts.eventLoopLag });
  await app.register(errorHandling, { bodyLimitBytes: config.bodyLimitBytes });
  await app.register(pageSecurityHeaders);
  await app.register(requestLog, { metrics });
  await app.register(draining, { state: drain });
  await app.register(accessControl, { access: config.access, registry });
  await app.register(documentedAnswers);
  await app.register(auditTrail, { audit });
  await app.register(overloadProtection, {
    overload: config.overload,
    submittedBefore: async (id) => (await store.findByClientRequestId(id)) !== undefined,
  });
  await app.register(jsonBodies, { maxDepth: config.bodyMaxDepth, keepRaw: config.clouddriver !== undefined });
  await app.register(requestDeadlines, { deadlineMs: requestDeadlineMs(config, store) });
  const forwarder = await clouddriverForwarder(config.clouddriver, audit);
  if (forwarder) await app.register(clouddriverForwarding, { forwarder });
  await app.register(sharedSchemas);
  if (options.generateOpenApi) await app.register(openApiGeneration);
  await app.register(serviceRoutes, { parts, forwarder });
  // The ARM call budget is closed with the app when the app made it.
  const owned = options.armBudget ? undefined : resources.armBudget;
  await app.register(armResponseListeners, { budget: parts.budget, metrics, ...(owned ? { owned } : {}) });
  await app.ready();

  return {
    app,
    runner,
    durationSharing,
    waiter,
    store,
    accounts: resources.accounts,
    routes: registry.routes,
    metrics,
    compileSchemas: () => schemas.compileAll(),
    warm() {
      const compiled = schemas.compileWhere(servedAtOnce);
      loadAzureSdk();
      // Written now, not only at exit: a replica that is killed still starts faster next time. Before listening too: it
      // writes every module compiled since the last write, synchronously (370 ms in one profiled restart, under load).
      flushCompileCache();
      // Nothing listened while this held the loop: no request waited through it (neither /ready nor shedding counts it).
      parts.eventLoopLag.restart();
      return { schemas: compiled };
    },
    drain() {
      drain.draining = true;
    },
    async close(timeoutMs = config.tasks.shutdownTimeoutMs) {
      drain.draining = true;
      await runner.stop(timeoutMs).then(() => durationSharing.stop());
      // Held ?wait= requests answer now, with their task as it is.
      waiter.close();
      await app.close();
      await store.close();
    },
  };
}
