// The ARM surface for Microsoft.Compute/virtualMachines, as far as Flexible scale sets need it: their VMs are standalone
// VMs, listed by scale set with `$filter='virtualMachineScaleSet/id' eq '…'` (the REST spec's VirtualMachines_List),
// read one by one (with `$expand=instanceView`, or `/instanceView`), deleted (the scale set's capacity goes down by
// one, as Azure's does) and started, stopped, restarted and deallocated. Each write is a long-running operation of the
// VM's scale set, through the same steps as the scale set's own writes (arm-checks.ts). A VM's own PUT/PATCH, and the
// VM actions not listed here, are not simulated (501).
import { ArmError, invalidParameter, notSimulated, resourceNotFound } from "./arm-errors.ts";
import {
  charged,
  chargeVms,
  checkWriteInFlight,
  instanceViewExpanded,
  lroHeaders,
  requireResourceGroup,
  requireSubscription,
  takeOperationFaults,
} from "./arm-checks.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { faultDomainOf, renderFlexibleVm, scaleSetIdOfFilter, VM_TYPE } from "./flexible.ts";
import { renderInstanceView } from "./health-probe.ts";
import { send, type RequestContext } from "./http.ts";
import type { JsonObject } from "./json.ts";
import { checkVmLocks } from "./locks.ts";
import { reportedVmHealth } from "./network/network-routes.ts";
import type { PowerAction } from "./power-state.ts";
import type { RouteParams } from "./router.ts";
import { isFlexible, scaleSetId, sortedVms, type ScaleSet, type Vm } from "./vmss-model.ts";

const SUB = "/subscriptions/:subscriptionId";
const VMS = `${SUB}/resourceGroups/:resourceGroup/providers/Microsoft.Compute/virtualMachines`;

/** The VM actions served, by the URL's last segment (the SDK's paths: `…/powerOff`, `…/deallocate`, …). */
const VM_ACTIONS: Readonly<Record<string, PowerAction>> = {
  start: "start",
  deallocate: "deallocate",
  poweroff: "powerOff",
  restart: "restart",
};

// Azure's VM policies are not modelled apart: a VM's reads count as a scale-set VM's, its writes as the scale set's
// instance actions (docs/simulator.md, "Flexible orchestration").
const perFlexibleVm = (params: RouteParams) =>
  `vm/${params.resourceGroup.toLowerCase()}/${params.vmName.toLowerCase()}`;

export function flexibleVmRoutes(): [string, string, Route][] {
  return [
    [
      "GET",
      `${SUB}/providers/Microsoft.Compute/virtualMachines`,
      { handler: listVms, charge: charged("GET", "HighCostGetVMScaleSet") },
    ],
    ["GET", VMS, { handler: listVms, charge: charged("GET", "HighCostGetVMScaleSet") }],
    ["GET", `${VMS}/:vmName`, { handler: getVm, charge: charged("GET", "GetVMScaleSetVM", perFlexibleVm) }],
    [
      "GET",
      `${VMS}/:vmName/instanceView`,
      { handler: getVmInstanceView, charge: charged("GET", "GetVMScaleSetVM", perFlexibleVm) },
    ],
    ["DELETE", `${VMS}/:vmName`, { handler: deleteVm, charge: charged("DELETE", "VMScaleSetActions") }],
    ["PUT", `${VMS}/:vmName`, { handler: notSimulatedVmWrite }],
    ["PATCH", `${VMS}/:vmName`, { handler: notSimulatedVmWrite }],
    ...Object.entries(VM_ACTIONS).map(([verb, action]): [string, string, Route] => [
      "POST",
      `${VMS}/:vmName/${verb}`,
      {
        handler: (ctx, sim, params) => vmAction(ctx, sim, params, action),
        charge: charged("POST", "VMScaleSetActions"),
      },
    ]),
  ];
}

// ---- lookups ----

function requireFlexibleVm(sim: SimulatorContext, params: RouteParams): { ss: ScaleSet; vm: Vm } {
  requireResourceGroup(sim, params);
  const found = sim.state.findFlexibleVm(params.resourceGroup, params.vmName);
  if (!found) throw resourceNotFound(VM_TYPE, params.vmName, params.resourceGroup);
  return found;
}

/** The scale set id the `$filter` names (lower case); anything but the REST spec's one filter is refused. */
function scaleSetFilterOf(ctx: RequestContext): string | undefined {
  const filter = ctx.url.searchParams.get("$filter");
  if (filter === null || filter.trim() === "") return undefined;
  const id = scaleSetIdOfFilter(filter);
  if (id === undefined) {
    throw invalidParameter(
      `The value of parameter $filter is invalid: allowed is 'virtualMachineScaleSet/id' eq '<scale set id>', got "${filter}".`,
      "$filter",
    );
  }
  return id;
}

/** Flexible: vmHealth only from the Application Health extension, never a load balancer's probe (reportedVmHealth). */
function vmInstanceView(sim: SimulatorContext, ss: ScaleSet, vm: Vm): JsonObject {
  return { platformFaultDomain: faultDomainOf(ss, vm), ...renderInstanceView(vm, reportedVmHealth(sim, ss, vm)) };
}

// ---- reads ----

/**
 * `GET …/virtualMachines` in a resource group (or the subscription): the Flexible scale sets' VMs, those of one scale
 * set with `$filter`; `$expand=instanceView` only with a `$filter` (the spec: "this can only be specified if a valid
 * $filter option is specified"); `vmPageSize` per page with a `nextLink`.
 */
const listVms: Handler = (ctx, sim, params) => {
  if (params.resourceGroup !== undefined) requireResourceGroup(sim, params);
  else requireSubscription(sim, params);
  const filter = scaleSetFilterOf(ctx);
  const expand = instanceViewExpanded(ctx);
  if (expand && filter === undefined) {
    throw invalidParameter(
      "The $expand=instanceView option can only be specified with a valid $filter option.",
      "$expand",
    );
  }
  const all = sim.state
    .listScaleSets(params.resourceGroup)
    .filter((ss) => isFlexible(ss) && (filter === undefined || scaleSetId(ss).toLowerCase() === filter))
    .flatMap((ss) => sortedVms(ss).map((vm) => ({ ss, vm })));
  const token = ctx.url.searchParams.get("$skiptoken");
  let offset = 0;
  if (token !== null) {
    if (!/^\d+$/.test(token)) throw invalidParameter("The value of parameter $skiptoken is invalid.", "$skiptoken");
    offset = Number(token);
  }
  const page = all.slice(offset, offset + sim.state.settings.vmPageSize);
  const body: JsonObject = {
    value: page.map(({ ss, vm }) =>
      renderFlexibleVm(ss, vm, sim.state.nicsOf(vm), expand ? vmInstanceView(sim, ss, vm) : undefined),
    ),
  };
  if (offset + page.length < all.length) {
    const next = new URL(`${ctx.baseUrl}${ctx.pathname}`);
    for (const [key, value] of ctx.url.searchParams) if (key !== "$skiptoken") next.searchParams.set(key, value);
    next.searchParams.set("$skiptoken", String(offset + page.length));
    body.nextLink = next.toString();
  }
  send(ctx, 200, body);
};

const getVm: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireFlexibleVm(sim, params);
  send(
    ctx,
    200,
    renderFlexibleVm(ss, vm, sim.state.nicsOf(vm), instanceViewExpanded(ctx) ? vmInstanceView(sim, ss, vm) : undefined),
  );
};

const getVmInstanceView: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireFlexibleVm(sim, params);
  send(ctx, 200, vmInstanceView(sim, ss, vm));
};

// ---- writes ----

/**
 * DELETE of a Flexible VM: 202 and a long-running operation of its scale set, which counts one VM fewer at once (the
 * VM `Deleting`, the set's `sku.capacity` lowered, as the batch delete does), its NICs removed with it unless their
 * deleteOption is Detach. A VM that does not exist: 204, as ARM answers a DELETE of a resource already gone. A VM under
 * a CanNotDelete or ReadOnly lock: 409 ScopeLocked (locks.ts).
 */
const deleteVm: Handler = (ctx, sim, params) => {
  requireResourceGroup(sim, params);
  const found = sim.state.findFlexibleVm(params.resourceGroup, params.vmName);
  if (!found) {
    send(ctx, 204);
    return;
  }
  const { ss, vm } = found;
  checkVmLocks(sim, ss, vm, "delete");
  if (vm.provisioningState === "Deleting") throw markedForDeletion("delete", vm);
  checkWriteInFlight(sim, ss);
  const headers = chargeVms(ctx, sim, params.subscriptionId, 1);
  const faults = takeOperationFaults(ctx, sim, false);
  const op = sim.state.acceptWrite(ss, {
    kind: "deleteInstances",
    instanceIds: [vm.instanceId],
    ifMatch: null,
    ...faults,
  });
  send(ctx, 202, undefined, { ...headers, ...lroHeaders(ctx, sim, op, 202) });
};

function markedForDeletion(action: string, vm: Vm): ArmError {
  return new ArmError(
    409,
    "OperationNotAllowed",
    `Operation '${action}' is not allowed on VM '${vm.instanceId}' since the VM is marked for deletion.`,
  );
}

/** POST …/virtualMachines/{name}/{start,deallocate,powerOff,restart}: a power action of the VM's scale set on that VM. */
function vmAction(ctx: RequestContext, sim: SimulatorContext, params: RouteParams, action: PowerAction): void {
  const { ss, vm } = requireFlexibleVm(sim, params);
  checkVmLocks(sim, ss, vm, action);
  if (vm.provisioningState === "Deleting") throw markedForDeletion(action, vm);
  checkWriteInFlight(sim, ss);
  const headers = chargeVms(ctx, sim, params.subscriptionId, 1);
  const faults = takeOperationFaults(ctx, sim, false);
  const op = sim.state.acceptWrite(ss, { kind: action, instanceIds: [vm.instanceId], ifMatch: null, ...faults });
  send(ctx, 202, undefined, { ...headers, ...lroHeaders(ctx, sim, op, 202) });
}

const notSimulatedVmWrite: Handler = (ctx) => {
  throw notSimulated(
    `A VM's own ${ctx.method} ('${ctx.pathname}') is not simulated: a Flexible scale set's VMs are made and changed through the scale set.`,
  );
};
