// Microsoft.Compute/capacityReservationGroups, as little as a scale set that names one needs: PUT (201 create, 200
// update; `{location, tags?, zones?}`), GET, DELETE, and the lists of a group and of the subscription. The answer has
// the shape of the specification's CapacityReservationGroup_CreateOrUpdate example (`{name, id, type, location, tags,
// zones}`). A scale set may name only one that exists (references.ts). What the simulator does not hold: the capacity
// reservations of a group (…/capacityReservations, 501 like every route it does not serve), and so neither the check
// that a group reserves the scale set's size, nor Azure's refusal to delete a group that scale sets still name.
import { ArmError, resourceGroupNotFound, resourceNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { parseJsonBody, send } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { normalizeLocation } from "./vmss-model.ts";

export const CRG_TYPE = "Microsoft.Compute/capacityReservationGroups";

interface CapacityReservationGroup {
  resourceGroup: string;
  name: string;
  location: string;
  tags?: JsonObject;
  zones?: string[];
}

const worlds = new WeakMap<SimState, Map<string, CapacityReservationGroup>>();
/** Kept across a restart with `--state` (world-snapshot.ts). */
export const capacityReservationGroupWorlds = worlds;
const keyOf = (rg: string, name: string) => `${rg.toLowerCase()}/${name.toLowerCase()}`;

function groups(sim: Pick<SimulatorContext, "state">): Map<string, CapacityReservationGroup> {
  let all = worlds.get(sim.state);
  if (!all) worlds.set(sim.state, (all = new Map<string, CapacityReservationGroup>()));
  return all;
}

/** The control API's reset: none. */
export function resetCapacityReservationGroups(sim: Pick<SimulatorContext, "state">): void {
  worlds.delete(sim.state);
}

/** Whether the group an ARM id names exists (the simulator's subscription only). */
export function capacityReservationGroupExists(sim: SimulatorContext, id: string): boolean {
  const m =
    /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/capacityReservationGroups\/([^/]+)$/i.exec(
      id,
    );
  return m !== null && sim.state.isSubscription(m[1]) && groups(sim).has(keyOf(m[2], m[3]));
}

function render(sim: SimulatorContext, g: CapacityReservationGroup): JsonObject {
  return {
    name: g.name,
    id: `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${g.resourceGroup}/providers/${CRG_TYPE}/${g.name}`,
    type: CRG_TYPE,
    location: g.location,
    ...(g.tags ? { tags: g.tags } : {}),
    ...(g.zones ? { zones: g.zones } : {}),
  };
}

/** Every group in a resource group, or in the subscription, as rendered. */
export function capacityReservationGroupsIn(sim: SimulatorContext, rg?: string): JsonObject[] {
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
  const zones = isObject(body) && Array.isArray(body.zones) ? body.zones.map(String) : existing?.zones;
  const g: CapacityReservationGroup = {
    resourceGroup: existing?.resourceGroup ?? rg,
    name: existing?.name ?? params.name,
    location: existing?.location ?? location!,
    ...(isObject(body) && isObject(body.tags) ? { tags: body.tags } : {}),
    ...(zones ? { zones } : {}),
  };
  groups(sim).set(keyOf(rg, params.name), g);
  send(ctx, existing ? 200 : 201, render(sim, g));
};

const get: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const g = groups(sim).get(keyOf(rg, params.name));
  if (!g) throw resourceNotFound(CRG_TYPE, params.name, params.resourceGroup);
  send(ctx, 200, render(sim, g));
};

const del: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  send(ctx, groups(sim).delete(keyOf(rg, params.name)) ? 200 : 204);
};

const list: Handler = (ctx, sim, params) => {
  const rg = params.resourceGroup === undefined ? undefined : requireGroup(sim, params);
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  sendPage(ctx, sim, capacityReservationGroupsIn(sim, rg), (g) => g);
};

export function capacityReservationGroupRoutes(): [string, string, Route][] {
  const SUB = "/subscriptions/:subscriptionId";
  const GROUP = `${SUB}/resourceGroups/:resourceGroup/providers/${CRG_TYPE}`;
  return [
    ["GET", `${SUB}/providers/${CRG_TYPE}`, { handler: list }],
    ["GET", GROUP, { handler: list }],
    ["PUT", `${GROUP}/:name`, { handler: put }],
    ["GET", `${GROUP}/:name`, { handler: get }],
    ["DELETE", `${GROUP}/:name`, { handler: del }],
  ];
}
