// The ARM surface for Microsoft.Compute/virtualMachineScaleSets, as @azure/arm-compute v25 uses it.
import {
  VMSS_TYPE,
  conflictingConcurrentWrite,
  invalidParameter,
  invalidRequestContent,
  invalidResourceLocation,
  locationRequired,
  missingParameter,
  operationNotFound,
  preconditionFailed,
  resourceGroupNotFound,
  resourceNotFound,
  subscriptionNotFound,
} from "./arm-errors.ts";
import type { Handler, SimulatorContext } from "./context.ts";
import { header, parseJsonBody, retryHeaders, send, type RequestContext } from "./http.ts";
import { isObject, mergePatch, type JsonObject } from "./json.ts";
import { validateModel } from "./limits.ts";
import { Router, type RouteParams } from "./router.ts";
import type { Operation, OperationKind } from "./state.ts";
import {
  etagOf,
  normalizeLocation,
  renderScaleSet,
  renderVm,
  sortedVms,
  writableModel,
  type ScaleSet,
} from "./vmss-model.ts";

/** Route patterns of the ARM surface (also used by the throttling step to tell which policy a request falls under). */
export const ARM_PATHS = {
  subscription: "/subscriptions/:subscriptionId",
  scaleSets: "/subscriptions/:subscriptionId/resourceGroups/:resourceGroup/providers/Microsoft.Compute/virtualMachineScaleSets",
  operations: "/subscriptions/:subscriptionId/providers/Microsoft.Compute/locations/:location",
} as const;
const SUB = ARM_PATHS.subscription;
const VMSS = ARM_PATHS.scaleSets;
const OPERATIONS = ARM_PATHS.operations;

export function buildArmRouter(): Router<Handler> {
  return new Router<Handler>()
    .add("GET", `${SUB}/providers/Microsoft.Compute/virtualMachineScaleSets`, listAllScaleSets)
    .add("GET", VMSS, listScaleSets)
    .add("GET", `${VMSS}/:name`, getScaleSet)
    .add("PUT", `${VMSS}/:name`, putScaleSet)
    .add("PATCH", `${VMSS}/:name`, patchScaleSet)
    .add("DELETE", `${VMSS}/:name`, deleteScaleSet)
    .add("GET", `${VMSS}/:name/virtualMachines`, listVms)
    .add("GET", `${VMSS}/:name/virtualMachines/:instanceId`, getVm)
    .add("POST", `${VMSS}/:name/delete`, (ctx, sim, params) => instanceAction(ctx, sim, params, "deleteInstances"))
    .add("POST", `${VMSS}/:name/manualupgrade`, (ctx, sim, params) => instanceAction(ctx, sim, params, "updateInstances"))
    .add("GET", `${OPERATIONS}/operations/:operationId`, getOperationStatus)
    .add("GET", `${OPERATIONS}/operationResults/:operationId`, getOperationResult);
}

// ---- lookups: subscription, then resource group, then resource (the order ARM answers 404s in) ----

function requireSubscription(sim: SimulatorContext, params: RouteParams): void {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
}

function requireResourceGroup(sim: SimulatorContext, params: RouteParams): string {
  requireSubscription(sim, params);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  return rg;
}

function requireScaleSet(sim: SimulatorContext, params: RouteParams): ScaleSet {
  requireResourceGroup(sim, params);
  const ss = sim.state.getScaleSet(params.resourceGroup, params.name);
  if (!ss) throw resourceNotFound(VMSS_TYPE, params.name, params.resourceGroup);
  return ss;
}

// ---- preconditions (412) and the write lock (409) ----

function etagList(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** If-Match / If-None-Match against the current ETag. Checked before the in-flight conflict (see docs/simulator.md). */
function checkPreconditions(ctx: RequestContext, ss: ScaleSet | undefined): void {
  const ifMatch = header(ctx, "if-match");
  if (ifMatch !== undefined) {
    const wanted = etagList(ifMatch);
    if (!ss) {
      throw preconditionFailed(`The specified precondition 'If-Match: ${ifMatch}' failed: the resource does not exist.`);
    }
    if (!wanted.includes("*") && !wanted.includes(etagOf(ss))) {
      throw preconditionFailed(`The specified precondition 'If-Match: ${ifMatch}' failed: the current entity tag is '${etagOf(ss)}'.`);
    }
  }
  const ifNoneMatch = header(ctx, "if-none-match");
  if (ifNoneMatch !== undefined && ss) {
    const unwanted = etagList(ifNoneMatch);
    if (unwanted.includes("*") || unwanted.includes(etagOf(ss))) {
      throw preconditionFailed(`The specified precondition 'If-None-Match: ${ifNoneMatch}' failed: the resource exists with entity tag '${etagOf(ss)}'.`);
    }
  }
}

function checkNoWriteInFlight(ss: ScaleSet | undefined): void {
  if (ss?.inFlight) throw conflictingConcurrentWrite();
}

/** Consumes a failOperation fault for this request, if one matches. */
function takeFailure(ctx: RequestContext, sim: SimulatorContext) {
  const fault = sim.faults.take(ctx.method, ctx.pathname, ["failOperation"]);
  if (!fault) return undefined;
  if (ctx.call) ctx.call.fault = "failOperation";
  return {
    code: fault.code ?? "InternalExecutionError",
    message: fault.message ?? `Injected by the simulator: ${fault.code ?? "InternalExecutionError"}.`,
    ...(fault.status !== undefined ? { status: fault.status } : {}),
  };
}

// ---- long-running operation headers ----

function apiVersionOf(ctx: RequestContext): string {
  return ctx.url.searchParams.get("api-version") ?? "";
}

function operationUrl(ctx: RequestContext, op: Operation, kind: "operations" | "operationResults"): string {
  return `${ctx.baseUrl}/subscriptions/${op.subscriptionId}/providers/Microsoft.Compute/locations/${op.location}/${kind}/${op.id}?api-version=${encodeURIComponent(apiVersionOf(ctx))}`;
}

function lroHeaders(ctx: RequestContext, sim: SimulatorContext, op: Operation, withLocation: boolean): Record<string, string> {
  return {
    "azure-asyncoperation": operationUrl(ctx, op, "operations"),
    ...(withLocation ? { location: operationUrl(ctx, op, "operationResults") } : {}),
    ...retryHeaders(sim.state.pollHintMs(op)),
  };
}

function readObjectBody(ctx: RequestContext): JsonObject {
  const body = parseJsonBody(ctx);
  if (body === undefined) throw invalidRequestContent("The request body is empty");
  if (!isObject(body)) throw invalidRequestContent("The request body must be a JSON object");
  return body;
}

// ---- reads ----

const listAllScaleSets: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  send(ctx, 200, { value: sim.state.listScaleSets().map((ss) => renderScaleSet(ss)) });
};

const listScaleSets: Handler = (ctx, sim, params) => {
  const rg = requireResourceGroup(sim, params);
  send(ctx, 200, { value: sim.state.listScaleSets(rg).map((ss) => renderScaleSet(ss)) });
};

const getScaleSet: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  send(ctx, 200, renderScaleSet(ss), { etag: etagOf(ss) });
};

const listVms: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  const token = ctx.url.searchParams.get("$skiptoken");
  let after = -1;
  if (token !== null) {
    if (!/^\d+$/.test(token)) throw invalidParameter("The value of parameter $skiptoken is invalid.", "$skiptoken");
    after = Number(token);
  }
  const remaining = sortedVms(ss).filter((vm) => Number(vm.instanceId) > after);
  const page = remaining.slice(0, sim.state.settings.vmPageSize);
  const body: JsonObject = { value: page.map((vm) => renderVm(ss, vm)) };
  if (remaining.length > page.length) {
    const last = page[page.length - 1].instanceId;
    body.nextLink = `${ctx.baseUrl}${ctx.pathname}?api-version=${encodeURIComponent(apiVersionOf(ctx))}&$skiptoken=${last}`;
  }
  send(ctx, 200, body);
};

const getVm: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  const vm = ss.vms.get(params.instanceId);
  if (!vm) throw resourceNotFound(VMSS_TYPE, `${ss.name}/virtualMachines/${params.instanceId}`, params.resourceGroup);
  send(ctx, 200, renderVm(ss, vm));
};

// ---- writes ----

/** PUT: create, or replace the whole model. 201 for a create, 200 for a replacement; applied at completion. */
const putScaleSet: Handler = (ctx, sim, params) => {
  const rg = requireResourceGroup(sim, params);
  const body = readObjectBody(ctx);
  const existing = sim.state.getScaleSet(rg, params.name);
  const rawLocation = body.location;
  if (rawLocation !== undefined && (typeof rawLocation !== "string" || rawLocation.trim() === "")) {
    throw invalidParameter("The value of parameter location is invalid.", "location");
  }
  const location = typeof rawLocation === "string" ? normalizeLocation(rawLocation) : undefined;
  if (!existing && location === undefined) throw locationRequired();
  if (existing && location !== undefined && location !== existing.location) {
    throw invalidResourceLocation(existing.name, existing.location, location, existing.resourceGroup);
  }
  const model = writableModel(body);
  if (model.sku === undefined || model.sku === null) {
    if (!existing) throw missingParameter("sku");
    model.sku = existing.model.sku;
  }
  const properties = isObject(model.properties) ? model.properties : (model.properties = {});
  if (properties.upgradePolicy === undefined) properties.upgradePolicy = { mode: "Manual" };
  validateModel(model);
  checkPreconditions(ctx, existing);
  checkNoWriteInFlight(existing);

  const failWith = takeFailure(ctx, sim);
  const ss = existing ?? sim.state.createPending(rg, params.name, location!, model);
  const op = sim.state.acceptWrite(ss, { kind: "createOrUpdate", newModel: model, failWith, ifMatch: header(ctx, "if-match") ?? null }, !existing);
  respondToModelWrite(ctx, sim, ss, op, model, existing ? 200 : 201);
};

/** PATCH: objects merge, arrays and tags replace as a whole; applied at completion. */
const patchScaleSet: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  const patch = writableModel(readObjectBody(ctx));
  const model = mergePatch(ss.model, patch, ["tags"]);
  validateModel(model);
  checkPreconditions(ctx, ss);
  checkNoWriteInFlight(ss);

  const failWith = takeFailure(ctx, sim);
  const op = sim.state.acceptWrite(ss, { kind: "update", newModel: model, failWith, ifMatch: header(ctx, "if-match") ?? null });
  respondToModelWrite(ctx, sim, ss, op, model, 200);
};

/**
 * The first response of a PUT/PATCH: the model as requested with provisioningState Updating (Creating for a create)
 * and the ETag the scale set has now. When the write already completed (writeDurationMs 0) it is the scale set as GET returns it.
 */
function respondToModelWrite(ctx: RequestContext, sim: SimulatorContext, ss: ScaleSet, op: Operation, model: JsonObject, status: number): void {
  let body: JsonObject;
  if (op.status === "InProgress") body = renderScaleSet(ss, { model, provisioningState: op.isCreate ? "Creating" : "Updating" });
  else if (op.status === "Failed" && op.isCreate) body = renderScaleSet(ss, { provisioningState: "Failed" }); // it no longer exists
  else body = renderScaleSet(ss);
  send(ctx, status, body, { etag: etagOf(ss), ...lroHeaders(ctx, sim, op, false) });
}

/**
 * DELETE of the whole scale set (vmss-delete recording, entry 4): 202 with no body, Azure-AsyncOperation and Location;
 * while it runs the scale set reads `Deleting`, at completion it is gone (GET 404). A scale set that does not exist:
 * 204 (the REST spec's answer for a resource already gone).
 */
const deleteScaleSet: Handler = (ctx, sim, params) => {
  const rg = requireResourceGroup(sim, params);
  const ss = sim.state.getScaleSet(rg, params.name);
  checkPreconditions(ctx, ss);
  if (!ss) {
    send(ctx, 204);
    return;
  }
  checkNoWriteInFlight(ss);
  const failWith = takeFailure(ctx, sim);
  const op = sim.state.acceptWrite(ss, { kind: "delete", failWith, ifMatch: header(ctx, "if-match") ?? null });
  send(ctx, 202, undefined, lroHeaders(ctx, sim, op, true));
};

function parseInstanceIds(body: unknown): string[] {
  if (body === undefined) throw missingParameter("instanceIds");
  if (!isObject(body)) throw invalidRequestContent("The request body must be a JSON object");
  const ids = body.instanceIds;
  if (ids === undefined || ids === null) throw missingParameter("instanceIds");
  if (!Array.isArray(ids)) throw invalidParameter("The value of parameter instanceIds is invalid: it must be a list of instance ids.", "instanceIds");
  if (ids.length === 0) throw invalidParameter("The value of parameter instanceIds is invalid: the list of instance ids is empty.", "instanceIds");
  const out: string[] = [];
  for (const id of ids) {
    if (typeof id !== "string" && typeof id !== "number") {
      throw invalidParameter(`The value of parameter instanceIds is invalid: '${JSON.stringify(id)}' is not an instance id.`, "instanceIds");
    }
    const text = String(id).trim();
    if (!out.includes(text)) out.push(text);
  }
  return out;
}

/** POST …/delete (deleteInstances) and POST …/manualupgrade (updateInstances): 202, applied at completion. */
function instanceAction(ctx: RequestContext, sim: SimulatorContext, params: RouteParams, kind: OperationKind): void {
  const ss = requireScaleSet(sim, params);
  let ids = parseInstanceIds(parseJsonBody(ctx));
  if (ids.includes("*")) ids = sortedVms(ss).map((vm) => vm.instanceId);
  const unknown = ids.filter((id) => !ss.vms.has(id));
  if (unknown.length === 1) {
    throw invalidParameter(`The provided instanceId ${unknown[0]} is not an active Virtual Machine Scale Set VM instanceId.`, "instanceIds");
  }
  if (unknown.length > 1) {
    throw invalidParameter(`The provided instanceIds ${unknown.join(", ")} are not active Virtual Machine Scale Set VM instanceIds.`, "instanceIds");
  }
  checkPreconditions(ctx, ss);
  checkNoWriteInFlight(ss);

  const failWith = takeFailure(ctx, sim);
  const op = sim.state.acceptWrite(ss, { kind, instanceIds: ids, failWith, ifMatch: header(ctx, "if-match") ?? null });
  send(ctx, 202, undefined, lroHeaders(ctx, sim, op, true));
}

// ---- operation status ----

function requireOperation(sim: SimulatorContext, params: RouteParams): Operation {
  requireSubscription(sim, params);
  const op = sim.state.getOperation(params.operationId);
  if (!op || op.subscriptionId.toLowerCase() !== params.subscriptionId.toLowerCase()) throw operationNotFound(params.operationId);
  return op;
}

/** The Azure-AsyncOperation URL: `{ name, status, startTime, endTime?, error? }`, always 200. */
const getOperationStatus: Handler = (ctx, sim, params) => {
  const op = requireOperation(sim, params);
  const body: JsonObject = { name: op.id, status: op.status, startTime: new Date(op.startedAt).toISOString() };
  if (op.endTime !== undefined) body.endTime = new Date(op.endTime).toISOString();
  if (op.error) body.error = { ...op.error };
  send(ctx, 200, body, op.status === "InProgress" ? retryHeaders(sim.state.pollHintMs(op)) : {});
};

/** The Location URL: 202 while in progress, 200 with no body when done (the SDK refuses 204 here), the error when failed. */
const getOperationResult: Handler = (ctx, sim, params) => {
  const op = requireOperation(sim, params);
  if (op.status === "InProgress") {
    send(ctx, 202, undefined, { location: operationUrl(ctx, op, "operationResults"), ...retryHeaders(sim.state.pollHintMs(op)) });
  } else if (op.status === "Succeeded") {
    send(ctx, 200);
  } else {
    send(ctx, op.failWith?.status ?? 500, { error: { ...(op.error ?? { code: "InternalExecutionError", message: "The operation failed." }) } });
  }
};
