// What every request goes through, as named plugins that apply to the whole service (fastify-plugin: no
// encapsulation). Each declares the plugins it must come after (`dependencies`); fastify refuses to start when one
// is registered before what it depends on, so the order is checked, not explained.
import type { FastifyInstance } from "fastify";
import fp from "fastify-plugin";
import type { AccessConfig } from "../auth/access-config.ts";
import type { ArmBudget } from "../azure/arm-budget/budget.ts";
import { listenToAllArmResponses } from "../azure/arm-listeners.ts";
import type { RateLimitBudget } from "../azure/rate-limit-budget.ts";
import { installAccessControl, type RouteAccessInfo } from "../api/access-control.ts";
import type { AuditTrail } from "../api/audit-trail.ts";
import type { ClouddriverConfig, ClouddriverForwarder } from "../api/clouddriver-forwarding.ts";
import { apiError, installErrorHandling } from "../api/errors.ts";
import { installJsonBodyParser } from "../api/json-body.ts";
import { installArrivalTimes } from "../api/arrival.ts";
import type { EventLoopLag } from "../observability/event-loop.ts";
import { documentNullsAsAbsent, documentStrictHandling, openApiOptions } from "../api/openapi.ts";
import { installOverloadProtection, type OverloadConfig, type SubmittedBefore } from "../api/overload.ts";
import { installRequestDeadlines } from "../api/request-deadline.ts";
import { documentEveryAnswer } from "../api/route-answers.ts";
import { componentSchemas } from "../api/schemas.ts";
import { accountCheckSchemas } from "../api/routes/account-checks.ts";
import { auditSchemas } from "../api/routes/audit.ts";
import { clusterOperationSchemas } from "../api/routes/cluster-operations.ts";
import { RateLimits } from "../api/routes/rate-limits.ts";
import { clouddriverInstanceSchemas } from "../clouddriver/instances.ts";
import { clouddriverSchemas } from "../clouddriver/server-group.ts";
import type { ServiceMetrics } from "../observability/metrics.ts";
import { Readiness } from "../observability/routes.ts";
import { operations } from "../operations/registry.ts";
import { installPageSecurityHeaders } from "../ui/page-headers.ts";

/** A plugin for the whole service that installs at once: named, and registered only after its dependencies. */
function servicePlugin<O extends Record<string, unknown> = Record<never, never>>(
  name: string,
  dependencies: string[],
  install: (app: FastifyInstance, options: O) => void,
) {
  return fp<O>(
    (app, options, done) => {
      install(app, options);
      done();
    },
    { name, dependencies },
  );
}

/** When each request arrived, the time it waited unread on a held-up event loop included (api/arrival.ts). */
export const arrivalTimes = servicePlugin<{ lag: EventLoopLag }>("arrival-times", [], (app, { lag }) =>
  installArrivalTimes(app, lag),
);

/** Every error answered from the error catalogue: routes registered after it get its handler. */
export const errorHandling = servicePlugin<{ bodyLimitBytes: number }>("error-handling", [], (app, options) =>
  installErrorHandling(app, options),
);

/** The status page's security headers, added to each page route as it is declared. */
export const pageSecurityHeaders = servicePlugin("page-security-headers", [], (app) => installPageSecurityHeaders(app));

/**
 * One log line and one metric per request, at its end, not fastify's two lines: a line is a write to stdout. A
 * callback, not a promise: no promise and no microtask per request.
 */
export const requestLog = servicePlugin<{ metrics: ServiceMetrics }>("request-log", [], (app, { metrics }) => {
  app.addHook("onResponse", (request, reply, done) => {
    const route = request.routeOptions.url ?? "unmatched";
    metrics.observeResponse(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
    request.log.info({ req: request, res: reply, responseTime: reply.elapsedTime }, "request completed");
    done();
  });
});

/** Set once graceful shutdown begins: by Service.drain(), or by however the app is closed. */
export interface DrainState {
  draining: boolean;
}

/** While draining, every request is answered 503 ShuttingDown with Retry-After, before anything else looks at it. */
export const draining = servicePlugin<{ state: DrainState }>("draining", ["error-handling"], (app, { state }) => {
  app.addHook("preClose", (done) => {
    state.draining = true;
    done();
  });
  app.addHook("onRequest", (_request, reply, done) => {
    if (!state.draining) return done();
    reply.header("connection", "close");
    done(apiError("ShuttingDown", { retryAfterSeconds: 5 }));
  });
});

/** Where access control lists every route and who may call it, as routes are declared. */
export interface RouteRegistry {
  routes: RouteAccessInfo[];
}

/** Who the caller is and whether the route is open to them (api/access-control.ts). */
export const accessControl = servicePlugin<{ access: AccessConfig; registry: RouteRegistry }>(
  "access-control",
  ["draining"],
  (app, { access, registry }) => {
    registry.routes = installAccessControl(app, access);
  },
);

/** Each route's document lists the answers every route can give (401/403 by its access, 503, …). */
export const documentedAnswers = servicePlugin("documented-answers", ["access-control"], (app) =>
  documentEveryAnswer(app),
);

/** Who changed what, and refusals once answered (api/audit-trail.ts): it reads the caller access control found. */
export const auditTrail = servicePlugin<{ audit: AuditTrail }>("audit-trail", ["access-control"], (app, { audit }) =>
  audit.install(app),
);

/**
 * Shedding under pressure, and the per-caller limits, keyed by the principal access control found; a submission
 * repeated with the clientRequestId of a task that exists passes the limits (`submittedBefore`).
 */
export const overloadProtection = fp<{ overload: OverloadConfig; submittedBefore?: SubmittedBefore }>(
  async (app, { overload, submittedBefore }) => installOverloadProtection(app, overload, submittedBefore),
  { name: "overload", dependencies: ["access-control", "arrival-times"] },
);

/** Each request's store calls end by its deadline (TASK_STORE_REQUEST_DEADLINE_MS from its arrival). */
export const requestDeadlines = servicePlugin<{ deadlineMs: number }>(
  "request-deadlines",
  ["error-handling", "arrival-times"],
  (app, { deadlineMs }) => installRequestDeadlines(app, deadlineMs),
);

/**
 * JSON only: anything else is a 415, not a string that fails validation later; UTF-8 only, nested no deeper than
 * BODY_MAX_DEPTH (checked before anything walks the body).
 */
export const jsonBodies = servicePlugin<{ maxDepth: number; keepRaw: boolean }>(
  "json-bodies",
  ["error-handling"],
  (app, options) => {
    app.removeContentTypeParser("text/plain");
    installJsonBodyParser(app, options);
  },
);

/**
 * The forwarder to Clouddriver, when one is configured. Loaded only then: it brings undici, whose loading is a
 * tenth of start-up.
 */
export async function clouddriverForwarder(
  config: ClouddriverConfig | undefined,
  audit: AuditTrail,
): Promise<ClouddriverForwarder | undefined> {
  if (!config) return undefined;
  const forwarding = await import("../api/clouddriver-forwarding.ts");
  return new forwarding.ClouddriverForwarder(config, audit);
}

/** What is not ours goes to Clouddriver, with the same credentials as what is served here. */
export const clouddriverForwarding = fp<{ forwarder: ClouddriverForwarder }>(
  async (app, { forwarder }) => {
    const forwarding = await import("../api/clouddriver-forwarding.ts");
    forwarding.installClouddriverForwarding(app, forwarder);
  },
  { name: "clouddriver-forwarding", dependencies: ["access-control", "audit-trail", "json-bodies"] },
);

/**
 * Every ARM response of this process seen by the throttling budget and the metrics; the ARM call budget closed
 * with the app when the app made it (`owned`).
 */
export const armResponseListeners = servicePlugin<{
  budget: RateLimitBudget;
  metrics: ServiceMetrics;
  owned?: ArmBudget;
}>("arm-response-listeners", [], (app, { budget, metrics, owned }) => {
  const stopListening = listenToAllArmResponses(budget);
  const stopCounting = listenToAllArmResponses(metrics.armListener);
  app.addHook("onClose", async () => {
    stopListening();
    stopCounting();
    await owned?.close();
  });
});

/** The schemas routes refer to by $id: the API's components and every operation's description. */
export const sharedSchemas = servicePlugin("shared-schemas", [], (app) => {
  for (const schema of [
    ...componentSchemas,
    RateLimits,
    ...accountCheckSchemas,
    Readiness,
    ...clouddriverSchemas,
    ...clouddriverInstanceSchemas,
    ...clusterOperationSchemas,
    ...auditSchemas,
  ])
    app.addSchema(schema);
  for (const op of operations.values()) app.addSchema(op.schema);
});

/**
 * Generates the OpenAPI document from the routes (app.swagger()), for scripts/write-openapi.ts; the service serves
 * the checked-in result instead, without loading @fastify/swagger.
 */
export const openApiGeneration = fp(
  async (app) => {
    // Every operation's description (the bodies whose nulls are dropped as absent).
    const descriptions = [...[...operations.values()].map((op) => op.schema), ...clusterOperationSchemas].map(
      (schema) => schema.$id!,
    );
    await app.register((await import("@fastify/swagger")).default, {
      ...openApiOptions,
      transformObject: (document) =>
        "openapiObject" in document
          ? (documentStrictHandling(
              documentNullsAsAbsent(document.openapiObject, descriptions),
              descriptions,
            ) as typeof document.openapiObject)
          : document.swaggerObject,
    });
  },
  { name: "openapi-generation", dependencies: ["shared-schemas", "access-control", "documented-answers"] },
);
