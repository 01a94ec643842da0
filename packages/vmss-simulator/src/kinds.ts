// The kinds and features of a scale set beyond the Uniform/Manual baseline, as far as the simulator models them:
// the rolling-upgrade status of a Rolling set (GET …/rollingUpgrades/latest), the AutomaticRepairs orchestration
// service (orchestrationServices in the scale set's instance view, POST …/setOrchestrationServiceState), Spot evictions (the
// evictSpot fault), instance protection, and the control routes that give a seeded scale set these features.
//
// Choices where Microsoft's docs are silent, written down:
// - setOrchestrationServiceState answers 200 at once (the REST spec allows 200 or 202; nothing in the service waits on it).
// - The rolling upgrade Azure starts on a model change of a Rolling set runs with that write (state.ts): its status
//   is the write's: RollingForward while it runs, Completed, Faulted (with the write's error) or Cancelled. A scale
//   set switched to rolloutAfterWrite runs it after the write instead (rollout.ts), with a status of its own.
// - An evicted Spot VM is deallocated (Azure's default evictionPolicy for scale sets): listed, Succeeded, PowerState
//   deallocated, counted in the capacity; nothing brings it back but a later write of ours.
import { ArmError, VMSS_TYPE, invalidParameter, missingParameter, resourceNotFound } from "./arm-errors.ts";
import type { Handler, SimulatorContext } from "./context.ts";
import { parseJsonBody, send, type RequestContext } from "./http.ts";
import { getPath, isObject, type JsonObject } from "./json.ts";
import type { Operation } from "./lro.ts";
import type { Router, RouteParams } from "./router.ts";
import { rolloutOf, setRolloutAfterWrite } from "./rollout.ts";
import { isFlexible, scaleSetId, sortedVms, upgradeModeOf, type ScaleSet } from "./vmss-model.ts";

// ---- automatic repairs: the orchestration service ----

export type RepairsState = "Running" | "Suspended" | "NotRunning";

/** Suspended by a setOrchestrationServiceState Suspend, per scale set (a replaced scale set starts afresh). */
const suspended = new WeakSet<ScaleSet>();
/** Read and restored by a state directory (world-snapshot.ts). */
export { suspended as repairsSuspended };

function repairsEnabled(ss: ScaleSet): boolean {
  return getPath(ss.model, "properties", "automaticRepairsPolicy", "enabled") === true;
}

export function repairsStateOf(ss: ScaleSet): RepairsState {
  if (!repairsEnabled(ss)) return "NotRunning";
  return suspended.has(ss) ? "Suspended" : "Running";
}

function requireScaleSet(sim: SimulatorContext, params: RouteParams): ScaleSet {
  if (!sim.state.isSubscription(params.subscriptionId))
    throw new ArmError(404, "SubscriptionNotFound", `The subscription '${params.subscriptionId}' could not be found.`);
  const ss = sim.state.getScaleSet(params.resourceGroup, params.name);
  if (!ss) throw resourceNotFound(VMSS_TYPE, params.name, params.resourceGroup);
  return ss;
}

/** What the scale set's instance view (GET …/instanceView) adds for repairs: the AutomaticRepairs service, when enabled. */
export function orchestrationServicesOf(ss: ScaleSet): { orchestrationServices?: JsonObject[] } {
  return repairsEnabled(ss)
    ? { orchestrationServices: [{ serviceName: "AutomaticRepairs", serviceState: repairsStateOf(ss) }] }
    : {};
}

/**
 * POST …/setOrchestrationServiceState `{ serviceName, action }`. AutomaticRepairs only; a scale set without an
 * enabled automaticRepairsPolicy has nothing to suspend or resume (400 OperationNotAllowed, as Azure refuses it).
 */
export const setOrchestrationServiceState: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  const body = parseJsonBody(ctx);
  if (!isObject(body)) throw missingParameter("parameters");
  const { serviceName, action } = body;
  if (typeof serviceName !== "string") throw missingParameter("serviceName");
  if (typeof action !== "string") throw missingParameter("action");
  if (serviceName.toLowerCase() !== "automaticrepairs") {
    throw invalidParameter(
      `The value '${serviceName}' of parameter serviceName is not supported: AutomaticRepairs is.`,
      "serviceName",
    );
  }
  const act = action.toLowerCase();
  if (act !== "suspend" && act !== "resume")
    throw invalidParameter(`The value '${action}' of parameter action is invalid: Suspend or Resume.`, "action");
  if (!repairsEnabled(ss)) {
    throw new ArmError(
      400,
      "OperationNotAllowed",
      `Orchestration service AutomaticRepairs is not enabled on the virtual machine scale set ${ss.name}.`,
    );
  }
  if (act === "suspend") suspended.add(ss);
  else suspended.delete(ss);
  send(ctx, 200);
};

// ---- Rolling upgrade policy: the rolling upgrade's status ----

/** The newest write of this scale set that rolled a model change out in batches. */
function latestRollout(sim: SimulatorContext, ss: ScaleSet): Operation | undefined {
  let latest: Operation | undefined;
  const key = `${ss.resourceGroup.toLowerCase()}/${ss.name.toLowerCase()}`;
  for (const op of sim.state.operations.values()) {
    if (
      op.scaleSetKey === key &&
      op.rolling &&
      op.startedAt >= Date.parse(ss.timeCreated) - 1 &&
      (!latest || op.startedAt >= latest.startedAt)
    )
      latest = op;
  }
  return latest;
}

const RUNNING_STATUS: Record<Operation["status"], string> = {
  InProgress: "RollingForward",
  Succeeded: "Completed",
  Failed: "Faulted",
  Canceled: "Cancelled",
};

/** GET …/rollingUpgrades/latest: 404 when the scale set never had one (or its policy is not Rolling). */
export const getLatestRollingUpgrade: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  const op = upgradeModeOf(ss.model) === "Rolling" ? latestRollout(sim, ss) : undefined;
  if (!op)
    throw new ArmError(404, "NotFound", `No rolling upgrade was found for the virtual machine scale set ${ss.name}.`);
  const after = rolloutOf(ss);
  if (after && after.op === op) {
    sendRollout(
      ctx,
      ss,
      after.status,
      after.startedAt,
      after.order,
      after.status === "RollingForward" ? after.batchSize : 0,
      after.status === "Faulted" ? after.error : undefined,
    );
    return;
  }
  const inProgress = op.status === "InProgress" ? op.rolling!.batchSize : 0;
  sendRollout(
    ctx,
    ss,
    RUNNING_STATUS[op.status],
    op.startedAt,
    op.rolling!.order,
    inProgress,
    op.status !== "Succeeded" ? op.error : undefined,
  );
};

/**
 * The rolling-upgrade status body, of a write's rollout or of one that outlives its write: `inProgress` VMs in the
 * batch (0 once it stopped), pending only while rolling forward, `error` as the caller decides it is shown.
 */
function sendRollout(
  ctx: RequestContext,
  ss: ScaleSet,
  code: string,
  startedAt: number,
  order: string[],
  inProgress: number,
  error?: { code: string; message: string },
): void {
  const moved = order.filter((id) => ss.vms.get(id)?.latestModelApplied === true).length;
  send(ctx, 200, {
    id: `${scaleSetId(ss)}/rollingUpgrades/latest`,
    name: ss.name,
    type: `${VMSS_TYPE}/rollingUpgrades`,
    location: ss.location,
    properties: {
      policy: getPath(ss.model, "properties", "upgradePolicy", "rollingUpgradePolicy") ?? {},
      runningStatus: {
        code,
        startTime: new Date(startedAt).toISOString(),
        lastAction: "Start",
        lastActionTime: new Date(startedAt).toISOString(),
      },
      progress: {
        successfulInstanceCount: moved,
        failedInstanceCount: code === "Faulted" ? order.length - moved : 0,
        inProgressInstanceCount: Math.min(inProgress, order.length - moved),
        pendingInstanceCount: code === "RollingForward" ? Math.max(0, order.length - moved - inProgress) : 0,
      },
      ...(error ? { error: { code: error.code, message: error.message } } : {}),
    },
  });
}

// ---- Spot: evictions ----

/**
 * evictSpot fault: just before the matching request is handled, Azure evicts `evictions` running VMs of the Spot
 * scale set it addresses (lowest instance ids first): they stay listed, deallocated. Used up, and nothing happens,
 * when the scale set is not Spot.
 */
export function evictSpotVms(ss: ScaleSet, count: number): string[] {
  const priority = getPath(ss.model, "properties", "virtualMachineProfile", "priority");
  if (typeof priority !== "string" || priority.toLowerCase() !== "spot") return [];
  const running = sortedVms(ss).filter((vm) => vm.provisioningState === "Succeeded" && vm.powerState === "running");
  const evicted = running.slice(0, count);
  for (const vm of evicted) vm.powerState = "deallocated";
  return evicted.map((vm) => vm.instanceId);
}

// ---- control routes: giving a scale set a kind or a feature ----

function badRequest(message: string): ArmError {
  return new ArmError(400, "BadRequest", message);
}

function readBody(ctx: RequestContext, allowed: readonly string[]): JsonObject {
  let body: unknown;
  try {
    body = parseJsonBody(ctx) ?? {};
  } catch {
    throw badRequest("the body is not valid JSON");
  }
  if (!isObject(body)) throw badRequest("the body must be a JSON object");
  for (const key of Object.keys(body))
    if (!allowed.includes(key)) throw badRequest(`unknown field "${key}" (known: ${allowed.join(", ")})`);
  return body;
}

function controlScaleSet(sim: SimulatorContext, params: RouteParams): ScaleSet {
  const ss = sim.state.getScaleSet(params.resourceGroup, params.name);
  if (!ss) throw resourceNotFound(VMSS_TYPE, params.name, params.resourceGroup);
  if (ss.inFlight) throw new ArmError(409, "Conflict", "a write is in flight on this scale set");
  return ss;
}

const KIND_FIELDS = ["orchestrationMode", "automaticRepairs", "spot", "rolloutAfterWrite"] as const;

/**
 * PUT /_sim/scaleSets/{rg}/{name}/kind `{ orchestrationMode?: "Uniform" | "Flexible", automaticRepairs?: boolean,
 * spot?: boolean, rolloutAfterWrite?: boolean }`: the scale set is given that kind at once, as if it had been created
 * so (a new ETag). A change of orchestrationMode makes the VMs again in that mode (Flexible: standalone VMs with their
 * NICs, flexible.ts), as many as before. rolloutAfterWrite: a Rolling set's rollouts outlive their writes (rollout.ts).
 */
const putKind: Handler = (ctx, sim, params) => {
  const body = readBody(ctx, KIND_FIELDS);
  const ss = controlScaleSet(sim, params);
  const properties = isObject(ss.model.properties) ? ss.model.properties : (ss.model.properties = {});
  let remake = false;
  if (body.orchestrationMode !== undefined) {
    if (body.orchestrationMode !== "Uniform" && body.orchestrationMode !== "Flexible")
      throw badRequest('"orchestrationMode" must be "Uniform" or "Flexible"');
    remake = body.orchestrationMode !== (isFlexible(ss) ? "Flexible" : "Uniform");
    asOrchestrationMode(properties, body.orchestrationMode);
  }
  if (body.automaticRepairs !== undefined) {
    if (typeof body.automaticRepairs !== "boolean") throw badRequest('"automaticRepairs" must be true or false');
    properties.automaticRepairsPolicy = {
      enabled: body.automaticRepairs,
      gracePeriod: "PT10M",
      repairAction: "Replace",
    };
  }
  if (body.spot !== undefined) {
    if (typeof body.spot !== "boolean") throw badRequest('"spot" must be true or false');
    const profile = isObject(properties.virtualMachineProfile)
      ? properties.virtualMachineProfile
      : (properties.virtualMachineProfile = {});
    if (body.spot)
      Object.assign(profile, { priority: "Spot", evictionPolicy: "Deallocate", billingProfile: { maxPrice: -1 } });
    else for (const key of ["priority", "evictionPolicy", "billingProfile"]) delete profile[key];
  }
  if (body.rolloutAfterWrite !== undefined) {
    if (typeof body.rolloutAfterWrite !== "boolean") throw badRequest('"rolloutAfterWrite" must be true or false');
    setRolloutAfterWrite(ss, body.rolloutAfterWrite);
  }
  // The other orchestration mode has other VMs: made again, as if the scale set had been created so.
  if (remake) sim.state.remakeVmsNow(ss);
  // A change applied at once, recorded as the control API's version (an empty tag change bumps the ETag).
  sim.state.patchScaleSetNow(ss, { tags: {} });
  send(ctx, 200, {
    orchestrationMode: properties.orchestrationMode ?? "Uniform",
    automaticRepairs: repairsStateOf(ss),
    spot: body.spot ?? undefined,
  });
};

/**
 * The model's properties in the given orchestration mode, meeting its rules: Flexible needs a fault domain count and
 * the network profile's networkApiVersion, and has no overprovisioning and no single placement group (flexible.ts).
 */
function asOrchestrationMode(properties: JsonObject, mode: "Uniform" | "Flexible"): void {
  properties.orchestrationMode = mode;
  if (mode === "Uniform") return;
  for (const key of ["overprovision", "doNotRunExtensionsOnOverprovisionedVMs"]) delete properties[key];
  properties.singlePlacementGroup = false;
  if (typeof properties.platformFaultDomainCount !== "number" || properties.platformFaultDomainCount > 3)
    properties.platformFaultDomainCount = 1;
  const network = getPath(properties, "virtualMachineProfile", "networkProfile");
  if (isObject(network) && typeof network.networkApiVersion !== "string") network.networkApiVersion = "2020-11-01";
}

/** PUT /_sim/scaleSets/{rg}/{name}/virtualMachines/{instanceId}/protection `{ protectFromScaleIn?, protectFromScaleSetActions? }`. */
const putProtection: Handler = (ctx, sim, params) => {
  const body = readBody(ctx, ["protectFromScaleIn", "protectFromScaleSetActions"]);
  const ss = controlScaleSet(sim, params);
  const vm = ss.vms.get(params.instanceId);
  if (!vm) throw resourceNotFound(VMSS_TYPE, `${ss.name}/virtualMachines/${params.instanceId}`, ss.resourceGroup);
  const policy: { protectFromScaleIn?: boolean; protectFromScaleSetActions?: boolean } = {};
  for (const key of ["protectFromScaleIn", "protectFromScaleSetActions"] as const) {
    const value = body[key];
    if (value === undefined) continue;
    if (typeof value !== "boolean") throw badRequest(`"${key}" must be true or false`);
    policy[key] = value;
  }
  vm.protectionPolicy = policy;
  send(ctx, 200, { instanceId: vm.instanceId, protectionPolicy: policy });
};

/** POST /_sim/scaleSets/{rg}/{name}/evict `{ count? }`: Azure evicts that many running Spot VMs now (default 1). */
const postEvict: Handler = (ctx, sim, params) => {
  const body = readBody(ctx, ["count"]);
  const count = body.count ?? 1;
  if (typeof count !== "number" || !Number.isInteger(count) || count < 1 || count > 1000)
    throw badRequest('"count" must be a whole number from 1 to 1000');
  const ss = controlScaleSet(sim, params);
  send(ctx, 200, { evicted: evictSpotVms(ss, count) });
};

export function addKindControlRoutes(router: Router<Handler>, prefix: string): Router<Handler> {
  return router
    .add("PUT", `${prefix}/scaleSets/:resourceGroup/:name/kind`, putKind)
    .add("PUT", `${prefix}/scaleSets/:resourceGroup/:name/virtualMachines/:instanceId/protection`, putProtection)
    .add("POST", `${prefix}/scaleSets/:resourceGroup/:name/evict`, postEvict);
}
