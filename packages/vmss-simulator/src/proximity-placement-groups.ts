// Microsoft.Compute/proximityPlacementGroups, as little as a scale set that names one needs: PUT (201 create, 200
// update; `{location, tags?}`), GET, DELETE, and the lists of a group and of the subscription. The answer is the
// recorded one (test/fixtures/azure-recordings/vmss-update-2024-11-01.json[4]: `{name, id, type, location,
// properties: {proximityPlacementGroupType: "Standard"}}`). A scale set may name only one that exists
// (references.ts); what Azure places near what is not simulated.
import { ArmError, resourceGroupNotFound, resourceNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { parseJsonBody, send } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { normalizeLocation } from "./vmss-model.ts";

export const PPG_TYPE = "Microsoft.Compute/proximityPlacementGroups";

interface ProximityPlacementGroup {
  resourceGroup: string;
  name: string;
  location: string;
  tags?: JsonObject;
  type: string;
}

const worlds = new WeakMap<SimState, Map<string, ProximityPlacementGroup>>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const proximityPlacementGroupWorlds = worlds;
const keyOf = (rg: string, name: string) => `${rg.toLowerCase()}/${name.toLowerCase()}`;

function groups(sim: Pick<SimulatorContext, "state">): Map<string, ProximityPlacementGroup> {
  let all = worlds.get(sim.state);
  if (!all) worlds.set(sim.state, (all = new Map<string, ProximityPlacementGroup>()));
  return all;
}

/** The control API's reset: none. */
export function resetProximityPlacementGroups(sim: Pick<SimulatorContext, "state">): void {
  worlds.delete(sim.state);
}

/** Whether the group an ARM id names exists (the simulator's subscription only). */
export function proximityPlacementGroupExists(sim: SimulatorContext, id: string): boolean {
  const m =
    /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/proximityPlacementGroups\/([^/]+)$/i.exec(
      id,
    );
  return m !== null && sim.state.isSubscription(m[1]) && groups(sim).has(keyOf(m[2], m[3]));
}

function render(sim: SimulatorContext, g: ProximityPlacementGroup): JsonObject {
  return {
    name: g.name,
    id: `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${g.resourceGroup}/providers/${PPG_TYPE}/${g.name}`,
    type: PPG_TYPE,
    location: g.location,
    ...(g.tags ? { tags: g.tags } : {}),
    properties: { proximityPlacementGroupType: g.type },
  };
}

/** Every group in a resource group, or in the subscription, as rendered. */
export function proximityPlacementGroupsIn(sim: SimulatorContext, rg?: string): JsonObject[] {
  return [...groups(sim).values()]
    .filter((g) => rg === undefined || g.resourceGroup.toLowerCase() === rg.toLowerCase())
    .map((g) => render(sim, g));
}

function requireGroup(sim: SimulatorContext, params: RouteParams): string {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  return rg;
}

const put: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const body = parseJsonBody(ctx);
  const existing = groups(sim).get(keyOf(rg, params.name));
  const location = isObject(body) && typeof body.location === "string" ? normalizeLocation(body.location) : undefined;
  if (!location && !existing)
    throw new ArmError(400, "LocationRequired", "The location property is required for this definition.");
  const properties = isObject(body) && isObject(body.properties) ? body.properties : {};
  const g: ProximityPlacementGroup = {
    resourceGroup: existing?.resourceGroup ?? rg,
    name: existing?.name ?? params.name,
    location: existing?.location ?? location!,
    type:
      typeof properties.proximityPlacementGroupType === "string" ? properties.proximityPlacementGroupType : "Standard",
    ...(isObject(body) && isObject(body.tags) ? { tags: body.tags } : {}),
  };
  groups(sim).set(keyOf(rg, params.name), g);
  send(ctx, existing ? 200 : 201, render(sim, g));
};

const get: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const g = groups(sim).get(keyOf(rg, params.name));
  if (!g) throw resourceNotFound(PPG_TYPE, params.name, params.resourceGroup);
  send(ctx, 200, render(sim, g));
};

const del: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  send(ctx, groups(sim).delete(keyOf(rg, params.name)) ? 200 : 204);
};

const list: Handler = (ctx, sim, params) => {
  const rg = params.resourceGroup === undefined ? undefined : requireGroup(sim, params);
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  sendPage(ctx, sim, proximityPlacementGroupsIn(sim, rg), (g) => g);
};

export function proximityPlacementGroupRoutes(): [string, string, Route][] {
  const SUB = "/subscriptions/:subscriptionId";
  const GROUP = `${SUB}/resourceGroups/:resourceGroup/providers/${PPG_TYPE}`;
  return [
    ["GET", `${SUB}/providers/${PPG_TYPE}`, { handler: list }],
    ["GET", GROUP, { handler: list }],
    ["PUT", `${GROUP}/:name`, { handler: put }],
    ["GET", `${GROUP}/:name`, { handler: get }],
    ["DELETE", `${GROUP}/:name`, { handler: del }],
  ];
}
