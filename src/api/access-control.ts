// Who is calling, checked before any handler runs, and the 403 every account-scoped handler asks for.
//
// Every route needs a principal unless it says otherwise (route config `access`): a route added later is protected
// by default. Open: /health, /ready, the API documentation and the status page's static shell (its data comes from
// the API, with the caller's token); /health tells only "up" to a caller without credentials. /metrics needs a
// token when principals are configured, unless METRICS_REQUIRE_TOKEN=false opens it.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { accessControlEnabled, type AccessConfig } from "../auth/access-config.ts";
import { Type } from "@sinclair/typebox";
import { apiError, type ApiError } from "./errors.ts";
import { ErrorResponse } from "./schemas.ts";
import { BEARER_SCHEME } from "./openapi.ts";
import { findTokenPrincipal, parseAuthorization } from "../auth/bearer-tokens.ts";
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

function unauthorized(message: string): ApiError {
  return apiError("Unauthorized", { why: message });
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

/** The caller's principal, or the 401 that says why there is none. */
export function identify(access: AccessConfig, request: FastifyRequest): Principal {
  if (!accessControlEnabled(access)) return OPEN_PRINCIPAL;
  const auth = parseAuthorization(headerValue(request, "authorization"));
  if (auth.kind === "malformed") throw unauthorized('the Authorization header must be "Bearer <token>"');
  let tokenPrincipal: Principal | undefined;
  if (auth.kind === "token") {
    const p = access.principals.length > 0 ? findTokenPrincipal(access.principals, auth.token) : undefined;
    if (!p) throw unauthorized("the bearer token is not valid");
    tokenPrincipal = { name: p.name, accounts: p.accounts, readOnly: p.readOnly, via: "token" };
  }
  const user = access.trustSpinnakerHeaders ? headerValue(request, SPINNAKER_USER_HEADER)?.trim() : undefined;
  if (user) {
    const headerAccounts = parseSpinnakerAccounts(headerValue(request, SPINNAKER_ACCOUNTS_HEADER));
    if (!tokenPrincipal)
      return { name: user, accounts: headerAccounts, readOnly: false, via: "spinnakerHeaders", spinnakerUser: user };
    // A token and Orca's headers: the service that holds the token acts for the user, within both.
    return {
      name: `${user} (via ${tokenPrincipal.name})`,
      accounts: intersectAccounts(tokenPrincipal.accounts, headerAccounts),
      readOnly: tokenPrincipal.readOnly,
      via: "token+spinnakerHeaders",
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
    route.config = { ...config, access: classified } as typeof route.config;
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
  // A callback, not a promise: it runs on every request.
  app.addHook("onRequest", (request, reply, done) => {
    const routeAccess = (request.routeOptions.config as { access?: RouteAccess }).access ?? "api";
    const needed = routeAccess === "api" || (routeAccess === "metrics" && access.protectMetrics);
    if (!needed) {
      request.principal = OPEN_PRINCIPAL;
      try {
        // Identify when we can (logs and rate limits), but an open route never fails for it.
        request.principal = identify(access, request);
      } catch {
        /* open route */
      }
      return done();
    }
    try {
      request.principal = identify(access, request);
    } catch (err) {
      reply.header("www-authenticate", 'Bearer realm="vmss-ops"');
      return done(err as Error);
    }
    // Without access control everyone is "anonymous": no principal to bind. With it, the request's logger is made
    // only if the request logs (observability/request-logger.ts), so binding the principal costs a poll nothing.
    if (request.principal.via !== "open") request.log = request.log.child({ principal: request.principal.name });
    done();
  });
  return routes;
}
