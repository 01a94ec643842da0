// The one place where configuration is read. Everything else receives a Config.
import { readFileSync } from "node:fs";
import { hostname } from "node:os";

export type CredentialConfig =
  /** A fixed bearer token, accepted only by the built-in simulator. */
  | { kind: "simulator" }
  /** @azure/identity's DefaultAzureCredential: workload identity, managed identity, az login, environment. */
  | { kind: "default" }
  /** A service principal; the secret itself is read from the named environment variable, never from the file. */
  | { kind: "clientSecret"; tenantId: string; clientId: string; clientSecretEnv: string };

export interface AccountConfig {
  /** The name orchestrators send as `credentials` or `account`. */
  name: string;
  subscriptionId: string;
  /** Used when a description names no resourceGroup (else clouddriver-azure's {application}-{region}). */
  defaultResourceGroup?: string;
  /** Regions this account may act in; empty means any. */
  regions: string[];
  /** ARM endpoint, e.g. https://management.azure.com. */
  endpoint: string;
  credential: CredentialConfig;
  /** PEM of a CA to trust for this account's endpoint only (the simulator's certificate). */
  caPem?: string;
}

export interface RetryConfig {
  /** Attempts per operation, the first included. */
  maxAttempts: number;
  /** Wall-clock bound for one operation, all attempts and waits included. */
  deadlineMs: number;
  /** First backoff after a conflict (409/412): a write lock clears within one write's duration, so start small. */
  conflictBaseDelayMs: number;
  /** First backoff after a server-side or network failure. */
  transientBaseDelayMs: number;
  /**
   * While another write holds the scale set (the read shows provisioningState Updating), re-read this often
   * instead of sending a write that would 409. Waiting is not a failed attempt; the deadline bounds it.
   */
  busyPollIntervalMs: number;
  /** Backoff used for 429 when Azure sends no Retry-After. */
  throttleDefaultDelayMs: number;
  /** No single wait is longer than this (Retry-After included, as long as the deadline allows it). */
  maxDelayMs: number;
}

export interface SimulatorConfig {
  /** embedded: start one in this process; external: use SIMULATOR_URL; off: real Azure accounts only. */
  mode: "embedded" | "external" | "off";
  port: number;
  host: string;
  url?: string;
  caPem?: string;
  writeDurationMs: number;
  /** The poll interval the simulator advertises (retry-after-ms). */
  pollHintMs: number;
  subscriptionId: string;
}

export interface StoreConfig {
  /** memory: one replica, lost on restart; sqlite: embedded file under dataDir; postgres: DATABASE_URL, several replicas. */
  kind: "memory" | "sqlite" | "postgres";
  /** For sqlite: the directory that holds tasks.db. */
  dataDir: string;
  databaseUrl?: string;
}

export interface TasksConfig {
  /** How long a claimed task stays ours without renewal; a dead replica's tasks are taken over after it. */
  leaseMs: number;
  /** How often leases are renewed and runnable tasks claimed. */
  claimIntervalMs: number;
  /** Tasks run at once by one replica. */
  concurrency: number;
  /** Finished tasks are kept this long, then pruned. */
  retentionMs: number;
  /** On SIGTERM/SIGINT: how long to wait for tasks to checkpoint before exiting anyway. */
  shutdownTimeoutMs: number;
  /** This replica's name in leases (default: hostname and pid). */
  replicaId: string;
}

/** A Clouddriver that answers everything this service does not serve (other clouds, other operations, its tasks). */
export interface ClouddriverConfig {
  /** Base URL, e.g. http://clouddriver:7002 (a path prefix is kept). */
  url: string;
  /** How long to wait for a connection. */
  connectTimeoutMs: number;
  /** How long to wait for the response headers, and at most between two chunks of a body. */
  timeoutMs: number;
}

export interface Config {
  host: string;
  port: number;
  bodyLimitBytes: number;
  logLevel: string;
  simulator: SimulatorConfig;
  accounts: AccountConfig[];
  retry: RetryConfig;
  /** Delay before the first poll of a long-running operation; later polls follow the Retry-After Azure sends. */
  lroPollIntervalMs: number;
  /** How many finished tasks the in-memory store keeps. */
  taskRetention: number;
  store: StoreConfig;
  tasks: TasksConfig;
  /**
   * How long a read of a scale set (and its VMs, or a listing of scale sets) answers the Clouddriver read routes
   * before Azure is asked again. Our own writes replace it at once.
   */
  readCacheTtlMs: number;
  /** Present when CLOUDDRIVER_URL is set: what is not ours is forwarded there. */
  clouddriver?: ClouddriverConfig;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

export const SIMULATOR_SUBSCRIPTION_ID = "00000000-0000-4000-8000-000000000001";
const BUILT_IN_SIMULATOR_CERT = new URL("./simulator/tls/simulator-cert.pem", import.meta.url);

type Env = Record<string, string | undefined>;

function intVar(env: Env, name: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number, got "${raw}"`);
  const value = Number(raw.trim());
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function readFileVar(env: Env, name: string): string | undefined {
  const path = env[name];
  if (!path) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`${name}: cannot read ${path}: ${(err as Error).message}`);
  }
}

function parseAccounts(json: string, source: string, sim: SimulatorConfig): AccountConfig[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (err) {
    throw new ConfigError(`${source} is not valid JSON: ${(err as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new ConfigError(`${source} must be a JSON array of accounts`);
  return parsed.map((raw, i) => {
    const at = `${source}[${i}]`;
    if (typeof raw !== "object" || raw === null) throw new ConfigError(`${at} must be an object`);
    const a = raw as Record<string, unknown>;
    const str = (key: string, required: boolean): string | undefined => {
      const v = a[key];
      if (v === undefined && !required) return undefined;
      if (typeof v !== "string" || v === "") throw new ConfigError(`${at}.${key} must be a non-empty string`);
      return v;
    };
    const credentialRaw = a.credential ?? "default";
    let credential: CredentialConfig;
    if (credentialRaw === "default") credential = { kind: "default" };
    else if (credentialRaw === "simulator") credential = { kind: "simulator" };
    else if (typeof credentialRaw === "object" && credentialRaw !== null) {
      const c = credentialRaw as Record<string, unknown>;
      if (typeof c.tenantId !== "string" || typeof c.clientId !== "string" || typeof c.clientSecretEnv !== "string") {
        throw new ConfigError(`${at}.credential needs tenantId, clientId and clientSecretEnv`);
      }
      credential = { kind: "clientSecret", tenantId: c.tenantId, clientId: c.clientId, clientSecretEnv: c.clientSecretEnv };
    } else throw new ConfigError(`${at}.credential must be "default", "simulator" or a client-secret object`);
    const regions = a.regions ?? [];
    if (!Array.isArray(regions) || !regions.every((r) => typeof r === "string")) {
      throw new ConfigError(`${at}.regions must be an array of strings`);
    }
    const onSimulator = credential.kind === "simulator";
    const endpoint = str("endpoint", false) ?? (onSimulator ? sim.url : undefined) ?? "https://management.azure.com";
    return {
      name: str("name", true)!,
      subscriptionId: str("subscriptionId", true)!,
      defaultResourceGroup: str("defaultResourceGroup", false),
      regions: regions as string[],
      endpoint,
      credential,
      caPem: onSimulator ? sim.caPem : undefined,
    };
  });
}

/** The demo account that `npm start` serves from the built-in simulator. */
export function simulatorDemoAccount(sim: Pick<SimulatorConfig, "url" | "caPem" | "subscriptionId">): AccountConfig {
  return {
    name: "demo",
    subscriptionId: sim.subscriptionId,
    defaultResourceGroup: "demo-rg",
    regions: ["eastus"],
    endpoint: sim.url ?? "",
    credential: { kind: "simulator" },
    caPem: sim.caPem,
  };
}

export function loadConfig(env: Env = process.env): Config {
  const simulatorUrl = env.SIMULATOR_URL || undefined;
  const modeRaw = env.SIMULATOR ?? (simulatorUrl ? "external" : "embedded");
  if (modeRaw !== "embedded" && modeRaw !== "external" && modeRaw !== "off") {
    throw new ConfigError(`SIMULATOR must be embedded, external or off, got "${modeRaw}"`);
  }
  if (modeRaw === "external" && !simulatorUrl) throw new ConfigError("SIMULATOR=external needs SIMULATOR_URL");
  if (simulatorUrl && !/^https:\/\//.test(simulatorUrl)) {
    throw new ConfigError(`SIMULATOR_URL must be an https:// URL (the Azure SDK refuses plain HTTP), got "${simulatorUrl}"`);
  }
  const simPort = intVar(env, "SIMULATOR_PORT", 7003, 0, 65535);
  const simHost = env.SIMULATOR_HOST || "127.0.0.1";
  const simulator: SimulatorConfig = {
    mode: modeRaw,
    port: simPort,
    host: simHost,
    url: modeRaw === "external" ? simulatorUrl!.replace(/\/+$/, "") : undefined,
    // The simulator's own certificate unless told otherwise: `npm run simulator` and an external SIMULATOR_URL then
    // work without extra settings. It is trusted for the simulator accounts' client only.
    caPem: readFileVar(env, "SIMULATOR_CA_FILE") ?? readFileSync(BUILT_IN_SIMULATOR_CERT, "utf8"),
    writeDurationMs: intVar(env, "SIMULATOR_WRITE_DURATION_MS", 2000, 0, 600_000),
    pollHintMs: intVar(env, "SIMULATOR_POLL_HINT_MS", 250, 1, 60_000),
    subscriptionId: env.SIMULATOR_SUBSCRIPTION_ID || SIMULATOR_SUBSCRIPTION_ID,
  };

  const accountsJson = readFileVar(env, "ACCOUNTS_FILE") ?? env.ACCOUNTS;
  const accountsSource = env.ACCOUNTS_FILE ? "ACCOUNTS_FILE" : "ACCOUNTS";
  const accounts = accountsJson ? parseAccounts(accountsJson, accountsSource, simulator) : [];
  if (simulator.mode !== "off" && !accounts.some((a) => a.name === "demo")) {
    // The embedded simulator's URL is known only once it listens; server.ts fills it in.
    accounts.push(simulatorDemoAccount(simulator));
  }
  if (accounts.length === 0) throw new ConfigError("SIMULATOR=off needs at least one account in ACCOUNTS or ACCOUNTS_FILE");
  const names = new Set<string>();
  for (const a of accounts) {
    if (names.has(a.name)) throw new ConfigError(`account "${a.name}" is configured twice`);
    names.add(a.name);
  }

  const retry: RetryConfig = {
    maxAttempts: intVar(env, "RETRY_MAX_ATTEMPTS", 8, 1, 100),
    deadlineMs: intVar(env, "RETRY_DEADLINE_MS", 15 * 60_000, 1000),
    conflictBaseDelayMs: intVar(env, "RETRY_CONFLICT_BASE_DELAY_MS", 200, 0),
    transientBaseDelayMs: intVar(env, "RETRY_TRANSIENT_BASE_DELAY_MS", 1000, 0),
    busyPollIntervalMs: intVar(env, "RETRY_BUSY_POLL_INTERVAL_MS", 500, 1),
    throttleDefaultDelayMs: intVar(env, "RETRY_THROTTLE_DEFAULT_DELAY_MS", 5000, 0),
    maxDelayMs: intVar(env, "RETRY_MAX_DELAY_MS", 60_000, 1),
  };

  const databaseUrl = env.DATABASE_URL || undefined;
  const storeKind = env.TASK_STORE ?? (databaseUrl ? "postgres" : "sqlite");
  if (storeKind !== "memory" && storeKind !== "sqlite" && storeKind !== "postgres") {
    throw new ConfigError(`TASK_STORE must be memory, sqlite or postgres, got "${storeKind}"`);
  }
  if (storeKind === "postgres" && !databaseUrl) throw new ConfigError("TASK_STORE=postgres needs DATABASE_URL");
  const store: StoreConfig = { kind: storeKind, dataDir: env.DATA_DIR || "data", databaseUrl };
  const tasks: TasksConfig = {
    leaseMs: intVar(env, "TASK_LEASE_MS", 30_000, 1000),
    claimIntervalMs: intVar(env, "TASK_CLAIM_INTERVAL_MS", 1000, 10),
    concurrency: intVar(env, "TASK_CONCURRENCY", 32, 1, 10_000),
    retentionMs: intVar(env, "TASK_RETENTION_MS", 7 * 24 * 3_600_000, 1000),
    shutdownTimeoutMs: intVar(env, "SHUTDOWN_TIMEOUT_MS", 10_000, 100),
    replicaId: env.REPLICA_ID || `${hostname()}:${process.pid}`,
  };
  if (tasks.claimIntervalMs * 3 > tasks.leaseMs) {
    throw new ConfigError(`TASK_CLAIM_INTERVAL_MS (${tasks.claimIntervalMs}) must be at most a third of TASK_LEASE_MS (${tasks.leaseMs}), so leases are renewed in time`);
  }

  const clouddriverUrl = env.CLOUDDRIVER_URL || undefined;
  if (clouddriverUrl && !/^https?:\/\/[^/?#]+(\/[^?#]*)?$/.test(clouddriverUrl)) {
    throw new ConfigError(`CLOUDDRIVER_URL must be an http:// or https:// URL without query, got "${clouddriverUrl}"`);
  }
  const clouddriver: ClouddriverConfig | undefined = clouddriverUrl
    ? {
        url: clouddriverUrl.replace(/\/+$/, ""),
        connectTimeoutMs: intVar(env, "CLOUDDRIVER_CONNECT_TIMEOUT_MS", 5000, 1, 600_000),
        timeoutMs: intVar(env, "CLOUDDRIVER_TIMEOUT_MS", 60_000, 1, 3_600_000),
      }
    : undefined;

  return {
    store,
    tasks,
    ...(clouddriver ? { clouddriver } : {}),
    host: env.HOST || "127.0.0.1",
    port: intVar(env, "PORT", 7002, 0, 65535),
    bodyLimitBytes: intVar(env, "BODY_LIMIT_BYTES", 1024 * 1024, 1024),
    logLevel: env.LOG_LEVEL || "info",
    simulator,
    accounts,
    retry,
    lroPollIntervalMs: intVar(env, "LRO_POLL_INTERVAL_MS", 1000, 1, 120_000),
    taskRetention: intVar(env, "TASK_RETENTION", 10_000, 1),
    readCacheTtlMs: intVar(env, "READ_CACHE_TTL_MS", 10_000, 0, 300_000),
  };
}
