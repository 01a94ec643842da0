// The one place where configuration is read. Everything else receives a Config.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { hostname } from "node:os";
import { SettingsError, SIMULATOR_SUBSCRIPTION_ID, simulatorConfigFromEnv, type SimulatorConfig } from "./simulator/settings.ts";

export { SIMULATOR_SUBSCRIPTION_ID };

/** How an account gets its Azure token. Secrets are never part of the configuration object: only how to read them. */
export type CredentialConfig =
  /** A fixed bearer token, accepted only by the built-in simulator. */
  | { kind: "simulator" }
  /** @azure/identity's DefaultAzureCredential: environment, workload identity, managed identity, az login. */
  | { kind: "default"; managedIdentityClientId?: string }
  /** A service principal with a secret, read from an environment variable or a file when the credential is built. */
  | { kind: "clientSecret"; tenantId: string; clientId: string; secretSource: string; readSecret: () => string }
  /** A service principal with a certificate (PEM with its private key). */
  | { kind: "clientCertificate"; tenantId: string; clientId: string; certificatePath: string; passwordSource?: string; readPassword?: () => string; sendCertificateChain: boolean }
  /** Kubernetes workload identity: a federated token file (AZURE_FEDERATED_TOKEN_FILE by default). */
  | { kind: "workloadIdentity"; tenantId: string; clientId: string; tokenFilePath: string }
  /** The managed identity of the VM, App Service or pod; a user-assigned one by client id or resource id. */
  | { kind: "managedIdentity"; clientId?: string; resourceId?: string };

export type CloudName = "AzureCloud" | "AzureUSGovernment" | "AzureChinaCloud" | "custom";

/** ARM endpoint, Entra authority host and token audience of each national cloud. */
export const CLOUDS: Record<Exclude<CloudName, "custom">, { endpoint: string; authorityHost: string; audience: string }> = {
  AzureCloud: { endpoint: "https://management.azure.com", authorityHost: "https://login.microsoftonline.com", audience: "https://management.azure.com" },
  AzureUSGovernment: { endpoint: "https://management.usgovcloudapi.net", authorityHost: "https://login.microsoftonline.us", audience: "https://management.usgovcloudapi.net" },
  AzureChinaCloud: { endpoint: "https://management.chinacloudapi.cn", authorityHost: "https://login.chinacloudapi.cn", audience: "https://management.chinacloudapi.cn" },
};

export interface AccountConfig {
  /** The name orchestrators send as `credentials` or `account`. */
  name: string;
  subscriptionId: string;
  /** The Entra tenant; credentials that need one use it unless they name their own. */
  tenantId?: string;
  cloud: CloudName;
  /** Used when a description names no resourceGroup (else clouddriver-azure's {application}-{region}). */
  defaultResourceGroup?: string;
  /**
   * Where a server group lives when its description names no resourceGroup: "application" (clouddriver-azure's
   * {application}-{region}, the default) or "account" (defaultResourceGroup when the account has one).
   */
  serverGroupResourceGroup?: "application" | "account";
  /** The admin user and SSH key (or password) of the VMs a create makes, as clouddriver-azure's Key Vault holds them. */
  vmAdmin?: VmAdminConfig;
  /** Regions this account may act in; empty means any. */
  regions: string[];
  /** ARM endpoint, e.g. https://management.azure.com. */
  endpoint: string;
  /** Microsoft Entra authority host, e.g. https://login.microsoftonline.com. */
  authorityHost: string;
  /** The token scope is `${audience}/.default`. */
  audience: string;
  credential: CredentialConfig;
  /** PEM of a CA to trust for this account's endpoint and authority only (the simulator's certificate). */
  caPem?: string;
}

/** Where a new server group's VM admin credentials come from: never from the request (Spinnaker sends none). */
export interface VmAdminConfig {
  adminUsername: string;
  /** An SSH public key, given inline (it is not a secret)… */
  sshPublicKey?: string;
  /** …or read from this file when a create is sent. */
  sshPublicKeyFile?: string;
  /** Or a password, from this environment variable of the service, read when a create is sent. */
  passwordEnv?: string;
  /**
   * Or clouddriver-azure's way: the account's Key Vault (its URL), holding the secrets VMUsername and VMSshPublicKey
   * (useSshPublicKey, the default) or VMPassword, read with the account's credential when a create is prepared.
   */
  keyVaultUrl?: string;
  useSshPublicKey?: boolean;
}

export interface RetryConfig {
  /** Attempts per operation, the first included; only a floor for 429, 408, 5xx and network failures (retry-policy.ts). */
  maxAttempts: number;
  /** maxAttempts bounds every failure, Azure's "not now" included: a read someone waits on (readRetry). Not from the environment. */
  attemptsBoundEverything?: boolean;
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
  /** No computed backoff is longer than this; Azure's Retry-After is honoured in full, within the deadline. */
  maxDelayMs: number;
  /**
   * The share of a scale set's read budget that one task may spend while it waits out another writer (0-1]. The
   * re-reads are paced so that they stay within this share of the refill (scaleSetReadsPerMinute).
   */
  busyReadShare: number;
  /** Azure's refill of a scale set's GET budget, per minute (12). A simulator that scales time scales this too. */
  scaleSetReadsPerMinute: number;
  /** Azure's burst of a scale set's GET budget (36): below our share of it, a waiting task waits for the refill. */
  scaleSetReadBurst: number;
  /**
   * How often a scale set that Azure left Failed (a write it accepted could not complete, e.g. AllocationFailed)
   * is driven again by re-sending its model, before the operation fails with the instances Azure lists.
   */
  maxRedrives: number;
}

/** The simulator as the service uses it: its own settings (src/simulator/settings.ts) and how the service reaches it. */
export type ServiceSimulatorConfig = SimulatorConfig & {
  /** embedded: start one in this process; external: use SIMULATOR_URL; off: real Azure accounts only. */
  mode: "embedded" | "external" | "off";
  url?: string;
  caPem?: string;
};

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
  /** ?wait=: how often a task waited on is read from the store, to notice one another replica ended. */
  waitPollMs: number;
  /** GET /task/{id}: answers kept, per task, until its revision changes (0: none). */
  bodyCacheEntries: number;
  /** Submissions get 429 while this many tasks wait to start (TASK_BACKLOG_LIMIT; 0: no limit). */
  backlogLimit: number;
}

/** A Clouddriver that answers everything this service does not serve (other clouds, other operations, its tasks). */
export interface ClouddriverConfig {
  /** Base URL, e.g. http://clouddriver:7002 (a path prefix is kept). */
  url: string;
  /** How long to wait for a connection. */
  connectTimeoutMs: number;
  /** How long to wait for the response headers, and at most between two chunks of a body. */
  timeoutMs: number;
  /** Authorization header value for Clouddriver (CLOUDDRIVER_AUTHORIZATION); callers' own are never forwarded. */
  authorization?: string;
}

/** Who may call the API: one principal, the accounts it may act on, and whether it may only read. */
export interface PrincipalConfig {
  name: string;
  /** "*" = every configured account. */
  accounts: "*" | string[];
  readOnly: boolean;
  /** SHA-256 of the bearer token; the token itself is never kept. */
  tokenSha256: Buffer;
}

export interface AccessConfig {
  /** Bearer-token principals (AUTH_TOKENS_FILE / AUTH_TOKENS). */
  principals: PrincipalConfig[];
  /** Honour Orca's X-SPINNAKER-USER / X-SPINNAKER-ACCOUNTS (AUTH_TRUST_SPINNAKER_HEADERS). */
  trustSpinnakerHeaders: boolean;
  /** /metrics needs a token too (METRICS_REQUIRE_TOKEN). */
  protectMetrics: boolean;
  /** Without access control, real accounts are refused unless this says the network is trusted (TRUSTED_NETWORK). */
  trustedNetwork: boolean;
}

/** Access control is on when anything can identify a caller; otherwise every caller may do everything. */
export function accessControlEnabled(access: AccessConfig): boolean {
  return access.principals.length > 0 || access.trustSpinnakerHeaders;
}

export interface Config {
  host: string;
  port: number;
  bodyLimitBytes: number;
  /** Deepest nesting of arrays and objects in a JSON body (BODY_MAX_DEPTH); deeper is a 400 before parsing. */
  bodyMaxDepth: number;
  logLevel: string;
  simulator: ServiceSimulatorConfig;
  accounts: AccountConfig[];
  retry: RetryConfig;
  /** Delay before the first poll of a long-running operation; later polls follow the Retry-After Azure sends. */
  lroPollIntervalMs: number;
  /**
   * The longest wait between polls, whatever Retry-After says (LRO_MAX_POLL_INTERVAL_MS, default 120 s). Azure's
   * Retry-After is whole seconds; against a simulator whose writes last milliseconds, tests set this low.
   */
  lroMaxPollIntervalMs: number;
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
  access: AccessConfig;
  observability: ObservabilityConfig;
  overload: OverloadConfig;
  armBudget: ArmBudgetConfig;
}

/** The ARM call budget (src/azure/arm-budget.ts, docs/configuration.md). */
export interface ArmBudgetConfig {
  /** ARM_BUDGET: take from the budget before each call (default true). */
  enabled: boolean;
  /** ARM_BUDGET_REFILL_SCALE: multiplies Azure's refill rates (a simulator at a time scale refills faster; default 1). */
  refillScale: number;
  /** ARM_BUDGET_SHARED: keep the levels in PostgreSQL, shared by every replica (default: when TASK_STORE is postgres). */
  shared: boolean;
}

export interface OverloadConfig {
  /** Shed load (503) while the event loop lags more than this (OVERLOAD_MAX_EVENT_LOOP_DELAY_MS; 0 = off). */
  maxEventLoopDelayMs: number;
  /** ... or the V8 heap holds more than this (OVERLOAD_MAX_HEAP_USED_BYTES; 0 = off). */
  maxHeapUsedBytes: number;
  /** ... or the process holds more than this (OVERLOAD_MAX_RSS_BYTES; 0 = off). */
  maxRssBytes: number;
  /** ... or the event loop is busier than this fraction (OVERLOAD_MAX_EVENT_LOOP_UTILIZATION; 0 = off). */
  maxEventLoopUtilization: number;
  sampleIntervalMs: number;
  /** Retry-After of a shed request, seconds. */
  retryAfterSeconds: number;
  /** Per principal and window (RATE_LIMIT_WINDOW_MS): POSTs (RATE_LIMIT_SUBMISSIONS) and GETs (RATE_LIMIT_READS); 0 = no limit. */
  rateWindowMs: number;
  submissionsPerWindow: number;
  readsPerWindow: number;
}

export interface ObservabilityConfig {
  /** /ready reuses its answer this long (READY_CACHE_MS), so probes do not become Azure traffic. */
  readyCacheMs: number;
  /** Each readiness check gives up after this (READY_TIMEOUT_MS). */
  readyTimeoutMs: number;
}

export class ConfigError extends Error {
  override name = "ConfigError";
}

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

function boolVar(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name]?.trim().toLowerCase();
  if (raw === undefined || raw === "") return fallback;
  if (raw === "true" || raw === "1" || raw === "yes") return true;
  if (raw === "false" || raw === "0" || raw === "no") return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** yaml, loaded with the first configuration document: most deployments have none, and loading it costs 20-30 ms. */
const yaml = () => createRequire(import.meta.url)("yaml") as typeof import("yaml");

/** A configuration document: YAML, of which JSON is a subset. */
function parseDocument(text: string, source: string): unknown {
  try {
    return yaml().parse(text);
  } catch (err) {
    const position = (err as { linePos?: { line: number; col: number }[] }).linePos?.[0];
    throw new ConfigError(`${source} is not valid YAML or JSON${position ? ` (line ${position.line}, column ${position.col})` : ""}`);
  }
}

const SHA256_HEX = /^[0-9a-f]{64}$/i;
const MIN_TOKEN_LENGTH = 16;

export function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

/**
 * Principals from AUTH_TOKENS_FILE or AUTH_TOKENS: `principals: [{ name, accounts, readOnly, tokenSha256 | tokenEnv | token }]`.
 * Errors name the principal and the key, never a token.
 */
function parsePrincipals(text: string, source: string, env: Env): PrincipalConfig[] {
  const doc = parseDocument(text, source);
  const list = Array.isArray(doc) ? doc : (doc as { principals?: unknown } | null)?.principals;
  if (!Array.isArray(list)) throw new ConfigError(`${source} must hold a list of principals (or { principals: [...] })`);
  const names = new Set<string>();
  const hashes = new Set<string>();
  return list.map((raw, i) => {
    if (typeof raw !== "object" || raw === null) throw new ConfigError(`${source}[${i}] must be an object`);
    const p = raw as Record<string, unknown>;
    if (typeof p.name !== "string" || p.name.trim() === "") throw new ConfigError(`${source}[${i}].name must be a non-empty string`);
    const at = `${source}: principal "${p.name}"`;
    if (names.has(p.name)) throw new ConfigError(`${at} is configured twice`);
    names.add(p.name);
    const known = new Set(["name", "accounts", "readOnly", "tokenSha256", "tokenEnv", "token"]);
    for (const key of Object.keys(p)) if (!known.has(key)) throw new ConfigError(`${at}: unknown key "${key}"; known: ${[...known].join(", ")}`);
    let accounts: "*" | string[];
    if (p.accounts === "*") accounts = "*";
    else if (Array.isArray(p.accounts) && p.accounts.every((a) => typeof a === "string" && a !== "")) accounts = p.accounts as string[];
    else throw new ConfigError(`${at}: accounts must be "*" or a list of account names`);
    if (p.readOnly !== undefined && typeof p.readOnly !== "boolean") throw new ConfigError(`${at}: readOnly must be true or false`);
    const given = ["tokenSha256", "tokenEnv", "token"].filter((k) => p[k] !== undefined);
    if (given.length !== 1) throw new ConfigError(`${at}: give exactly one of tokenSha256, tokenEnv, token`);
    let tokenSha256: Buffer;
    if (p.tokenSha256 !== undefined) {
      if (typeof p.tokenSha256 !== "string" || !SHA256_HEX.test(p.tokenSha256)) throw new ConfigError(`${at}: tokenSha256 must be 64 hex digits (sha256 of the token)`);
      tokenSha256 = Buffer.from(p.tokenSha256, "hex");
    } else {
      let token: unknown = p.token;
      if (p.tokenEnv !== undefined) {
        if (typeof p.tokenEnv !== "string" || p.tokenEnv === "") throw new ConfigError(`${at}: tokenEnv must name an environment variable`);
        token = env[p.tokenEnv];
        if (token === undefined || token === "") throw new ConfigError(`${at}: environment variable ${p.tokenEnv} is not set`);
      }
      if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH) throw new ConfigError(`${at}: the token must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
      tokenSha256 = sha256(token);
    }
    const hex = tokenSha256.toString("hex");
    if (hashes.has(hex)) throw new ConfigError(`${at}: the same token is given to another principal`);
    hashes.add(hex);
    return { name: p.name, accounts, readOnly: p.readOnly === true, tokenSha256 };
  });
}

/** An account of the simulator (not real Azure): its fixed token, or its endpoint. */
function onSimulator(account: AccountConfig, sim: ServiceSimulatorConfig): boolean {
  return account.credential.kind === "simulator" || (sim.url !== undefined && account.endpoint.startsWith(sim.url));
}

function loadAccess(env: Env, accounts: AccountConfig[], sim: ServiceSimulatorConfig): AccessConfig {
  const text = readFileVar(env, "AUTH_TOKENS_FILE") ?? env.AUTH_TOKENS;
  const source = env.AUTH_TOKENS_FILE ? "AUTH_TOKENS_FILE" : "AUTH_TOKENS";
  const principals = text ? parsePrincipals(text, source, env) : [];
  const access: AccessConfig = {
    principals,
    trustSpinnakerHeaders: boolVar(env, "AUTH_TRUST_SPINNAKER_HEADERS", false),
    // With principals configured, /metrics (its labels name accounts and scale sets) needs a token unless opened.
    protectMetrics: boolVar(env, "METRICS_REQUIRE_TOKEN", principals.length > 0),
    trustedNetwork: boolVar(env, "TRUSTED_NETWORK", false),
  };
  const known = new Set(accounts.map((a) => a.name));
  for (const p of access.principals) {
    if (p.accounts === "*") continue;
    const unknown = p.accounts.filter((a) => !known.has(a));
    if (unknown.length > 0) throw new ConfigError(`${source}: principal "${p.name}" names unknown account(s) ${unknown.join(", ")}; known: ${[...known].join(", ")}`);
  }
  if (access.protectMetrics && access.principals.length === 0) throw new ConfigError("METRICS_REQUIRE_TOKEN needs principals in AUTH_TOKENS_FILE or AUTH_TOKENS");
  const real = accounts.filter((a) => !onSimulator(a, sim));
  if (real.length > 0 && !accessControlEnabled(access) && !access.trustedNetwork) {
    throw new ConfigError(
      `account(s) ${real.map((a) => a.name).join(", ")} reach real Azure, but no access control is configured: ` +
        "set AUTH_TOKENS_FILE (or AUTH_TOKENS, AUTH_TRUST_SPINNAKER_HEADERS), or TRUSTED_NETWORK=true if only trusted callers can reach this service",
    );
  }
  return access;
}

const ACCOUNT_KEYS = new Set(["name", "subscriptionId", "tenantId", "cloud", "endpoint", "authorityHost", "audience", "caFile", "defaultResourceGroup", "serverGroupResourceGroup", "vmAdmin", "regions", "credential"]);

function serverGroupResourceGroupOf(raw: unknown, at: string): Pick<AccountConfig, "serverGroupResourceGroup"> {
  if (raw === undefined) return {};
  if (raw !== "application" && raw !== "account") throw new ConfigError(`${at}: serverGroupResourceGroup must be "application" ({application}-{region}) or "account" (defaultResourceGroup)`);
  return { serverGroupResourceGroup: raw };
}

function parseVmAdmin(raw: unknown, at: string): VmAdminConfig | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw new ConfigError(`${at}: vmAdmin must be an object (adminUsername, and sshPublicKey, sshPublicKeyFile or passwordEnv)`);
  const v = raw as Record<string, unknown>;
  const keys = ["adminUsername", "sshPublicKey", "sshPublicKeyFile", "passwordEnv", "keyVaultUrl"];
  for (const key of Object.keys(v)) if (![...keys, "useSshPublicKey"].includes(key)) throw new ConfigError(`${at}: vmAdmin key "${key}" is unknown; known: ${keys.join(", ")}, useSshPublicKey`);
  for (const key of keys) if (v[key] !== undefined && (typeof v[key] !== "string" || v[key] === "")) throw new ConfigError(`${at}: vmAdmin.${key} must be a non-empty string`);
  if (v.useSshPublicKey !== undefined && typeof v.useSshPublicKey !== "boolean") throw new ConfigError(`${at}: vmAdmin.useSshPublicKey must be true or false`);
  const given = ["sshPublicKey", "sshPublicKeyFile", "passwordEnv", "keyVaultUrl"].filter((k) => v[k] !== undefined);
  if (given.length !== 1) throw new ConfigError(`${at}: vmAdmin needs exactly one of sshPublicKey, sshPublicKeyFile, passwordEnv, keyVaultUrl`);
  if (typeof v.keyVaultUrl === "string") {
    if (!/^https:\/\//.test(v.keyVaultUrl)) throw new ConfigError(`${at}: vmAdmin.keyVaultUrl must be an https:// URL`);
    return {
      adminUsername: (v.adminUsername as string | undefined) ?? "",
      keyVaultUrl: v.keyVaultUrl.replace(/\/+$/, ""),
      useSshPublicKey: v.useSshPublicKey !== false,
    };
  }
  if (typeof v.sshPublicKey === "string" && !/^(ssh-|ecdsa-)/.test(v.sshPublicKey)) throw new ConfigError(`${at}: vmAdmin.sshPublicKey must be an OpenSSH public key (ssh-… or ecdsa-…)`);
  return {
    adminUsername: (v.adminUsername as string | undefined) ?? "azureuser",
    ...(given[0] === "sshPublicKey" ? { sshPublicKey: v.sshPublicKey as string } : given[0] === "sshPublicKeyFile" ? { sshPublicKeyFile: v.sshPublicKeyFile as string } : { passwordEnv: v.passwordEnv as string }),
  };
}
const CREDENTIAL_KEYS: Record<string, string[]> = {
  default: ["type", "managedIdentityClientId"],
  simulator: ["type"],
  clientSecret: ["type", "tenantId", "clientId", "clientSecretEnv", "clientSecretFile"],
  clientCertificate: ["type", "tenantId", "clientId", "certificatePath", "certificatePasswordEnv", "sendCertificateChain"],
  workloadIdentity: ["type", "tenantId", "clientId", "tokenFilePath"],
  managedIdentity: ["type", "clientId", "resourceId"],
};

function fileReadable(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    return undefined;
  }
}

function parseCredential(raw: unknown, at: string, accountTenant: string | undefined, env: Env): CredentialConfig {
  const c: Record<string, unknown> = typeof raw === "string" ? { type: raw } : typeof raw === "object" && raw !== null && !Array.isArray(raw) ? { ...(raw as object) } : {};
  if (typeof raw !== "string" && (typeof raw !== "object" || raw === null)) throw new ConfigError(`${at}: credential must be a name or an object`);
  // The original form: a service principal object without a type.
  if (c.type === undefined && c.clientSecretEnv !== undefined) c.type = "clientSecret";
  const type = c.type;
  if (typeof type !== "string" || !(type in CREDENTIAL_KEYS)) throw new ConfigError(`${at}: credential type must be one of ${Object.keys(CREDENTIAL_KEYS).join(", ")}, got ${JSON.stringify(type)}`);
  for (const key of Object.keys(c)) if (!CREDENTIAL_KEYS[type].includes(key)) throw new ConfigError(`${at}: credential key "${key}" does not apply to ${type}; its keys: ${CREDENTIAL_KEYS[type].join(", ")}`);
  const str = (key: string, fallback?: string): string | undefined => {
    const v = c[key];
    if (v === undefined) return fallback || undefined;
    if (typeof v !== "string" || v === "") throw new ConfigError(`${at}: credential ${key} must be a non-empty string`);
    return v;
  };
  const need = (key: string, fallback?: string, hint = ""): string => {
    const v = str(key, fallback);
    if (!v) throw new ConfigError(`${at}: ${type} needs ${key}${hint}`);
    return v;
  };
  const tenant = () => need("tenantId", accountTenant, " (on the credential or the account)");
  switch (type) {
    case "simulator":
      return { kind: "simulator" };
    case "default":
      return { kind: "default", managedIdentityClientId: str("managedIdentityClientId") };
    case "managedIdentity": {
      const clientId = str("clientId");
      const resourceId = str("resourceId");
      if (clientId && resourceId) throw new ConfigError(`${at}: managedIdentity takes clientId or resourceId, not both`);
      return { kind: "managedIdentity", clientId, resourceId };
    }
    case "clientSecret": {
      const tenantId = tenant();
      const clientId = need("clientId");
      const fromEnv = str("clientSecretEnv");
      const fromFile = str("clientSecretFile");
      if (!fromEnv === !fromFile) throw new ConfigError(`${at}: clientSecret needs exactly one of clientSecretEnv, clientSecretFile (the secret itself never goes in the file)`);
      if (fromEnv) {
        if (!env[fromEnv]) throw new ConfigError(`${at}: environment variable ${fromEnv} (clientSecretEnv) is not set`);
        return { kind: "clientSecret", tenantId, clientId, secretSource: `environment variable ${fromEnv}`, readSecret: () => env[fromEnv] ?? "" };
      }
      const content = fileReadable(fromFile!);
      if (content === undefined || content.trim() === "") throw new ConfigError(`${at}: clientSecretFile ${fromFile} cannot be read or is empty`);
      return { kind: "clientSecret", tenantId, clientId, secretSource: `file ${fromFile}`, readSecret: () => (fileReadable(fromFile!) ?? "").trim() };
    }
    case "clientCertificate": {
      const tenantId = tenant();
      const clientId = need("clientId");
      const certificatePath = need("certificatePath");
      const pem = fileReadable(certificatePath);
      if (pem === undefined) throw new ConfigError(`${at}: certificatePath ${certificatePath} cannot be read`);
      if (!/-----BEGIN CERTIFICATE-----/.test(pem) || !/-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.test(pem)) {
        throw new ConfigError(`${at}: certificatePath ${certificatePath} must be a PEM file with the certificate and its private key`);
      }
      const passwordEnv = str("certificatePasswordEnv");
      if (passwordEnv && !env[passwordEnv]) throw new ConfigError(`${at}: environment variable ${passwordEnv} (certificatePasswordEnv) is not set`);
      if (c.sendCertificateChain !== undefined && typeof c.sendCertificateChain !== "boolean") throw new ConfigError(`${at}: sendCertificateChain must be true or false`);
      return {
        kind: "clientCertificate",
        tenantId,
        clientId,
        certificatePath,
        ...(passwordEnv ? { passwordSource: `environment variable ${passwordEnv}`, readPassword: () => env[passwordEnv] ?? "" } : {}),
        sendCertificateChain: c.sendCertificateChain === true,
      };
    }
    case "workloadIdentity": {
      const tenantId = need("tenantId", accountTenant ?? env.AZURE_TENANT_ID, " (or AZURE_TENANT_ID)");
      const clientId = need("clientId", env.AZURE_CLIENT_ID, " (or AZURE_CLIENT_ID)");
      const tokenFilePath = need("tokenFilePath", env.AZURE_FEDERATED_TOKEN_FILE, " (or AZURE_FEDERATED_TOKEN_FILE)");
      if (fileReadable(tokenFilePath) === undefined) throw new ConfigError(`${at}: the federated token file ${tokenFilePath} cannot be read`);
      return { kind: "workloadIdentity", tenantId, clientId, tokenFilePath };
    }
  }
  throw new ConfigError(`${at}: unknown credential type ${type}`);
}

function parseAccounts(text: string, source: string, sim: ServiceSimulatorConfig, env: Env): AccountConfig[] {
  const parsed = parseDocument(text, source);
  const list = Array.isArray(parsed) ? parsed : (parsed as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(list)) throw new ConfigError(`${source} must be a list of accounts (or { accounts: [...] })`);
  return list.map((raw, i) => {
    if (typeof raw !== "object" || raw === null) throw new ConfigError(`${source}[${i}] must be an object`);
    const a = raw as Record<string, unknown>;
    const named = typeof a.name === "string" && a.name !== "" ? `account "${a.name}"` : `${source}[${i}]`;
    const at = `${source}: ${named}`;
    const str = (key: string, required: boolean): string | undefined => {
      const v = a[key];
      if (v === undefined && !required) return undefined;
      if (typeof v !== "string" || v === "") throw new ConfigError(`${at}: ${key} must be a non-empty string`);
      return v;
    };
    for (const key of Object.keys(a)) if (!ACCOUNT_KEYS.has(key)) throw new ConfigError(`${at}: unknown key "${key}"; known: ${[...ACCOUNT_KEYS].join(", ")}`);
    const name = str("name", true)!;
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name)) throw new ConfigError(`${at}: name must be 1-64 letters, digits, '.', '_' or '-'`);
    const subscriptionId = str("subscriptionId", true)!;
    if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(subscriptionId)) throw new ConfigError(`${at}: subscriptionId must be a GUID`);
    const tenantId = str("tenantId", false);
    const credential = parseCredential(a.credential ?? "default", at, tenantId, env);
    const regions = a.regions ?? [];
    if (!Array.isArray(regions) || !regions.every((r) => typeof r === "string")) throw new ConfigError(`${at}: regions must be a list of strings`);
    const onSimulator = credential.kind === "simulator";
    const explicitEndpoint = str("endpoint", false)?.replace(/\/+$/, "");
    const cloudRaw = a.cloud ?? (explicitEndpoint || onSimulator ? "custom" : "AzureCloud");
    if (typeof cloudRaw !== "string" || !(cloudRaw === "custom" || cloudRaw in CLOUDS)) {
      throw new ConfigError(`${at}: cloud must be AzureCloud, AzureUSGovernment, AzureChinaCloud or custom, got ${JSON.stringify(cloudRaw)}`);
    }
    const cloud = cloudRaw as CloudName;
    const known = cloud === "custom" ? undefined : CLOUDS[cloud];
    const endpoint = explicitEndpoint ?? known?.endpoint ?? (onSimulator ? sim.url : undefined);
    if (cloud === "custom" && !endpoint && !onSimulator) throw new ConfigError(`${at}: cloud custom needs endpoint (the ARM endpoint)`);
    if (endpoint && !/^https:\/\//.test(endpoint)) throw new ConfigError(`${at}: endpoint must be an https:// URL`);
    const authorityHost = str("authorityHost", false)?.replace(/\/+$/, "") ?? known?.authorityHost ?? endpoint ?? "";
    if (authorityHost && !/^https:\/\//.test(authorityHost)) throw new ConfigError(`${at}: authorityHost must be an https:// URL`);
    const audience = str("audience", false)?.replace(/\/+$/, "") ?? known?.audience ?? CLOUDS.AzureCloud.audience;
    const caFile = str("caFile", false);
    let caPem: string | undefined;
    if (caFile) {
      caPem = fileReadable(caFile);
      if (!caPem || !/-----BEGIN CERTIFICATE-----/.test(caPem)) throw new ConfigError(`${at}: caFile ${caFile} must be a readable PEM certificate`);
    } else if (onSimulator || (sim.url && endpoint?.startsWith(sim.url))) {
      caPem = sim.caPem;
    }
    return {
      name,
      subscriptionId,
      ...(tenantId ? { tenantId } : {}),
      cloud,
      defaultResourceGroup: str("defaultResourceGroup", false),
      ...serverGroupResourceGroupOf(a.serverGroupResourceGroup, at),
      ...(a.vmAdmin !== undefined ? { vmAdmin: parseVmAdmin(a.vmAdmin, at) } : {}),
      regions: regions as string[],
      endpoint: endpoint ?? "",
      authorityHost,
      audience,
      credential,
      ...(caPem ? { caPem } : {}),
    };
  });
}

/**
 * One account from AZURE_* variables (AZURE_ACCOUNT_NAME and AZURE_SUBSCRIPTION_ID, then the variables
 * @azure/identity reads itself: AZURE_TENANT_ID, AZURE_CLIENT_ID, AZURE_CLIENT_SECRET, AZURE_CLIENT_CERTIFICATE_PATH,
 * AZURE_FEDERATED_TOKEN_FILE), as a YAML document for parseAccounts.
 */
function accountFromEnvironment(env: Env): Record<string, unknown> | undefined {
  if (!env.AZURE_ACCOUNT_NAME) return undefined;
  const credential = env.AZURE_CLIENT_SECRET
    ? { type: "clientSecret", clientId: env.AZURE_CLIENT_ID, clientSecretEnv: "AZURE_CLIENT_SECRET" }
    : env.AZURE_CLIENT_CERTIFICATE_PATH
      ? { type: "clientCertificate", clientId: env.AZURE_CLIENT_ID, certificatePath: env.AZURE_CLIENT_CERTIFICATE_PATH, ...(env.AZURE_CLIENT_CERTIFICATE_PASSWORD ? { certificatePasswordEnv: "AZURE_CLIENT_CERTIFICATE_PASSWORD" } : {}) }
      : env.AZURE_FEDERATED_TOKEN_FILE
        ? { type: "workloadIdentity" }
        : (env.AZURE_CREDENTIAL ?? "default");
  const drop = (o: Record<string, unknown>) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ""));
  return drop({
    name: env.AZURE_ACCOUNT_NAME,
    subscriptionId: env.AZURE_SUBSCRIPTION_ID,
    tenantId: env.AZURE_TENANT_ID,
    cloud: env.AZURE_CLOUD,
    endpoint: env.AZURE_ARM_ENDPOINT,
    authorityHost: env.AZURE_AUTHORITY_HOST,
    defaultResourceGroup: env.AZURE_DEFAULT_RESOURCE_GROUP,
    serverGroupResourceGroup: env.AZURE_SERVER_GROUP_RESOURCE_GROUP,
    regions: env.AZURE_REGIONS ? env.AZURE_REGIONS.split(",").map((r) => r.trim()).filter(Boolean) : undefined,
    credential: typeof credential === "string" ? credential : drop(credential),
  });
}

const DEMO_SSH_PUBLIC_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoKeyOfTheSimulatedAccountOnlyNotForRealVMs demo@vmss-ops";

/** The demo account that `npm start` serves from the built-in simulator. */
export function simulatorDemoAccount(sim: Pick<ServiceSimulatorConfig, "url" | "caPem" | "subscriptionId">): AccountConfig {
  return {
    name: "demo",
    subscriptionId: sim.subscriptionId,
    cloud: "custom",
    defaultResourceGroup: "demo-rg",
    // The demo keeps its clusters in demo-rg, as the README's examples have them.
    serverGroupResourceGroup: "account",
    // A public key only (the demo VMs are simulated): a deploy from Spinnaker sends no credentials.
    vmAdmin: { adminUsername: "azureuser", sshPublicKey: DEMO_SSH_PUBLIC_KEY },
    regions: ["eastus"],
    endpoint: sim.url ?? "",
    authorityHost: sim.url ?? "",
    audience: CLOUDS.AzureCloud.audience,
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
  let simulatorSettings: SimulatorConfig;
  try {
    simulatorSettings = simulatorConfigFromEnv(env);
  } catch (err) {
    if (err instanceof SettingsError) throw new ConfigError(err.message);
    throw err;
  }
  const simulator: ServiceSimulatorConfig = {
    ...simulatorSettings,
    mode: modeRaw,
    url: modeRaw === "external" ? simulatorUrl!.replace(/\/+$/, "") : undefined,
    // The simulator's own certificate unless told otherwise: `npm run simulator` and an external SIMULATOR_URL then
    // work without extra settings. It is trusted for the simulator accounts' client only.
    caPem: readFileVar(env, "SIMULATOR_CA_FILE") ?? readFileSync(BUILT_IN_SIMULATOR_CERT, "utf8"),
  };

  const accounts: AccountConfig[] = [];
  for (const source of ["ACCOUNTS_FILE", "ACCOUNTS"] as const) {
    const text = source === "ACCOUNTS_FILE" ? readFileVar(env, source) : env[source];
    if (text) accounts.push(...parseAccounts(text, source, simulator, env));
  }
  const fromEnv = accountFromEnvironment(env);
  if (fromEnv) accounts.push(...parseAccounts(JSON.stringify([fromEnv]), "AZURE_ACCOUNT_NAME", simulator, env));
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

  const onlySimulator = simulator.mode !== "off" && accounts.every((a) => a.credential.kind === "simulator");
  const retry: RetryConfig = {
    maxAttempts: intVar(env, "RETRY_MAX_ATTEMPTS", 8, 1, 100),
    deadlineMs: intVar(env, "RETRY_DEADLINE_MS", 15 * 60_000, 1000),
    conflictBaseDelayMs: intVar(env, "RETRY_CONFLICT_BASE_DELAY_MS", 200, 0),
    transientBaseDelayMs: intVar(env, "RETRY_TRANSIENT_BASE_DELAY_MS", 1000, 0),
    busyPollIntervalMs: intVar(env, "RETRY_BUSY_POLL_INTERVAL_MS", 500, 1),
    throttleDefaultDelayMs: intVar(env, "RETRY_THROTTLE_DEFAULT_DELAY_MS", 5000, 0),
    maxDelayMs: intVar(env, "RETRY_MAX_DELAY_MS", 60_000, 1),
    busyReadShare: intVar(env, "RETRY_BUSY_READ_SHARE_PERCENT", 25, 1, 100) / 100,
    // Azure refills 12 a minute. Against the simulator alone, its clock runs timeScale times Azure's (0.1 by default:
    // a 30 s write takes 3 s), and so does its refill: pace by that, so a demo waits as Azure would, only faster.
    scaleSetReadsPerMinute: intVar(env, "AZURE_SCALE_SET_READS_PER_MINUTE", onlySimulator ? Math.max(1, Math.round(12 / simulator.settings.timeScale)) : 12, 1),
    scaleSetReadBurst: intVar(env, "AZURE_SCALE_SET_READ_BURST", 36, 1),
    maxRedrives: intVar(env, "RETRY_MAX_REDRIVES", 2, 0, 20),
  };

  const databaseUrl = env.DATABASE_URL || undefined;
  // The embedded simulator keeps its scale sets in memory, so tasks about them are kept in memory too: `npm start`
  // always starts from one clean slate, and a task never names a scale set state that is gone.
  const storeKind = env.TASK_STORE ?? (databaseUrl ? "postgres" : simulator.mode === "embedded" && accounts.every((a) => a.credential.kind === "simulator") ? "memory" : "sqlite");
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
    waitPollMs: intVar(env, "TASK_WAIT_POLL_MS", 500, 10, 60_000),
    bodyCacheEntries: intVar(env, "TASK_BODY_CACHE_ENTRIES", 2000, 0, 1_000_000),
    backlogLimit: intVar(env, "TASK_BACKLOG_LIMIT", 10_000, 0, 10_000_000),
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
        ...(env.CLOUDDRIVER_AUTHORIZATION ? { authorization: env.CLOUDDRIVER_AUTHORIZATION } : {}),
      }
    : undefined;

  return {
    store,
    tasks,
    ...(clouddriver ? { clouddriver } : {}),
    access: loadAccess(env, accounts, simulator),
    overload: {
      maxEventLoopDelayMs: intVar(env, "OVERLOAD_MAX_EVENT_LOOP_DELAY_MS", 0, 0),
      maxHeapUsedBytes: intVar(env, "OVERLOAD_MAX_HEAP_USED_BYTES", 0, 0),
      maxRssBytes: intVar(env, "OVERLOAD_MAX_RSS_BYTES", 0, 0),
      maxEventLoopUtilization: intVar(env, "OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT", 0, 0, 100) / 100,
      sampleIntervalMs: intVar(env, "OVERLOAD_SAMPLE_INTERVAL_MS", 1000, 10, 60_000),
      retryAfterSeconds: intVar(env, "OVERLOAD_RETRY_AFTER_S", 5, 1, 3600),
      rateWindowMs: intVar(env, "RATE_LIMIT_WINDOW_MS", 60_000, 100, 3_600_000),
      submissionsPerWindow: intVar(env, "RATE_LIMIT_SUBMISSIONS", 6000, 0),
      readsPerWindow: intVar(env, "RATE_LIMIT_READS", 60_000, 0),
    },
    observability: {
      readyCacheMs: intVar(env, "READY_CACHE_MS", 10_000, 0, 600_000),
      readyTimeoutMs: intVar(env, "READY_TIMEOUT_MS", 5000, 100, 120_000),
    },
    host: env.HOST || "127.0.0.1",
    port: intVar(env, "PORT", 7002, 0, 65535),
    bodyLimitBytes: intVar(env, "BODY_LIMIT_BYTES", 1024 * 1024, 1024),
    bodyMaxDepth: intVar(env, "BODY_MAX_DEPTH", 32, 4, 1000),
    logLevel: env.LOG_LEVEL || "info",
    simulator,
    accounts,
    retry,
    lroPollIntervalMs: intVar(env, "LRO_POLL_INTERVAL_MS", 1000, 1, 120_000),
    lroMaxPollIntervalMs: intVar(env, "LRO_MAX_POLL_INTERVAL_MS", 120_000, 10, 600_000),
    taskRetention: intVar(env, "TASK_RETENTION", 10_000, 1),
    readCacheTtlMs: intVar(env, "READ_CACHE_TTL_MS", 10_000, 0, 300_000),
    armBudget: {
      enabled: boolVar(env, "ARM_BUDGET", true),
      // As the read pacing above: against the simulator alone, its buckets refill timeScale times faster than Azure's.
      refillScale: positiveNumberVar(env, "ARM_BUDGET_REFILL_SCALE", onlySimulator ? 1 / simulator.settings.timeScale : 1),
      shared: boolVar(env, "ARM_BUDGET_SHARED", store.kind === "postgres"),
    },
  };
}

function positiveNumberVar(env: Env, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (raw === undefined || raw === "") return fallback;
  const value = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw) || !(value > 0)) throw new ConfigError(`${name} must be a number above 0, e.g. 1 or 0.5, got "${env[name]}"`);
  return value;
}
