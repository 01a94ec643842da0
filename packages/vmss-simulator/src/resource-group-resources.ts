// GET /subscriptions/{id}/resourceGroups/{rg}/resources (Resources_ListByResourceGroup): every resource of a group,
// each as Azure's GenericResourceExpanded lists it (id, name, type, location, tags). The scale sets, a Flexible set's
// virtual machines and NICs, the network's resources and the user-assigned identities the simulator holds in it;
// a Flexible VM carries no tags of its own (Azure does not copy the scale set's tags to its VMs).
import { resourceGroupNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route } from "./context.ts";
import { NIC_TYPE, VM_TYPE, flexibleVmId, nicId } from "./flexible.ts";
import { send } from "./http.ts";
import type { JsonObject } from "./json.ts";
import { identitiesIn } from "./managed-identities.ts";
import { network, renderNetworkResource } from "./network/network-routes.ts";
import { NETWORK_TYPES } from "./network/network-state.ts";
import { isFlexible } from "./vmss-model.ts";

const VMSS_TYPE = "Microsoft.Compute/virtualMachineScaleSets";

const listResourcesOfGroup: Handler = (ctx, sim, params) => {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  const sub = `/subscriptions/${sim.state.subscriptionId}`;
  const value: JsonObject[] = [];
  for (const ss of sim.state.listScaleSets(rg)) {
    const tags = (ss.model.tags ?? {}) as JsonObject;
    value.push({
      id: `${sub}/resourceGroups/${ss.resourceGroup}/providers/${VMSS_TYPE}/${ss.name}`,
      name: ss.name,
      type: VMSS_TYPE,
      location: ss.location,
      tags: { ...tags },
    });
    if (!isFlexible(ss)) continue;
    for (const vm of ss.vms.values())
      value.push({ id: flexibleVmId(ss, vm.instanceId), name: vm.instanceId, type: VM_TYPE, location: ss.location });
  }
  for (const nic of sim.state.nics.values())
    if (nic.resourceGroup.toLowerCase() === rg.toLowerCase())
      value.push({ id: nicId(nic), name: nic.name, type: NIC_TYPE, location: nic.location, tags: { ...nic.tags } });
  for (const type of NETWORK_TYPES)
    for (const r of network(sim).list(type, rg)) {
      const rendered = renderNetworkResource(sim, r);
      value.push({
        id: rendered.id,
        name: rendered.name,
        type: rendered.type,
        location: rendered.location,
        tags: rendered.tags ?? {},
      });
    }
  for (const identity of identitiesIn(sim, rg))
    value.push({
      id: identity.id,
      name: identity.name,
      type: identity.type,
      location: identity.location,
      tags: identity.tags,
    });
  send(ctx, 200, { value });
};

export function resourceGroupResourceRoutes(): [string, string, Route][] {
  return [
    [
      "GET",
      "/subscriptions/:subscriptionId/resourceGroups/:resourceGroup/resources",
      { handler: listResourcesOfGroup },
    ],
  ];
}
