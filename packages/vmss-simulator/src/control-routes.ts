// The control API under /_sim: plain JSON, no authentication, not recorded in the call log.
import { ArmError, VMSS_TYPE, conflictingConcurrentWrite, resourceNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import type { ScaleSetChange } from "./fault-specs.ts";
import { FaultValidationError, parseFault, parseScaleSetChange } from "./faults.ts";
import { parseJsonBody, send, type RequestContext } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { MAX_CAPACITY, MIN_CAPACITY, normalizeUpgradeMode, validateTags, type UpgradeMode } from "./limits.ts";
import { Router } from "./router.ts";
import { putScaleSet, seedDemo, DEMO_LOCATION, type ScaleSetSpec } from "./seed.ts";
import { addKindControlRoutes } from "./kinds.ts";
import type { Operation } from "./lro.ts";
import { renderInstanceView } from "./health-probe.ts";
import { clearLocks } from "./locks.ts";
import { addAutoscaleControlRoutes, resetAutoscale } from "./autoscale/autoscale-routes.ts";
import { resetDeployments } from "./deployments.ts";
import { addSubscriptionControlRoutes, resetSubscriptionSettings } from "./subscription-reads.ts";
import { resetManagedIdentities } from "./managed-identities.ts";
import { resetManagedImages } from "./managed-images.ts";
import { resetProximityPlacementGroups } from "./proximity-placement-groups.ts";
import { resetCapacityReservationGroups } from "./capacity-reservation-groups.ts";
import {
  addNetworkControlRoutes,
  network,
  provideNamedPools,
  resetNetwork,
  reportedVmHealth,
} from "./network/network-routes.ts";
import { parseSettingsUpdate, SETTINGS_FIELDS, SettingsError } from "./settings.ts";
import { mergeTags } from "./state.ts";
import { parseThrottlingUpdate, ThrottlingConfigError, type ThrottlingUpdate } from "./throttling.ts";
import { renderFlexibleVm } from "./flexible.ts";
import {
  capacityOf,
  etagOf,
  isFlexible,
  normalizeLocation,
  provisioningStateOf,
  renderScaleSet,
  renderVm,
  sortedVms,
  type ScaleSet,
  type Vm,
} from "./vmss-model.ts";

export const CONTROL_PREFIX = "/_sim";

function badRequest(message: string): ArmError {
  return new ArmError(400, "BadRequest", message);
}

function readObject(ctx: RequestContext, allowed: readonly string[]): JsonObject {
  let body: unknown;
  try {
    body = parseJsonBody(ctx);
  } catch {
    throw badRequest("the body is not valid JSON");
  }
  if (body === undefined) body = {};
  if (!isObject(body)) throw badRequest("the body must be a JSON object");
  for (const key of Object.keys(body)) {
    if (!allowed.includes(key)) throw badRequest(`unknown field "${key}" (known: ${allowed.join(", ")})`);
  }
  return body;
}

function intField(body: JsonObject, key: string, min: number, max: number): number | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw badRequest(`"${key}" must be a whole number from ${min} to ${max}`);
  }
  return value;
}

function boolField(body: JsonObject, key: string): boolean | undefined {
  const value = body[key];
  if (value === undefined) return undefined;
  if (typeof value !== "boolean") throw badRequest(`"${key}" must be true or false`);
  return value;
}

function tagsField(body: JsonObject): Record<string, string> | undefined {
  const tags = body.tags;
  if (tags === undefined) return undefined;
  if (!isObject(tags) || !Object.values(tags).every((v) => typeof v === "string")) {
    throw badRequest('"tags" must be an object of string values');
  }
  validateTags(tags); // Azure's limits, answered with Azure's codes
  return tags as Record<string, string>;
}

function changeOf(body: JsonObject): ScaleSetChange {
  try {
    return parseScaleSetChange(body);
  } catch (err) {
    if (err instanceof ArmError) throw err;
    throw badRequest((err as Error).message);
  }
}

function inFlightOf(op: Operation | null) {
  return op ? { opId: op.id, kind: op.kind, startedAt: op.startedAt, completesAt: op.completesAt } : null;
}

/**
 * GET /_sim/operations: the long-running operations Azure keeps (the last 10,000 ended, and every one in flight), in
 * the order accepted, with Azure's times: what a call log's `operationId` names.
 */
function operationsView(sim: SimulatorContext) {
  return [...sim.state.operations.values()].map((op) => ({
    id: op.id,
    kind: op.kind,
    scaleSet: op.scaleSetKey,
    status: op.status,
    startedAt: op.startedAt,
    ...(op.endTime === undefined ? {} : { endTime: op.endTime }),
    vmsStarted: op.vmsStarted ?? 0,
  }));
}

function settingsField(body: JsonObject) {
  try {
    return parseSettingsUpdate(body);
  } catch (err) {
    if (err instanceof SettingsError) throw badRequest(err.message);
    throw err;
  }
}

/**
 * The scale set and its VMs, each with its instance view (the health probe's vmHealth included): a Uniform set's VMs
 * as its VM list gives them, a Flexible set's as Microsoft.Compute/virtualMachines (with their NICs' ids).
 */
function snapshot(sim: SimulatorContext, ss: ScaleSet) {
  const view = (vm: Vm) => renderInstanceView(vm, reportedVmHealth(sim, ss, vm));
  return {
    vmss: renderScaleSet(ss),
    vms: sortedVms(ss).map((vm) =>
      isFlexible(ss) ? renderFlexibleVm(ss, vm, sim.state.nicsOf(vm), view(vm)) : renderVm(ss, vm, view(vm)),
    ),
    etag: etagOf(ss),
    inFlight: inFlightOf(ss.inFlight),
  };
}

function requireScaleSet(sim: SimulatorContext, resourceGroup: string, name: string): ScaleSet {
  const ss = sim.state.getScaleSet(resourceGroup, name);
  if (!ss) throw resourceNotFound(VMSS_TYPE, name, resourceGroup);
  return ss;
}

export function resetSimulator(sim: SimulatorContext): void {
  sim.state.clear();
  sim.faults.clear();
  sim.calls.clear();
  sim.throttling.reset();
  if (sim.seeded) seedDemo(sim.state);
  resetNetwork(sim);
  resetManagedIdentities(sim);
  clearLocks(sim);
  resetSubscriptionSettings(sim);
  resetDeployments(sim);
  resetProximityPlacementGroups(sim);
  resetCapacityReservationGroups(sim);
  resetManagedImages(sim);
  resetAutoscale(sim);
}

/** GET/PUT /_sim/config: the settings and the throttling configuration. */
function configView(sim: SimulatorContext) {
  return { ...structuredClone(sim.state.settings), throttling: sim.throttling.config };
}

function throttlingField(body: JsonObject): ThrottlingUpdate | undefined {
  if (body.throttling === undefined) return undefined;
  try {
    return parseThrottlingUpdate(body.throttling);
  } catch (err) {
    if (err instanceof ThrottlingConfigError) throw badRequest(err.message);
    throw err;
  }
}

/** POST /_sim/faults: a fault to inject, validated in full first. */
const addFault: Handler = (ctx, sim) => {
  let body: unknown;
  try {
    body = parseJsonBody(ctx);
  } catch {
    throw badRequest("the body is not valid JSON");
  }
  try {
    send(ctx, 201, sim.faults.add(parseFault(body, sim.state.now())));
  } catch (err) {
    if (err instanceof FaultValidationError) throw badRequest(`invalid fault: ${err.message}`);
    throw err;
  }
};

/** PUT /_sim/config: everything is validated before anything is applied, so a refused PUT changes nothing. */
const putConfig: Handler = (ctx, sim) => {
  const body = readObject(ctx, [...SETTINGS_FIELDS, "throttling"]);
  const next = settingsField(body);
  const throttling = throttlingField(body);
  // bucket levels so far were earned at the old time scale
  if (next.timeScale !== undefined) sim.throttling.settleAll();
  Object.assign(sim.state.settings, next);
  if (throttling) sim.throttling.configure(throttling);
  send(ctx, 200, configView(sim));
};

/** GET /_sim/scaleSets: every scale set, in a line each. */
const listScaleSets: Handler = (ctx, sim) =>
  send(
    ctx,
    200,
    sim.state.listScaleSets().map((ss) => ({
      resourceGroup: ss.resourceGroup,
      name: ss.name,
      location: ss.location,
      capacity: capacityOf(ss.model),
      vmCount: ss.vms.size,
      etag: etagOf(ss),
      provisioningState: provisioningStateOf(ss),
      inFlight: inFlightOf(ss.inFlight),
    })),
  );

/** PUT /_sim/scaleSets/{resourceGroup}/{name}: a scale set made (or replaced) at once, as a test's starting point. */
const putControlScaleSet: Handler = (ctx, sim, params) => {
  const spec = controlScaleSetSpec(
    readObject(ctx, [
      "capacity",
      "loadBalanced",
      "applicationGateway",
      "upgradePolicy",
      "location",
      "tags",
      "orchestrationMode",
    ]),
  );
  const existing = sim.state.getScaleSet(params.resourceGroup, params.name);
  if (existing?.inFlight) throw conflictingConcurrentWrite();
  const { location, ...fields } = spec;
  const { scaleSet, created } = putScaleSet(
    sim.state,
    { resourceGroup: params.resourceGroup, name: params.name, ...fields },
    location,
  );
  provideNamedPools(network(sim), sim.state.subscriptionId, scaleSet);
  send(ctx, created ? 201 : 200, renderScaleSet(scaleSet), { etag: etagOf(scaleSet) });
};

/** The fields of a control PUT of a scale set, each checked, with their defaults. */
function controlScaleSetSpec(
  body: JsonObject,
): Omit<ScaleSetSpec, "subscriptionId" | "resourceGroup" | "name"> & { location: string } {
  if (body.capacity === undefined) throw badRequest('"capacity" is required');
  const capacity = intField(body, "capacity", MIN_CAPACITY, MAX_CAPACITY)!;
  const loadBalanced = boolField(body, "loadBalanced") ?? true;
  const applicationGateway = boolField(body, "applicationGateway") ?? false;
  let upgradePolicy: UpgradeMode = "Manual";
  if (body.upgradePolicy !== undefined) {
    const mode = typeof body.upgradePolicy === "string" ? normalizeUpgradeMode(body.upgradePolicy) : undefined;
    if (!mode) throw badRequest('"upgradePolicy" must be "Manual", "Automatic" or "Rolling"');
    upgradePolicy = mode;
  }
  if (body.location !== undefined && (typeof body.location !== "string" || body.location.trim() === "")) {
    throw badRequest('"location" must be a non-empty string');
  }
  const location = normalizeLocation(typeof body.location === "string" ? body.location : DEMO_LOCATION);
  const tags = tagsField(body);
  const orchestrationMode = body.orchestrationMode ?? "Uniform";
  if (orchestrationMode !== "Uniform" && orchestrationMode !== "Flexible")
    throw badRequest('"orchestrationMode" must be "Uniform" or "Flexible"');
  return { capacity, loadBalanced, applicationGateway, upgradePolicy, tags, orchestrationMode, location };
}

/** `{ budget: "reads"|"writes"|"deletes", tokens }`: another caller spends the subscription's ARM budget. */
const spendArmBudget: Handler = (ctx, sim) => {
  const body = readObject(ctx, ["budget", "tokens"]);
  const budget = body.budget;
  if (budget !== "reads" && budget !== "writes" && budget !== "deletes")
    throw badRequest('"budget" must be "reads", "writes" or "deletes"');
  const tokens = body.tokens;
  if (typeof tokens !== "number" || !Number.isInteger(tokens) || tokens < 1)
    throw badRequest('"tokens" must be a whole number above 0');
  if (!sim.throttling.enabled) throw badRequest("throttling is off: there is no budget to spend");
  const remaining = sim.throttling.spendArm(sim.state.subscriptionId.toLowerCase(), budget, tokens);
  send(ctx, 200, { budget, remaining });
};

export function buildControlRouter(): Router<Route> {
  const P = CONTROL_PREFIX;
  const routes = new Router<Handler>()
    .add("GET", `${P}/health`, (ctx) => send(ctx, 200, { status: "ok" }))

    .add("GET", `${P}/calls`, (ctx, sim) => send(ctx, 200, sim.calls.list()))
    .add("DELETE", `${P}/calls`, (ctx, sim) => {
      sim.calls.clear();
      send(ctx, 204);
    })

    .add("GET", `${P}/operations`, (ctx, sim) => send(ctx, 200, operationsView(sim)))

    .add("GET", `${P}/faults`, (ctx, sim) => send(ctx, 200, sim.faults.list()))
    .add("POST", `${P}/faults`, addFault)
    .add("DELETE", `${P}/faults`, (ctx, sim) => {
      sim.faults.clear();
      send(ctx, 204);
    })

    .add("GET", `${P}/config`, (ctx, sim) => send(ctx, 200, configView(sim)))
    .add("PUT", `${P}/config`, putConfig)

    .add("GET", `${P}/throttling`, (ctx, sim) => send(ctx, 200, sim.throttling.snapshot()))
    .add("POST", `${P}/throttling/spend`, spendArmBudget)

    .add("POST", `${P}/reset`, (ctx, sim) => {
      resetSimulator(sim);
      send(ctx, 200, { status: "reset", seeded: sim.seeded });
    })

    .add("PUT", `${P}/resourceGroups/:resourceGroup`, (ctx, sim, params) => {
      const existed = sim.state.resourceGroupName(params.resourceGroup) !== undefined;
      const name = sim.state.ensureResourceGroup(params.resourceGroup);
      send(ctx, existed ? 200 : 201, { name });
    })

    .add("GET", `${P}/scaleSets`, listScaleSets)
    .add("GET", `${P}/scaleSets/:resourceGroup/:name`, (ctx, sim, params) => {
      send(ctx, 200, snapshot(sim, requireScaleSet(sim, params.resourceGroup, params.name)));
    })
    .add("PUT", `${P}/scaleSets/:resourceGroup/:name`, putControlScaleSet)
    .add("PATCH", `${P}/scaleSets/:resourceGroup/:name`, (ctx, sim, params) => {
      const change = changeOf(readObject(ctx, ["capacity", "tags", "nicTags"]));
      const ss = requireScaleSet(sim, params.resourceGroup, params.name);
      if (change.tags !== undefined) validateTags(mergeTags(ss.model.tags, change.tags));
      if (ss.inFlight) throw conflictingConcurrentWrite();
      sim.state.patchScaleSetNow(ss, change);
      send(ctx, 200, renderScaleSet(ss), { etag: etagOf(ss) });
    })
    .add("GET", `${P}/scaleSets/:resourceGroup/:name/versions`, (ctx, sim, params) => {
      send(ctx, 200, requireScaleSet(sim, params.resourceGroup, params.name).versions);
    })
    .add("DELETE", `${P}/scaleSets/:resourceGroup/:name`, (ctx, sim, params) => {
      sim.state.deleteScaleSetNow(requireScaleSet(sim, params.resourceGroup, params.name));
      send(ctx, 204);
    });
  addAutoscaleControlRoutes(routes, P);
  return addSubscriptionControlRoutes(addKindControlRoutes(addNetworkControlRoutes(routes, P), P), P, (ctx) =>
    readObject(ctx, [
      "deny",
      "limits",
      "registrationState",
      "withoutApiVersions",
      "dateSkewSeconds",
      "state",
      "notAvailable",
    ]),
  ).map((handler): Route => ({ handler }));
}
