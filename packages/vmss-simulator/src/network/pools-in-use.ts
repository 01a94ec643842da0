// A PUT of a load balancer or an application gateway that drops a backend pool or an inbound NAT pool still named by
// a scale set (its model, or a VM's own network configuration or NIC) is refused, as Azure refuses it: 400
// LoadBalancerInUseByVirtualMachineScaleSet, "Cannot delete load balancer … since its child resources … are in use by
// virtual machine scale set …" (Microsoft's Basic-to-Standard load balancer troubleshooter, "Error step 2": a NAT
// pool the scale set's profile still names; AKS's troubleshooting page for the same code). A pool is freed only
// once no scale set names it: a destroy removes the pools after the scale set is gone.
import { ArmError } from "../arm-errors.ts";
import type { SimulatorContext } from "../context.ts";
import { getPath, isObject, type JsonObject } from "../json.ts";
import { scaleSetId, sortedVms } from "../vmss-model.ts";
import type { NetworkType } from "./network-state.ts";

/** The child collections a scale set's IP configurations name, by the field that names them. */
const NAMED_BY = {
  backendAddressPools: ["loadBalancerBackendAddressPools", "applicationGatewayBackendAddressPools"],
  inboundNatPools: ["loadBalancerInboundNatPools"],
} as const;

type Collection = keyof typeof NAMED_BY;

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Ids (lower case) an IP configuration names in `collection`'s fields. */
function idsNamed(ipc: unknown, collection: Collection): string[] {
  return NAMED_BY[collection].flatMap((field) =>
    asArray(getPath(ipc, "properties", field)).flatMap((p) =>
      isObject(p) && typeof p.id === "string" ? [p.id.toLowerCase()] : [],
    ),
  );
}

/** The IP configurations of a network profile (a scale set's model, or one VM's applied profile). */
function profileIpConfigurations(profile: unknown): unknown[] {
  return asArray(getPath(profile, "networkProfile", "networkInterfaceConfigurations")).flatMap((nic) =>
    asArray(getPath(nic, "properties", "ipConfigurations")),
  );
}

/** The scale sets whose model, or one of whose VMs, names the child `id` of `collection`. */
function scaleSetsNaming(sim: SimulatorContext, collection: Collection, id: string): string[] {
  const wanted = id.toLowerCase();
  const out: string[] = [];
  for (const ss of sim.state.listScaleSets()) {
    const ipcs = [
      ...profileIpConfigurations(getPath(ss.model, "properties", "virtualMachineProfile")),
      ...sortedVms(ss).flatMap((vm) => [
        ...profileIpConfigurations(vm.applied.profile),
        ...sim.state.nicsOf(vm).flatMap((nic) => asArray(nic.properties.ipConfigurations)),
      ]),
    ];
    if (ipcs.some((ipc) => idsNamed(ipc, collection).includes(wanted))) out.push(scaleSetId(ss));
  }
  return out;
}

function names(body: JsonObject | undefined, collection: Collection): string[] {
  return asArray(getPath(body, "properties", collection)).flatMap((c) =>
    isObject(c) && typeof c.name === "string" ? [c.name] : [],
  );
}

/**
 * Throws Azure's refusal when the PUT of `id` (a load balancer or gateway, `before` its stored body, `after` the one
 * written) drops a pool a scale set still names.
 */
export function refuseDroppingPoolsInUse(
  sim: SimulatorContext,
  type: NetworkType,
  id: string,
  before: JsonObject | undefined,
  after: JsonObject,
): void {
  if (!before || (type !== "loadBalancers" && type !== "applicationGateways")) return;
  for (const collection of Object.keys(NAMED_BY) as Collection[]) {
    const kept = new Set(names(after, collection).map((n) => n.toLowerCase()));
    for (const dropped of names(before, collection).filter((n) => !kept.has(n.toLowerCase()))) {
      const childId = `${id}/${collection}/${dropped}`;
      const users = scaleSetsNaming(sim, collection, childId);
      if (users.length === 0) continue;
      const what = type === "loadBalancers" ? "load balancer" : "application gateway";
      throw new ArmError(
        400,
        "LoadBalancerInUseByVirtualMachineScaleSet",
        `Cannot delete ${what} ${id} since its child resources ${childId} are in use by virtual machine scale set ${users.join(", ")}.`,
      );
    }
  }
}
