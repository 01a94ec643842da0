// Who may call the API: principals from AUTH_TOKENS_FILE or AUTH_TOKENS, Orca's headers, /metrics, and the refusal
// to serve real Azure accounts with nobody checked. Errors name the principal and the key, never a token.
import { createHash } from "node:crypto";
import { BlockList, isIP } from "node:net";
import type { AccountConfig } from "../azure/account-config.ts";
import {
  accessControlEnabled,
  type AccessConfig,
  type OidcMatch,
  type PrincipalConfig,
} from "../auth/access-config.ts";
import { ASYMMETRIC_ALGORITHMS, DEFAULT_ALGORITHMS, type OidcConfig } from "../auth/oidc-tokens.ts";
import { boolVar, ConfigError, fileReadable, parseDocument, readFileVar, type Env } from "./env-vars.ts";
import type { ServiceSimulatorConfig } from "./simulator.ts";

const SHA256_HEX = /^[0-9a-f]{64}$/i;
const MIN_TOKEN_LENGTH = 16;
const PRINCIPAL_KEYS = new Set(["name", "accounts", "readOnly", "tokenSha256", "tokenEnv", "token", "oidc"]);
const MATCH_KEYS = ["roles", "groups", "applications", "objectIds"] as const;
const OIDC_KEYS = new Set([
  "issuer",
  "audience",
  "discoveryUrl",
  "algorithms",
  "clockToleranceSeconds",
  "keysRefreshMinSeconds",
  "timeoutMs",
  "caFile",
]);

function sha256(text: string): Buffer {
  return createHash("sha256").update(text, "utf8").digest();
}

export function loadAccess(env: Env, accounts: AccountConfig[], sim: ServiceSimulatorConfig): AccessConfig {
  const text = readFileVar(env, "AUTH_TOKENS_FILE") ?? env.AUTH_TOKENS;
  const source = env.AUTH_TOKENS_FILE ? "AUTH_TOKENS_FILE" : "AUTH_TOKENS";
  const doc = text ? parseDocument(text, source) : undefined;
  const principals = doc !== undefined ? parsePrincipals(doc, source, env) : [];
  const oidc = parseOidc(doc, source);
  if (oidc && !principals.some((p) => p.oidc))
    throw new ConfigError(
      `${source}: oidc is configured but no principal says which tokens it is (oidc: { roles, … })`,
    );
  if (!oidc && principals.some((p) => p.oidc))
    throw new ConfigError(`${source}: a principal matches OpenID Connect tokens, but no oidc section names the issuer`);
  const trustSpinnakerHeaders = boolVar(env, "AUTH_TRUST_SPINNAKER_HEADERS", false);
  const spinnakerHeadersFrom = parseNetworks(env);
  if (spinnakerHeadersFrom && !trustSpinnakerHeaders)
    throw new ConfigError("AUTH_SPINNAKER_HEADERS_FROM needs AUTH_TRUST_SPINNAKER_HEADERS=true");
  const access: AccessConfig = {
    principals,
    ...(oidc ? { oidc } : {}),
    trustSpinnakerHeaders,
    ...(spinnakerHeadersFrom ? { spinnakerHeadersFrom } : {}),
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

/** Principals: `principals: [{ name, accounts, readOnly, tokenSha256 | tokenEnv | token | oidc }]`, or the list alone. */
function parsePrincipals(doc: unknown, source: string, env: Env): PrincipalConfig[] {
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
    const base = { name: p.name, accounts, readOnly: p.readOnly === true };
    if (p.oidc !== undefined) {
      if (["tokenSha256", "tokenEnv", "token"].some((k) => p[k] !== undefined))
        throw new ConfigError(`${at}: give either oidc or one of tokenSha256, tokenEnv, token`);
      return { ...base, oidc: parseMatch(p.oidc, at) };
    }
    const tokenSha256 = tokenHashOf(p, at, env);
    const hex = tokenSha256.toString("hex");
    if (hashes.has(hex)) throw new ConfigError(`${at}: the same token is given to another principal`);
    hashes.add(hex);
    return { ...base, tokenSha256 };
  });
}

/** A principal's `oidc: { roles, groups, applications, objectIds }`: at least one non-empty list of strings. */
function parseMatch(raw: unknown, at: string): OidcMatch {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`${at}: oidc must be an object with roles, groups, applications or objectIds`);
  const match: OidcMatch = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!(MATCH_KEYS as readonly string[]).includes(key))
      throw new ConfigError(`${at}: oidc has an unknown key "${key}"; known: ${MATCH_KEYS.join(", ")}`);
    if (!Array.isArray(value) || value.length === 0 || !value.every((v) => typeof v === "string" && v !== ""))
      throw new ConfigError(`${at}: oidc.${key} must be a non-empty list of strings`);
    match[key as (typeof MATCH_KEYS)[number]] = value as string[];
  }
  if (Object.keys(match).length === 0)
    throw new ConfigError(`${at}: oidc must name roles, groups, applications or objectIds`);
  return match;
}

/** The principals file's `oidc` section: the identity provider whose tokens are checked. */
function parseOidc(doc: unknown, source: string): OidcConfig | undefined {
  const raw = Array.isArray(doc) ? undefined : (doc as { oidc?: unknown } | null | undefined)?.oidc;
  if (raw === undefined) return undefined;
  const at = `${source}: oidc`;
  if (typeof raw !== "object" || raw === null || Array.isArray(raw))
    throw new ConfigError(`${at} must be an object with issuer and audience`);
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!OIDC_KEYS.has(key)) throw new ConfigError(`${at}: unknown key "${key}"; known: ${[...OIDC_KEYS].join(", ")}`);
  if (typeof o.issuer !== "string" || !/^https:\/\/[^\s]+$/.test(o.issuer))
    throw new ConfigError(`${at}.issuer must be the issuer's https:// URL, exactly as tokens name it in iss`);
  const audiences = typeof o.audience === "string" ? [o.audience] : o.audience;
  if (!Array.isArray(audiences) || audiences.length === 0 || !audiences.every((a) => typeof a === "string" && a))
    throw new ConfigError(`${at}.audience must be the API's application id (or a list of accepted aud values)`);
  const discoveryUrl = o.discoveryUrl ?? `${o.issuer.replace(/\/+$/, "")}/.well-known/openid-configuration`;
  if (typeof discoveryUrl !== "string" || !/^https:\/\/[^\s]+$/.test(discoveryUrl))
    throw new ConfigError(`${at}.discoveryUrl must be an https:// URL`);
  const algorithms = o.algorithms ?? DEFAULT_ALGORITHMS;
  if (
    !Array.isArray(algorithms) ||
    algorithms.length === 0 ||
    !algorithms.every((a) => typeof a === "string" && ASYMMETRIC_ALGORITHMS.includes(a))
  )
    throw new ConfigError(
      `${at}.algorithms must list signature algorithms from ${ASYMMETRIC_ALGORITHMS.join(", ")} (never none or HS*)`,
    );
  const seconds = (key: string, fallback: number, max: number) => {
    const v = o[key] ?? fallback;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > max)
      throw new ConfigError(`${at}.${key} must be a whole number from 0 to ${max}`);
    return v;
  };
  let caPem: string | undefined;
  if (o.caFile !== undefined) {
    caPem = typeof o.caFile === "string" ? fileReadable(o.caFile) : undefined;
    if (caPem === undefined) throw new ConfigError(`${at}.caFile must name a readable PEM file`);
  }
  return {
    issuer: o.issuer,
    audiences: audiences as string[],
    discoveryUrl,
    algorithms: algorithms as string[],
    clockToleranceSeconds: seconds("clockToleranceSeconds", 60, 300),
    keysRefreshMinSeconds: seconds("keysRefreshMinSeconds", 60, 86_400),
    timeoutMs: seconds("timeoutMs", 5000, 60_000),
    ...(caPem ? { caPem } : {}),
  };
}

/** AUTH_SPINNAKER_HEADERS_FROM: the source networks (CIDRs or single addresses) Orca's headers are trusted from. */
function parseNetworks(env: Env): AccessConfig["spinnakerHeadersFrom"] {
  const text = env.AUTH_SPINNAKER_HEADERS_FROM?.trim();
  if (!text) return undefined;
  const blockList = new BlockList();
  const networks = text
    .split(",")
    .map((n) => n.trim())
    .filter(Boolean);
  for (const network of networks) {
    const [address, prefix, extra] = network.split("/");
    const family = isIP(address);
    const bits = prefix === undefined ? (family === 6 ? 128 : 32) : Number(prefix);
    if (family === 0 || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > (family === 6 ? 128 : 32))
      throw new ConfigError(
        `AUTH_SPINNAKER_HEADERS_FROM: "${network}" is not a network; give CIDRs such as 10.0.0.0/8 or fd00::/8, comma-separated`,
      );
    blockList.addSubnet(address, bits, family === 6 ? "ipv6" : "ipv4");
  }
  return { networks, blockList };
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
