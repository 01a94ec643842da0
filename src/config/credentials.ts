// An account's `credential` (a type name, or an object with its keys), read into how the account gets its token.
// Secrets never enter the configuration: only where to read them (a variable, a file), checked here to be readable.
import type { CredentialConfig } from "../azure/account-config.ts";
import { ConfigError, fileReadable, type Env } from "./env-vars.ts";

const CREDENTIAL_KEYS: Record<string, string[]> = {
  default: ["type", "managedIdentityClientId"],
  simulator: ["type"],
  clientSecret: ["type", "tenantId", "clientId", "clientSecretEnv", "clientSecretFile"],
  clientCertificate: [
    "type",
    "tenantId",
    "clientId",
    "certificatePath",
    "certificatePasswordEnv",
    "sendCertificateChain",
  ],
  workloadIdentity: ["type", "tenantId", "clientId", "tokenFilePath"],
  managedIdentity: ["type", "clientId", "resourceId"],
};

/** The keys of one credential object, read with messages that name the account (`at`) and the key. */
interface CredentialKeys {
  c: Record<string, unknown>;
  at: string;
  type: string;
  str: (key: string, fallback?: string) => string | undefined;
  need: (key: string, fallback?: string, hint?: string) => string;
}

function credentialKeys(c: Record<string, unknown>, at: string, type: string): CredentialKeys {
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
  return { c, at, type, str, need };
}

export function parseCredential(
  raw: unknown,
  at: string,
  accountTenant: string | undefined,
  env: Env,
): CredentialConfig {
  const c: Record<string, unknown> =
    typeof raw === "string"
      ? { type: raw }
      : typeof raw === "object" && raw !== null && !Array.isArray(raw)
        ? { ...raw }
        : {};
  if (typeof raw !== "string" && (typeof raw !== "object" || raw === null))
    throw new ConfigError(`${at}: credential must be a name or an object`);
  // The original form: a service principal object without a type.
  if (c.type === undefined && c.clientSecretEnv !== undefined) c.type = "clientSecret";
  const type = c.type;
  if (typeof type !== "string" || !(type in CREDENTIAL_KEYS))
    throw new ConfigError(
      `${at}: credential type must be one of ${Object.keys(CREDENTIAL_KEYS).join(", ")}, got ${JSON.stringify(type)}`,
    );
  for (const key of Object.keys(c))
    if (!CREDENTIAL_KEYS[type].includes(key))
      throw new ConfigError(
        `${at}: credential key "${key}" does not apply to ${type}; its keys: ${CREDENTIAL_KEYS[type].join(", ")}`,
      );
  const keys = credentialKeys(c, at, type);
  const tenant = () => keys.need("tenantId", accountTenant, " (on the credential or the account)");
  switch (type) {
    case "simulator":
      return { kind: "simulator" };
    case "default":
      return { kind: "default", managedIdentityClientId: keys.str("managedIdentityClientId") };
    case "managedIdentity": {
      const clientId = keys.str("clientId");
      const resourceId = keys.str("resourceId");
      if (clientId && resourceId)
        throw new ConfigError(`${at}: managedIdentity takes clientId or resourceId, not both`);
      return { kind: "managedIdentity", clientId, resourceId };
    }
    case "clientSecret":
      return clientSecret(keys, tenant(), env);
    case "clientCertificate":
      return clientCertificate(keys, tenant(), env);
    case "workloadIdentity":
      return workloadIdentity(keys, accountTenant, env);
  }
  throw new ConfigError(`${at}: unknown credential type ${type}`);
}

function clientSecret({ at, str, need }: CredentialKeys, tenantId: string, env: Env): CredentialConfig {
  const clientId = need("clientId");
  const fromEnv = str("clientSecretEnv");
  const fromFile = str("clientSecretFile");
  if (!fromEnv === !fromFile)
    throw new ConfigError(
      `${at}: clientSecret needs exactly one of clientSecretEnv, clientSecretFile (the secret itself never goes in the file)`,
    );
  if (fromEnv) {
    if (!env[fromEnv]) throw new ConfigError(`${at}: environment variable ${fromEnv} (clientSecretEnv) is not set`);
    return {
      kind: "clientSecret",
      tenantId,
      clientId,
      secretSource: `environment variable ${fromEnv}`,
      readSecret: () => env[fromEnv] ?? "",
    };
  }
  const content = fileReadable(fromFile!);
  if (content === undefined || content.trim() === "")
    throw new ConfigError(`${at}: clientSecretFile ${fromFile} cannot be read or is empty`);
  return {
    kind: "clientSecret",
    tenantId,
    clientId,
    secretSource: `file ${fromFile}`,
    readSecret: () => (fileReadable(fromFile!) ?? "").trim(),
  };
}

function clientCertificate({ c, at, str, need }: CredentialKeys, tenantId: string, env: Env): CredentialConfig {
  const clientId = need("clientId");
  const certificatePath = need("certificatePath");
  const pem = fileReadable(certificatePath);
  if (pem === undefined) throw new ConfigError(`${at}: certificatePath ${certificatePath} cannot be read`);
  if (!/-----BEGIN CERTIFICATE-----/.test(pem) || !/-----BEGIN (RSA |EC |ENCRYPTED )?PRIVATE KEY-----/.test(pem)) {
    throw new ConfigError(
      `${at}: certificatePath ${certificatePath} must be a PEM file with the certificate and its private key`,
    );
  }
  const passwordEnv = str("certificatePasswordEnv");
  if (passwordEnv && !env[passwordEnv])
    throw new ConfigError(`${at}: environment variable ${passwordEnv} (certificatePasswordEnv) is not set`);
  if (c.sendCertificateChain !== undefined && typeof c.sendCertificateChain !== "boolean")
    throw new ConfigError(`${at}: sendCertificateChain must be true or false`);
  return {
    kind: "clientCertificate",
    tenantId,
    clientId,
    certificatePath,
    ...(passwordEnv
      ? { passwordSource: `environment variable ${passwordEnv}`, readPassword: () => env[passwordEnv] ?? "" }
      : {}),
    sendCertificateChain: c.sendCertificateChain === true,
  };
}

function workloadIdentity({ at, need }: CredentialKeys, accountTenant: string | undefined, env: Env): CredentialConfig {
  const tenantId = need("tenantId", accountTenant ?? env.AZURE_TENANT_ID, " (or AZURE_TENANT_ID)");
  const clientId = need("clientId", env.AZURE_CLIENT_ID, " (or AZURE_CLIENT_ID)");
  const tokenFilePath = need("tokenFilePath", env.AZURE_FEDERATED_TOKEN_FILE, " (or AZURE_FEDERATED_TOKEN_FILE)");
  if (fileReadable(tokenFilePath) === undefined)
    throw new ConfigError(`${at}: the federated token file ${tokenFilePath} cannot be read`);
  return { kind: "workloadIdentity", tenantId, clientId, tokenFilePath };
}
