// Who is calling, checked before any handler runs, and the 403 every account-scoped handler asks for.
//
// Every route needs a principal unless it says otherwise (route config `access`): a route added later is protected
// by default. Open: /health, /ready, the API documentation and the status page's static shell (its data comes from
// the API, with the caller's token); /health tells only "up" to a caller without credentials. /metrics needs a
// token when principals are configured, unless METRICS_REQUIRE_TOKEN=false opens it.
//
// A bearer token is a static token (compared by hash) or, with an `oidc` section configured, an OpenID Connect
// access token (src/auth/oidc-tokens.ts). Answers follow RFC 6750 §3: 401 with a Bearer challenge, `invalid_token`
// and what is wrong for a bad, expired or foreign token; 403 for a valid token no principal takes; 503 with
// Retry-After when the issuer's keys cannot be read. The token itself is never logged nor repeated.
import { isIPv4 } from "node:net";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { accessControlEnabled, type AccessConfig } from "../auth/access-config.ts";
import { Type } from "@sinclair/typebox";
import { apiError, type ApiError } from "./errors.ts";
import { ErrorResponse } from "./schemas.ts";
import { BEARER_SCHEME } from "./openapi.ts";
import { findTokenPrincipal, parseAuthorization } from "../auth/bearer-tokens.ts";
import { looksLikeJwt, OidcTokenVerifier } from "../auth/oidc-tokens.ts";
import { principalOfToken, unmatchedTokenPrincipal } from "../auth/oidc-principals.ts";
import { decideAccess, intersectAccounts, OPEN_PRINCIPAL, type Principal } from "../auth/principal.ts";

/** public: no principal needed; metrics: a principal when METRICS_REQUIRE_TOKEN (on by default with principals); api (the default): a principal. */
export type RouteAccess = "public" | "metrics" | "api";

declare module "fastify" {
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
}

/** Orca's identity headers (kork-core .../kork/common/Header.java:27-28). */
export const SPINNAKER_USER_HEADER = "x-spinnaker-user";
export const SPINNAKER_ACCOUNTS_HEADER = "x-spinnaker-accounts";

/** Each kind of route's OpenAPI security requirement. */
const SECURITY_REQUIREMENT: Record<RouteAccess, Record<string, string[]>[]> = {
  public: [],
  metrics: [{ [BEARER_SCHEME]: [] }, {}],
  api: [{ [BEARER_SCHEME]: [] }],
};

/** Paths that are open whatever their route config says: the API documentation. */
function isDocumentation(url: string): boolean {
  return url === "/openapi.json" || url === "/docs" || url.startsWith("/docs/");
}

const REALM = 'Bearer realm="vmss-ops"';

/** RFC 6750 §3: error_description is printable ASCII without `"` and `\`. */
function challenge(error: "invalid_request" | "invalid_token" | "insufficient_scope", description: string): string {
  return `${REALM}, error="${error}", error_description="${description.replace(/[^\x20-\x21\x23-\x5b\x5d-\x7e]/g, "'")}"`;
}

/** A 401: no credentials (a bare challenge), or bad ones (the challenge says which error). */
function unauthorized(message: string, error?: "invalid_request" | "invalid_token"): ApiError {
  return apiError(
    "Unauthorized",
    { why: message },
    { headers: { "www-authenticate": error ? challenge(error, message) : REALM } },
  );
}

/** X-SPINNAKER-ACCOUNTS is a comma-separated list (kork-security .../AuthenticatedRequest.java:72). */
export function parseSpinnakerAccounts(value: string | undefined): string[] {
  return (value ?? "")
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "");
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(",") : v;
}

/** The address the connection comes from (not X-Forwarded-For, which a caller can write), IPv4-mapped unwrapped. */
function sourceAddress(request: FastifyRequest): string {
  const address = request.socket.remoteAddress ?? "";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped ? mapped[1] : address;
}

/** The user Orca names, when its headers are trusted and come from a trusted network; a 401 when not from one. */
function spinnakerUserOf(access: AccessConfig, request: FastifyRequest): string | undefined {
  const user = access.trustSpinnakerHeaders ? headerValue(request, SPINNAKER_USER_HEADER)?.trim() : undefined;
  if (!user || !access.spinnakerHeadersFrom) return user || undefined;
  const from = sourceAddress(request);
  if (!access.spinnakerHeadersFrom.blockList.check(from, isIPv4(from) ? "ipv4" : "ipv6"))
    throw unauthorized(
      `X-SPINNAKER-USER is trusted only from ${access.spinnakerHeadersFrom.networks.join(", ")}; this request comes from ${from}`,
      "invalid_request",
    );
  return user;
}

/** A token's principal: static (by hash) first; else, with OpenID Connect configured, a JWT that verifies. */
function tokenPrincipal(
  access: AccessConfig,
  oidc: OidcTokenVerifier | undefined,
  token: string,
): Principal | Promise<Principal> {
  const p = findTokenPrincipal(access.principals, token);
  if (p) return { name: p.name, accounts: p.accounts, readOnly: p.readOnly, via: "token" };
  if (!oidc || !looksLikeJwt(token)) throw unauthorized("the bearer token is not valid", "invalid_token");
  return oidc.verify(token).then((check) => {
    if (!check.ok && check.kind === "unavailable")
      throw apiError("IdentityProviderUnavailable", {
        reason: check.description,
        retryAfterSeconds: check.retryAfterSeconds,
      });
    if (!check.ok) throw unauthorized(check.description, "invalid_token");
    const principal = principalOfToken(access.principals, check.claims);
    if (principal) return principal;
    const why = `the token (application ${describeCaller(check.claims)}) is valid, but no principal in the configuration takes it: give its app role, group or application a principal`;
    const refusal = apiError(
      "Forbidden",
      { why },
      { headers: { "www-authenticate": challenge("insufficient_scope", why) } },
    );
    refusedCallers.set(refusal, unmatchedTokenPrincipal(check.claims));
    throw refusal;
  });
}

/** The caller a 403 of identification refused, when it is known (a valid token): its refusal is audited as such. */
const refusedCallers = new WeakMap<Error, Principal>();

/** The token's caller for a 403: its application and roles, never the token. */
function describeCaller(claims: Record<string, unknown>): string {
  const app = typeof claims.azp === "string" ? claims.azp : typeof claims.appid === "string" ? claims.appid : "?";
  const roles = Array.isArray(claims.roles) ? claims.roles.filter((r) => typeof r === "string") : [];
  return roles.length > 0 ? `${app}, roles ${roles.join(", ")}` : app;
}

/** The caller's principal (a promise when an OpenID Connect token must be checked), or the 401 that says why none. */
export function identify(
  access: AccessConfig,
  request: FastifyRequest,
  oidc?: OidcTokenVerifier,
): Principal | Promise<Principal> {
  if (!accessControlEnabled(access)) return OPEN_PRINCIPAL;
  const auth = parseAuthorization(headerValue(request, "authorization"));
  if (auth.kind === "malformed")
    throw unauthorized('the Authorization header must be "Bearer <token>"', "invalid_request");
  const user = spinnakerUserOf(access, request);
  const byToken = auth.kind === "token" ? tokenPrincipal(access, oidc, auth.token) : undefined;
  if (byToken instanceof Promise) return byToken.then((p) => withSpinnakerUser(access, request, user, p));
  return withSpinnakerUser(access, request, user, byToken);
}

function withSpinnakerUser(
  access: AccessConfig,
  request: FastifyRequest,
  user: string | undefined,
  tokenPrincipal: Principal | undefined,
): Principal {
  if (user) {
    const headerAccounts = parseSpinnakerAccounts(headerValue(request, SPINNAKER_ACCOUNTS_HEADER));
    if (!tokenPrincipal)
      return { name: user, accounts: headerAccounts, readOnly: false, via: "spinnakerHeaders", spinnakerUser: user };
    // A token and Orca's headers: the service that holds the token acts for the user, within both.
    return {
      ...tokenPrincipal,
      name: `${user} (via ${tokenPrincipal.name})`,
      accounts: intersectAccounts(tokenPrincipal.accounts, headerAccounts),
      via: tokenPrincipal.via === "oidc" ? "oidc+spinnakerHeaders" : "token+spinnakerHeaders",
      spinnakerUser: user,
    };
  }
  if (tokenPrincipal) return tokenPrincipal;
  const ways = [
    access.principals.length > 0 ? "Authorization: Bearer <token>" : undefined,
    access.trustSpinnakerHeaders ? "X-SPINNAKER-USER (and X-SPINNAKER-ACCOUNTS)" : undefined,
  ].filter(Boolean);
  throw unauthorized(`this route needs ${ways.join(" or ")}`);
}

/** Throws the 403 when the caller may not read or act on the account. */
export function requireAccount(request: FastifyRequest, account: string, intent: "read" | "write"): void {
  const decision = decideAccess(request.principal, account, intent);
  if (!decision.ok) throw apiError("Forbidden", { why: decision.reason });
}

export interface RouteAccessInfo {
  method: string;
  url: string;
  access: RouteAccess;
  /** Its OpenAPI security requirement. */
  security: readonly Readonly<Record<string, readonly string[]>>[];
  /** Whether the OpenAPI document lists it (the documentation and the status page's files it does not). */
  documented: boolean;
}

/**
 * Installs identification on every route. Call before any route is registered. Returns the route table as
 * classified (what the 401/403 test walks).
 */
export function installAccessControl(app: FastifyInstance, access: AccessConfig): RouteAccessInfo[] {
  const routes: RouteAccessInfo[] = [];
  app.decorateRequest("principal", null as unknown as Principal);
  app.addHook("onRoute", (route) => {
    const config = (route.config ?? {}) as { access?: RouteAccess };
    const classified: RouteAccess = isDocumentation(route.url) ? "public" : (config.access ?? "api");
    route.config = { ...config, access: classified };
    // The document says how to call each route: none needed on the open ones; /metrics may be opened.
    route.schema = { ...route.schema, security: SECURITY_REQUIREMENT[classified] };
    const response = route.schema?.response as Record<string, unknown> | undefined;
    if (response && classified !== "public") {
      // Documented in the OpenAPI document like every other answer.
      response[401] ??= {
        ...Type.Ref(ErrorResponse),
        description: "No valid credentials: the message says what is missing",
      };
      if (classified === "api")
        response[403] ??= {
          ...Type.Ref(ErrorResponse),
          description: "The caller may not use that account (or may only read)",
        };
    }
    const documented = !(route.schema as { hide?: boolean }).hide;
    for (const method of [route.method].flat())
      routes.push({ method, url: route.url, access: classified, security: route.schema.security!, documented });
  });
  const oidc = access.oidc ? new OidcTokenVerifier(access.oidc) : undefined;
  if (oidc) app.addHook("onClose", async () => oidc.close());
  // A callback, not a promise: it runs on every request, and only an OpenID Connect token needs to wait.
  app.addHook("onRequest", (request, reply, done) => {
    const routeAccess = (request.routeOptions.config as { access?: RouteAccess }).access ?? "api";
    const needed = routeAccess === "api" || (routeAccess === "metrics" && access.protectMetrics);
    const settle = (principal: Principal) => {
      request.principal = principal;
      // Without access control everyone is "anonymous": no principal to bind. With it, the request's logger is
      // made only if the request logs (observability/request-logger.ts), so binding costs a poll nothing.
      if (principal.via !== "open") request.log = request.log.child({ principal: principal.name });
      done();
    };
    const refuse = (err: Error) => {
      const refused = refusedCallers.get(err);
      if (refused) request.principal = refused; // the audit trail records the refusal of who the token is
      if (!needed) {
        // Identify when we can (logs and rate limits), but an open route never fails for it.
        request.principal = OPEN_PRINCIPAL;
        return done();
      }
      done(err);
    };
    let found: Principal | Promise<Principal>;
    try {
      found = identify(access, request, oidc);
    } catch (err) {
      return refuse(err as Error);
    }
    if (found instanceof Promise) found.then(settle, refuse);
    else settle(found);
  });
  return routes;
}
