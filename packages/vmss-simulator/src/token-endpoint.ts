// Microsoft Entra ID, as much of it as @azure/identity's client-secret flow and an OpenID Connect resource server
// use: OpenID discovery per tenant (/{tenant}/v2.0/.well-known/openid-configuration), the signing keys at its
// jwks_uri (/{tenant}/discovery/v2.0/keys) and the token endpoint (/{tenant}/oauth2/v2.0/token, grant
// client_credentials). Tokens are RS256 JWTs signed with a key of this simulator run (signing-keys.ts), and the ARM
// side checks them: a token that looks like ours but is not (bad signature, expired, other audience) gets 401
// InvalidAuthenticationToken. With requireIssuedTokens on, every ARM request must carry a token issued here.
//
// Clients are registered through /_sim/identity/clients (client id, secret, tenant, and the app roles and groups
// their tokens carry); APIs (resource applications, such as vmss-ops itself) through /_sim/identity/apis: a token for
// an API is a v2.0 token whose audience is the API's application id, as Entra issues for an app registration with
// accessTokenAcceptedVersion 2. POST /_sim/identity/keys:rotate starts signing with a new key; POST
// /_sim/identity/tokens signs any claims (for tests of what a resource server must refuse). Errors follow Entra's
// shape ({ error, error_description with an AADSTS code, error_codes, timestamp, trace_id, correlation_id }) and
// never repeat a secret.
import { randomUUID, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { SigningKeys, type SavedSigningKey } from "./signing-keys.ts";

export const IDENTITY_CONTROL_PATH = "/_sim/identity";
const TOKEN_LIFETIME_S = 3600;
const ARM_AUDIENCES = ["https://management.azure.com", "https://management.core.windows.net"];

interface Client {
  tenantId: string;
  clientId: string;
  /** A client secret, or… */
  secret?: string;
  /**
   * …a federated credential: the assertion (e.g. a Kubernetes service-account token) this client presents. Entra
   * checks its issuer, subject and audience against the federated credential; the simulator compares it whole.
   */
  federatedToken?: string;
  /** App roles assigned to this client on the APIs it calls: its tokens for an API carry them (`roles`). */
  roles?: string[];
  /** Group object ids its tokens for an API carry (`groups`). */
  groups?: string[];
}

/** A resource application (an app registration that exposes an API): tokens for it are v2.0, audience its appId. */
interface Api {
  tenantId: string;
  appId: string;
  /** The application id URI a client asks for (`${identifierUri}/.default`), e.g. api://vmss-ops. */
  identifierUri: string;
}

const JWT_BEARER = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, "utf8");
  const y = Buffer.from(b, "utf8");
  return x.length === y.length && timingSafeEqual(x, y);
}

interface JsonAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type BearerCheck =
  { ok: true } | { ok: false; code: "InvalidAuthenticationToken" | "ExpiredAuthenticationToken"; message: string };

/** Entra ID's side of the simulator as a state directory keeps it. */
export interface SavedEntraId {
  clients: Client[];
  apis: Api[];
  requireIssuedTokens: boolean;
  keys: SavedSigningKey[];
}

export class SimulatedEntraId {
  readonly keys = new SigningKeys();
  readonly #clients = new Map<string, Client>();
  readonly #apis = new Map<string, Api>();
  /** JWKS documents served: how often a resource server fetched the keys. */
  jwksServed = 0;
  /** Every ARM request must carry a token issued here (otherwise opaque tokens are accepted, as before). */
  requireIssuedTokens = false;
  /** The discovery document and the JWKS answer 503 (an outage of the identity provider). */
  keysUnavailable = false;
  /** Tokens issued, for the control API. */
  issued = 0;
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** What a state directory keeps (world-snapshot.ts): the registrations, the token switch and the signing keys. */
  saved(): SavedEntraId {
    return {
      clients: [...this.#clients.values()],
      apis: [...this.#apis.values()],
      requireIssuedTokens: this.requireIssuedTokens,
      keys: this.keys.saved(),
    };
  }

  restore(saved: SavedEntraId): void {
    for (const client of saved.clients) this.register(client);
    for (const api of saved.apis)
      this.#apis.set(`${api.tenantId.toLowerCase()}/${api.identifierUri.toLowerCase()}`, api);
    this.requireIssuedTokens = saved.requireIssuedTokens;
    this.keys.restore(saved.keys);
  }

  register(client: Client): void {
    this.#clients.set(`${client.tenantId.toLowerCase()}/${client.clientId.toLowerCase()}`, client);
  }

  /** Token, discovery and identity-control paths: not ARM calls. */
  isIdentityPath(pathname: string): boolean {
    return (
      pathname.startsWith(IDENTITY_CONTROL_PATH) ||
      /^\/[^/]+\/(v2\.0\/\.well-known\/openid-configuration|oauth2\/v2\.0\/token|discovery\/v2\.0\/keys)$/i.test(
        pathname,
      ) ||
      /^\/adfs\/\.well-known\/openid-configuration$/i.test(pathname)
    );
  }

  /** Answers the identity routes (token, discovery, control); undefined for every other path. */
  answer(method: string, pathname: string, body: Buffer, baseUrl: string): JsonAnswer | undefined {
    if (pathname === `${IDENTITY_CONTROL_PATH}/clients` && method === "POST") return this.#registerFromControl(body);
    if (pathname === `${IDENTITY_CONTROL_PATH}/apis` && method === "POST") return this.#registerApi(body);
    if (pathname === `${IDENTITY_CONTROL_PATH}/keys:rotate` && method === "POST") return this.#rotate(body);
    if (pathname === `${IDENTITY_CONTROL_PATH}/tokens` && method === "POST") return this.#signClaims(body, baseUrl);
    if (pathname === IDENTITY_CONTROL_PATH && method === "PUT") return this.#configure(body);
    if (pathname === IDENTITY_CONTROL_PATH && method === "GET") return { status: 200, body: this.#view() };
    if (this.keysUnavailable && /\/(openid-configuration|keys)$/i.test(pathname) && method === "GET")
      return {
        status: 503,
        headers: { "retry-after": "5" },
        body: { error: { code: "ServiceUnavailable", message: "The identity provider is unavailable." } },
      };
    // An ADFS authority (`…/adfs`, Azure Stack Hub's): MSAL asks no instance discovery of login.microsoftonline.com.
    const discovery =
      /^\/([^/]+)\/v2\.0\/\.well-known\/openid-configuration$|^\/(adfs)\/\.well-known\/openid-configuration$/i.exec(
        pathname,
      );
    if (discovery && method === "GET")
      return {
        status: 200,
        body: this.#openIdConfiguration(baseUrl, decodeURIComponent(discovery[1] ?? discovery[2])),
      };
    if (/^\/[^/]+\/discovery\/v2\.0\/keys$/i.test(pathname) && method === "GET") {
      this.jwksServed++;
      return { status: 200, body: this.keys.jwks() };
    }
    const token = /^\/([^/]+)\/oauth2\/v2\.0\/token$/i.exec(pathname);
    if (token && method === "POST") return this.#token(decodeURIComponent(token[1]), body, baseUrl);
    return undefined;
  }

  #view() {
    return {
      requireIssuedTokens: this.requireIssuedTokens,
      keysUnavailable: this.keysUnavailable,
      clients: [...this.#clients.values()].map((c) => ({ tenantId: c.tenantId, clientId: c.clientId })),
      apis: [...this.#apis.values()],
      issued: this.issued,
      signingKey: this.keys.current.kid,
      publishedKeys: this.keys.published().map((k) => k.kid),
      jwksServed: this.jwksServed,
    };
  }

  #registerApi(body: Buffer): JsonAnswer {
    const parsed = parseJson(body);
    if (!parsed) return { status: 400, body: { error: { code: "InvalidJson", message: "The body must be JSON." } } };
    const { tenantId, appId, identifierUri } = parsed;
    if (![tenantId, appId, identifierUri].every((v) => typeof v === "string" && v !== ""))
      return {
        status: 400,
        body: {
          error: { code: "InvalidApi", message: "tenantId, appId and identifierUri must be non-empty strings." },
        },
      };
    const api = { tenantId, appId, identifierUri } as Api;
    this.#apis.set(`${api.tenantId.toLowerCase()}/${api.identifierUri.toLowerCase()}`, api);
    return { status: 201, body: api };
  }

  #rotate(body: Buffer): JsonAnswer {
    const parsed = body.length === 0 ? {} : parseJson(body);
    if (!parsed || (parsed.keepPrevious !== undefined && typeof parsed.keepPrevious !== "boolean"))
      return {
        status: 400,
        body: { error: { code: "InvalidSetting", message: "The body may hold keepPrevious: true or false." } },
      };
    // Entra publishes the next key before signing with it and keeps the last one a while; keepPrevious: false is
    // a key withdrawn at once (a compromised key).
    this.keys.rotate(parsed.keepPrevious !== false);
    return { status: 200, body: this.#view() };
  }

  /**
   * Signs the claims given with the current key: `{ tenantId, claims, header? }`. iss (v2.0), iat, nbf and exp
   * (an hour) are filled in unless given; a claim given as null is left out.
   */
  #signClaims(body: Buffer, baseUrl: string): JsonAnswer {
    const parsed = parseJson(body);
    if (!parsed || typeof parsed.tenantId !== "string" || typeof parsed.claims !== "object" || parsed.claims === null)
      return {
        status: 400,
        body: {
          error: { code: "InvalidToken", message: "The body must be { tenantId, claims: {...}, header?: {...} }." },
        },
      };
    const iat = Math.floor(this.#now() / 1000);
    const claims: Record<string, unknown> = {
      iss: `${baseUrl}/${parsed.tenantId}/v2.0`,
      iat,
      nbf: iat,
      exp: iat + TOKEN_LIFETIME_S,
      tid: parsed.tenantId,
      ver: "2.0",
      ...(parsed.claims as Record<string, unknown>),
    };
    for (const [k, v] of Object.entries(claims)) if (v === null) delete claims[k];
    const header = (parsed.header ?? {}) as Record<string, unknown>;
    return { status: 200, body: { access_token: this.keys.sign(claims, header) } };
  }

  #registerFromControl(body: Buffer): JsonAnswer {
    const parsed = parseJson(body);
    if (!parsed) return { status: 400, body: { error: { code: "InvalidJson", message: "The body must be JSON." } } };
    const { tenantId, clientId, secret, federatedToken, roles, groups } = parsed;
    const names = (v: unknown) => v === undefined || (Array.isArray(v) && v.every((x) => typeof x === "string"));
    if (!names(roles) || !names(groups))
      return {
        status: 400,
        body: { error: { code: "InvalidClient", message: "roles and groups must be lists of strings." } },
      };
    const nonEmpty = (v: unknown) => typeof v === "string" && v !== "";
    if (
      !nonEmpty(tenantId) ||
      !nonEmpty(clientId) ||
      nonEmpty(secret) === nonEmpty(federatedToken) ||
      (secret !== undefined && !nonEmpty(secret)) ||
      (federatedToken !== undefined && !nonEmpty(federatedToken))
    ) {
      return {
        status: 400,
        body: {
          error: {
            code: "InvalidClient",
            message: "tenantId and clientId, and one of secret or federatedToken, must be non-empty strings.",
          },
        },
      };
    }
    this.register({
      tenantId: tenantId as string,
      clientId: clientId as string,
      ...(secret ? { secret: secret as string } : { federatedToken: federatedToken as string }),
      ...(roles ? { roles: roles } : {}),
      ...(groups ? { groups: groups } : {}),
    });
    return { status: 201, body: { tenantId, clientId } };
  }

  #configure(body: Buffer): JsonAnswer {
    const parsed = parseJson(body);
    if (!parsed) return { status: 400, body: { error: { code: "InvalidJson", message: "The body must be JSON." } } };
    const { requireIssuedTokens, keysUnavailable } = parsed;
    if (
      (requireIssuedTokens !== undefined && typeof requireIssuedTokens !== "boolean") ||
      (keysUnavailable !== undefined && typeof keysUnavailable !== "boolean")
    )
      return {
        status: 400,
        body: {
          error: { code: "InvalidSetting", message: "requireIssuedTokens and keysUnavailable must be true or false." },
        },
      };
    if (requireIssuedTokens !== undefined) this.requireIssuedTokens = requireIssuedTokens;
    if (keysUnavailable !== undefined) this.keysUnavailable = keysUnavailable;
    return { status: 200, body: this.#view() };
  }

  #openIdConfiguration(baseUrl: string, tenant: string) {
    const t = encodeURIComponent(tenant);
    return {
      token_endpoint: `${baseUrl}/${t}/oauth2/v2.0/token`,
      token_endpoint_auth_methods_supported: ["client_secret_post", "private_key_jwt", "client_secret_basic"],
      jwks_uri: `${baseUrl}/${t}/discovery/v2.0/keys`,
      response_modes_supported: ["query", "fragment", "form_post"],
      subject_types_supported: ["pairwise"],
      id_token_signing_alg_values_supported: ["RS256"],
      response_types_supported: ["code", "id_token", "code id_token", "id_token token"],
      scopes_supported: ["openid", "profile", "email", "offline_access"],
      issuer: `${baseUrl}/${t}/v2.0`,
      request_uri_parameter_supported: false,
      userinfo_endpoint: `${baseUrl}/oidc/userinfo`,
      authorization_endpoint: `${baseUrl}/${t}/oauth2/v2.0/authorize`,
      device_authorization_endpoint: `${baseUrl}/${t}/oauth2/v2.0/devicecode`,
      http_logout_supported: true,
      frontchannel_logout_supported: true,
      end_session_endpoint: `${baseUrl}/${t}/oauth2/v2.0/logout`,
      claims_supported: ["sub", "iss", "aud", "exp", "iat", "tid"],
      tenant_region_scope: "NA",
      cloud_instance_name: "microsoftonline.com",
    };
  }

  #error(status: number, error: string, aadsts: number, description: string): JsonAnswer {
    const trace = randomUUID();
    const correlation = randomUUID();
    return {
      status,
      body: {
        error,
        error_description: `AADSTS${aadsts}: ${description} Trace ID: ${trace} Correlation ID: ${correlation} Timestamp: ${new Date(this.#now()).toISOString()}`,
        error_codes: [aadsts],
        timestamp: new Date(this.#now()).toISOString(),
        trace_id: trace,
        correlation_id: correlation,
      },
    };
  }

  #token(tenant: string, body: Buffer, baseUrl: string): JsonAnswer {
    const form = new URLSearchParams(body.toString("utf8"));
    const grant = form.get("grant_type");
    const clientId = form.get("client_id") ?? "";
    const scope = form.get("scope") ?? "";
    if (grant !== "client_credentials")
      return this.#error(
        400,
        "unsupported_grant_type",
        70003,
        `The app requested an unsupported grant type '${grant ?? ""}'.`,
      );
    if (!clientId)
      return this.#error(
        400,
        "invalid_request",
        900144,
        "The request body must contain the following parameter: 'client_id'.",
      );
    // ADFS has one directory: the client is found by its id alone.
    const client =
      tenant.toLowerCase() === "adfs"
        ? [...this.#clients.values()].find((c) => c.clientId.toLowerCase() === clientId.toLowerCase())
        : this.#clients.get(`${tenant.toLowerCase()}/${clientId.toLowerCase()}`);
    if (!client)
      return this.#error(
        400,
        "unauthorized_client",
        700016,
        `Application with identifier '${clientId}' was not found in the directory '${tenant}'.`,
      );
    const refused = this.#refuseCredential(client, form);
    if (refused) return refused;
    const resource = scope
      .split(" ")
      .find((s) => s.endsWith("/.default"))
      ?.replace(/\/\.default$/, "");
    if (!resource)
      return this.#error(
        400,
        "invalid_scope",
        1002012,
        `The provided value for scope ${scope} is not valid. Client credential flows must have a scope value with /.default suffixed to the resource identifier (application ID URI).`,
      );
    const iat = Math.floor(this.#now() / 1000);
    const api = this.#apis.get(`${client.tenantId.toLowerCase()}/${resource.toLowerCase()}`);
    if (api) return this.#issue(this.#apiToken(client, api, iat, baseUrl));
    return this.#issue(this.#armToken(client, resource, iat, baseUrl));
  }

  /** The client's secret or federated assertion, checked as Entra checks them: an error answer, or none. */
  #refuseCredential(client: Client, form: URLSearchParams): JsonAnswer | undefined {
    const clientId = form.get("client_id") ?? "";
    const secret = form.get("client_secret");
    const assertion = form.get("client_assertion");
    if (secret === null && assertion === null)
      return this.#error(
        401,
        "invalid_client",
        7000218,
        "The request body must contain the following parameter: 'client_assertion' or 'client_secret'.",
      );
    if (secret !== null) {
      if (!client.secret || !sameText(secret, client.secret)) {
        return this.#error(
          401,
          "invalid_client",
          7000215,
          `Invalid client secret provided. Ensure the secret being sent in the request is the client secret value, not the client secret ID, for a secret added to app '${clientId}'.`,
        );
      }
    } else {
      if (form.get("client_assertion_type") !== JWT_BEARER)
        return this.#error(
          400,
          "invalid_request",
          50027,
          "Invalid JWT token. client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer.",
        );
      if (!client.federatedToken || !sameText(assertion!, client.federatedToken)) {
        return this.#error(
          400,
          "invalid_client",
          70021,
          "No matching federated identity record found for presented assertion.",
        );
      }
    }
    return undefined;
  }

  /** A v1.0 app-only token for an Azure resource (ARM, Key Vault). */
  #armToken(client: Client, resource: string, iat: number, baseUrl: string): Record<string, unknown> {
    return {
      aud: resource,
      iss: `${baseUrl}/${client.tenantId}/`,
      iat,
      nbf: iat,
      exp: iat + TOKEN_LIFETIME_S,
      appid: client.clientId,
      tid: client.tenantId,
      oid: client.clientId,
      sub: client.clientId,
      idtyp: "app",
      ver: "1.0",
    };
  }

  /** A v2.0 app-only token for an API, with the client's app roles and groups (Entra's access token claims). */
  #apiToken(client: Client, api: Api, iat: number, baseUrl: string): Record<string, unknown> {
    return {
      aud: api.appId,
      iss: `${baseUrl}/${api.tenantId}/v2.0`,
      iat,
      nbf: iat,
      exp: iat + TOKEN_LIFETIME_S,
      azp: client.clientId,
      azpacr: "1",
      tid: client.tenantId,
      oid: client.clientId,
      sub: client.clientId,
      idtyp: "app",
      ...(client.roles ? { roles: client.roles } : {}),
      ...(client.groups ? { groups: client.groups } : {}),
      ver: "2.0",
    };
  }

  #issue(payload: Record<string, unknown>): JsonAnswer {
    this.issued++;
    return {
      status: 200,
      body: {
        token_type: "Bearer",
        expires_in: TOKEN_LIFETIME_S,
        ext_expires_in: TOKEN_LIFETIME_S,
        access_token: this.keys.sign(payload),
      },
    };
  }

  /** Checks an ARM request's Authorization header. Missing or malformed headers are left to the ARM pipeline. */
  checkBearer(authorization: string | undefined): BearerCheck {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization?.trim() ?? "");
    if (!m) return { ok: true };
    const parts = m[1].split(".");
    const invalid: BearerCheck = {
      ok: false,
      code: "InvalidAuthenticationToken",
      message: "The access token is invalid.",
    };
    if (parts.length !== 3) return this.requireIssuedTokens ? invalid : { ok: true };
    const claims = this.keys.verify(m[1]) as { exp?: number; aud?: string } | undefined;
    if (!claims) return invalid;
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= this.#now()) {
      return {
        ok: false,
        code: "ExpiredAuthenticationToken",
        message: "The access token expiry UTC time is earlier than current UTC time.",
      };
    }
    if (
      !ARM_AUDIENCES.includes((typeof claims.aud === "string" ? claims.aud : "").replace(/\/+$/, "")) &&
      !/^https:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?$/.test(typeof claims.aud === "string" ? claims.aud : "")
    ) {
      return {
        ok: false,
        code: "InvalidAuthenticationToken",
        message: `The access token has an invalid audience '${String(claims.aud)}'.`,
      };
    }
    return { ok: true };
  }
}

function parseJson(body: Buffer): Record<string, unknown> | undefined {
  try {
    const parsed: unknown = JSON.parse(body.toString("utf8"));
    return typeof parsed === "object" && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The simulator's hook: answers identity requests, and refuses ARM requests whose token fails the check.
 * Returns true when it answered.
 */
export function handleIdentity(
  entra: SimulatedEntraId,
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
  body: Buffer,
  baseUrl: string,
): boolean {
  const answer = entra.answer(req.method ?? "GET", pathname, body, baseUrl);
  if (answer) {
    res.writeHead(answer.status, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      ...answer.headers,
    });
    res.end(JSON.stringify(answer.body));
    return true;
  }
  if (pathname.toLowerCase().startsWith("/_sim")) return false;
  const check = entra.checkBearer(
    typeof req.headers.authorization === "string" ? req.headers.authorization : undefined,
  );
  if (check.ok) return false;
  res.writeHead(401, {
    "content-type": "application/json; charset=utf-8",
    "www-authenticate": `Bearer authorization_uri="${baseUrl}/common/oauth2/authorize", error="invalid_token", error_description="${check.message}"`,
    "x-ms-failure-cause": "gateway",
  });
  res.end(JSON.stringify({ error: { code: check.code, message: check.message } }));
  return true;
}
