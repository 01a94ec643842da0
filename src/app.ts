// buildApp: the configured service, ready to inject() or listen(). Nothing here listens or reads the environment.
import Fastify, { type FastifyInstance } from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Config } from "./config.ts";
import { accessControlEnabled } from "./auth/access-config.ts";
import { AccountRegistry } from "./azure/accounts.ts";
import { createComputeClient } from "./azure/client.ts";
import { createArmBudget } from "./azure/create-arm-budget.ts";
import type { ArmBudget } from "./azure/arm-budget.ts";
import type { ClouddriverForwarder } from "./api/clouddriver-forwarding.ts";
import { docsRoutes } from "./api/docs.ts";
import { answerRouterError, apiError, installErrorHandling, MAX_PATH_PARAMETER_LENGTH } from "./api/errors.ts";
import { installJsonBodyParser } from "./api/json-body.ts";
import { documentNullsAsAbsent, openApiOptions } from "./api/openapi.ts";
import { LazySchemaCompilers } from "./api/schema-compilers.ts";
import { componentSchemas } from "./api/schemas.ts";
import { healthRoutes } from "./api/routes/health.ts";
import { featureRoutes } from "./api/routes/features.ts";
import { operationRoutes } from "./api/routes/operations.ts";
import { clusterOperationRoutes, clusterOperationSchemas } from "./api/routes/cluster-operations.ts";
import { serverGroupRoutes } from "./api/routes/server-groups.ts";
import { clouddriverReadRoutes } from "./api/routes/clouddriver-reads.ts";
import { ScaleSetReads } from "./azure/read-cache.ts";
import { clouddriverSchemas } from "./clouddriver/server-group.ts";
import { taskRoutes } from "./api/routes/tasks.ts";
import { auditRoutes, auditSchemas } from "./api/routes/audit.ts";
import { AuditTrail } from "./api/audit-trail.ts";
import { RateLimits, rateLimitRoutes } from "./api/routes/rate-limits.ts";
import { accountCheckSchemas, accountCheckRoutes } from "./api/routes/account-checks.ts";
import { observeAllArmResponses } from "./azure/arm-observer.ts";
import { RateLimitBudget } from "./azure/rate-limit-budget.ts";
import { readRetry } from "./azure/retry-policy.ts";
import { installAccessControl, type RouteAccessInfo } from "./api/access-control.ts";
import { documentEveryAnswer } from "./api/route-answers.ts";
import { ServiceMetrics } from "./observability/metrics.ts";
import { serviceLoggerOptions } from "./observability/log-redaction.ts";
import { lazyRequestLogger, OneLinePerRequest } from "./observability/request-logger.ts";
import { observabilityRoutes, Readiness } from "./observability/routes.ts";
import { combineObservers, TaskLog } from "./observability/task-logs.ts";
import { installOverloadProtection } from "./api/overload.ts";
import { TaskProgress } from "./observability/task-progress.ts";
import { uiRoutes } from "./ui/routes.ts";
import { installPageSecurityHeaders } from "./ui/page-headers.ts";
// For the entry point, whose lines outside the logger are JSON too (it may not import observability/ itself).
export { printBanner, writeLogLine } from "./observability/log-line.ts";
import { operations } from "./operations/registry.ts";
import { MemoryTaskStore } from "./tasks/memory-task-store.ts";
import type { TaskStore } from "./tasks/task-store.ts";
import { TaskRunner } from "./tasks/task-runner.ts";
import { LeaseExpiredError } from "./tasks/lease-deadline.ts";
import { TaskWaiter } from "./tasks/task-waiter.ts";
import { TaskBodies } from "./api/task-bodies.ts";
import { StoreHealth, storeOutageReason, watchStoreOutages } from "./tasks/store-outage.ts";
import { BacklogMonitor } from "./tasks/backlog.ts";

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
  runner: TaskRunner;
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
   * Stops taking work, interrupts tasks in flight (their checkpoints stay and their leases are given back), waits
   * for them up to timeoutMs, then closes the HTTP server and the store.
   */
  close(timeoutMs?: number): Promise<void>;
}

export async function buildApp(options: AppOptions): Promise<Service> {
  const { config } = options;
  // Every store call watched: an outage answers 503 and makes /ready say so at once (tasks/store-outage.ts).
  const storeHealth = new StoreHealth();
  const store = watchStoreOutages(options.store ?? new MemoryTaskStore(config.taskRetention), storeHealth, {
    callTimeoutMs: config.store.callTimeoutMs,
  });
  // Every ARM call of this replica's clients takes from the budget first (shared with the other replicas on PostgreSQL).
  const armBudget = options.accounts ? options.armBudget : (options.armBudget ?? (await createArmBudget(config)));
  const accounts =
    options.accounts ??
    (await AccountRegistry.open(config.accounts, (a, credential) =>
      createComputeClient(a, credential, armBudget, config.tasks.replicaId),
    ));

  const schemas = new LazySchemaCompilers();
  // The configured level and the service's redaction (observability/log-redaction.ts); a test's options (a stream,
  // a level) go on top of them, so that what it reads is what the service would log.
  const logger =
    options.logger === false
      ? false
      : { ...serviceLoggerOptions(config.logLevel), ...(typeof options.logger === "object" ? options.logger : {}) };
  const app = Fastify({
    // JSON lines. Request logs carry no headers, and secrets are cut from anything logged all the same.
    logger,
    // Each request's logger is made when it first logs (most requests log nothing at their level).
    ...(logger ? { childLoggerFactory: lazyRequestLogger } : {}),
    // One line per request, at its end (the onResponse hook below), not fastify's two: a line is a write to stdout.
    logController: new OneLinePerRequest(),
    bodyLimit: config.bodyLimitBytes,
    // While closing, requests still go through the hooks: the draining one answers 503 ShuttingDown with Retry-After
    // from the error catalogue, where fastify's own would be a bare 503 without Retry-After.
    return503OnClosing: false,
    // Every path parameter the document allows reaches its route (fastify's default stops at 100 characters).
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: answerRouterError,
    // removeAdditional off: an unknown key where the schema allows none is an error the caller should see,
    // not something to strip silently. verbose: errors carry their schema, so messages can quote its description.
    ajv: { customOptions: { allErrors: true, verbose: true, removeAdditional: false } },
    schemaController: { compilersFactory: schemas.factory },
    // request.ip: X-Forwarded-For's address only through these proxies (the audit trail's remoteAddress).
    ...(config.trustedProxies.length > 0 ? { trustProxy: config.trustedProxies } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
  // Who changed what: recorded with each change, refusals once answered (api/audit-trail.ts).
  const audit = new AuditTrail(store, app.log);

  const budget = new RateLimitBudget();
  let activeTasks = () => 0;
  // Past TASK_BACKLOG_LIMIT queued tasks, submissions get 429 with Retry-After (the shedding's, OVERLOAD_RETRY_AFTER_S).
  const backlog = new BacklogMonitor(store, {
    limit: config.tasks.backlogLimit,
    retryAfterSeconds: config.overload.retryAfterSeconds,
  });
  const metrics = new ServiceMetrics({
    tasksInFlight: () => activeTasks(),
    throttlingBudget: () => budget.snapshot(),
    backlog: () => backlog.view(),
  });
  const taskLog = new TaskLog(app.log);
  const progress = new TaskProgress();
  const waiter = new TaskWaiter({ store, pollMs: config.tasks.waitPollMs });
  let runnerOutageLoggedAt = 0;
  const runner = new TaskRunner({
    onRunEnded: (id) => waiter.notify(id),
    admit: () => backlog.admit(),
    store,
    accounts,
    operations,
    config,
    observer: combineObservers(metrics.taskObserver(), taskLog.observer(), progress.observer()),
    onInternalError: (err, taskId) => {
      const outage = storeOutageReason(err);
      if (err instanceof LeaseExpiredError)
        app.log.warn(
          { taskId, err: err.message },
          "the task's lease ended by this replica's clock before the task store confirmed a renewal: its run stopped here, with no further Azure call or store write; another replica goes on from its last checkpoint",
        );
      else if (outage === undefined)
        app.log.error({ err, taskId }, taskId ? "task failed with an internal error" : "task runner: internal error");
      else if (taskId)
        app.log.warn(
          { reason: outage, err: (err as Error).message, taskId },
          "a write of the task to the task store failed: its run stops here, and the task is handed back (its lease released) as soon as the store answers, to go on from its last checkpoint",
        );
      else if (storeHealth.lastSuccessAtMs > runnerOutageLoggedAt || Date.now() - runnerOutageLoggedAt >= 30_000) {
        // Claims and renewals fail every TASK_CLAIM_INTERVAL_MS while the store is down: once per outage, then every 30 s.
        runnerOutageLoggedAt = Date.now();
        app.log.warn(
          { reason: outage, err: (err as Error).message },
          "task runner: the task store is unavailable; claims and lease renewals resume when it answers",
        );
      }
    },
  });

  activeTasks = () => runner.active;
  installErrorHandling(app, { bodyLimitBytes: config.bodyLimitBytes });
  installPageSecurityHeaders(app);
  // Hooks on every request take a callback, not a promise: no promise and no microtask per request for them.
  app.addHook("onResponse", (request, reply, done) => {
    metrics.observeResponse(
      request.method,
      request.routeOptions.url ?? "unmatched",
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
    done();
  });
  let draining = false;
  // However the app is closed: what reaches it from then on is answered by the hook below.
  app.addHook("preClose", (done) => {
    draining = true;
    done();
  });
  app.addHook("onRequest", (request, reply, done) => {
    if (!draining) return done();
    reply.header("connection", "close");
    done(apiError("ShuttingDown", { retryAfterSeconds: 5 }));
  });
  const routes = installAccessControl(app, config.access);
  documentEveryAnswer(app);
  audit.install(app);
  await installOverloadProtection(app, config.overload);
  // JSON only: anything else is a 415, not a string that fails validation later; UTF-8 only, nested no deeper than
  // BODY_MAX_DEPTH (checked before anything walks the body).
  app.removeContentTypeParser("text/plain");
  installJsonBodyParser(app, { maxDepth: config.bodyMaxDepth, keepRaw: config.clouddriver !== undefined });
  // After access control: what is forwarded to Clouddriver needs the same credentials as what is served here.
  // Loaded only when configured: it brings undici, whose loading is a tenth of start-up.
  let forwarder: ClouddriverForwarder | undefined;
  if (config.clouddriver) {
    const forwarding = await import("./api/clouddriver-forwarding.ts");
    forwarder = new forwarding.ClouddriverForwarder(config.clouddriver, audit);
    forwarding.installClouddriverForwarding(app, forwarder);
  }
  for (const schema of [
    ...componentSchemas,
    RateLimits,
    ...accountCheckSchemas,
    Readiness,
    ...clouddriverSchemas,
    ...clusterOperationSchemas,
    ...auditSchemas,
  ])
    app.addSchema(schema);
  for (const op of operations.values()) app.addSchema(op.schema);

  if (options.generateOpenApi) {
    // Every operation's description (the bodies whose nulls are dropped as absent).
    const descriptions = [...[...operations.values()].map((op) => op.schema), ...clusterOperationSchemas].map(
      (schema) => schema.$id!,
    );
    await app.register((await import("@fastify/swagger")).default, {
      ...openApiOptions,
      transformObject: (document) =>
        "openapiObject" in document
          ? (documentNullsAsAbsent(document.openapiObject, descriptions) as typeof document.openapiObject)
          : document.swaggerObject,
    });
  }
  await app.register(docsRoutes, { oidcDiscoveryUrl: config.access.oidc?.discoveryUrl });
  await app.register(healthRoutes, {
    runner,
    accounts: accounts.names(),
    operations: [...operations.keys()],
    detailsNeedCredentials: accessControlEnabled(config.access),
  });
  if (!config.clouddriver) await app.register(featureRoutes, { operations: [...operations.keys()] });
  // Every read a poller or a person waits on: the Clouddriver reads, GET /azure/serverGroups, a dry run.
  const readRetryProfile = readRetry(config.retry, config.readRetry);
  await app.register(operationRoutes, {
    operations,
    accounts,
    runner,
    maxOperationsPerTask: config.tasks.maxOperations,
    forwarder,
    waiter,
    readRetry: readRetryProfile,
    audit,
    onSubmitted: (taskId, created, principal, ops) => {
      if (created) metrics.tasksSubmitted.inc();
      taskLog.submitted(taskId, principal, ops, created);
    },
  });
  const bodies = new TaskBodies(config.tasks.bodyCacheEntries);
  await app.register(taskRoutes, {
    store,
    forwarder,
    requeue: (task, entry, auditEntry) => runner.requeue(task, entry, auditEntry),
    onCancelRequested: (id) => runner.cancel(id),
    waiter,
    bodies,
    audit,
  });
  await app.register(auditRoutes, { store });
  await app.register(serverGroupRoutes, { accounts, readRetry: readRetryProfile });
  // One read cache for the Clouddriver reads; every gateway feeds it its fresh reads and invalidates it on writes.
  const reads = new ScaleSetReads(accounts, {
    ttlMs: config.readCacheTtlMs,
    retry: readRetryProfile,
    // A read that joins one under way costs Azure nothing either: a hit.
    onLookup: (result) => metrics.readCache.inc({ result: result === "miss" ? "miss" : "hit" }),
  });
  accounts.observeScaleSets(reads);
  await app.register(clouddriverReadRoutes, { accounts, reads, forwarder });
  await app.register(clusterOperationRoutes, { accounts, reads, runner, operations, waiter, audit });
  const stopObserving = observeAllArmResponses(budget);
  const stopCounting = observeAllArmResponses(metrics.armListener);
  app.addHook("onClose", async () => {
    stopObserving();
    stopCounting();
    if (!options.armBudget) await armBudget?.close();
  });
  await app.register(uiRoutes, { store, progress, accounts, reads, maxAttempts: config.retry.maxAttempts });
  await app.register(observabilityRoutes, {
    metrics,
    store,
    storeHealth,
    backlog,
    accounts,
    readyCacheMs: config.observability.readyCacheMs,
    probeTimeoutMs: config.observability.readyTimeoutMs,
  });
  await app.register(rateLimitRoutes, { budget, accounts });
  await app.register(accountCheckRoutes, { accounts, armBudget });
  await app.ready();
  runner.start();

  return {
    app,
    runner,
    waiter,
    store,
    accounts,
    routes,
    metrics,
    compileSchemas: () => schemas.compileAll(),
    drain() {
      draining = true;
    },
    async close(timeoutMs = config.tasks.shutdownTimeoutMs) {
      draining = true;
      await runner.stop(timeoutMs);
      // Held ?wait= requests answer now, with their task as it is.
      waiter.close();
      await app.close();
      await store.close();
    },
  };
}
