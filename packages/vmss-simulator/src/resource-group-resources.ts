// GET /subscriptions/{id}/resourceGroups/{rg}/resources (Resources_ListByResourceGroup) and /subscriptions/{id}/resources
// (Resources_List, every group's), paged as ARM pages (paging.ts): every resource of a group,
// each as Azure's GenericResourceExpanded lists it (id, name, type, location, tags). The scale sets, a Flexible set's
// virtual machines and NICs, the network's resources and the user-assigned identities the simulator holds in it;
// a Flexible VM carries no tags of its own (Azure does not copy the scale set's tags to its VMs).
import { resourceGroupNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { NIC_TYPE, VM_TYPE, flexibleVmId, nicId } from "./flexible.ts";
import { sendPage } from "./paging.ts";
import type { JsonObject } from "./json.ts";
import { DEMO_IDENTITY, identitiesIn } from "./managed-identities.ts";
import { network, renderNetworkResource } from "./network/network-routes.ts";
import { NETWORK_TYPES } from "./network/network-state.ts";
import { managedImagesIn } from "./managed-images.ts";
import { proximityPlacementGroupsIn } from "./proximity-placement-groups.ts";
import { capacityReservationGroupsIn } from "./capacity-reservation-groups.ts";
import { renderAutoscaleSetting } from "./autoscale/autoscale-routes.ts";
import { autoscaleOf } from "./autoscale/autoscale-state.ts";
import { isFlexible } from "./vmss-model.ts";

const VMSS_TYPE = "Microsoft.Compute/virtualMachineScaleSets";

/** Every resource the simulator holds in a group, or in the subscription, as GenericResourceExpanded. */
export function genericResources(sim: SimulatorContext, rg?: string): JsonObject[] {
  const inGroup = (group: string) => rg === undefined || group.toLowerCase() === rg.toLowerCase();
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
    if (inGroup(nic.resourceGroup))
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
  // The seeded identity's group holds it before any scale set names the group.
  const named = rg === undefined ? [...sim.state.resourceGroups.values(), DEMO_IDENTITY.resourceGroup] : [rg];
  const groups = [...new Map(named.map((g) => [g.toLowerCase(), g])).values()];
  for (const group of groups)
    for (const identity of identitiesIn(sim, group))
      value.push({
        id: identity.id,
        name: identity.name,
        type: identity.type,
        location: identity.location,
        tags: identity.tags,
      });
  const autoscaleSettings = autoscaleOf(sim)
    .list(rg)
    .map((s) => renderAutoscaleSetting(sim, s));
  for (const g of [
    ...proximityPlacementGroupsIn(sim, rg),
    ...capacityReservationGroupsIn(sim, rg),
    ...managedImagesIn(sim, rg),
    ...autoscaleSettings,
  ])
    value.push({ id: g.id, name: g.name, type: g.type, location: g.location, tags: g.tags ?? {} });
  return value;
}

/** Resources_ListByResourceGroup. */
const listResourcesOfGroup: Handler = (ctx, sim, params) => {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  sendPage(ctx, sim, genericResources(sim, rg), (r) => r);
};

/** Resources_List: the subscription's, every group's. */
const listResourcesOfSubscription: Handler = (ctx, sim, params) => {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  sendPage(ctx, sim, genericResources(sim), (r) => r);
};

export function resourceGroupResourceRoutes(): [string, string, Route][] {
  return [
    [
      "GET",
      "/subscriptions/:subscriptionId/resourceGroups/:resourceGroup/resources",
      { handler: listResourcesOfGroup },
    ],
    ["GET", "/subscriptions/:subscriptionId/resources", { handler: listResourcesOfSubscription }],
  ];
}
