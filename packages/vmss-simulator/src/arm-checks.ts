// What ARM routes do on their way to an answer, written once for every resource type the simulator serves: which
// throttling policy and ARM budget a route is charged to, the lookups (404s in ARM's order: subscription, resource
// group, resource), preconditions (412), the write lock (409), the operation faults a write takes, the VM charge, and
// the long-running-operation headers.
import {
  ArmError,
  VMSS_TYPE,
  conflictingConcurrentWrite,
  preconditionFailed,
  resourceGroupNotFound,
  resourceNotFound,
  subscriptionNotFound,
} from "./arm-errors.ts";
import type { SimulatorContext } from "./context.ts";
import { header, type RequestContext } from "./http.ts";
import type { Operation, OperationFailure } from "./lro.ts";
import type { RouteParams } from "./router.ts";
import { AZURE_RETRY_AFTER, scaledRetryAfter } from "./settings.ts";
import type { OperationSpec } from "./state.ts";
import { tooManyRequests, type ArmBudgetKind, type Charge, type PolicyName } from "./throttling.ts";
import { etagOf, scaleSetKey, type ScaleSet } from "./vmss-model.ts";

// ---- throttling: which policy and which of ARM's budgets a route is charged to ----

export function budgetOf(method: string): ArmBudgetKind {
  return method === "GET" ? "reads" : method === "DELETE" ? "deletes" : "writes";
}

export function charged(
  method: string,
  policy: PolicyName | ((params: RouteParams, sim: SimulatorContext) => PolicyName),
  resourceOf?: (params: RouteParams) => string,
) {
  return (params: RouteParams, sim: SimulatorContext): Charge => ({
    policy: typeof policy === "function" ? policy(params, sim) : policy,
    subscriptionId: params.subscriptionId.toLowerCase(),
    budget: budgetOf(method),
    ...(resourceOf ? { resource: resourceOf(params) } : {}),
  });
}

export const perScaleSet = (params: RouteParams) => scaleSetKey(params.resourceGroup, params.name);
export const perVm = (params: RouteParams) =>
  `${perScaleSet(params)}/virtualmachines/${params.instanceId.toLowerCase()}`;
export const perOperation = (params: RouteParams) => `operations/${params.operationId.toLowerCase()}`;
export const createOrUpdatePolicy = (params: RouteParams, sim: SimulatorContext): PolicyName =>
  sim.state.isSubscription(params.subscriptionId) && sim.state.getScaleSet(params.resourceGroup, params.name)
    ? "VMScaleSetActions"
    : "CreateVMScaleSet";

// ---- lookups: subscription, then resource group, then resource (the order ARM answers 404s in) ----

export function requireSubscription(sim: SimulatorContext, params: RouteParams): void {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
}

export function requireResourceGroup(sim: SimulatorContext, params: RouteParams): string {
  requireSubscription(sim, params);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  return rg;
}

export function requireScaleSet(sim: SimulatorContext, params: RouteParams): ScaleSet {
  requireResourceGroup(sim, params);
  const ss = sim.state.getScaleSet(params.resourceGroup, params.name);
  if (!ss) throw resourceNotFound(VMSS_TYPE, params.name, params.resourceGroup);
  return ss;
}

// ---- preconditions (412), the write lock (409) and preemption ----

function etagList(value: string): string[] {
  return value
    .split(",")
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/**
 * If-Match against a resource's current ETag (undefined: the resource does not exist): exact comparison of the quoted
 * strings, a comma-separated list accepted, `*` any existing resource; 412 PreconditionFailed otherwise.
 */
export function checkIfMatch(ctx: RequestContext, current: string | undefined): void {
  const ifMatch = header(ctx, "if-match");
  if (ifMatch === undefined) return;
  if (current === undefined)
    throw preconditionFailed(`The specified precondition 'If-Match: ${ifMatch}' failed: the resource does not exist.`);
  const wanted = etagList(ifMatch);
  if (!wanted.includes("*") && !wanted.includes(current)) {
    throw preconditionFailed(
      `The specified precondition 'If-Match: ${ifMatch}' failed: the current entity tag is '${current}'.`,
    );
  }
}

/**
 * If-Match / If-None-Match against the scale set's ETag. Checked before the in-flight conflict (see docs/simulator.md).
 * If-None-Match takes only `*` (REST spec, virtualMachineScaleSet.json: "Other values will result in error from
 * server as they are not supported").
 */
export function checkPreconditions(ctx: RequestContext, ss: ScaleSet | undefined): void {
  checkIfMatch(ctx, ss ? etagOf(ss) : undefined);
  const ifNoneMatch = header(ctx, "if-none-match");
  if (ifNoneMatch !== undefined) {
    if (ifNoneMatch.trim() !== "*") {
      throw new ArmError(
        400,
        "InvalidParameter",
        `The value '${ifNoneMatch}' of the If-None-Match header is not supported: only '*' is.`,
        { target: "If-None-Match" },
      );
    }
    if (ss)
      throw preconditionFailed(
        `The specified precondition 'If-None-Match: *' failed: the resource exists with entity tag '${etagOf(ss)}'.`,
      );
  }
}

/** 409 while another write holds the scale set, unless the concurrentWrites mode lets this write preempt it. */
export function checkWriteInFlight(sim: SimulatorContext, ss: ScaleSet | undefined): void {
  if (sim.state.inFlightAnswer(ss) === "conflict") throw conflictingConcurrentWrite();
}

/** Consumes the operation faults (failOperation, allocationFailed, preemptOperation) for a write being accepted. */
export function takeOperationFaults(
  ctx: RequestContext,
  sim: SimulatorContext,
  addsVms: boolean,
): Pick<OperationSpec, "failWith" | "allocatable" | "preempt" | "stopRollout"> {
  const out: Pick<OperationSpec, "failWith" | "allocatable" | "preempt" | "stopRollout"> = {};
  const failure = sim.faults.take(ctx.method, ctx.pathname, ["failOperation", "failRollout"]);
  if (failure) {
    if (failure.action === "failRollout") out.stopRollout = true;
    const failWith: OperationFailure = {
      code: failure.code ?? "InternalExecutionError",
      message: failure.message ?? `Injected by the simulator: ${failure.code ?? "InternalExecutionError"}.`,
      ...(failure.status !== undefined ? { status: failure.status } : {}),
    };
    out.failWith = failWith;
    if (ctx.call) ctx.call.fault = failure.action;
  }
  if (addsVms) {
    const allocation = sim.faults.take(ctx.method, ctx.pathname, ["allocationFailed"]);
    if (allocation) {
      out.allocatable = allocation.allocatable ?? 0;
      if (ctx.call) ctx.call.fault = "allocationFailed";
    }
  }
  const preempt = sim.faults.take(ctx.method, ctx.pathname, ["preemptOperation"]);
  if (preempt) {
    out.preempt = { afterFraction: 0.5, change: preempt.change ?? {} };
    if (ctx.call) ctx.call.fault = "preemptOperation";
  }
  return out;
}

// ---- long-running operation headers ----

export function apiVersionOf(ctx: RequestContext): string {
  return ctx.url.searchParams.get("api-version") ?? "";
}

/**
 * The Azure-AsyncOperation URL; the Location URL is the same plus `&monitor=true` (update[5]: "the same URL plus
 * &monitor=true"; py[42], py[51] are GETs of it).
 */
export function operationUrl(ctx: RequestContext, op: Operation, kind: "status" | "location"): string {
  const monitor = kind === "location" ? "&monitor=true" : "";
  return `${ctx.baseUrl}/subscriptions/${op.subscriptionId}/providers/Microsoft.Compute/locations/${op.location}/operations/${op.id}?api-version=${encodeURIComponent(apiVersionOf(ctx))}${monitor}`;
}

export function retryAfterHeader(sim: SimulatorContext, seconds: number | null): Record<string, string> {
  return seconds === null ? {} : { "retry-after": scaledRetryAfter(sim.state.settings, seconds) };
}

/** Azure-AsyncOperation always, Location only on 202s (update[0], [5], [11]; delete[4]), Retry-After as recorded for the kind. */
export function lroHeaders(
  ctx: RequestContext,
  sim: SimulatorContext,
  op: Operation,
  status: number,
): Record<string, string> {
  if (ctx.call) ctx.call.operationId = op.id;
  return {
    "azure-asyncoperation": operationUrl(ctx, op, "status"),
    ...(status === 202 ? { location: operationUrl(ctx, op, "location") } : {}),
    ...retryAfterHeader(sim, AZURE_RETRY_AFTER[op.writeKind].initial),
  };
}

/**
 * x-ms-request-charge: the VMs a write touches, as the recordings charge them: 2 per VM created (update[0]: 2 VMs →
 * 4; py[0]: 1 → 2), 2 per VM of a deleted scale set (delete[4]), 1 per VM of an instance action (py[39], py[48]), 0
 * for a model change alone (update[11]); 1 per VM removed by a scale-in. The same number is charged to
 * VMScaleSetBatchedVMRequestsSubscriptionMaximum when throttling is on; an empty bucket refuses the write (429).
 */
export function chargeVms(
  ctx: RequestContext,
  sim: SimulatorContext,
  subscriptionId: string,
  count: number,
): Record<string, string> {
  if (!sim.throttling.enabled) return { "x-ms-request-charge": String(count) };
  const result = sim.throttling.chargeVms(subscriptionId.toLowerCase(), count);
  const current = ctx.responseHeaders?.["x-ms-ratelimit-remaining-resource"];
  const resourceHeader = current ? `${current},${result.header}` : result.header;
  if (!result.allowed) {
    throw tooManyRequests(
      {
        headers: { ...ctx.responseHeaders, "x-ms-ratelimit-remaining-resource": resourceHeader },
        retryAfterMs: result.retryAfterMs,
        empty: result.empty,
      },
      sim.state.now(),
    );
  }
  return { "x-ms-ratelimit-remaining-resource": resourceHeader, "x-ms-request-charge": String(count) };
}

/** `$expand=instanceView`: each VM with its statuses (provisioning, power) and the health probe's vmHealth. */
export function instanceViewExpanded(ctx: RequestContext): boolean {
  return (ctx.url.searchParams.get("$expand") ?? "").toLowerCase() === "instanceview";
}
