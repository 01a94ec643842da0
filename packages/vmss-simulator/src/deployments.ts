// ARM template deployments (Microsoft.Resources/deployments) in a resource group, for the resource types the
// simulator models: what `az vmss create` submits (a scale set with its load balancer, public IP and virtual network).
//
// PUT …/deployments/{name} checks the whole template first — every resource type one the simulator models, every
// template function one it evaluates (template-expressions.ts), every parameter given or defaulted — and refuses
// anything else by name (400 InvalidTemplate / InvalidTemplateDeployment) before deploying anything. It answers 201
// `Accepted` with an Azure-AsyncOperation URL (…/operationStatuses/{id}), as ARM does. The deployment then runs as ARM
// runs one: each resource once the resources it dependsOn have succeeded, as a PUT of the resource to its own provider
// (the simulator's own routes, at the template's apiVersion: the same checks, defaults and long-running operations as
// a client's PUT), the next step taken whenever the deployment is looked at (its status, itself, its operations).
// When every resource has succeeded the outputs are evaluated (reference() reads the resources as deployed) and the
// deployment is Succeeded; a resource that fails fails the deployment (DeploymentFailed, with the resource's error).
// POST …/deployments/{name}/validate makes the same checks and deploys nothing.
import { createHash, randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { COMPUTE_API_VERSIONS, checkApiVersion } from "./api-versions.ts";
import { retryAfterHeader } from "./arm-checks.ts";
import { ArmError, invalidRequestContent, resourceGroupNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { send, type RequestContext } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { Router, RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import {
  buildResourceId,
  checkFunctions,
  evaluateDeep,
  invalidTemplate,
  type EvalScope,
} from "./template-expressions.ts";

/** The resource types a template may hold: those the simulator models. */
export const DEPLOYABLE_TYPES = [
  "Microsoft.Compute/virtualMachineScaleSets",
  "Microsoft.Network/virtualNetworks",
  "Microsoft.Network/loadBalancers",
  "Microsoft.Network/publicIPAddresses",
  "Microsoft.Network/networkSecurityGroups",
  "Microsoft.Network/applicationGateways",
  // a child: written into its load balancer's inboundNatRules (the Azure CLI's Flexible template has one)
  "Microsoft.Network/loadBalancers/inboundNatRules",
] as const;

const NAT_RULE_TYPE = "Microsoft.Network/loadBalancers/inboundNatRules";

/**
 * A known difference: Compute api-versions before 2021-03-01 have no `networkProfile.networkApiVersion`, which a
 * Flexible scale set's VM profile needs (flexible.ts). The Azure CLI's hybrid profile (the one Debian's azure-cli can
 * use) writes its Flexible template at 2020-06-01 and so cannot send it; the deployment adds 2020-11-01, the version
 * the CLI asks for where it can say so. A direct PUT at such a version is still refused, as before.
 */
function withNetworkApiVersion(r: DeployedResource, body: JsonObject): void {
  if (r.type !== "Microsoft.Compute/virtualMachineScaleSets" || String(r.template.apiVersion) >= "2021-03-01") return;
  const properties = body.properties;
  if (!isObject(properties) || String(properties.orchestrationMode).toLowerCase() !== "flexible") return;
  const profile = properties.virtualMachineProfile;
  if (!isObject(profile) || !isObject(profile.networkProfile)) return;
  profile.networkProfile.networkApiVersion ??= "2020-11-01";
}

/** A load balancer's inbound NAT rule, deployed as ARM does: the rule joins (or replaces one in) its parent. */
function putNatRule(
  sim: SimulatorContext,
  router: Router<Route>,
  ctx: RequestContext,
  r: DeployedResource,
  body: JsonObject,
): InnerAnswer {
  const ruleName = r.name.split("/")[1];
  const parentId = r.id.slice(0, r.id.toLowerCase().lastIndexOf("/inboundnatrules/"));
  const apiVersion = String(r.template.apiVersion);
  const parent = innerRequest(sim, router, ctx, "GET", parentId, apiVersion);
  if (parent.status !== 200 || !isObject(parent.body)) return parent;
  const { location, tags, sku } = parent.body;
  const properties = isObject(parent.body.properties) ? { ...parent.body.properties } : {};
  const rules = Array.isArray(properties.inboundNatRules) ? properties.inboundNatRules.filter(isObject) : [];
  properties.inboundNatRules = [
    ...rules.filter((x) => String(x.name).toLowerCase() !== ruleName.toLowerCase()),
    { name: ruleName, properties: isObject(body.properties) ? body.properties : {} },
  ];
  const written = innerRequest(sim, router, ctx, "PUT", parentId, apiVersion, { location, tags, sku, properties });
  if (written.status !== 200 && written.status !== 201) return written;
  return { status: 201, body: {} };
}

type ResourceState = "Waiting" | "Running" | "Succeeded" | "Failed";

interface DeployedResource {
  /** As written in the template (expressions not yet evaluated). */
  template: JsonObject;
  type: string;
  name: string;
  id: string;
  dependsOn: string[];
  state: ResourceState;
  operationId: string;
  statusCode?: string;
  error?: JsonObject;
  startedAt?: number;
  endedAt?: number;
}

interface Deployment {
  name: string;
  resourceGroup: string;
  subscriptionId: string;
  location: string;
  operationId: string;
  correlationId: string;
  startedAt: number;
  endedAt?: number;
  state: "Accepted" | "Running" | "Succeeded" | "Failed";
  template: JsonObject;
  parameters: Record<string, unknown>;
  /** Parameter types, for the deployment's `parameters` (secure values are not shown). */
  parameterTypes: Record<string, string>;
  variables: Record<string, unknown>;
  resources: DeployedResource[];
  outputs?: JsonObject;
  error?: JsonObject;
  mode: string;
}

const worlds = new WeakMap<SimState, Map<string, Deployment>>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const deploymentWorlds = worlds;

function deploymentsOf(sim: SimulatorContext): Map<string, Deployment> {
  let map = worlds.get(sim.state);
  if (!map) {
    map = new Map();
    worlds.set(sim.state, map);
  }
  return map;
}

/** The control API's reset: no deployments. */
export function resetDeployments(sim: SimulatorContext): void {
  worlds.delete(sim.state);
}

const keyOf = (rg: string, name: string) => `${rg.toLowerCase()}/${name.toLowerCase()}`;

/** ARM's camel case of an output name (Newtonsoft's: a leading run of capitals is lowered, `VMSS` → `vmss`). */
export function camelCase(name: string): string {
  const chars = [...name];
  for (let i = 0; i < chars.length; i++) {
    if (chars[i] !== chars[i].toUpperCase() || chars[i] === chars[i].toLowerCase()) break;
    const next = chars[i + 1];
    if (i > 0 && next !== undefined && next !== next.toUpperCase()) break;
    chars[i] = chars[i].toLowerCase();
  }
  return chars.join("");
}

function dropNulls(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dropNulls);
  if (isObject(value))
    return Object.fromEntries(
      Object.entries(value)
        .filter(([, v]) => v !== null)
        .map(([k, v]) => [k, dropNulls(v)]),
    );
  return value;
}

// ---- a request to the simulator's own routes, as ARM makes one to a resource provider ----

interface InnerAnswer {
  status: number;
  body: unknown;
}

function innerRequest(
  sim: SimulatorContext,
  router: Router<Route>,
  outer: RequestContext,
  method: string,
  path: string,
  apiVersion: string,
  body?: unknown,
): InnerAnswer {
  const url = new URL(`${path}?api-version=${encodeURIComponent(apiVersion)}`, outer.baseUrl);
  const answer: InnerAnswer = { status: 0, body: undefined };
  const res = {
    headersSent: false,
    destroyed: false,
    writeHead(status: number) {
      answer.status = status;
      this.headersSent = true;
      return this;
    },
    end(text?: string) {
      if (text) answer.body = JSON.parse(text);
    },
  };
  const ctx: RequestContext = {
    req: { headers: { authorization: "Bearer deployment" }, method } as unknown as IncomingMessage,
    res: res as unknown as ServerResponse,
    method,
    url,
    pathname: url.pathname,
    body: Buffer.from(body === undefined ? "" : JSON.stringify(body)),
    bodyTooLarge: false,
    requestId: randomUUID(),
    correlationId: outer.correlationId,
    baseUrl: outer.baseUrl,
  };
  try {
    checkApiVersion(url.pathname, apiVersion);
    const route = router.match(method, url.pathname);
    if (route.kind !== "found")
      throw new ArmError(400, "NoRegisteredProviderFound", `The simulator does not serve '${method} ${path}'.`);
    route.handler.handler(ctx, sim, route.params);
  } catch (err) {
    if (!(err instanceof ArmError)) throw err;
    return { status: err.status, body: err.toBody() };
  }
  return answer;
}

// ---- checks made before anything is deployed ----

function typeOf(resource: JsonObject): string {
  return typeof resource.type === "string" ? resource.type : "";
}

/** Resource types, nested resources, copy loops and template functions: what the simulator cannot deploy, by name. */
export function checkTemplate(template: JsonObject): void {
  const resources = template.resources;
  if (!Array.isArray(resources)) throw invalidTemplate("The template must have a 'resources' array");
  for (const [i, r] of resources.entries()) {
    if (!isObject(r)) throw invalidTemplate(`The template resource at index ${i} is not an object`);
    const type = typeOf(r);
    const name = typeof r.name === "string" ? r.name : `#${i}`;
    if (!DEPLOYABLE_TYPES.some((t) => t.toLowerCase() === type.toLowerCase())) {
      throw new ArmError(
        400,
        "InvalidTemplateDeployment",
        `The template resource '${name}' of type '${type}' cannot be deployed by the simulator: it deploys only ${DEPLOYABLE_TYPES.join(", ")}.`,
        { target: name },
      );
    }
    if (r.copy !== undefined)
      throw invalidTemplate(`The template resource '${name}' uses 'copy', which the simulator does not deploy`);
    if (r.resources !== undefined)
      throw invalidTemplate(
        `The template resource '${name}' has nested resources, which the simulator does not deploy`,
      );
    if (typeof r.apiVersion !== "string") throw invalidTemplate(`The template resource '${name}' has no apiVersion`);
  }
  checkFunctions(template);
}

function readParameters(
  template: JsonObject,
  given: unknown,
): { values: Record<string, unknown>; types: Record<string, string> } {
  const declared = isObject(template.parameters) ? template.parameters : {};
  const supplied = isObject(given) ? given : {};
  const values: Record<string, unknown> = {};
  const types: Record<string, string> = {};
  for (const name of Object.keys(supplied)) {
    if (!Object.keys(declared).some((k) => k.toLowerCase() === name.toLowerCase()))
      throw invalidTemplate(`The template parameter '${name}' is not valid; it is not declared in the template`);
  }
  for (const [name, decl] of Object.entries(declared)) {
    const key = Object.keys(supplied).find((k) => k.toLowerCase() === name.toLowerCase());
    const entry = key === undefined ? undefined : supplied[key];
    types[name] = isObject(decl) && typeof decl.type === "string" ? decl.type : "string";
    if (isObject(entry) && "value" in entry) values[name] = entry.value;
    else if (isObject(decl) && "defaultValue" in decl) values[name] = decl.defaultValue;
    else
      throw invalidTemplate(
        `The value for the template parameter '${name}' at line '1' and column '1' is not provided`,
      );
  }
  return { values, types };
}

// ---- running a deployment ----

function scopeOf(sim: SimulatorContext, router: Router<Route>, ctx: RequestContext, d: Deployment): EvalScope {
  return {
    subscriptionId: d.subscriptionId,
    resourceGroup: d.resourceGroup,
    location: d.location,
    parameters: d.parameters,
    variables: d.variables,
    reference(target, apiVersion, full) {
      const id = target.startsWith("/")
        ? target
        : (d.resources.find((r) => r.name.toLowerCase() === target.toLowerCase())?.id ?? target);
      const version =
        apiVersion ?? d.resources.find((r) => r.id.toLowerCase() === id.toLowerCase())?.template.apiVersion;
      const answer = innerRequest(sim, router, ctx, "GET", id, typeof version === "string" ? version : "");
      if (answer.status !== 200 || !isObject(answer.body))
        throw invalidTemplate(`The resource '${id}' referenced by reference() is not deployed`);
      return full ? answer.body : answer.body.properties;
    },
    providers(namespace, type) {
      if (namespace.toLowerCase() !== "microsoft.compute")
        throw invalidTemplate(`The simulator answers providers() for Microsoft.Compute only, not '${namespace}'`);
      return {
        namespace: "Microsoft.Compute",
        resourceType: type,
        locations: [],
        apiVersions: [...COMPUTE_API_VERSIONS].reverse(),
      };
    },
  };
}

function dependsOnMet(d: Deployment, r: DeployedResource): boolean {
  return r.dependsOn.every((dep) => {
    const target = d.resources.find((o) => refersTo(dep, o));
    return target === undefined || target.state === "Succeeded";
  });
}

/** A dependsOn entry names a resource by id, by `type/name`, or by name. */
function refersTo(dep: string, r: DeployedResource): boolean {
  const d = dep.toLowerCase();
  const typeName = `${r.type}/${r.name}`.toLowerCase();
  return d === r.id.toLowerCase() || d === typeName || d.endsWith(`/${typeName}`) || d === r.name.toLowerCase();
}

function fail(d: Deployment, r: DeployedResource, status: number, body: unknown, now: number): void {
  r.state = "Failed";
  r.endedAt = now;
  r.statusCode = String(status);
  const error =
    isObject(body) && isObject(body.error) ? body.error : { code: "Failed", message: "The resource failed." };
  r.error = error;
  d.state = "Failed";
  d.endedAt = now;
  d.error = {
    code: "DeploymentFailed",
    message:
      "At least one resource deployment operation failed. Please list deployment operations for details. Please see https://aka.ms/DeployOperations for usage details.",
    details: [{ code: String(error.code), message: String(error.message) }],
  };
}

function provisioningStateOf(body: unknown): string | undefined {
  return isObject(body) && isObject(body.properties) && typeof body.properties.provisioningState === "string"
    ? body.properties.provisioningState
    : undefined;
}

/** Takes every step the deployment can take now: resources finished, resources started, outputs. */
function advance(sim: SimulatorContext, router: Router<Route>, ctx: RequestContext, d: Deployment): void {
  if (d.state === "Succeeded" || d.state === "Failed") return;
  d.state = "Running";
  const scope = scopeOf(sim, router, ctx, d);
  const now = sim.state.now();
  for (let progress = true; progress && d.state === "Running";) {
    progress = false;
    for (const r of d.resources) {
      if (r.state === "Running") {
        const answer = innerRequest(sim, router, ctx, "GET", r.id, String(r.template.apiVersion));
        const state = provisioningStateOf(answer.body);
        if (answer.status === 200 && (state === undefined || state === "Succeeded")) {
          r.state = "Succeeded";
          r.endedAt = now;
          progress = true;
        } else if (answer.status !== 200 || state === "Failed") {
          fail(d, r, answer.status === 200 ? 500 : answer.status, answer.body, now);
          return;
        }
      } else if (r.state === "Waiting" && dependsOnMet(d, r)) {
        let body: JsonObject;
        try {
          const evaluated = evaluateDeep(r.template, scope) as JsonObject;
          const { type: _t, name: _n, apiVersion: _a, dependsOn: _d, condition: _c, comments: _m, ...rest } = evaluated;
          body = dropNulls(rest) as JsonObject;
        } catch (err) {
          if (!(err instanceof ArmError)) throw err;
          fail(d, r, err.status, err.toBody(), now);
          return;
        }
        r.startedAt = now;
        withNetworkApiVersion(r, body);
        const child = r.type === NAT_RULE_TYPE;
        const answer = child
          ? putNatRule(sim, router, ctx, r, body)
          : innerRequest(sim, router, ctx, "PUT", r.id, String(r.template.apiVersion), body);
        if (answer.status !== 200 && answer.status !== 201) {
          fail(d, r, answer.status, answer.body, now);
          return;
        }
        r.statusCode = answer.status === 201 ? "Created" : "OK";
        r.state = child ? "Succeeded" : "Running";
        if (child) r.endedAt = now;
        progress = true;
      }
    }
  }
  if (d.state !== "Running" || d.resources.some((r) => r.state !== "Succeeded")) return;
  try {
    const declared = isObject(d.template.outputs) ? d.template.outputs : {};
    const outputs: JsonObject = {};
    for (const [name, out] of Object.entries(declared)) {
      if (!isObject(out)) continue;
      outputs[camelCase(name)] = {
        type: typeof out.type === "string" ? out.type.charAt(0).toUpperCase() + out.type.slice(1) : "String",
        value: evaluateDeep(out.value, scope),
      };
    }
    d.outputs = outputs;
    d.state = "Succeeded";
    d.endedAt = now;
  } catch (err) {
    if (!(err instanceof ArmError)) throw err;
    d.state = "Failed";
    d.endedAt = now;
    d.error = { code: err.code, message: err.message };
  }
}

// ---- what the routes answer ----

function deploymentId(d: Pick<Deployment, "subscriptionId" | "resourceGroup" | "name">): string {
  return `/subscriptions/${d.subscriptionId}/resourceGroups/${d.resourceGroup}/providers/Microsoft.Resources/deployments/${d.name}`;
}

function duration(from: number, to: number): string {
  return `PT${((to - from) / 1000).toFixed(3).replace(/\.?0+$/, "")}S`;
}

function renderDeployment(sim: SimulatorContext, d: Deployment): JsonObject {
  const now = d.endedAt ?? sim.state.now();
  const parameters = Object.fromEntries(
    Object.entries(d.parameterTypes).map(([name, type]) =>
      type.toLowerCase().startsWith("secure")
        ? [name, { type: type.toLowerCase() === "securestring" ? "SecureString" : "SecureObject" }]
        : [name, { type: type.charAt(0).toUpperCase() + type.slice(1), value: d.parameters[name] }],
    ),
  );
  return {
    id: deploymentId(d),
    name: d.name,
    type: "Microsoft.Resources/deployments",
    properties: {
      templateHash: BigInt(
        `0x${createHash("sha256").update(JSON.stringify(d.template)).digest("hex").slice(0, 15)}`,
      ).toString(),
      parameters,
      mode: d.mode,
      provisioningState: d.state,
      timestamp: new Date(now).toISOString(),
      duration: duration(d.startedAt, now),
      correlationId: d.correlationId,
      providers: [...new Set(d.resources.map((r) => r.type.split("/")[0]))].map((namespace) => ({
        namespace,
        resourceTypes: d.resources
          .filter((r) => r.type.split("/")[0] === namespace)
          .map((r) => ({ resourceType: r.type.split("/").slice(1).join("/"), locations: [d.location] })),
      })),
      dependencies: d.resources
        .filter((r) => r.dependsOn.length > 0)
        .map((r) => ({
          dependsOn: d.resources
            .filter((o) => r.dependsOn.some((dep) => refersTo(dep, o)))
            .map((o) => ({ id: o.id, resourceType: o.type, resourceName: o.name })),
          id: r.id,
          resourceType: r.type,
          resourceName: r.name,
        })),
      ...(d.outputs ? { outputs: d.outputs } : {}),
      ...(d.state === "Succeeded" ? { outputResources: d.resources.map((r) => ({ id: r.id })) } : {}),
      ...(d.error ? { error: d.error } : {}),
    },
  };
}

/**
 * JSON as ARM reads a deployment: also with comments and unquoted property names, since `az deployment group create`
 * splices the template file in as written (`…, template:{…}}}`, JSONC). Outside strings, comments are dropped and a
 * bare name before `:` is quoted; the rest is JSON.parse's.
 */
export function parseLenientJson(text: string): unknown {
  let out = "";
  for (let i = 0; i < text.length;) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      const bare = /^[A-Za-z_$][\w$]*(?=\s*:)/.exec(text.slice(i, i + 200));
      const before = out.trimEnd().at(-1);
      if (bare && (before === "{" || before === ",")) {
        out += `"${bare[0]}"`;
        i += bare[0].length;
      } else {
        out += c;
        i++;
      }
    }
  }
  try {
    return JSON.parse(out);
  } catch (err) {
    throw invalidRequestContent((err as Error).message);
  }
}

function requireGroup(sim: SimulatorContext, params: RouteParams): string {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  return rg;
}

function requireDeployment(sim: SimulatorContext, params: RouteParams): Deployment {
  const rg = requireGroup(sim, params);
  const d = deploymentsOf(sim).get(keyOf(rg, params.name));
  if (!d) throw new ArmError(404, "DeploymentNotFound", `Deployment '${params.name}' could not be found.`);
  return d;
}

/** The checked deployment a PUT or validate asks for (nothing deployed yet). */
function prepare(ctx: RequestContext, sim: SimulatorContext, params: RouteParams): Deployment {
  const rg = requireGroup(sim, params);
  const text = ctx.body.toString("utf8");
  const body = text.trim() === "" ? undefined : parseLenientJson(text);
  if (!isObject(body) || !isObject(body.properties))
    throw invalidRequestContent(
      "The request content must be a deployment: { properties: { template, parameters, mode } }.",
    );
  const { template, parameters, mode, templateLink } = body.properties;
  if (templateLink !== undefined)
    throw invalidTemplate("The simulator deploys inline templates only (properties.template), not templateLink");
  if (!isObject(template)) throw invalidTemplate("The deployment has no template (properties.template)");
  checkTemplate(template);
  const { values, types } = readParameters(template, parameters);
  const base: Deployment = {
    name: params.name,
    resourceGroup: rg,
    subscriptionId: sim.state.subscriptionId,
    location: sim.state.listScaleSets(rg)[0]?.location ?? "eastus",
    operationId: randomUUID().replace(/-/g, "").toUpperCase().slice(0, 16),
    correlationId: ctx.correlationId,
    startedAt: sim.state.now(),
    state: "Accepted",
    template,
    parameters: values,
    parameterTypes: types,
    variables: {},
    resources: [],
    mode: typeof mode === "string" && mode.toLowerCase() === "complete" ? "Complete" : "Incremental",
  };
  if (base.mode === "Complete") throw invalidTemplate("The simulator deploys in Incremental mode only");
  // Names, types and dependsOn are evaluated now (they may only use parameters, variables and resourceId).
  const scope: EvalScope = {
    subscriptionId: base.subscriptionId,
    resourceGroup: rg,
    location: base.location,
    parameters: values,
    variables: {},
    reference: () => {
      throw invalidTemplate("reference() cannot be used in a variable, a resource name or dependsOn");
    },
    providers: () => {
      throw invalidTemplate("providers() cannot be used in a variable, a resource name or dependsOn");
    },
  };
  base.variables = isObject(template.variables)
    ? (evaluateDeep(template.variables, scope) as Record<string, unknown>)
    : {};
  scope.variables = base.variables;
  base.resources = (template.resources as JsonObject[]).map((r, i) => {
    const name = evaluateDeep(r.name, scope);
    if (typeof name !== "string" || name === "")
      throw invalidTemplate(`The template resource at index ${i} has no name`);
    const type = typeOf(r);
    const canonicalType = DEPLOYABLE_TYPES.find((t) => t.toLowerCase() === type.toLowerCase())!;
    const dependsOn = Array.isArray(r.dependsOn) ? r.dependsOn.map((x) => String(evaluateDeep(x, scope))) : [];
    return {
      template: r,
      type: canonicalType,
      name,
      id: buildResourceId(base.subscriptionId, rg, canonicalType, name.split("/")),
      dependsOn,
      state: "Waiting" as const,
      operationId: randomUUID().replace(/-/g, "").toUpperCase().slice(0, 16),
    };
  });
  for (const r of base.resources)
    for (const dep of r.dependsOn)
      if (!base.resources.some((o) => refersTo(dep, o)))
        throw invalidTemplate(
          `The resource '${dep}' that '${r.type}/${r.name}' depends on is not defined in the template`,
        );
  return base;
}

function statusUrl(ctx: RequestContext, d: Deployment): string {
  const version = ctx.url.searchParams.get("api-version") ?? "";
  return `${ctx.baseUrl}${deploymentId(d)}/operationStatuses/${d.operationId}?api-version=${encodeURIComponent(version)}`;
}

/** Deployments_ListByResourceGroup, newest first as ARM lists them, paged; each advanced as a GET of it would. */
function listDeployments(router: () => Router<Route>): Handler {
  return (ctx, sim, params) => {
    const rg = requireGroup(sim, params);
    const mine = [...deploymentsOf(sim).values()]
      .filter((d) => d.resourceGroup.toLowerCase() === rg.toLowerCase())
      .sort((a, b) => b.startedAt - a.startedAt);
    for (const d of mine) advance(sim, router(), ctx, d);
    sendPage(ctx, sim, mine, (d) => renderDeployment(sim, d));
  };
}

/** Deployments_ListAtSubscriptionScope: deployments at the subscription's scope, which the simulator has none of. */
const listAtSubscription: Handler = (ctx, sim, params) => {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  sendPage(ctx, sim, [], (d: JsonObject) => d);
};

export function deploymentRoutes(router: () => Router<Route>): [string, string, Route][] {
  const DEPLOYMENTS =
    "/subscriptions/:subscriptionId/resourceGroups/:resourceGroup/providers/Microsoft.Resources/deployments";

  const put: Handler = (ctx, sim, params) => {
    const existing = deploymentsOf(sim).get(
      keyOf(sim.state.resourceGroupName(params.resourceGroup) ?? "", params.name),
    );
    if (existing && (existing.state === "Accepted" || existing.state === "Running"))
      throw new ArmError(409, "DeploymentActive", `The deployment '${params.name}' is active and cannot be modified.`);
    const d = prepare(ctx, sim, params);
    deploymentsOf(sim).set(keyOf(d.resourceGroup, d.name), d);
    const body = renderDeployment(sim, d);
    advance(sim, router(), ctx, d);
    send(ctx, 201, body, { "azure-asyncoperation": statusUrl(ctx, d), ...retryAfterHeader(sim, 10) });
  };

  const get: Handler = (ctx, sim, params) => {
    const d = requireDeployment(sim, params);
    advance(sim, router(), ctx, d);
    send(ctx, 200, renderDeployment(sim, d));
  };

  const status: Handler = (ctx, sim, params) => {
    const d = requireDeployment(sim, params);
    if (params.operationId !== d.operationId)
      throw new ArmError(404, "DeploymentOperationNotFound", `The operation '${params.operationId}' was not found.`);
    advance(sim, router(), ctx, d);
    const done = d.state === "Succeeded" || d.state === "Failed";
    send(
      ctx,
      200,
      { status: d.state === "Accepted" ? "Running" : d.state, ...(d.error ? { error: d.error } : {}) },
      done ? {} : retryAfterHeader(sim, 10),
    );
  };

  const operations: Handler = (ctx, sim, params) => {
    const d = requireDeployment(sim, params);
    advance(sim, router(), ctx, d);
    const now = sim.state.now();
    sendPage(
      ctx,
      sim,
      d.resources.filter((r) => r.state !== "Waiting"),
      (r) => ({
        id: `${deploymentId(d)}/operations/${r.operationId}`,
        operationId: r.operationId,
        properties: {
          provisioningOperation: "Create",
          provisioningState: r.state,
          timestamp: new Date(r.endedAt ?? now).toISOString(),
          duration: duration(r.startedAt ?? now, r.endedAt ?? now),
          trackingId: randomUUID(),
          ...(r.statusCode ? { statusCode: r.statusCode } : {}),
          ...(r.error ? { statusMessage: { error: r.error } } : {}),
          targetResource: { id: r.id, resourceType: r.type, resourceName: r.name },
        },
      }),
    );
  };

  const validate: Handler = (ctx, sim, params) => {
    const d = prepare(ctx, sim, params);
    const body = renderDeployment(sim, d);
    send(ctx, 200, { ...body, properties: { ...(body.properties as JsonObject), provisioningState: "Succeeded" } });
  };

  return [
    ["GET", DEPLOYMENTS, { handler: listDeployments(router) }],
    [
      "GET",
      "/subscriptions/:subscriptionId/providers/Microsoft.Resources/deployments",
      { handler: listAtSubscription },
    ],
    ["PUT", `${DEPLOYMENTS}/:name`, { handler: put }],
    ["GET", `${DEPLOYMENTS}/:name`, { handler: get }],
    ["GET", `${DEPLOYMENTS}/:name/operationStatuses/:operationId`, { handler: status }],
    ["GET", `${DEPLOYMENTS}/:name/operations`, { handler: operations }],
    ["POST", `${DEPLOYMENTS}/:name/validate`, { handler: validate }],
  ];
}
