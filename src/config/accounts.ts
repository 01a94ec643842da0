// The accounts: ACCOUNTS_FILE, ACCOUNTS, one more from AZURE_* variables, and the simulator's demo account. Errors
// name the source and the account.
import {
  CLOUDS,
  type AccountConfig,
  type CloudName,
  type CredentialConfig,
  type VmAdminConfig,
} from "../azure/account-config.ts";
import { parseCredential } from "./credentials.ts";
import { ConfigError, fileReadable, parseDocument, readFileVar, type Env } from "./env-vars.ts";
import type { ServiceSimulatorConfig } from "./simulator.ts";

const ACCOUNT_KEYS = new Set([
  "name",
  "subscriptionId",
  "tenantId",
  "cloud",
  "endpoint",
  "authorityHost",
  "audience",
  "caFile",
  "defaultResourceGroup",
  "serverGroupResourceGroup",
  "vmAdmin",
  "regions",
  "credential",
]);

/** Every configured account; the demo account too when a simulator is in use and no account is called demo. */
export function loadAccounts(env: Env, simulator: ServiceSimulatorConfig): AccountConfig[] {
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
  if (accounts.length === 0)
    throw new ConfigError("SIMULATOR=off needs at least one account in ACCOUNTS or ACCOUNTS_FILE");
  const names = new Set<string>();
  for (const a of accounts) {
    if (names.has(a.name)) throw new ConfigError(`account "${a.name}" is configured twice`);
    names.add(a.name);
  }
  return accounts;
}

function parseAccounts(text: string, source: string, sim: ServiceSimulatorConfig, env: Env): AccountConfig[] {
  const parsed = parseDocument(text, source);
  const list = Array.isArray(parsed) ? parsed : (parsed as { accounts?: unknown } | null)?.accounts;
  if (!Array.isArray(list)) throw new ConfigError(`${source} must be a list of accounts (or { accounts: [...] })`);
  return list.map((raw, i) => parseAccount(raw, `${source}[${i}]`, source, sim, env));
}

function parseAccount(
  raw: unknown,
  position: string,
  source: string,
  sim: ServiceSimulatorConfig,
  env: Env,
): AccountConfig {
  if (typeof raw !== "object" || raw === null) throw new ConfigError(`${position} must be an object`);
  const a = raw as Record<string, unknown>;
  const named = typeof a.name === "string" && a.name !== "" ? `account "${a.name}"` : position;
  const at = `${source}: ${named}`;
  const str = (key: string, required: boolean): string | undefined => {
    const v = a[key];
    if (v === undefined && !required) return undefined;
    if (typeof v !== "string" || v === "") throw new ConfigError(`${at}: ${key} must be a non-empty string`);
    return v;
  };
  for (const key of Object.keys(a))
    if (!ACCOUNT_KEYS.has(key))
      throw new ConfigError(`${at}: unknown key "${key}"; known: ${[...ACCOUNT_KEYS].join(", ")}`);
  const name = str("name", true)!;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(name))
    throw new ConfigError(`${at}: name must be 1-64 letters, digits, '.', '_' or '-'`);
  const subscriptionId = str("subscriptionId", true)!;
  if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(subscriptionId))
    throw new ConfigError(`${at}: subscriptionId must be a GUID`);
  const tenantId = str("tenantId", false);
  const credential = parseCredential(a.credential ?? "default", at, tenantId, env);
  const regions = a.regions ?? [];
  if (!Array.isArray(regions) || !regions.every((r) => typeof r === "string"))
    throw new ConfigError(`${at}: regions must be a list of strings`);
  return {
    name,
    subscriptionId,
    ...(tenantId ? { tenantId } : {}),
    ...endpointsOf(a, at, str, credential, sim),
    defaultResourceGroup: str("defaultResourceGroup", false),
    ...serverGroupResourceGroupOf(a.serverGroupResourceGroup, at),
    ...(a.vmAdmin !== undefined ? { vmAdmin: parseVmAdmin(a.vmAdmin, at) } : {}),
    regions: regions,
    credential,
  };
}

type AccountEndpoints = Pick<AccountConfig, "cloud" | "endpoint" | "authorityHost" | "audience" | "caPem">;

/** The account's cloud, its endpoints and the CA trusted for them: the cloud's, the keys', or the simulator's. */
function endpointsOf(
  a: Record<string, unknown>,
  at: string,
  str: (key: string, required: boolean) => string | undefined,
  credential: CredentialConfig,
  sim: ServiceSimulatorConfig,
): AccountEndpoints {
  const onSimulator = credential.kind === "simulator";
  const explicitEndpoint = str("endpoint", false)?.replace(/\/+$/, "");
  const cloudRaw = a.cloud ?? (explicitEndpoint || onSimulator ? "custom" : "AzureCloud");
  if (typeof cloudRaw !== "string" || !(cloudRaw === "custom" || cloudRaw in CLOUDS)) {
    throw new ConfigError(
      `${at}: cloud must be AzureCloud, AzureUSGovernment, AzureChinaCloud or custom, got ${JSON.stringify(cloudRaw)}`,
    );
  }
  const cloud = cloudRaw as CloudName;
  const known = cloud === "custom" ? undefined : CLOUDS[cloud];
  const endpoint = explicitEndpoint ?? known?.endpoint ?? (onSimulator ? sim.url : undefined);
  if (cloud === "custom" && !endpoint && !onSimulator)
    throw new ConfigError(`${at}: cloud custom needs endpoint (the ARM endpoint)`);
  if (endpoint && !/^https:\/\//.test(endpoint)) throw new ConfigError(`${at}: endpoint must be an https:// URL`);
  const authorityHost = str("authorityHost", false)?.replace(/\/+$/, "") ?? known?.authorityHost ?? endpoint ?? "";
  if (authorityHost && !/^https:\/\//.test(authorityHost))
    throw new ConfigError(`${at}: authorityHost must be an https:// URL`);
  const audience = str("audience", false)?.replace(/\/+$/, "") ?? known?.audience ?? CLOUDS.AzureCloud.audience;
  const caFile = str("caFile", false);
  let caPem: string | undefined;
  if (caFile) {
    caPem = fileReadable(caFile);
    if (!caPem || !/-----BEGIN CERTIFICATE-----/.test(caPem))
      throw new ConfigError(`${at}: caFile ${caFile} must be a readable PEM certificate`);
  } else if (onSimulator || (sim.url && endpoint?.startsWith(sim.url))) {
    caPem = sim.caPem;
  }
  return { cloud, endpoint: endpoint ?? "", authorityHost, audience, ...(caPem ? { caPem } : {}) };
}

function serverGroupResourceGroupOf(raw: unknown, at: string): Pick<AccountConfig, "serverGroupResourceGroup"> {
  if (raw === undefined) return {};
  if (raw !== "application" && raw !== "account")
    throw new ConfigError(
      `${at}: serverGroupResourceGroup must be "application" ({application}-{region}) or "account" (defaultResourceGroup)`,
    );
  return { serverGroupResourceGroup: raw };
}

function parseVmAdmin(raw: unknown, at: string): VmAdminConfig | undefined {
  if (raw === undefined) return undefined;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(
      `${at}: vmAdmin must be an object (adminUsername, and sshPublicKey, sshPublicKeyFile or passwordEnv)`,
    );
  const v = raw as Record<string, unknown>;
  const keys = ["adminUsername", "sshPublicKey", "sshPublicKeyFile", "passwordEnv", "keyVaultUrl"];
  for (const key of Object.keys(v))
    if (![...keys, "useSshPublicKey"].includes(key))
      throw new ConfigError(`${at}: vmAdmin key "${key}" is unknown; known: ${keys.join(", ")}, useSshPublicKey`);
  for (const key of keys)
    if (v[key] !== undefined && (typeof v[key] !== "string" || v[key] === ""))
      throw new ConfigError(`${at}: vmAdmin.${key} must be a non-empty string`);
  if (v.useSshPublicKey !== undefined && typeof v.useSshPublicKey !== "boolean")
    throw new ConfigError(`${at}: vmAdmin.useSshPublicKey must be true or false`);
  const given = ["sshPublicKey", "sshPublicKeyFile", "passwordEnv", "keyVaultUrl"].filter((k) => v[k] !== undefined);
  if (given.length !== 1)
    throw new ConfigError(
      `${at}: vmAdmin needs exactly one of sshPublicKey, sshPublicKeyFile, passwordEnv, keyVaultUrl`,
    );
  if (typeof v.keyVaultUrl === "string") {
    if (!/^https:\/\//.test(v.keyVaultUrl)) throw new ConfigError(`${at}: vmAdmin.keyVaultUrl must be an https:// URL`);
    return {
      adminUsername: (v.adminUsername as string | undefined) ?? "",
      keyVaultUrl: v.keyVaultUrl.replace(/\/+$/, ""),
      useSshPublicKey: v.useSshPublicKey !== false,
    };
  }
  if (typeof v.sshPublicKey === "string" && !/^(ssh-|ecdsa-)/.test(v.sshPublicKey))
    throw new ConfigError(`${at}: vmAdmin.sshPublicKey must be an OpenSSH public key (ssh-… or ecdsa-…)`);
  return {
    adminUsername: (v.adminUsername as string | undefined) ?? "azureuser",
    ...(given[0] === "sshPublicKey"
      ? { sshPublicKey: v.sshPublicKey as string }
      : given[0] === "sshPublicKeyFile"
        ? { sshPublicKeyFile: v.sshPublicKeyFile as string }
        : { passwordEnv: v.passwordEnv as string }),
  };
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
      ? {
          type: "clientCertificate",
          clientId: env.AZURE_CLIENT_ID,
          certificatePath: env.AZURE_CLIENT_CERTIFICATE_PATH,
          ...(env.AZURE_CLIENT_CERTIFICATE_PASSWORD
            ? { certificatePasswordEnv: "AZURE_CLIENT_CERTIFICATE_PASSWORD" }
            : {}),
        }
      : env.AZURE_FEDERATED_TOKEN_FILE
        ? { type: "workloadIdentity" }
        : (env.AZURE_CREDENTIAL ?? "default");
  const drop = (o: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ""));
  return drop({
    name: env.AZURE_ACCOUNT_NAME,
    subscriptionId: env.AZURE_SUBSCRIPTION_ID,
    tenantId: env.AZURE_TENANT_ID,
    cloud: env.AZURE_CLOUD,
    endpoint: env.AZURE_ARM_ENDPOINT,
    authorityHost: env.AZURE_AUTHORITY_HOST,
    defaultResourceGroup: env.AZURE_DEFAULT_RESOURCE_GROUP,
    serverGroupResourceGroup: env.AZURE_SERVER_GROUP_RESOURCE_GROUP,
    regions: env.AZURE_REGIONS
      ? env.AZURE_REGIONS.split(",")
          .map((r) => r.trim())
          .filter(Boolean)
      : undefined,
    credential: typeof credential === "string" ? credential : drop(credential),
  });
}

const DEMO_SSH_PUBLIC_KEY =
  "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIDemoKeyOfTheSimulatedAccountOnlyNotForRealVMs demo@vmss-ops";

/** The demo account that `npm start` serves from the built-in simulator. */
export function simulatorDemoAccount(
  sim: Pick<ServiceSimulatorConfig, "url" | "caPem" | "subscriptionId">,
): AccountConfig {
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
