// The one place where the service's configuration is read from the environment. Everything else receives its own
// part of a Config, typed beside the code that uses it; the simulator reads its own settings (the vmss-simulator package).
import { isIP } from "node:net";
import { hostname } from "node:os";
import type { AccountConfig } from "./azure/account-config.ts";
import type { AccessConfig } from "./auth/access-config.ts";
import type { ArmBudgetConfig } from "./azure/arm-budget/create-arm-budget.ts";
import { DEFAULT_ARM_LINK, type ArmLinkConfig } from "./azure/arm-link.ts";
import type { ReadRetryConfig, RetryConfig } from "./azure/retry-policy.ts";
import type { ClouddriverConfig } from "./api/clouddriver-forwarding.ts";
import type { OverloadConfig } from "./api/overload.ts";
import type { ObservabilityConfig } from "./observability/routes.ts";
import type { StoreConfig } from "./tasks/create-task-store.ts";
import type { TasksConfig } from "./tasks/task-runner.ts";
import type { AuditConfig } from "./tasks/audit.ts";
import { loadAccess } from "./config/access.ts";
import { loadAccounts } from "./config/accounts.ts";
import { boolVar, ConfigError, intVar, positiveNumberVar, withFormerName, type Env } from "./config/env-vars.ts";
import {
  loadSimulator,
  type ClockSource,
  type ServiceSimulatorConfig,
  type SimulatorFacts,
} from "./config/simulator.ts";

export { ConfigError } from "./config/env-vars.ts";
export type { ServiceSimulatorConfig, SimulatorFacts } from "./config/simulator.ts";

export interface Config {
  /**
   * The interface the API listens on.
   * @env HOST
   * @default `127.0.0.1`
   */
  host: string;
  /**
   * The API's port (0: any free one).
   * @env PORT
   * @default `7002`
   */
  port: number;
  /**
   * Larger request bodies get 413.
   * @env BODY_LIMIT_BYTES
   * @default `1048576`
   */
  bodyLimitBytes: number;
  /**
   * Deepest nesting of arrays and objects in a JSON body; deeper is a 400 before parsing.
   * @env BODY_MAX_DEPTH
   * @default `32`
   */
  bodyMaxDepth: number;
  /**
   * pino's level: fatal, error, warn, info, debug, trace or silent.
   * @env LOG_LEVEL
   * @default `info`
   */
  logLevel: string;
  simulator: ServiceSimulatorConfig;
  accounts: AccountConfig[];
  retry: RetryConfig;
  /** The bounds of a read a poller or a person waits on (READ_RETRY_MAX_ATTEMPTS, READ_RETRY_DEADLINE_MS). */
  readRetry: ReadRetryConfig;
  /**
   * Delay before the first poll of a long-running operation; later polls follow the Retry-After Azure sends.
   * @env LRO_POLL_INTERVAL_MS
   * @default `1000`
   */
  lroPollIntervalMs: number;
  /**
   * The longest wait between polls, whatever Retry-After says. Azure's Retry-After is whole seconds; against a
   * simulator whose writes last milliseconds, tests set this low.
   * @env LRO_MAX_POLL_INTERVAL_MS
   * @default `120000`
   */
  lroMaxPollIntervalMs: number;
  /**
   * How many finished tasks the in-memory store keeps (the newest). Read from TASK_RETENTION, its former name, when
   * unset.
   * @env TASK_RETENTION_COUNT
   * @default `10000`
   */
  taskRetentionCount: number;
  store: StoreConfig;
  tasks: TasksConfig;
  /**
   * How long a read of a scale set (and its VMs, or a listing of scale sets) answers the Clouddriver read routes
   * before Azure is asked again. Our own writes replace it at once.
   * @env READ_CACHE_TTL_MS
   * @default `10000`
   */
  readCacheTtlMs: number;
  /** Present when CLOUDDRIVER_URL is set: what is not ours is forwarded there. */
  clouddriver?: ClouddriverConfig;
  access: AccessConfig;
  observability: ObservabilityConfig;
  overload: OverloadConfig;
  armBudget: ArmBudgetConfig;
  /** Every ARM call's deadline, and when a replica that gets no answers stops claiming and hands its tasks back. */
  armLink: ArmLinkConfig;
  /** The audit trail's retention (AUDIT_RETENTION_DAYS). */
  audit: AuditConfig;
  /**
   * Proxies whose X-Forwarded-For is believed (TRUSTED_PROXIES: addresses or CIDR ranges, comma-separated): a
   * request's address is the first one, from the right, that is not one of them. Empty: the connection's address.
   */
  trustedProxies: string[];
}

/**
 * The configuration in `env`. `simulator`: what the simulator's own settings say of its subscription and time
 * factor (src/startup-config.ts reads them with the simulator's rules).
 */
export function configFromEnv(env: Env, simulator: SimulatorFacts): Config {
  const sim = loadSimulator(env, simulator);
  const accounts = loadAccounts(env, sim);
  // Against the simulator alone, its clock runs timeScale times Azure's (0.1 by default: a 30 s write takes 3 s), and
  // so do its read refill and its buckets: pace by that, so a demo waits as Azure would, only faster.
  const paced = sim.mode !== "off" && accounts.every((a) => a.credential.kind === "simulator");
  const timeScale = paced ? sim.clock.timeScale : 1;
  const retry = loadRetry(env, timeScale);
  const store = loadStore(env, sim, accounts);
  const config: Config = {
    store,
    tasks: loadTasks(env),
    ...loadClouddriver(env),
    access: loadAccess(env, accounts, sim),
    overload: loadOverload(env),
    observability: {
      readyCacheMs: intVar(env, "READY_CACHE_MS", 10_000, 0, 600_000),
      readyTimeoutMs: intVar(env, "READY_TIMEOUT_MS", 5000, 100, 120_000),
    },
    host: env.HOST || "127.0.0.1",
    port: intVar(env, "PORT", 7002, 0, 65535),
    bodyLimitBytes: intVar(env, "BODY_LIMIT_BYTES", 1024 * 1024, 1024),
    bodyMaxDepth: intVar(env, "BODY_MAX_DEPTH", 32, 4, 1000),
    logLevel: logLevelVar(env),
    simulator: sim,
    accounts,
    retry,
    readRetry: {
      maxAttempts: intVar(env, "READ_RETRY_MAX_ATTEMPTS", 3, 1, 100),
      deadlineMs: intVar(env, "READ_RETRY_DEADLINE_MS", 20_000, 1000, 3_600_000),
    },
    lroPollIntervalMs: intVar(env, "LRO_POLL_INTERVAL_MS", 1000, 1, 120_000),
    lroMaxPollIntervalMs: intVar(env, "LRO_MAX_POLL_INTERVAL_MS", 120_000, 10, 600_000),
    taskRetentionCount: intVar(
      withFormerName(env, "TASK_RETENTION_COUNT", "TASK_RETENTION"),
      "TASK_RETENTION_COUNT",
      10_000,
      1,
    ),
    audit: { retentionMs: intVar(env, "AUDIT_RETENTION_DAYS", 90, 1, 36_500) * 86_400_000 },
    trustedProxies: loadTrustedProxies(env),
    readCacheTtlMs: intVar(env, "READ_CACHE_TTL_MS", 10_000, 0, 300_000),
    armLink: loadArmLink(env),
    armBudget: {
      enabled: boolVar(env, "ARM_BUDGET", true),
      refillScale: positiveNumberVar(env, "ARM_BUDGET_REFILL_SCALE", 1 / timeScale),
      shared: boolVar(env, "ARM_BUDGET_SHARED", store.kind === "postgres"),
    },
  };
  // The simulator's clock can change while the service runs (PUT /_sim/config, or learned from an external simulator
  // once it answers): what is paced by it follows, unless it was set explicitly.
  const readsSet = !!env.AZURE_SCALE_SET_READS_PER_MINUTE;
  const refillSet = !!env.ARM_BUDGET_REFILL_SCALE?.trim();
  if (paced)
    sim.clock.follow((scale) => {
      if (!readsSet) retry.scaleSetReadsPerMinute = scaleSetReadsPerMinuteAt(scale);
      retry.azureTimeScale = scale;
      if (!refillSet) config.armBudget.refillScale = 1 / scale;
    });
  return config;
}

/**
 * The simulator's clock the service paces itself by now (for `doctor`), or undefined when it is not paced by one
 * (real Azure accounts, or some of them).
 */
export function simulatorPace(
  config: Config,
): { timeScale: number; source: ClockSource; scaleSetReadsPerMinute: number } | undefined {
  const { simulator, accounts, retry } = config;
  if (simulator.mode === "off" || !accounts.every((a) => a.credential.kind === "simulator")) return undefined;
  const { timeScale, source } = simulator.clock;
  return { timeScale, source, scaleSetReadsPerMinute: retry.scaleSetReadsPerMinute };
}

/** Azure refills a scale set's reads 12 a minute; a simulator at a time scale that much faster. */
function scaleSetReadsPerMinuteAt(timeScale: number): number {
  return Math.max(1, Math.round(12 / timeScale));
}

/** pino's levels. pino itself throws on another, at the first logger, with a message that names no variable. */
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"];

function logLevelVar(env: Env): string {
  const level = env.LOG_LEVEL || "info";
  if (!LOG_LEVELS.includes(level))
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(", ")}, got "${level}"`);
  return level;
}

/** TRUSTED_PROXIES: addresses or CIDR ranges (IPv4 or IPv6), as fastify's trustProxy takes them. */
function loadTrustedProxies(env: Env): string[] {
  const items = (env.TRUSTED_PROXIES ?? "")
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  for (const item of items) {
    const [address, bits, extra] = item.split("/");
    const family = isIP(address);
    const maxBits = family === 4 ? 32 : 128;
    if (family === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits)))
      throw new ConfigError(
        `TRUSTED_PROXIES must list IP addresses or CIDR ranges separated by commas (e.g. 10.0.0.0/8,127.0.0.1), got "${item}"`,
      );
  }
  return items;
}

/** `timeScale`: of the Azure the accounts reach, 1 unless it is the simulator alone. */
function loadRetry(env: Env, timeScale: number): RetryConfig {
  return {
    maxAttempts: intVar(env, "RETRY_MAX_ATTEMPTS", 8, 1, 100),
    deadlineMs: intVar(env, "RETRY_DEADLINE_MS", 15 * 60_000, 1000),
    conflictBaseDelayMs: intVar(env, "RETRY_CONFLICT_BASE_DELAY_MS", 200, 0),
    transientBaseDelayMs: intVar(env, "RETRY_TRANSIENT_BASE_DELAY_MS", 1000, 0),
    busyPollIntervalMs: intVar(env, "RETRY_BUSY_POLL_INTERVAL_MS", 500, 1),
    throttleDefaultDelayMs: intVar(env, "RETRY_THROTTLE_DEFAULT_DELAY_MS", 5000, 0),
    maxDelayMs: intVar(env, "RETRY_MAX_DELAY_MS", 60_000, 1),
    busyReadShare: intVar(env, "RETRY_BUSY_READ_SHARE_PERCENT", 25, 1, 100) / 100,
    scaleSetReadsPerMinute: intVar(env, "AZURE_SCALE_SET_READS_PER_MINUTE", scaleSetReadsPerMinuteAt(timeScale), 1),
    scaleSetReadBurst: intVar(env, "AZURE_SCALE_SET_READ_BURST", 36, 1),
    maxRedrives: intVar(env, "RETRY_MAX_REDRIVES", 2, 0, 20),
    azureTimeScale: timeScale,
  };
}

function loadStore(env: Env, sim: ServiceSimulatorConfig, accounts: AccountConfig[]): StoreConfig {
  const databaseUrl = env.DATABASE_URL || undefined;
  // The embedded simulator keeps its scale sets in memory, so tasks about them are kept in memory too: `npm start`
  // always starts from one clean slate, and a task never names a scale set state that is gone.
  const kind =
    env.TASK_STORE ??
    (databaseUrl
      ? "postgres"
      : sim.mode === "embedded" && accounts.every((a) => a.credential.kind === "simulator")
        ? "memory"
        : "sqlite");
  if (kind !== "memory" && kind !== "sqlite" && kind !== "postgres") {
    throw new ConfigError(`TASK_STORE must be memory, sqlite or postgres, got "${kind}"`);
  }
  if (kind === "postgres" && !databaseUrl) throw new ConfigError("TASK_STORE=postgres needs DATABASE_URL");
  return {
    kind,
    dataDir: env.DATA_DIR || "data",
    databaseUrl,
    // Well under a client's patience (Orca's reads, a CLI, a load balancer's probe wait seconds, not tens of them).
    callTimeoutMs: intVar(env, "TASK_STORE_CALL_TIMEOUT_MS", 3000, 100, 600_000),
    // A request's store calls, all together (a submission reads the backlog, then creates; a poll reads a revision,
    // then the task), and their waits for a pooled connection: answered by then, 2 s before a 5 s patience runs out.
    requestDeadlineMs: intVar(env, "TASK_STORE_REQUEST_DEADLINE_MS", 3000, 100, 600_000),
    statementTimeoutMs: intVar(env, "TASK_STORE_STATEMENT_TIMEOUT_MS", 2000, 100, 600_000),
  };
}

function loadArmLink(env: Env): ArmLinkConfig {
  return {
    readTimeoutMs: intVar(env, "ARM_READ_TIMEOUT_MS", DEFAULT_ARM_LINK.readTimeoutMs, 100, 600_000),
    writeTimeoutMs: intVar(env, "ARM_WRITE_TIMEOUT_MS", DEFAULT_ARM_LINK.writeTimeoutMs, 100, 600_000),
    failuresToStopClaiming: intVar(env, "ARM_LINK_FAILURES", DEFAULT_ARM_LINK.failuresToStopClaiming, 1, 1000),
    releaseAfterMs: intVar(env, "ARM_LINK_RELEASE_AFTER_MS", DEFAULT_ARM_LINK.releaseAfterMs, 0, 3_600_000),
  };
}

function loadTasks(env: Env): TasksConfig {
  const tasks: TasksConfig = {
    leaseMs: intVar(env, "TASK_LEASE_MS", 30_000, 1000),
    claimIntervalMs: intVar(env, "TASK_CLAIM_INTERVAL_MS", 1000, 10),
    concurrency: intVar(env, "TASK_CONCURRENCY", 32, 1, 10_000),
    retentionMs: intVar(env, "TASK_RETENTION_MS", 7 * 24 * 3_600_000, 1000),
    shutdownTimeoutMs: intVar(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 100),
    replicaId: env.REPLICA_ID || `${hostname()}:${process.pid}`,
    waitPollMs: intVar(env, "TASK_WAIT_POLL_MS", 500, 10, 60_000),
    bodyCacheEntries: intVar(env, "TASK_BODY_CACHE_ENTRIES", 2000, 0, 1_000_000),
    backlogLimit: intVar(env, "TASK_BACKLOG_LIMIT", 10_000, 0, 10_000_000),
    maxOperations: intVar(env, "TASK_MAX_OPERATIONS", 50, 1, 1000),
  };
  if (tasks.claimIntervalMs * 3 > tasks.leaseMs) {
    throw new ConfigError(
      `TASK_CLAIM_INTERVAL_MS (${tasks.claimIntervalMs}) must be at most a third of TASK_LEASE_MS (${tasks.leaseMs}), so leases are renewed in time`,
    );
  }
  return tasks;
}

function loadClouddriver(env: Env): { clouddriver?: ClouddriverConfig } {
  const url = env.CLOUDDRIVER_URL || undefined;
  if (!url) return {};
  if (!/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(url)) {
    throw new ConfigError(`CLOUDDRIVER_URL must be an http:// or https:// URL without query, got "${url}"`);
  }
  return {
    clouddriver: {
      url: url.replace(/\/+$/, ""),
      connectTimeoutMs: intVar(env, "CLOUDDRIVER_CONNECT_TIMEOUT_MS", 5000, 1, 600_000),
      timeoutMs: intVar(env, "CLOUDDRIVER_TIMEOUT_MS", 60_000, 1, 3_600_000),
      ...(env.CLOUDDRIVER_AUTHORIZATION ? { authorization: env.CLOUDDRIVER_AUTHORIZATION } : {}),
    },
  };
}

function loadOverload(env: Env): OverloadConfig {
  return {
    maxEventLoopDelayMs: intVar(env, "OVERLOAD_MAX_EVENT_LOOP_DELAY_MS", 0, 0),
    maxHeapUsedBytes: intVar(env, "OVERLOAD_MAX_HEAP_USED_BYTES", 0, 0),
    maxRssBytes: intVar(env, "OVERLOAD_MAX_RSS_BYTES", 0, 0),
    maxEventLoopUtilization: intVar(env, "OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT", 0, 0, 100) / 100,
    sampleIntervalMs: intVar(env, "OVERLOAD_SAMPLE_INTERVAL_MS", 1000, 10, 60_000),
    retryAfterSeconds: intVar(env, "OVERLOAD_RETRY_AFTER_S", 5, 1, 3600),
    rateWindowMs: intVar(env, "RATE_LIMIT_WINDOW_MS", 60_000, 100, 3_600_000),
    submissionsPerWindow: intVar(env, "RATE_LIMIT_SUBMISSIONS", 6000, 0),
    readsPerWindow: intVar(env, "RATE_LIMIT_READS", 60_000, 0),
  };
}
