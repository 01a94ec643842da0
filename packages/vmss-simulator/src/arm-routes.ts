// The ARM surface for Microsoft.Compute/virtualMachineScaleSets, as @azure/arm-compute v25 uses it, and as the
// recorded Azure traffic in test/fixtures/azure-recordings answers it. This is the one route table: each route names
// its handler and the throttling policy it is charged to. A Flexible set's VMs and NICs have their own modules
// (vm-routes.ts, network/network-interfaces.ts), whose routes join this table.
import {
  ArmError,
  invalidParameter,
  invalidRequestContent,
  invalidResourceLocation,
  locationRequired,
  missingParameter,
  operationNotFound,
} from "./arm-errors.ts";
import {
  charged,
  chargeVms,
  checkPreconditions,
  checkWriteInFlight,
  createOrUpdatePolicy,
  apiVersionOf,
  instanceViewExpanded,
  lroHeaders,
  operationUrl,
  perOperation,
  perScaleSet,
  perVm,
  requireResourceGroup,
  requireScaleSet,
  requireSubscription,
  retryAfterHeader,
  takeOperationFaults,
} from "./arm-checks.ts";
import { getResourceGroup, getSubscription, listResourceGroups, listSubscriptions } from "./arm-reads.ts";
import { autoscaleArmRoutes } from "./autoscale/autoscale-routes.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { deploymentRoutes } from "./deployments.ts";
import { imageCatalogueRoutes } from "./image-catalogue.ts";
import { notAllowedOnFlexible } from "./flexible.ts";
import { renderScaleSetInstanceView, renderVmInstanceView } from "./instance-views.ts";
import { POWER_ACTION_VERBS, type PowerAction } from "./power-state.ts";
import { renderInstanceView } from "./health-probe.ts";
import { networkArmRoutes, vmHealth } from "./network/network-routes.ts";
import { networkInterfaceRoutes } from "./network/network-interfaces.ts";
import { keyVaultRoutes } from "./keyvault/secrets.ts";
import { locationHasZones, subscriptionReadRoutes } from "./subscription-reads.ts";
import { managedIdentityRoutes, resolveScaleSetIdentity } from "./managed-identities.ts";
import { header, parseJsonBody, send, type RequestContext } from "./http.ts";
import { getLatestRollingUpgrade, orchestrationServicesOf, setOrchestrationServiceState } from "./kinds.ts";
import { isObject, mergePatch, type JsonObject } from "./json.ts";
import { validateModel } from "./limits.ts";
import { checkScaleSetLocks, lockRoutes } from "./locks.ts";
import { checkScaleSetRules, withCreateDefaults } from "./scale-set-rules.ts";
import type { Operation, OperationKind } from "./lro.ts";
import { sendPage } from "./paging.ts";
import { managedImageRoutes } from "./managed-images.ts";
import { proximityPlacementGroupRoutes } from "./proximity-placement-groups.ts";
import { capacityReservationGroupRoutes } from "./capacity-reservation-groups.ts";
import { checkScaleSetReferences } from "./references.ts";
import { Router, type RouteParams } from "./router.ts";
import { AZURE_RETRY_AFTER } from "./settings.ts";
import { flexibleVmRoutes } from "./vm-routes.ts";
import { putVm, requireVm } from "./vm-update.ts";
import { resourceGroupResourceRoutes } from "./resource-group-resources.ts";
import {
  capacityOf,
  etagOf,
  isFlexible,
  normalizeLocation,
  renderScaleSet,
  asArmReturnsIt,
  scaleSetId,
  renderVm,
  sortedVms,
  writableModel,
  type ScaleSet,
  vmEtagOf,
  type Vm,
} from "./vmss-model.ts";

const SUB = "/subscriptions/:subscriptionId";
const VMSS = `${SUB}/resourceGroups/:resourceGroup/providers/Microsoft.Compute/virtualMachineScaleSets`;
const OPERATIONS = `${SUB}/providers/Microsoft.Compute/locations/:location`;

/** Every ARM route's method and pattern, as the router matches them (what a specification check walks). */
export function armRoutePatterns(): ReturnType<Router<Route>["patterns"]> {
  return buildArmRouter().patterns();
}

export function buildArmRouter(): Router<Route> {
  const table: [string, string, Route][] = [
    ...scaleSetRoutes(),
    ...instanceActionRoutes(),
    ...powerActionRoutes(),
    ...subscriptionAndOperationRoutes(),
    ...flexibleVmRoutes(),
    ...lockRoutes(
      `${SUB}/resourceGroups/:resourceGroup`,
      VMSS,
      `${SUB}/resourceGroups/:resourceGroup/providers/Microsoft.Compute/virtualMachines`,
    ),
    // before the generic Microsoft.Network routes, which know no networkInterfaces
    ...networkInterfaceRoutes(),
    ...networkArmRoutes(),
    ...keyVaultRoutes(),
    ...subscriptionReadRoutes(),
    ...imageCatalogueRoutes(),
    // a deployment PUTs its resources through this same table
    ...deploymentRoutes(() => router),
    ...managedIdentityRoutes(),
    ...proximityPlacementGroupRoutes(),
    ...managedImageRoutes(),
    ...capacityReservationGroupRoutes(),
    ...resourceGroupResourceRoutes(),
    ...autoscaleArmRoutes(),
  ];
  const router = new Router<Route>();
  for (const [method, pattern, entry] of table) router.add(method, pattern, entry);
  return router;
}

/** Scale sets and their VMs: list, read, write, delete. */
function scaleSetRoutes(): [string, string, Route][] {
  return [
    [
      "GET",
      `${SUB}/providers/Microsoft.Compute/virtualMachineScaleSets`,
      { handler: listAllScaleSets, charge: charged("GET", "HighCostGetVMScaleSet") },
    ],
    ["GET", VMSS, { handler: listScaleSets, charge: charged("GET", "HighCostGetVMScaleSet") }],
    ["GET", `${VMSS}/:name`, { handler: getScaleSet, charge: charged("GET", "GetVMScaleSet", perScaleSet) }],
    ["PUT", `${VMSS}/:name`, { handler: putScaleSet, charge: charged("PUT", createOrUpdatePolicy, perScaleSet) }],
    ["PATCH", `${VMSS}/:name`, { handler: patchScaleSet, charge: charged("PATCH", "VMScaleSetActions", perScaleSet) }],
    [
      "DELETE",
      `${VMSS}/:name`,
      { handler: deleteScaleSet, charge: charged("DELETE", "DeleteVMScaleSet", perScaleSet) },
    ],
    [
      "GET",
      `${VMSS}/:name/virtualMachines`,
      { handler: listVms, charge: charged("GET", "HighCostGetVMScaleSet", perScaleSet) },
    ],
    [
      "GET",
      `${VMSS}/:name/virtualMachines/:instanceId`,
      { handler: getVm, charge: charged("GET", "GetVMScaleSetVM", perVm) },
    ],
    [
      "PUT",
      `${VMSS}/:name/virtualMachines/:instanceId`,
      { handler: putVm, charge: charged("PUT", "VMScaleSetActions") },
    ],
  ];
}

/** The scale set's actions on instances, its instance view and rolling upgrades. */
function instanceActionRoutes(): [string, string, Route][] {
  return [
    // py[39], py[48]: the instance actions report only the subscription bucket of VMScaleSetActions
    [
      "POST",
      `${VMSS}/:name/delete`,
      {
        handler: (ctx, sim, params) => instanceAction(ctx, sim, params, "deleteInstances"),
        charge: charged("POST", "VMScaleSetActions"),
      },
    ],
    [
      "POST",
      `${VMSS}/:name/manualupgrade`,
      {
        handler: (ctx, sim, params) => instanceAction(ctx, sim, params, "updateInstances"),
        charge: charged("POST", "VMScaleSetActions"),
      },
    ],
    [
      "GET",
      `${VMSS}/:name/instanceView`,
      { handler: getScaleSetInstanceView, charge: charged("GET", "GetVMScaleSet", perScaleSet) },
    ],
    [
      "GET",
      `${VMSS}/:name/rollingUpgrades/latest`,
      { handler: getLatestRollingUpgrade, charge: charged("GET", "GetVMScaleSet", perScaleSet) },
    ],
    [
      "POST",
      `${VMSS}/:name/setOrchestrationServiceState`,
      { handler: setOrchestrationServiceState, charge: charged("POST", "VMScaleSetActions") },
    ],
    [
      "GET",
      `${VMSS}/:name/virtualMachines/:instanceId/instanceView`,
      { handler: getVmInstanceView, charge: charged("GET", "GetVMScaleSetVM", perVm) },
    ],
  ];
}

/** Power actions on a scale set and on one VM of it. */
function powerActionRoutes(): [string, string, Route][] {
  return [
    // poweroff[4]: a scale set's power action reports the subscription bucket of DeleteVMScaleSet (a VM's: not recorded)
    ...Object.entries(POWER_ACTION_VERBS).flatMap(([verb, action]): [string, string, Route][] => [
      [
        "POST",
        `${VMSS}/:name/${verb}`,
        {
          handler: (ctx, sim, params) => powerAction(ctx, sim, params, action),
          charge: charged("POST", "DeleteVMScaleSet"),
        },
      ],
      [
        "POST",
        `${VMSS}/:name/virtualMachines/:instanceId/${verb}`,
        {
          handler: (ctx, sim, params) => powerAction(ctx, sim, params, action),
          charge: charged("POST", "VMScaleSetActions"),
        },
      ],
    ]),
  ];
}

/** Subscriptions, resource groups, and the status of long-running operations. */
function subscriptionAndOperationRoutes(): [string, string, Route][] {
  return [
    ["GET", "/subscriptions", { handler: listSubscriptions }],
    ["GET", SUB, { handler: getSubscription }],
    ["GET", `${SUB}/resourceGroups`, { handler: listResourceGroups }],
    ["GET", `${SUB}/resourceGroups/:resourceGroup`, { handler: getResourceGroup }],
    [
      "GET",
      `${OPERATIONS}/operations/:operationId`,
      { handler: getOperationStatus, charge: charged("GET", "GetOperation", perOperation) },
    ],
    [
      "GET",
      `${OPERATIONS}/operationResults/:operationId`,
      { handler: getOperationResult, charge: charged("GET", "GetOperation", perOperation) },
    ],
  ];
}

function vmChangeOf(ss: ScaleSet | undefined, capacity: number): { created: number; removed: number } {
  const active = ss ? sortedVms(ss).filter((vm) => vm.provisioningState !== "Deleting") : [];
  const retried = active.slice(0, capacity).filter((vm) => vm.provisioningState === "Failed").length;
  return { created: Math.max(0, capacity - active.length) + retried, removed: Math.max(0, active.length - capacity) };
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
  sendPage(ctx, sim, sim.state.listScaleSets(), (ss) => armScaleSet(ss));
};

const listScaleSets: Handler = (ctx, sim, params) => {
  const rg = requireResourceGroup(sim, params);
  sendPage(ctx, sim, sim.state.listScaleSets(rg), (ss) => armScaleSet(ss));
};

/** The scale set as ARM returns it (asArmReturnsIt): userData only when the GET asks for it with $expand=userData. */
function armScaleSet(ss: ScaleSet, ctx?: RequestContext): JsonObject {
  const expand = (ctx?.url.searchParams.get("$expand") ?? "").toLowerCase();
  return asArmReturnsIt(renderScaleSet(ss), { userData: expand === "userdata" });
}

const getScaleSet: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  send(ctx, 200, armScaleSet(ss, ctx), { etag: etagOf(ss) });
};

function vmInstanceView(sim: SimulatorContext, vm: Vm): JsonObject {
  return renderInstanceView(vm, vmHealth(sim, vm));
}

const listVms: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  if (isFlexible(ss)) throw notAllowedOnFlexible(ss, "virtualMachines.GET");
  const token = ctx.url.searchParams.get("$skiptoken");
  let after = -1;
  if (token !== null) {
    if (!/^\d+$/.test(token)) throw invalidParameter("The value of parameter $skiptoken is invalid.", "$skiptoken");
    after = Number(token);
  }
  const remaining = sortedVms(ss).filter((vm) => Number(vm.instanceId) > after);
  const page = remaining.slice(0, sim.state.settings.vmPageSize);
  const expand = instanceViewExpanded(ctx);
  const body: JsonObject = { value: page.map((vm) => renderVm(ss, vm, expand ? vmInstanceView(sim, vm) : undefined)) };
  if (remaining.length > page.length) {
    const last = page[page.length - 1].instanceId;
    body.nextLink = `${ctx.baseUrl}${ctx.pathname}?api-version=${encodeURIComponent(apiVersionOf(ctx))}${expand ? "&$expand=instanceView" : ""}&$skiptoken=${last}`;
  }
  send(ctx, 200, body);
};

const getVm: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireVm(sim, params, "virtualMachines.GET");
  send(ctx, 200, renderVm(ss, vm, instanceViewExpanded(ctx) ? vmInstanceView(sim, vm) : undefined), {
    etag: vmEtagOf(vm),
  });
};

// ---- writes ----

/** Zones in a location that has none: Azure's 400, as it answers a zonal write there (its wording, its code). */
function refuseZonesWithout(location: string, zones: unknown, ctx: RequestContext): void {
  if (!Array.isArray(zones) || zones.length === 0 || locationHasZones(location)) return;
  throw new ArmError(
    400,
    "ResourceTypeNotSupportAvailabilityZones",
    `The resource type 'virtualMachineScaleSets' does not support availability zones at location '${location}' and api-version '${apiVersionOf(ctx)}'.`,
  );
}

/**
 * PUT: a create (201, `Creating`, ETag "1") gets Azure's defaults; on an existing scale set PUT has PATCH semantics
 * (Microsoft Learn, "PUT calls for creation or updates on compute resources": omitted properties keep their values,
 * no defaults are applied), so a PUT of `{location, sku}` — `az vmss scale` — keeps tags and the VM profile.
 */
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
  const given = writableModel(body);
  if (!existing && (given.sku === undefined || given.sku === null)) throw missingParameter("sku");
  refuseZonesWithout(existing?.location ?? location!, given.zones, ctx);
  const merged = existing ? mergePatch(existing.model, given, ["tags"]) : withCreateDefaults(given);
  validateModel(merged);
  checkScaleSetRules(params.name, merged, existing?.model);
  const id = scaleSetId({ subscriptionId: params.subscriptionId, resourceGroup: rg, name: params.name });
  const model = resolveScaleSetIdentity(sim, merged, id, existing?.model);
  checkScaleSetReferences(sim, model, id, existing?.location ?? location!);
  checkPreconditions(ctx, existing);
  checkScaleSetLocks(sim, existing ?? { subscriptionId: params.subscriptionId, resourceGroup: rg }, "write");
  checkWriteInFlight(sim, existing);

  const change = vmChangeOf(existing, capacityOf(model));
  const headers = chargeVms(ctx, sim, params.subscriptionId, 2 * change.created + change.removed);
  const faults = takeOperationFaults(ctx, sim, change.created > 0);
  const ss = existing ?? sim.state.createPending(rg, params.name, location!);
  const op = sim.state.acceptWrite(
    ss,
    { kind: "createOrUpdate", newModel: model, ifMatch: header(ctx, "if-match") ?? null, ...faults },
    !existing,
  );
  respondToModelWrite(ctx, sim, ss, op, existing ? 200 : 201, headers);
};

/** PATCH: objects merge, arrays and tags replace as a whole; applied at acceptance (update[11]–[13]). */
const patchScaleSet: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  const patch = writableModel(readObjectBody(ctx));
  const merged = mergePatch(ss.model, patch, ["tags"]);
  validateModel(merged);
  checkScaleSetRules(ss.name, merged, ss.model);
  const model = resolveScaleSetIdentity(sim, merged, scaleSetId(ss), ss.model);
  checkScaleSetReferences(sim, model, scaleSetId(ss), ss.location);
  checkPreconditions(ctx, ss);
  checkScaleSetLocks(sim, ss, "write");
  checkWriteInFlight(sim, ss);

  const change = vmChangeOf(ss, capacityOf(model));
  const headers = chargeVms(ctx, sim, params.subscriptionId, 2 * change.created + change.removed);
  const faults = takeOperationFaults(ctx, sim, change.created > 0);
  const op = sim.state.acceptWrite(ss, {
    kind: "update",
    newModel: model,
    ifMatch: header(ctx, "if-match") ?? null,
    ...faults,
  });
  respondToModelWrite(ctx, sim, ss, op, 200, headers);
};

/**
 * The first response of a PUT/PATCH is the scale set as it now is: the requested model, `Updating` (`Creating` for a
 * create) and the new ETag — the same a GET during the write shows (update[11] and [12] agree).
 */
function respondToModelWrite(
  ctx: RequestContext,
  sim: SimulatorContext,
  ss: ScaleSet,
  op: Operation,
  status: number,
  headers: Record<string, string>,
): void {
  send(ctx, status, armScaleSet(ss), { etag: etagOf(ss), ...headers, ...lroHeaders(ctx, sim, op, status) });
}

/**
 * DELETE of the whole scale set (delete[4]): 202 with no body, Azure-AsyncOperation, Location and Retry-After 10;
 * while it runs the scale set reads `Deleting` and its VMs `Deleting`, at completion it is gone (GET 404). A scale set
 * that does not exist: 204 (the REST spec's answer for a resource already gone).
 */
const deleteScaleSet: Handler = (ctx, sim, params) => {
  const rg = requireResourceGroup(sim, params);
  const ss = sim.state.getScaleSet(rg, params.name);
  checkPreconditions(ctx, ss);
  if (!ss) {
    send(ctx, 204);
    return;
  }
  // Deleting a Flexible set deletes its VMs: a lock on any of them refuses it.
  checkScaleSetLocks(sim, ss, "delete", [...ss.vms.values()]);
  checkWriteInFlight(sim, ss);
  const headers = chargeVms(
    ctx,
    sim,
    params.subscriptionId,
    2 * [...ss.vms.values()].filter((vm) => vm.provisioningState !== "Deleting").length,
  );
  const faults = takeOperationFaults(ctx, sim, false);
  const op = sim.state.acceptWrite(ss, { kind: "delete", ifMatch: header(ctx, "if-match") ?? null, ...faults });
  send(ctx, 202, undefined, { ...headers, ...lroHeaders(ctx, sim, op, 202) });
};

function parseInstanceIds(body: unknown): string[] {
  if (body === undefined) throw missingParameter("instanceIds");
  if (!isObject(body)) throw invalidRequestContent("The request body must be a JSON object");
  const ids = body.instanceIds;
  if (ids === undefined || ids === null) throw missingParameter("instanceIds");
  if (!Array.isArray(ids))
    throw invalidParameter(
      "The value of parameter instanceIds is invalid: it must be a list of instance ids.",
      "instanceIds",
    );
  if (ids.length === 0)
    throw invalidParameter(
      "The value of parameter instanceIds is invalid: the list of instance ids is empty.",
      "instanceIds",
    );
  const out: string[] = [];
  for (const id of ids) {
    if (typeof id !== "string" && typeof id !== "number") {
      throw invalidParameter(
        `The value of parameter instanceIds is invalid: '${JSON.stringify(id)}' is not an instance id.`,
        "instanceIds",
      );
    }
    const text = String(id).trim();
    if (!out.includes(text)) out.push(text);
  }
  return out;
}

/**
 * POST …/delete (deleteInstances) and POST …/manualupgrade (updateInstances): 202 with Azure-AsyncOperation and
 * Location, no Retry-After (py[39], py[48]). An id that is unknown or being deleted is "not active": the 400 names the
 * first such id only, as Azure's message does.
 */
function instanceAction(ctx: RequestContext, sim: SimulatorContext, params: RouteParams, kind: OperationKind): void {
  const ss = requireScaleSet(sim, params);
  // Flexible: the batch delete takes VM names as instance ids (Azure/azure-sdk-for-go issue 19588); no manualupgrade.
  if (isFlexible(ss) && kind === "updateInstances") throw notAllowedOnFlexible(ss, "manualupgrade.POST");
  let ids = parseInstanceIds(parseJsonBody(ctx));
  const active = (id: string) => {
    const vm = ss.vms.get(id);
    return vm !== undefined && vm.provisioningState !== "Deleting";
  };
  if (ids.includes("*"))
    ids = sortedVms(ss)
      .map((vm) => vm.instanceId)
      .filter(active);
  const inactive = ids.find((id) => !active(id));
  if (inactive !== undefined) {
    throw invalidParameter(
      `The provided instanceId ${inactive} is not an active Virtual Machine Scale Set VM instanceId.`,
      "instanceIds",
    );
  }
  checkPreconditions(ctx, ss);
  checkScaleSetLocks(sim, ss, "write", kind === "deleteInstances" ? ids.map((id) => ss.vms.get(id)!) : []);
  checkWriteInFlight(sim, ss);

  const headers = chargeVms(ctx, sim, params.subscriptionId, ids.length);
  const faults = takeOperationFaults(ctx, sim, false);
  const op = sim.state.acceptWrite(ss, { kind, instanceIds: ids, ifMatch: header(ctx, "if-match") ?? null, ...faults });
  send(ctx, 202, undefined, { ...headers, ...lroHeaders(ctx, sim, op, 202) });
}

// ---- instance views and power actions ----

const getScaleSetInstanceView: Handler = (ctx, sim, params) => {
  const ss = requireScaleSet(sim, params);
  if (isFlexible(ss)) throw notAllowedOnFlexible(ss, "instanceView.GET");
  send(ctx, 200, { ...renderScaleSetInstanceView(ss), ...orchestrationServicesOf(ss) });
};

const getVmInstanceView: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireVm(sim, params, "virtualMachines.instanceView.GET");
  send(ctx, 200, renderVmInstanceView(ss, vm, sim.state.settings, sim.state.now()));
};

/**
 * POST …/{deallocate,start,poweroff,restart,reimage} on the scale set (body `{ instanceIds }` optional: none = every
 * VM) or on one VM (…/virtualMachines/{id}/…): 202 with Azure-AsyncOperation and Location, no Retry-After
 * (poweroff[4]); the VMs show the transitional power state until it completes. A write like any other: 409 while
 * another runs on the scale set, and it holds the scale set while it runs.
 */
function powerAction(ctx: RequestContext, sim: SimulatorContext, params: RouteParams, action: PowerAction): void {
  let ss: ScaleSet;
  let ids: string[];
  const active = (id: string) => {
    const vm = ss.vms.get(id);
    return vm !== undefined && vm.provisioningState !== "Deleting";
  };
  if (params.instanceId !== undefined) {
    ss = requireVm(sim, params, `virtualMachines.${action}.POST`).ss;
    ids = [params.instanceId];
  } else {
    ss = requireScaleSet(sim, params);
    // Flexible: batch start, stop, restart and deallocate by VM name; reimage is a single-VM API there.
    if (isFlexible(ss) && action === "reimage") throw notAllowedOnFlexible(ss, "reimage.POST");
    const body = parseJsonBody(ctx);
    const everyVm =
      body === undefined || (isObject(body) && (body.instanceIds === undefined || body.instanceIds === null));
    ids = everyVm ? ["*"] : parseInstanceIds(body);
    if (ids.includes("*"))
      ids = sortedVms(ss)
        .map((vm) => vm.instanceId)
        .filter(active);
  }
  const inactive = ids.find((id) => !active(id));
  if (inactive !== undefined) {
    throw invalidParameter(
      `The provided instanceId ${inactive} is not an active Virtual Machine Scale Set VM instanceId.`,
      "instanceIds",
    );
  }
  checkScaleSetLocks(sim, ss, "write");
  checkWriteInFlight(sim, ss);
  const headers = chargeVms(ctx, sim, params.subscriptionId, ids.length);
  const faults = takeOperationFaults(ctx, sim, false);
  const op = sim.state.acceptWrite(ss, { kind: action, instanceIds: ids, ifMatch: null, ...faults });
  send(ctx, 202, undefined, { ...headers, ...lroHeaders(ctx, sim, op, 202) });
}

// ---- operation status ----

function requireOperation(sim: SimulatorContext, params: RouteParams): Operation {
  requireSubscription(sim, params);
  const op = sim.state.getOperation(params.operationId);
  if (!op || op.subscriptionId.toLowerCase() !== params.subscriptionId.toLowerCase())
    throw operationNotFound(params.operationId);
  return op;
}

/** Retry-After of an InProgress poll: the first poll of a create 61, later 30, … (settings.AZURE_RETRY_AFTER). */
function pollRetryAfter(sim: SimulatorContext, op: Operation): Record<string, string> {
  if (op.status !== "InProgress") return {};
  const figures = AZURE_RETRY_AFTER[op.writeKind];
  op.polls++;
  return retryAfterHeader(sim, op.polls === 1 ? figures.firstPoll : figures.poll);
}

/**
 * The Azure-AsyncOperation URL, always 200: `{ startTime, endTime?, status, error?, name }` (update[1]–[2]). `Failed`
 * and `Canceled` carry `error: { code, message }` (OperationPreempted for a preempted write); with the SDK a Failed
 * status throws "The long-running operation has failed", a Canceled one "Operation was canceled" (@azure/core-lro).
 */
const getOperationStatus: Handler = (ctx, sim, params) => {
  if (ctx.url.searchParams.get("monitor") === "true") {
    getOperationResult(ctx, sim, params);
    return;
  }
  const op = requireOperation(sim, params);
  const body: JsonObject = { startTime: new Date(op.startedAt).toISOString() };
  if (op.endTime !== undefined) body.endTime = new Date(op.endTime).toISOString();
  body.status = op.status;
  if (op.error) body.error = { ...op.error };
  body.name = op.id;
  send(ctx, 200, body, pollRetryAfter(sim, op));
};

/**
 * The Location URL (`…/operations/{id}?…&monitor=true`, also answered at `…/operationResults/{id}`): 202 while in
 * progress, 200 with no body when done (poweroff[13], py[42]), the error when it failed or was canceled.
 */
const getOperationResult: Handler = (ctx, sim, params) => {
  const op = requireOperation(sim, params);
  if (op.status === "InProgress") {
    send(ctx, 202, undefined, { location: operationUrl(ctx, op, "location"), ...pollRetryAfter(sim, op) });
  } else if (op.status === "Succeeded") {
    send(ctx, 200);
  } else {
    const status = op.status === "Canceled" ? 409 : (op.failureStatus ?? 500);
    send(ctx, status, {
      error: { ...(op.error ?? { code: "InternalExecutionError", message: "The operation failed." }) },
    });
  }
};
