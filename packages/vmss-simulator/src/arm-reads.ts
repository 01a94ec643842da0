// The reads every Azure client makes around the resources it manages: the subscription (`az login` lists them
// first) and its resource groups (providers, permissions and quota: subscription-reads.ts).
// Shapes of the Microsoft.Resources REST spec (Subscriptions_Get, ResourceGroups_Get examples).
import { resourceGroupNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, SimulatorContext } from "./context.ts";
import { send } from "./http.ts";
import { subscriptionSettings } from "./subscription-reads.ts";
import type { JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import { DEMO_LOCATION } from "./seed.ts";

/** The tenant the simulated subscription belongs to (any tenant can get tokens from the token endpoint). */
export const SIMULATOR_TENANT_ID = "00000000-0000-4000-8000-0000000000aa";

function subscriptionBody(sim: SimulatorContext): JsonObject {
  const id = sim.state.subscriptionId;
  return {
    id: `/subscriptions/${id}`,
    authorizationSource: "RoleBased",
    managedByTenants: [],
    subscriptionId: id,
    tenantId: SIMULATOR_TENANT_ID,
    displayName: "ARM simulator",
    state: subscriptionSettings(sim).state,
    subscriptionPolicies: {
      locationPlacementId: "Public_2014-09-01",
      quotaId: "PayAsYouGo_2014-09-01",
      spendingLimit: "Off",
    },
  };
}

function requireSubscription(sim: SimulatorContext, params: RouteParams): void {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
}

/** Where a resource group is: the location of its first scale set, else the demo location. */
function resourceGroupBody(sim: SimulatorContext, name: string): JsonObject {
  const location = sim.state.listScaleSets(name)[0]?.location ?? DEMO_LOCATION;
  return {
    id: `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${name}`,
    name,
    type: "Microsoft.Resources/resourceGroups",
    location,
    properties: { provisioningState: "Succeeded" },
  };
}

export const listSubscriptions: Handler = (ctx, sim) => {
  sendPage(ctx, sim, [subscriptionBody(sim)], (s) => s, { count: { type: "Total", value: 1 } });
};

export const getSubscription: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  send(ctx, 200, subscriptionBody(sim));
};

export const listResourceGroups: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const names = [...sim.state.resourceGroups.values()].sort((a, b) => a.localeCompare(b));
  sendPage(ctx, sim, names, (name) => resourceGroupBody(sim, name));
};

export const getResourceGroup: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const name = sim.state.resourceGroupName(params.resourceGroup);
  if (name === undefined) throw resourceGroupNotFound(params.resourceGroup);
  send(ctx, 200, resourceGroupBody(sim, name));
};
