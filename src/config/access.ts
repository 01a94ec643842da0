// Who may call the API: principals from AUTH_TOKENS_FILE or AUTH_TOKENS, Orca's headers, /metrics, and the refusal
// to serve real Azure accounts with nobody checked. Errors name the principal and the key, never a token.
import { createHash } from "node:crypto";
import type { AccountConfig } from "../azure/account-config.ts";
import { accessControlEnabled, type AccessConfig, type PrincipalConfig } from "../auth/access-config.ts";
import { boolVar, ConfigError, parseDocument, readFileVar, type Env } from "./env-vars.ts";
import type { ServiceSimulatorConfig } from "./simulator.ts";

const SHA256_HEX = /^[0-9a-f]{64}$/i;
const MIN_TOKEN_LENGTH = 16;
const PRINCIPAL_KEYS = new Set(["name", "accounts", "readOnly", "tokenSha256", "tokenEnv", "token"]);

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

export function loadAccess(env: Env, accounts: AccountConfig[], sim: ServiceSimulatorConfig): AccessConfig {
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
    if (unknown.length > 0)
      throw new ConfigError(
        `${source}: principal "${p.name}" names unknown account(s) ${unknown.join(", ")}; known: ${[...known].join(", ")}`,
      );
  }
  if (access.protectMetrics && access.principals.length === 0)
    throw new ConfigError("METRICS_REQUIRE_TOKEN needs principals in AUTH_TOKENS_FILE or AUTH_TOKENS");
  const real = accounts.filter((a) => !onSimulator(a, sim));
  if (real.length > 0 && !accessControlEnabled(access) && !access.trustedNetwork) {
    throw new ConfigError(
      `account(s) ${real.map((a) => a.name).join(", ")} reach real Azure, but no access control is configured: ` +
        "set AUTH_TOKENS_FILE (or AUTH_TOKENS, AUTH_TRUST_SPINNAKER_HEADERS), or TRUSTED_NETWORK=true if only trusted callers can reach this service",
    );
  }
  return access;
}

/** An account of the simulator (not real Azure): its fixed token, or its endpoint. */
function onSimulator(account: AccountConfig, sim: ServiceSimulatorConfig): boolean {
  return account.credential.kind === "simulator" || (sim.url !== undefined && account.endpoint.startsWith(sim.url));
}

/** Principals: `principals: [{ name, accounts, readOnly, tokenSha256 | tokenEnv | token }]`, or the list alone. */
function parsePrincipals(text: string, source: string, env: Env): PrincipalConfig[] {
  const doc = parseDocument(text, source);
  const list = Array.isArray(doc) ? doc : (doc as { principals?: unknown } | null)?.principals;
  if (!Array.isArray(list))
    throw new ConfigError(`${source} must hold a list of principals (or { principals: [...] })`);
  const names = new Set<string>();
  const hashes = new Set<string>();
  return list.map((raw, i) => {
    if (typeof raw !== "object" || raw === null) throw new ConfigError(`${source}[${i}] must be an object`);
    const p = raw as Record<string, unknown>;
    if (typeof p.name !== "string" || p.name.trim() === "")
      throw new ConfigError(`${source}[${i}].name must be a non-empty string`);
    const at = `${source}: principal "${p.name}"`;
    if (names.has(p.name)) throw new ConfigError(`${at} is configured twice`);
    names.add(p.name);
    for (const key of Object.keys(p))
      if (!PRINCIPAL_KEYS.has(key))
        throw new ConfigError(`${at}: unknown key "${key}"; known: ${[...PRINCIPAL_KEYS].join(", ")}`);
    let accounts: "*" | string[];
    if (p.accounts === "*") accounts = "*";
    else if (Array.isArray(p.accounts) && p.accounts.every((a) => typeof a === "string" && a !== ""))
      accounts = p.accounts as string[];
    else throw new ConfigError(`${at}: accounts must be "*" or a list of account names`);
    if (p.readOnly !== undefined && typeof p.readOnly !== "boolean")
      throw new ConfigError(`${at}: readOnly must be true or false`);
    const tokenSha256 = tokenHashOf(p, at, env);
    const hex = tokenSha256.toString("hex");
    if (hashes.has(hex)) throw new ConfigError(`${at}: the same token is given to another principal`);
    hashes.add(hex);
    return { name: p.name, accounts, readOnly: p.readOnly === true, tokenSha256 };
  });
}

/** The SHA-256 of the principal's token: given as such, or of the token itself or the variable holding it. */
function tokenHashOf(p: Record<string, unknown>, at: string, env: Env): Buffer {
  const given = ["tokenSha256", "tokenEnv", "token"].filter((k) => p[k] !== undefined);
  if (given.length !== 1) throw new ConfigError(`${at}: give exactly one of tokenSha256, tokenEnv, token`);
  if (p.tokenSha256 !== undefined) {
    if (typeof p.tokenSha256 !== "string" || !SHA256_HEX.test(p.tokenSha256))
      throw new ConfigError(`${at}: tokenSha256 must be 64 hex digits (sha256 of the token)`);
    return Buffer.from(p.tokenSha256, "hex");
  }
  let token: unknown = p.token;
  if (p.tokenEnv !== undefined) {
    if (typeof p.tokenEnv !== "string" || p.tokenEnv === "")
      throw new ConfigError(`${at}: tokenEnv must name an environment variable`);
    token = env[p.tokenEnv];
    if (token === undefined || token === "")
      throw new ConfigError(`${at}: environment variable ${p.tokenEnv} is not set`);
  }
  if (typeof token !== "string" || token.length < MIN_TOKEN_LENGTH)
    throw new ConfigError(`${at}: the token must be a string of at least ${MIN_TOKEN_LENGTH} characters`);
  return sha256(token);
}
