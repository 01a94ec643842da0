// How an ARM request is handled: a list of steps, each of which may answer it. Order matters:
//
//   out-of-band changes → Spot evictions → faults → authentication → api-version → body size → throttling + dispatch
//
// Throttling is charged by the dispatch step, to the policy the matched route names (one route table, arm-routes.ts)
// and to ARM's subscription budget (every route under a subscription); the buckets live in throttling.ts.
import { checkApiVersion } from "./api-versions.ts";
import { budgetOf } from "./arm-checks.ts";
import {
  ArmError,
  authenticationInvalidFormat,
  authenticationMissing,
  methodNotAllowed,
  missingApiVersion,
  notSimulated,
  requestTooLarge,
  routeNotFound,
} from "./arm-errors.ts";
import type { Route, SimulatorContext } from "./context.ts";
import { faultMessage } from "./faults.ts";
import { scaleSetIdOfFilter } from "./flexible.ts";
import { evictSpotVms } from "./kinds.ts";
import { dropConnection, header, send, type RequestContext } from "./http.ts";
import { validateTags } from "./limits.ts";
import type { Router } from "./router.ts";
import { mergeTags } from "./state.ts";
import { applyNetworkOutOfBandChange } from "./network/network-out-of-band.ts";
import { tooManyRequests } from "./throttling.ts";
import { scaleSetId, type ScaleSet } from "./vmss-model.ts";

/** Returns true when it answered the request (the following steps do not run). */
export type ArmStep = (ctx: RequestContext, sim: SimulatorContext) => boolean;

const SCALE_SET_PATH =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/([^/]+)/i;
const FLEXIBLE_VM_PATH =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachines(?:\/([^/]+))?/i;

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

/**
 * The scale set a request addresses: by its own path, or (Flexible) through one of its VMs' paths or the VM list
 * filtered by its id. A fault that changes or evicts "the scale set the request addresses" reaches Flexible sets so.
 */
function addressedScaleSet(ctx: RequestContext, sim: SimulatorContext): ScaleSet | undefined {
  const match = SCALE_SET_PATH.exec(ctx.pathname);
  if (match) {
    const [subscriptionId, resourceGroup, name] = match.slice(1).map(decodeSegment);
    return sim.state.isSubscription(subscriptionId) ? sim.state.getScaleSet(resourceGroup, name) : undefined;
  }
  const vm = FLEXIBLE_VM_PATH.exec(ctx.pathname);
  if (!vm || !sim.state.isSubscription(decodeSegment(vm[1]))) return undefined;
  const resourceGroup = decodeSegment(vm[2]);
  if (vm[3] !== undefined) return sim.state.findFlexibleVm(resourceGroup, decodeSegment(vm[3]))?.ss;
  const id = scaleSetIdOfFilter(ctx.url.searchParams.get("$filter") ?? "");
  return id === undefined
    ? undefined
    : sim.state.listScaleSets(resourceGroup).find((ss) => scaleSetId(ss).toLowerCase() === id);
}

/**
 * `outOfBandChange` faults: another writer changes the scale set the request addresses just before the request is
 * handled (applied at once, ETag bumped), so an If-Match read before is now stale. Skipped (but used up) when the
 * scale set does not exist, has a write in flight, or the change would break Azure's tag limits.
 */
export const applyOutOfBandChanges: ArmStep = (ctx, sim) => {
  if (applyNetworkOutOfBandChange(ctx, sim)) return false;
  if (!SCALE_SET_PATH.test(ctx.pathname) && !FLEXIBLE_VM_PATH.test(ctx.pathname)) return false;
  const fault = sim.faults.take(ctx.method, ctx.pathname, ["outOfBandChange"]);
  if (!fault?.change) return false;
  const ss = addressedScaleSet(ctx, sim);
  if (!ss || ss.inFlight) return false;
  if (fault.change.tags !== undefined) {
    try {
      validateTags(mergeTags(ss.model.tags, fault.change.tags));
    } catch (err) {
      if (err instanceof ArmError) return false;
      throw err;
    }
  }
  sim.state.patchScaleSetNow(ss, fault.change, "outOfBandChange");
  if (ctx.call) ctx.call.fault = "outOfBandChange";
  return false;
};

/** `evictSpot` faults: Azure evicts Spot VMs of the scale set the request addresses just before it is handled. */
export const applyEvictions: ArmStep = (ctx, sim) => {
  if (!SCALE_SET_PATH.test(ctx.pathname) && !FLEXIBLE_VM_PATH.test(ctx.pathname)) return false;
  const fault = sim.faults.take(ctx.method, ctx.pathname, ["evictSpot"]);
  if (!fault) return false;
  const ss = addressedScaleSet(ctx, sim);
  if (ss && evictSpotVms(ss, fault.evictions ?? 1).length > 0 && ctx.call) ctx.call.fault = "evictSpot";
  return false;
};

/** Injected `respond` and `dropConnection` faults. (The operation faults are taken when a write is accepted.) */
export const injectFaults: ArmStep = (ctx, sim) => {
  const fault = sim.faults.take(ctx.method, ctx.pathname, ["respond", "dropConnection"]);
  if (!fault) return false;
  if (ctx.call) ctx.call.fault = fault.action;
  if (fault.action === "dropConnection") {
    dropConnection(ctx);
    return true;
  }
  const headers: Record<string, string> =
    fault.retryAfterSeconds !== undefined ? { "retry-after": String(fault.retryAfterSeconds) } : {};
  send(
    ctx,
    fault.status ?? 500,
    { error: { code: fault.code ?? "InternalServerError", message: faultMessage(fault) } },
    headers,
  );
  return true;
};

/** Any non-empty bearer token is accepted. */
export const authenticate: ArmStep = (ctx) => {
  const value = header(ctx, "authorization");
  if (value === undefined || value.trim() === "") throw authenticationMissing();
  if (!/^Bearer\s+\S+/i.test(value.trim())) throw authenticationInvalidFormat();
  return false;
};

export const requireApiVersion: ArmStep = (ctx) => {
  const apiVersion = ctx.url.searchParams.get("api-version");
  if (apiVersion === null || apiVersion.trim() === "") throw missingApiVersion();
  checkApiVersion(ctx.pathname, apiVersion.trim());
  return false;
};

export const limitBody: ArmStep = (ctx, sim) => {
  if (ctx.bodyTooLarge) throw requestTooLarge(sim.bodyLimitBytes);
  return false;
};

/**
 * Finds the route; when throttling is on, charges its policy (if it names one) and ARM's budget first: allowed → the answer
 * (whatever the route then says, 404/409/412 included) carries the rate-limit headers; refused → 429, nothing done.
 */
export function dispatchTo(router: Router<Route>, unknownPath: "notFound" | "notSimulated" = "notFound"): ArmStep {
  return (ctx, sim) => {
    const route = router.match(ctx.method, ctx.pathname);
    if (route.kind === "notFound") {
      // Azure answers far more than the simulator serves: saying "not found" would tell a client the resource is not there.
      throw unknownPath === "notSimulated"
        ? notSimulated(`The request '${ctx.method} ${ctx.pathname}' is not simulated.`)
        : routeNotFound(ctx.pathname);
    }
    if (route.kind === "methodNotAllowed") throw methodNotAllowed(ctx.method, route.allowed);
    const { handler, charge } = route.handler;
    if (sim.throttling.enabled) {
      // a Compute policy's buckets and ARM's budget; under a subscription, ARM's budget alone where no policy applies
      const subscriptionId = route.params.subscriptionId;
      const result = charge
        ? sim.throttling.charge(charge(route.params, sim))
        : subscriptionId !== undefined
          ? sim.throttling.chargeArm(subscriptionId.toLowerCase(), budgetOf(ctx.method))
          : undefined;
      if (result && !result.allowed) throw tooManyRequests(result, sim.state.now());
      if (result) ctx.responseHeaders = { ...ctx.responseHeaders, ...result.headers };
    }
    handler(ctx, sim, route.params);
    return true;
  };
}

export function armPipeline(router: Router<Route>): ArmStep[] {
  return [
    applyOutOfBandChanges,
    applyEvictions,
    injectFaults,
    authenticate,
    requireApiVersion,
    limitBody,
    dispatchTo(router, "notSimulated"),
  ];
}

/** Runs the steps until one answers; an ArmError thrown by a step becomes the ARM error response. */
export function runSteps(steps: readonly ArmStep[], ctx: RequestContext, sim: SimulatorContext): void {
  try {
    for (const step of steps) if (step(ctx, sim)) return;
  } catch (err) {
    if (err instanceof ArmError) {
      send(ctx, err.status, err.toBody(), err.headers);
      return;
    }
    console.error("[simulator] unexpected error:", err);
    send(ctx, 500, { error: { code: "InternalServerError", message: "The simulator failed to handle the request." } });
  }
}
