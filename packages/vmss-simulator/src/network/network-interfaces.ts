// Microsoft.Network/networkInterfaces: the NICs of Flexible scale sets' VMs (made with each VM, flexible.ts). `GET` one,
// list a resource group's, and `PUT` one — with its ETag (`W/"n"`) and `If-Match` (412 PreconditionFailed on a
// mismatch), answered as Microsoft.Network answers a NIC update: 200 with the NIC and an `Azure-AsyncOperation` URL
// that reads Succeeded (a NIC update completes at once here). What the NIC's IP configurations name is what the load
// balancers and application gateways count as their members (network-routes.ts). Creating or deleting a NIC on its
// own is not simulated (501): Azure makes and removes them with their VMs.
import { randomUUID } from "node:crypto";
import { ArmError, notSimulated, resourceNotFound } from "../arm-errors.ts";
import { checkIfMatch, requireResourceGroup, requireSubscription } from "../arm-checks.ts";
import type { Handler, Route, SimulatorContext } from "../context.ts";
import { flexibleVmId, NIC_TYPE, nicEtag, renderNic, type Nic } from "../flexible.ts";
import { parseJsonBody, send } from "../http.ts";
import { clone, isObject, type JsonObject } from "../json.ts";
import { sendPage } from "../paging.ts";
import type { RouteParams } from "../router.ts";
import type { SimState } from "../state.ts";

const SUB = "/subscriptions/:subscriptionId";
const NICS = `${SUB}/resourceGroups/:resourceGroup/providers/Microsoft.Network/networkInterfaces`;

/** Network operations answered so far, per simulator world: they all completed when they were accepted. */
const operations = new WeakMap<SimState, Set<string>>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const networkOperationWorlds = operations;

function operationsOf(state: SimState): Set<string> {
  let ops = operations.get(state);
  if (!ops) operations.set(state, (ops = new Set()));
  return ops;
}

function vmIdOf(sim: SimulatorContext, nic: Nic): string | undefined {
  if (!nic.vm) return undefined;
  const ss = sim.state.scaleSets.get(nic.vm.scaleSetKey);
  return ss ? flexibleVmId(ss, nic.vm.name) : undefined;
}

function requireNic(sim: SimulatorContext, params: RouteParams): Nic {
  requireResourceGroup(sim, params);
  const nic = sim.state.getNic(params.resourceGroup, params.name);
  if (!nic) throw resourceNotFound(NIC_TYPE, params.name, params.resourceGroup);
  return nic;
}

const getNicRoute: Handler = (ctx, sim, params) => {
  const nic = requireNic(sim, params);
  send(ctx, 200, renderNic(nic, vmIdOf(sim, nic)), { etag: nicEtag(nic) });
};

/** A group's NICs (NetworkInterfaces_List) or the subscription's (NetworkInterfaces_ListAll), paged. */
const listNics: Handler = (ctx, sim, params) => {
  const rg = params.resourceGroup;
  if (rg !== undefined) requireResourceGroup(sim, params);
  else requireSubscription(sim, params);
  const nics = [...sim.state.nics.values()].filter(
    (nic) => rg === undefined || nic.resourceGroup.toLowerCase() === rg.toLowerCase(),
  );
  sendPage(ctx, sim, nics, (nic) => renderNic(nic, vmIdOf(sim, nic)));
};

/** What a NIC keeps of a PUT's IP configurations: what was written, without ids, ETags and provisioning states. */
function writableIpConfigurations(value: unknown): JsonObject[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isObject).map((ipc) => {
    const { id: _id, etag: _etag, type: _type, ...rest } = clone(ipc);
    if (isObject(rest.properties)) delete rest.properties.provisioningState;
    return rest;
  });
}

/**
 * PUT of an existing NIC: the body replaces its properties (a PUT, not a merge), `If-Match` first (412 on a stale
 * ETag, `*` any), a new ETag; the pools its IP configurations name from now on are its VM's pools.
 */
const putNic: Handler = (ctx, sim, params) => {
  requireResourceGroup(sim, params);
  const nic = sim.state.getNic(params.resourceGroup, params.name);
  if (!nic)
    throw notSimulated(
      `Creating a network interface on its own ('${params.name}') is not simulated: Azure makes a Flexible VM's NICs with the VM.`,
    );
  const body = parseJsonBody(ctx);
  if (!isObject(body)) throw new ArmError(400, "InvalidRequestFormat", "The request body must be a JSON object.");
  checkIfMatch(ctx, nicEtag(nic));
  const properties = isObject(body.properties) ? clone(body.properties) : {};
  for (const key of ["provisioningState", "virtualMachine", "resourceGuid", "macAddress"]) delete properties[key];
  properties.ipConfigurations = writableIpConfigurations(properties.ipConfigurations);
  nic.properties = properties;
  if (isObject(body.tags)) nic.tags = clone(body.tags) as Record<string, string>;
  nic.version++;
  const opId = randomUUID();
  operationsOf(sim.state).add(opId);
  const apiVersion = ctx.url.searchParams.get("api-version") ?? "";
  send(ctx, 200, renderNic(nic, vmIdOf(sim, nic)), {
    etag: nicEtag(nic),
    "azure-asyncoperation": `${ctx.baseUrl}/subscriptions/${nic.subscriptionId}/providers/Microsoft.Network/locations/${nic.location}/operations/${opId}?api-version=${encodeURIComponent(apiVersion)}`,
  });
};

const deleteNic: Handler = (ctx, sim, params) => {
  const nic = requireNic(sim, params);
  throw notSimulated(
    `Deleting a network interface on its own ('${nic.name}') is not simulated: Azure removes a Flexible VM's NICs with the VM.`,
  );
};

/** `GET …/providers/Microsoft.Network/locations/{location}/operations/{id}`: a NIC update's status. */
const getNetworkOperation: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  if (!operationsOf(sim.state).has(params.operationId))
    throw new ArmError(404, "NotFound", `The operation '${params.operationId}' was not found.`);
  send(ctx, 200, { status: "Succeeded" });
};

/** Before the generic Microsoft.Network routes (network-routes.ts), which know no networkInterfaces. */
export function networkInterfaceRoutes(): [string, string, Route][] {
  return [
    ["GET", NICS, { handler: listNics }],
    ["GET", `${SUB}/providers/Microsoft.Network/networkInterfaces`, { handler: listNics }],
    ["GET", `${NICS}/:name`, { handler: getNicRoute }],
    ["PUT", `${NICS}/:name`, { handler: putNic }],
    ["DELETE", `${NICS}/:name`, { handler: deleteNic }],
    [
      "GET",
      `${SUB}/providers/Microsoft.Network/locations/:location/operations/:operationId`,
      { handler: getNetworkOperation },
    ],
  ];
}
