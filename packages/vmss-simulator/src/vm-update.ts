// PUT …/virtualMachineScaleSets/{name}/virtualMachines/{instanceId} (the REST spec's VirtualMachineScaleSetVMs_Update;
// there is no PATCH): one Uniform instance's own configuration. Simulated for `properties.networkProfileConfiguration`
// (writable in the spec's VirtualMachineScaleSetVMProperties): the NIC configurations the instance takes, so its
// backend-pool membership follows them (`az vmss update --instance-id N --remove
// networkProfileConfiguration.networkInterfaceConfigurations[0].ipConfigurations[0].loadBalancerBackendAddressPools 0`).
// The instance then differs from the model (`latestModelApplied: false`) until it is upgraded to it: manualUpgrade,
// or a rolling or automatic upgrade of a new model, gives it the model's NICs back (state.ts).
//
// A write like the scale set's instance actions: If-Match against the VM's own ETag, a lock or a write in flight
// refuses it, a long-running operation (200 with the VM, Azure-AsyncOperation and Location) whose success gives the
// instance its NICs; the VM's ETag changes at acceptance. Any other property that differs from what the VM holds is
// not simulated (501): the write would otherwise be answered as done and change nothing.
import {
  ArmError,
  VMSS_TYPE,
  invalidParameter,
  invalidRequestContent,
  notSimulated,
  resourceNotFound,
} from "./arm-errors.ts";
import {
  chargeVms,
  checkIfMatch,
  checkWriteInFlight,
  lroHeaders,
  requireScaleSet,
  takeOperationFaults,
} from "./arm-checks.ts";
import type { Handler, SimulatorContext } from "./context.ts";
import { instanceIdMustBeNumber, notAllowedOnFlexible } from "./flexible.ts";
import { header, parseJsonBody, send } from "./http.ts";
import { canonicalJson, getPath, isObject, type JsonObject } from "./json.ts";
import { checkScaleSetLocks } from "./locks.ts";
import { checkNetworkReferences } from "./references.ts";
import type { RouteParams } from "./router.ts";
import { isFlexible, renderVm, scaleSetId, vmEtagOf, type ScaleSet, type Vm } from "./vmss-model.ts";

/** Properties a PUT body may carry as read: computed by Azure, or what networkProfileConfiguration makes. */
const READ_ONLY_PROPERTIES = new Set([
  "latestModelApplied",
  "vmId",
  "instanceView",
  "provisioningState",
  "timeCreated",
  "modelDefinitionApplied",
  "networkProfile",
  "networkProfileConfiguration",
  "resilientVMDeletionStatus",
]);

/** A Uniform VM (…/virtualMachines/{instanceId}); on a Flexible set the Uniform VM APIs are refused as Azure does. */
export function requireVm(sim: SimulatorContext, params: RouteParams, operation: string): { ss: ScaleSet; vm: Vm } {
  const ss = requireScaleSet(sim, params);
  if (isFlexible(ss))
    throw /^\d+$/.test(params.instanceId) ? notAllowedOnFlexible(ss, operation) : instanceIdMustBeNumber();
  const vm = ss.vms.get(params.instanceId);
  if (!vm) throw resourceNotFound(VMSS_TYPE, `${ss.name}/virtualMachines/${params.instanceId}`, params.resourceGroup);
  return { ss, vm };
}

function readBody(ctx: Parameters<Handler>[0]): JsonObject {
  const body = parseJsonBody(ctx);
  if (body === undefined) throw invalidRequestContent("The request body is empty");
  if (!isObject(body)) throw invalidRequestContent("The request body must be a JSON object");
  return body;
}

/** 501 for a property this PUT would change that the simulator does not: only the NIC configurations are simulated. */
function refuseOtherChanges(body: JsonObject, current: JsonObject): void {
  const given = isObject(body.properties) ? body.properties : {};
  const held = isObject(current.properties) ? current.properties : {};
  for (const [key, value] of Object.entries(given)) {
    if (READ_ONLY_PROPERTIES.has(key) || value === undefined) continue;
    if (canonicalJson(value) !== canonicalJson(held[key] ?? null))
      throw notSimulated(
        `A scale-set VM's PUT changing properties.${key} is not simulated: only properties.networkProfileConfiguration is.`,
      );
  }
}

/** The instance's NIC configurations after the PUT: the body's, same NIC names as the instance's; else its own. */
function nicsOf(body: JsonObject, current: JsonObject): unknown[] {
  const held = getPath(current, "properties", "networkProfileConfiguration", "networkInterfaceConfigurations");
  const heldNics = Array.isArray(held) ? held : [];
  const given = getPath(body, "properties", "networkProfileConfiguration", "networkInterfaceConfigurations");
  if (given === undefined || given === null) return heldNics;
  const target = "properties.networkProfileConfiguration.networkInterfaceConfigurations";
  if (!Array.isArray(given) || !given.every((nic) => isObject(nic) && typeof nic.name === "string"))
    throw invalidParameter(`The value of parameter ${target} is invalid: a list of named NIC configurations.`, target);
  const names = (nics: unknown[]) => nics.map((nic) => String((nic as JsonObject).name).toLowerCase()).sort();
  if (canonicalJson(names(given)) !== canonicalJson(names(heldNics)))
    throw new ArmError(
      400,
      "OperationNotAllowed",
      `Network interface configurations cannot be added to or removed from a scale-set VM: it has ${names(heldNics).join(", ")}.`,
      { target },
    );
  return given;
}

/** PUT …/virtualMachines/{instanceId}: the instance's NIC configurations, as a long-running write of the scale set. */
export const putVm: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireVm(sim, params, "virtualMachines.PUT");
  const body = readBody(ctx);
  const current = renderVm(ss, vm);
  if (typeof body.location === "string" && body.location.replace(/\s+/g, "").toLowerCase() !== ss.location)
    throw invalidParameter(`The value of parameter location is invalid: the VM is in '${ss.location}'.`, "location");
  refuseOtherChanges(body, current);
  const nics = nicsOf(body, current);
  const network = {
    properties: { virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nics } } },
  };
  checkNetworkReferences(sim, network, scaleSetId(ss), ss.location);
  checkIfMatch(ctx, vmEtagOf(vm));
  checkScaleSetLocks(sim, ss, "write", [vm]);
  checkWriteInFlight(sim, ss);

  const headers = chargeVms(ctx, sim, params.subscriptionId, 1);
  const faults = takeOperationFaults(ctx, sim, false);
  const op = sim.state.acceptWrite(ss, {
    kind: "updateVm",
    instanceIds: [vm.instanceId],
    vmNetwork: nics,
    ifMatch: header(ctx, "if-match") ?? null,
    ...faults,
  });
  send(ctx, 200, renderVm(ss, vm), { etag: vmEtagOf(vm), ...headers, ...lroHeaders(ctx, sim, op, 200) });
};
