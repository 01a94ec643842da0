// The ARM surface of Microsoft.Insights/autoscaleSettings as @azure/arm-monitor 8 uses it (api-version 2022-10-01):
// GET, PUT (200 replaced / 201 created), PATCH (tags and properties merged), DELETE (200 / 204), the lists by resource
// group and by subscription; and the control routes under /_sim/autoscale: metric values, an evaluation now, the
// evaluations made, the periodic evaluation on or off.
import { ArmError, resourceNotFound } from "../arm-errors.ts";
import { requireResourceGroup, requireSubscription } from "../arm-checks.ts";
import type { Handler, Route, SimulatorContext } from "../context.ts";
import { parseJsonBody, send, type RequestContext } from "../http.ts";
import { clone, isObject, mergePatch, type JsonObject } from "../json.ts";
import { sendPage } from "../paging.ts";
import type { RouteParams } from "../router.ts";
import { normalizeLocation } from "../vmss-model.ts";
import { evaluateAll, periodicEvaluation, setPeriodicEvaluation } from "./autoscale-run.ts";
import { AUTOSCALE_API_VERSIONS, AUTOSCALE_TYPE, autoscaleOf, type AutoscaleSetting } from "./autoscale-state.ts";
import { validateAutoscaleProperties, validateLocation, validateTags } from "./autoscale-validate.ts";

const SUB = "/subscriptions/:subscriptionId";
const SETTINGS = `${SUB}/resourceGroups/:resourceGroup/providers/Microsoft.Insights/autoscalesettings`;

/** ARM's answer to an api-version this resource type does not serve. */
function checkAutoscaleApiVersion(ctx: RequestContext): void {
  const version = ctx.url.searchParams.get("api-version") ?? "";
  if (AUTOSCALE_API_VERSIONS.includes(version)) return;
  throw new ArmError(
    400,
    "NoRegisteredProviderFound",
    `No registered resource provider found for API version '${version}' for type 'autoscalesettings'. The supported api-versions are '${[...AUTOSCALE_API_VERSIONS].reverse().join(", ")}'.`,
  );
}

export function renderAutoscaleSetting(sim: SimulatorContext, s: AutoscaleSetting): JsonObject {
  return {
    id: `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${s.resourceGroup}/providers/microsoft.insights/autoscalesettings/${s.name}`,
    name: s.name,
    type: AUTOSCALE_TYPE,
    location: s.location,
    tags: { ...s.tags },
    properties: {
      notifications: [],
      predictiveAutoscalePolicy: { scaleMode: "Disabled" },
      ...clone(s.properties),
      enabled: s.properties.enabled === true,
      name: typeof s.properties.name === "string" ? s.properties.name : s.name,
    },
  };
}

function requireSetting(sim: SimulatorContext, params: RouteParams): AutoscaleSetting {
  requireResourceGroup(sim, params);
  const s = autoscaleOf(sim).get(params.resourceGroup, params.name);
  if (!s) throw resourceNotFound(AUTOSCALE_TYPE, params.name, params.resourceGroup);
  return s;
}

function bodyObject(ctx: RequestContext): JsonObject {
  const body = parseJsonBody(ctx);
  if (!isObject(body)) throw new ArmError(400, "InvalidRequestFormat", "The request body must be a JSON object.");
  return body;
}

const getSetting: Handler = (ctx, sim, params) => {
  checkAutoscaleApiVersion(ctx);
  send(ctx, 200, renderAutoscaleSetting(sim, requireSetting(sim, params)));
};

const putSetting: Handler = (ctx, sim, params) => {
  checkAutoscaleApiVersion(ctx);
  const rg = requireResourceGroup(sim, params);
  const body = bodyObject(ctx);
  const location = normalizeLocation(validateLocation(body));
  const tags = validateTags(body.tags);
  const properties = clone(validateAutoscaleProperties(body.properties));
  const { setting, created } = autoscaleOf(sim).put({
    resourceGroup: rg,
    name: params.name,
    location,
    tags,
    properties,
  });
  send(ctx, created ? 201 : 200, renderAutoscaleSetting(sim, setting));
};

const patchSetting: Handler = (ctx, sim, params) => {
  checkAutoscaleApiVersion(ctx);
  const existing = requireSetting(sim, params);
  const body = bodyObject(ctx);
  const tags = body.tags === undefined ? existing.tags : validateTags(body.tags);
  const properties = isObject(body.properties) ? mergePatch(existing.properties, body.properties) : existing.properties;
  validateAutoscaleProperties(properties);
  const { setting } = autoscaleOf(sim).put({ ...existing, tags, properties: clone(properties) });
  send(ctx, 200, renderAutoscaleSetting(sim, setting));
};

const deleteSetting: Handler = (ctx, sim, params) => {
  checkAutoscaleApiVersion(ctx);
  requireResourceGroup(sim, params);
  send(ctx, autoscaleOf(sim).delete(params.resourceGroup, params.name) ? 200 : 204);
};

const listInGroup: Handler = (ctx, sim, params) => {
  checkAutoscaleApiVersion(ctx);
  const rg = requireResourceGroup(sim, params);
  sendPage(ctx, sim, autoscaleOf(sim).list(rg), (s) => renderAutoscaleSetting(sim, s));
};

const listInSubscription: Handler = (ctx, sim, params) => {
  checkAutoscaleApiVersion(ctx);
  requireSubscription(sim, params);
  sendPage(ctx, sim, autoscaleOf(sim).list(), (s) => renderAutoscaleSetting(sim, s));
};

/** The ARM routes; Azure Monitor's throttling is not modelled (as Microsoft.Network's is not). */
export function autoscaleArmRoutes(): [string, string, Route][] {
  return [
    ["GET", `${SUB}/providers/Microsoft.Insights/autoscalesettings`, { handler: listInSubscription }],
    ["GET", SETTINGS, { handler: listInGroup }],
    ["GET", `${SETTINGS}/:name`, { handler: getSetting }],
    ["PUT", `${SETTINGS}/:name`, { handler: putSetting }],
    ["PATCH", `${SETTINGS}/:name`, { handler: patchSetting }],
    ["DELETE", `${SETTINGS}/:name`, { handler: deleteSetting }],
  ];
}

/** Back to no settings, no metrics, the periodic evaluation on (the control API's reset). */
export function resetAutoscale(sim: SimulatorContext): void {
  autoscaleOf(sim).clear();
  setPeriodicEvaluation(sim, true);
}

function controlBody(ctx: RequestContext, allowed: string[]): JsonObject {
  let body: unknown;
  try {
    body = parseJsonBody(ctx) ?? {};
  } catch {
    throw new ArmError(400, "BadRequest", "the body is not valid JSON");
  }
  if (!isObject(body)) throw new ArmError(400, "BadRequest", "the body must be a JSON object");
  for (const k of Object.keys(body))
    if (!allowed.includes(k))
      throw new ArmError(400, "BadRequest", `unknown field "${k}" (known: ${allowed.join(", ")})`);
  return body;
}

const putMetric: Handler = (ctx, sim) => {
  const body = controlBody(ctx, ["resourceUri", "metricName", "value"]);
  if (typeof body.resourceUri !== "string" || body.resourceUri === "")
    throw new ArmError(400, "BadRequest", '"resourceUri" must be a resource id');
  if (typeof body.metricName !== "string" || body.metricName === "")
    throw new ArmError(400, "BadRequest", '"metricName" must be a metric name (e.g. "Percentage CPU")');
  if (body.value !== null && (typeof body.value !== "number" || !Number.isFinite(body.value)))
    throw new ArmError(400, "BadRequest", '"value" must be a number, or null for no data');
  autoscaleOf(sim).setMetric(body.resourceUri, body.metricName, body.value);
  send(ctx, 200, { metrics: autoscaleOf(sim).metrics() });
};

function statusView(sim: SimulatorContext) {
  const as = autoscaleOf(sim);
  return {
    periodic: periodicEvaluation(sim),
    lastEvaluationAt: as.lastEvaluationAt ?? null,
    settings: as.list().length,
    metrics: as.metrics(),
  };
}

/** Adds the control routes: `/_sim/autoscale/...`. */
export function addAutoscaleControlRoutes<R extends { add(method: string, pattern: string, handler: Handler): R }>(
  router: R,
  prefix: string,
): R {
  return router
    .add("GET", `${prefix}/autoscale`, (ctx, sim) => send(ctx, 200, statusView(sim)))
    .add("PUT", `${prefix}/autoscale/config`, (ctx, sim) => {
      const body = controlBody(ctx, ["periodic"]);
      if (typeof body.periodic !== "boolean") throw new ArmError(400, "BadRequest", '"periodic" must be true or false');
      setPeriodicEvaluation(sim, body.periodic);
      send(ctx, 200, statusView(sim));
    })
    .add("PUT", `${prefix}/autoscale/metrics`, putMetric)
    .add("POST", `${prefix}/autoscale/evaluate`, (ctx, sim) => send(ctx, 200, { evaluations: evaluateAll(sim) }))
    .add("GET", `${prefix}/autoscale/evaluations`, (ctx, sim) => send(ctx, 200, autoscaleOf(sim).evaluations));
}
