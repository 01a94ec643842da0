// The parts of the service that buildApp wires together: the store and accounts it opens, the fastify instance it
// configures, and what the routes share (the runner, the waiter, the metrics, the read cache, …).
import Fastify from "fastify";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { Config } from "../config.ts";
import { AccountRegistry } from "../azure/accounts.ts";
import type { ArmBudget } from "../azure/arm-budget/budget.ts";
import { createComputeClient } from "../azure/client.ts";
import { ArmLink } from "../azure/arm-link.ts";
import { createArmBudget } from "../azure/arm-budget/create-arm-budget.ts";
import { ScaleSetReads } from "../azure/read-cache.ts";
import { RateLimitBudget } from "../azure/rate-limit-budget.ts";
import { readRetry, type RetryConfig } from "../azure/retry-policy.ts";
import { AuditTrail } from "../api/audit-trail.ts";
import { answerClientError, answerRouterError, MAX_PATH_PARAMETER_LENGTH } from "../api/errors.ts";
import type { LazySchemaCompilers } from "../api/schema-compilers.ts";
import { TaskBodies } from "../api/task-bodies.ts";
import { serviceLoggerOptions } from "../observability/log-redaction.ts";
import { ServiceMetrics } from "../observability/metrics.ts";
import { lazyRequestLogger, OneLinePerRequest } from "../observability/request-logger.ts";
import { combineListeners, TaskLog } from "../observability/task-logs.ts";
import { TaskProgress } from "../observability/task-progress.ts";
import { operations } from "../operations/registry.ts";
import { BacklogMonitor } from "../tasks/backlog.ts";
import { DurationSharing } from "../tasks/duration-sharing.ts";
import { EventLoopLag } from "../observability/event-loop.ts";
import { LeaseExpiredError } from "../tasks/lease-deadline.ts";
import { MemoryTaskStore } from "../tasks/memory-task-store.ts";
import { StoreHealth, storeOutageReason, watchStoreOutages } from "../tasks/store-outage.ts";
import { TaskRunner } from "../tasks/task-runner.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import { TaskWaiter } from "../tasks/task-waiter.ts";

/** What the service keeps open: closed with it. */
export interface Resources {
  store: TaskStore;
  storeHealth: StoreHealth;
  accounts: AccountRegistry;
  armBudget?: ArmBudget;
  /** What this replica's ARM calls meet (each with its deadline); absent when the accounts were given. */
  armLink?: ArmLink;
}

/** The store (every call watched for an outage) and the accounts, as given or as configured. */
export async function openResources(
  config: Config,
  given: { store?: TaskStore; accounts?: AccountRegistry; armBudget?: ArmBudget },
): Promise<Resources> {
  // Every store call watched: an outage answers 503 and makes /ready say so at once (tasks/store-outage.ts).
  const storeHealth = new StoreHealth();
  const store = watchStoreOutages(given.store ?? new MemoryTaskStore(config.taskRetentionCount), storeHealth, {
    callTimeoutMs: config.store.callTimeoutMs,
  });
  // Every ARM call of this replica's clients takes from the budget first (shared with the other replicas on PostgreSQL).
  const armBudget = given.accounts ? given.armBudget : (given.armBudget ?? (await createArmBudget(config)));
  // Every ARM call with its deadline, and what they meet decides whether this replica claims (tasks/task-runner.ts).
  const armLink = given.accounts ? undefined : new ArmLink(config.armLink);
  const accounts =
    given.accounts ??
    (await AccountRegistry.open(config.accounts, (a, credential) =>
      createComputeClient(a, credential, armBudget, config.tasks.replicaId, armLink),
    ));
  return { store, storeHealth, accounts, ...(armBudget ? { armBudget } : {}), ...(armLink ? { armLink } : {}) };
}

/**
 * The fastify instance with the service's options. `logger`: the configured level and the service's redaction
 * (observability/log-redaction.ts), with a test's options (a stream, a level) on top, so that what it reads is what
 * the service would log; false for none.
 */
export function createFastify(
  config: Config,
  logger: boolean | Record<string, unknown> | undefined,
  schemas: LazySchemaCompilers,
) {
  const loggerOptions =
    logger === false
      ? false
      : { ...serviceLoggerOptions(config.logLevel), ...(typeof logger === "object" ? logger : {}) };
  return Fastify({
    // JSON lines. Request logs carry no headers, and secrets are cut from anything logged all the same.
    logger: loggerOptions,
    // Each request's logger is made when it first logs (most requests log nothing at their level).
    ...(loggerOptions ? { childLoggerFactory: lazyRequestLogger } : {}),
    // One line per request, at its end (the request-log plugin), not fastify's two: a line is a write to stdout.
    logController: new OneLinePerRequest(),
    bodyLimit: config.bodyLimitBytes,
    // While closing, requests still go through the hooks: the draining one answers 503 ShuttingDown with Retry-After
    // from the error catalogue, where fastify's own would be a bare 503 without Retry-After.
    return503OnClosing: false,
    // Every path parameter the document allows reaches its route (fastify's default stops at 100 characters).
    routerOptions: { maxParamLength: MAX_PATH_PARAMETER_LENGTH },
    frameworkErrors: answerRouterError,
    // What Node's parser refuses before fastify sees a request (a request line over 16 KB): our ErrorResponse too.
    clientErrorHandler: answerClientError,
    // removeAdditional off: an unknown key where the schema allows none is an error the caller should see,
    // not something to strip silently. verbose: errors carry their schema, so messages can quote its description.
    ajv: { customOptions: { allErrors: true, verbose: true, removeAdditional: false } },
    schemaController: { compilersFactory: schemas.factory },
    // request.ip: X-Forwarded-For's address only through these proxies (the audit trail's remoteAddress).
    ...(config.trustedProxies.length > 0 ? { trustProxy: config.trustedProxies } : {}),
  }).withTypeProvider<TypeBoxTypeProvider>();
}

export type ServiceApp = ReturnType<typeof createFastify>;

/** What the routes and the cross-cutting plugins share. */
export interface ServiceParts extends Resources {
  config: Config;
  audit: AuditTrail;
  /** Azure's throttling headers, as last seen. */
  budget: RateLimitBudget;
  backlog: BacklogMonitor;
  /** How long the event loop is held up: requests' arrival (overload, deadlines) and /ready. */
  eventLoopLag: EventLoopLag;
  metrics: ServiceMetrics;
  taskLog: TaskLog;
  progress: TaskProgress;
  waiter: TaskWaiter;
  /** Built, not started: the entry point starts it once the service listens. */
  runner: TaskRunner;
  /** Azure's write durations shared with the other replicas through the store: started by the entry point too. */
  durationSharing: DurationSharing;
  bodies: TaskBodies;
  /** Every read a poller or a person waits on: the Clouddriver reads, GET /azure/serverGroups, a dry run. */
  readRetry: RetryConfig;
  /** One read cache for the Clouddriver reads; every gateway feeds it its fresh reads and invalidates it on writes. */
  reads: ScaleSetReads;
}

export function serviceParts(app: ServiceApp, config: Config, resources: Resources): ServiceParts {
  const { store, accounts } = resources;
  logStoreOutages(app.log, resources.storeHealth);
  if (resources.armLink) logArmLink(app.log, resources.armLink);
  const budget = new RateLimitBudget();
  let runner: TaskRunner | undefined = undefined;
  // Past TASK_BACKLOG_LIMIT queued tasks, submissions get 429 with Retry-After (the shedding's, OVERLOAD_RETRY_AFTER_S).
  const backlog = new BacklogMonitor(store, {
    limit: config.tasks.backlogLimit,
    retryAfterSeconds: config.overload.retryAfterSeconds,
  });
  const metrics = new ServiceMetrics({
    tasksInFlight: () => runner?.active ?? 0,
    throttlingBudget: () => budget.snapshot(),
    backlog: () => backlog.view(),
    armCallsUnbudgeted: () => resources.armBudget?.counts.unbudgeted ?? 0,
    armBudget: () => {
      const b = resources.armBudget;
      return { calls: b?.counts.calls ?? 0, local: b?.counts.local ?? 0, statements: b?.statements ?? 0 };
    },
  });
  const taskLog = new TaskLog(app.log);
  const progress = new TaskProgress();
  const waiter = new TaskWaiter({ store, pollMs: config.tasks.waitPollMs });
  runner = new TaskRunner({
    onRunEnded: (id) => waiter.notify(id),
    admit: () => backlog.admit(),
    store,
    accounts,
    operations,
    config,
    listener: combineListeners(metrics.taskListener(), taskLog.listener(), progress.listener()),
    onInternalError: runnerErrorLog(app.log),
    ...(resources.armLink ? { armLink: resources.armLink } : {}),
  });
  const readRetryProfile = readRetry(config.retry, config.readRetry);
  const reads = new ScaleSetReads(accounts, {
    ttlMs: config.readCacheTtlMs,
    retry: readRetryProfile,
    // A read that joins one under way costs Azure nothing either: a hit.
    onLookup: (result) => metrics.readCache.inc({ result: result === "miss" ? "miss" : "hit" }),
  });
  accounts.listenToScaleSets(reads);
  const audit = new AuditTrail(store, app.log);
  const bodies = new TaskBodies(config.tasks.bodyCacheEntries);
  return {
    ...resources,
    config,
    audit,
    budget,
    backlog,
    eventLoopLag: new EventLoopLag(),
    metrics,
    taskLog,
    progress,
    waiter,
    runner,
    durationSharing: new DurationSharing(store, accounts.durations),
    bodies,
    reads,
    readRetry: readRetryProfile,
  };
}

/**
 * The store's outages, in the log once each: a line when the first call meets one (what happened), a line when the
 * first call shows it over (how long it lasted). Every request and every claim between meets it too, and says nothing
 * (the requests are answered 503 with Retry-After; the tasks wait).
 */
function logStoreOutages(log: ServiceApp["log"], storeHealth: StoreHealth): void {
  storeHealth.onChange = (change) => {
    if (change.state === "down")
      log.warn(
        { storeOutage: "started", reason: change.reason, err: (change.err as Error | undefined)?.message },
        `the task store is unavailable (${change.reason}): requests that need it are answered 503 TaskStoreUnavailable with Retry-After, /ready says not ready, and tasks wait (none fails for it) until it answers`,
      );
    else
      log.warn(
        { storeOutage: "cleared", reason: change.reason, downForMs: change.downForMs },
        `the task store answers again (${change.reason} for ${(change.downForMs / 1000).toFixed(1)} s): requests and tasks go on`,
      );
  };
}

/** This replica's link to Azure, in the log when its calls stop being answered and when they are answered again. */
function logArmLink(log: ServiceApp["log"], link: ArmLink): void {
  link.onChange = (change) => {
    if (change.state === "unanswered")
      log.warn(
        { armLink: "unanswered", code: change.code },
        `an ARM call got no answer (${change.code}): after ${link.config.failuresToStopClaiming} in a row this replica stops claiming tasks, and ${link.config.releaseAfterMs} ms later hands back those it holds`,
      );
    else
      log.warn(
        { armLink: "answered", silentForMs: change.silentForMs },
        `ARM answers again (after ${(change.silentForMs / 1000).toFixed(1)} s without an answer): this replica claims tasks`,
      );
  };
}

/** How the runner's internal errors are logged: a lost lease, a bug; a store outage is logged by logStoreOutages. */
function runnerErrorLog(log: ServiceApp["log"]) {
  return (err: unknown, taskId?: string): void => {
    const outage = storeOutageReason(err);
    if (err instanceof LeaseExpiredError)
      log.warn(
        { taskId, err: err.message },
        "the task's lease ended by this replica's clock before the task store confirmed a renewal: its run stopped here, with no further Azure call or store write; another replica goes on from its last checkpoint",
      );
    else if (outage === undefined)
      log.error({ err, taskId }, taskId ? "task failed with an internal error" : "task runner: internal error");
    // One a task whose run it stopped (the outage itself is logged once, by logStoreOutages).
    else if (taskId)
      log.warn(
        { reason: outage, err: (err as Error).message, taskId },
        "a write of the task to the task store failed: its run stops here, and the task is handed back (its lease released) as soon as the store answers, to go on from its last checkpoint",
      );
  };
}
