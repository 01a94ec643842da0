// OpenID Connect access tokens (Microsoft Entra ID, or any issuer with a discovery document): a JWT is believed
// only when its signature is by a key the issuer publishes at the jwks_uri of its discovery document, its `iss` and
// `aud` are the configured ones, it is within `nbf`..`exp` (give or take a small clock skew) and its algorithm is
// allow-listed (RS256 by default; `none` and the HMAC algorithms never: a public key is not a secret).
//
// The keys are fetched once and cached (jose's remote key set); a token with a `kid` not in the cache refetches
// them, at most once per keysRefreshMinSeconds, so that forged kids cannot turn this service into a flood against
// the issuer. jose's pause counts only from a successful fetch, so a failed fetch of the keys is remembered here and
// no fetch is tried again for KEYS_RETRY_MS: the requests meanwhile are answered unavailable at once.
// An issuer that does not answer is an outage, not the caller's fault: `unavailable`, answered 503.
// undici is loaded with the first fetch of the issuer: a service without OpenID Connect never loads it.
import type { Agent, fetch as undiciFetch } from "undici";
import { createRemoteJWKSet, customFetch, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from "jose";

/** The identity provider, as configured (the `oidc` section of the principals file). */
export interface OidcConfig {
  /** The issuer exactly as tokens name it (`iss`), e.g. https://login.microsoftonline.com/{tenant}/v2.0. */
  issuer: string;
  /** Accepted `aud` values: the API's application id (v2.0 tokens) and/or its application id URI (v1.0). */
  audiences: string[];
  /** The discovery document; by default `${issuer}/.well-known/openid-configuration`. */
  discoveryUrl: string;
  /** @default ["RS256"] */
  algorithms: string[];
  /** How far `exp` and `nbf` may be off the local clock. @default 60 */
  clockToleranceSeconds: number;
  /** A token with an unknown `kid` refetches the keys at most this often. @default 60 */
  keysRefreshMinSeconds: number;
  /** How long to wait for the discovery document or the keys. @default 5000 */
  timeoutMs: number;
  /** A CA to trust for the issuer's TLS certificate (a private issuer); the system's otherwise. */
  caPem?: string;
}

/** What Entra ID signs access tokens with. */
export const DEFAULT_ALGORITHMS = ["RS256"];

/** Algorithms a token may be signed with: asymmetric only, so that a published key can never be a signing secret. */
export const ASYMMETRIC_ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"];

export type TokenCheck =
  | { ok: true; claims: JWTPayload }
  | { ok: false; kind: "invalid"; description: string }
  | { ok: false; kind: "unavailable"; description: string; retryAfterSeconds: number };

/** The issuer did not answer as it should (down, slow, not 200, not its own discovery document). */
class IssuerUnavailable extends Error {
  override name = "IssuerUnavailable";
}

/** After a failed discovery fetch, requests answer 503 at once for this long instead of each waiting for it. */
const DISCOVERY_RETRY_MS = 5_000;

/** After a failed fetch of the keys, no fetch is tried again for this long (the same pause as for discovery). */
const KEYS_RETRY_MS = DISCOVERY_RETRY_MS;

/** Does the text look like a JWS in compact form (three base64url parts)? Static tokens never have dots. */
export function looksLikeJwt(token: string): boolean {
  return /^[\w-]+\.[\w-]+\.[\w-]*$/.test(token);
}

export class OidcTokenVerifier {
  readonly config: OidcConfig;
  readonly #fetch: typeof undiciFetch;
  #keys: JWTVerifyGetKey | undefined;
  #discovering: Promise<JWTVerifyGetKey> | undefined;
  #discoveryFailedAt = -Infinity;
  #keysFailedAt = -Infinity;
  #agent: Agent | undefined;

  constructor(config: OidcConfig) {
    this.config = config;
    this.#fetch = (async (url: string, init: Parameters<typeof undiciFetch>[1]) => {
      const undici = await import("undici");
      if (config.caPem) this.#agent ??= new undici.Agent({ connect: { ca: config.caPem } });
      return undici.fetch(url, { ...init, ...(this.#agent ? { dispatcher: this.#agent } : {}) });
    }) as typeof undiciFetch;
  }

  /** Checks a JWT; never throws. */
  async verify(token: string): Promise<TokenCheck> {
    let keys: JWTVerifyGetKey;
    try {
      keys = await this.#keySet();
    } catch (err) {
      return this.#unavailable(err);
    }
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.config.issuer,
        audience: this.config.audiences,
        algorithms: this.config.algorithms,
        clockTolerance: this.config.clockToleranceSeconds,
        requiredClaims: ["exp", "sub"],
      });
      return { ok: true, claims: payload };
    } catch (err) {
      if (err instanceof IssuerUnavailable || err instanceof errors.JWKSTimeout) return this.#unavailable(err);
      return { ok: false, kind: "invalid", description: describeRejection(err) };
    }
  }

  #unavailable(err: unknown): TokenCheck {
    const why = err instanceof errors.JWKSTimeout ? "did not answer in time" : (err as Error).message;
    return {
      ok: false,
      kind: "unavailable",
      description: `the identity provider ${this.config.issuer} cannot be reached to check the token (${why})`,
      retryAfterSeconds: Math.ceil(DISCOVERY_RETRY_MS / 1000),
    };
  }

  /** The issuer's key set, from its discovery document (fetched once; a failure is retried after a pause). */
  async #keySet(): Promise<JWTVerifyGetKey> {
    if (this.#keys) return this.#keys;
    if (Date.now() - this.#discoveryFailedAt < DISCOVERY_RETRY_MS)
      throw new IssuerUnavailable("its discovery document could not be read a moment ago");
    this.#discovering ??= this.#discover().then(
      (keys) => {
        this.#keys = keys;
        this.#discovering = undefined;
        return keys;
      },
      (err: unknown) => {
        this.#discoveryFailedAt = Date.now();
        this.#discovering = undefined;
        throw err;
      },
    );
    return this.#discovering;
  }

  async #discover(): Promise<JWTVerifyGetKey> {
    const document = (await this.#getJson(this.config.discoveryUrl, "discovery document")) as {
      issuer?: unknown;
      jwks_uri?: unknown;
    };
    // OpenID Connect Discovery 1.0 §4.3: the document must name the issuer it was fetched for.
    if (document.issuer !== this.config.issuer)
      throw new IssuerUnavailable(
        `its discovery document names the issuer ${JSON.stringify(document.issuer)}, not ${this.config.issuer}`,
      );
    if (typeof document.jwks_uri !== "string" || !/^https?:\/\//.test(document.jwks_uri))
      throw new IssuerUnavailable("its discovery document has no jwks_uri");
    return createRemoteJWKSet(new URL(document.jwks_uri), {
      timeoutDuration: this.config.timeoutMs,
      cooldownDuration: this.config.keysRefreshMinSeconds * 1000,
      [customFetch]: async (url: string, init: { signal: AbortSignal; headers: Headers; method: "GET" }) => {
        if (Date.now() - this.#keysFailedAt < KEYS_RETRY_MS)
          throw new IssuerUnavailable(`its keys at ${url} could not be fetched a moment ago`);
        try {
          return await this.#fetchKeys(url, init);
        } catch (err) {
          this.#keysFailedAt = Date.now();
          throw err;
        }
      },
    });
  }

  async #fetchKeys(url: string, init: { signal: AbortSignal; headers: Headers; method: "GET" }) {
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await this.#fetch(url, { ...init, redirect: "manual" } as never);
    } catch (err) {
      if ((err as Error).name === "TimeoutError") throw err; // jose makes it a JWKSTimeout
      throw new IssuerUnavailable(`its keys at ${url}: ${causeOf(err)}`);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new IssuerUnavailable(`its keys at ${url} answered ${response.status}`);
    }
    return response;
  }

  async #getJson(url: string, what: string): Promise<unknown> {
    let response: Awaited<ReturnType<typeof undiciFetch>>;
    try {
      response = await this.#fetch(url, { signal: AbortSignal.timeout(this.config.timeoutMs) });
    } catch (err) {
      throw new IssuerUnavailable(`its ${what} at ${url}: ${causeOf(err)}`);
    }
    if (response.status !== 200) {
      await response.body?.cancel();
      throw new IssuerUnavailable(`its ${what} at ${url} answered ${response.status}`);
    }
    try {
      return await response.json();
    } catch (err) {
      throw new IssuerUnavailable(`its ${what} at ${url} is not JSON: ${causeOf(err)}`);
    }
  }

  async close(): Promise<void> {
    await this.#agent?.close();
  }
}

function causeOf(err: unknown): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === "TimeoutError") return "no answer in time";
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}

/** What is wrong with a token, for error_description: the rule it breaks, never the token or its claims' values. */
export function describeRejection(err: unknown): string {
  if (err instanceof errors.JWTExpired) return "the token has expired";
  if (err instanceof errors.JWTClaimValidationFailed) {
    if (err.reason === "missing") return `the token has no ${err.claim} claim`;
    if (err.claim === "nbf") return "the token is not valid yet (nbf)";
    if (err.claim === "iss") return "the token is from another issuer";
    if (err.claim === "aud") return "the token is for another audience";
    return `the token's ${err.claim} claim is not valid`;
  }
  if (err instanceof errors.JOSEAlgNotAllowed || err instanceof errors.JOSENotSupported)
    return "the token is signed with an algorithm that is not accepted";
  if (err instanceof errors.JWKSNoMatchingKey) return "the token is signed with a key the issuer does not publish";
  if (err instanceof errors.JWSSignatureVerificationFailed) return "the token's signature does not verify";
  return "the token is not a valid signed JWT";
}
