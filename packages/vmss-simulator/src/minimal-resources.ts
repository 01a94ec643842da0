// A resource type modelled only as far as a scale set's reference to it needs (a proximity placement group, a
// capacity reservation group, a managed image): PUT (201 create, 200 update; `location` required on a create, `tags`
// as sent), GET, DELETE, and the lists of a resource group and of the subscription, paged as the rest. Each type says
// what else it takes from a PUT body and how its answer shows it; everything else is written once, here.
import { ArmError, resourceGroupNotFound, resourceNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { parseJsonBody, send } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { normalizeLocation } from "./vmss-model.ts";

/** What every such resource holds, whatever its type. */
export interface MinimalRecord {
  resourceGroup: string;
  name: string;
  location: string;
  tags?: JsonObject;
}

export interface MinimalResourceSpec<E extends object> {
  /** `Microsoft.Compute/proximityPlacementGroups`. */
  type: string;
  /** What else a PUT body gives (or the record already held keeps). */
  fields(body: JsonObject, existing: (MinimalRecord & E) | undefined): E;
  /** The answer's parts beyond `{name, id, type, location, tags}`. */
  render(record: MinimalRecord & E): JsonObject;
}

export interface MinimalResource<E extends object> {
  type: string;
  /** Its records per world, kept across a restart with `--state` (world-snapshot.ts). */
  worlds: WeakMap<SimState, Map<string, MinimalRecord & E>>;
  /** The resource an ARM id names, if the simulator's subscription holds it. */
  find: (sim: SimulatorContext, id: string) => (MinimalRecord & E) | undefined;
  /** Whether the resource an ARM id names exists (the simulator's subscription only). */
  exists: (sim: SimulatorContext, id: string) => boolean;
  /** Every one in a resource group, or in the subscription, as answered. */
  listIn: (sim: SimulatorContext, rg?: string) => JsonObject[];
  /** The control API's reset: none. */
  reset: (sim: Pick<SimulatorContext, "state">) => void;
  routes: () => [string, string, Route][];
}

const keyOf = (rg: string, name: string) => `${rg.toLowerCase()}/${name.toLowerCase()}`;

function requireGroup(sim: SimulatorContext, params: RouteParams): string {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  if (rg === undefined) throw resourceGroupNotFound(params.resourceGroup);
  return rg;
}

export function minimalResource<E extends object>(spec: MinimalResourceSpec<E>): MinimalResource<E> {
  type Stored = MinimalRecord & E;
  const worlds = new WeakMap<SimState, Map<string, Stored>>();
  const records = (sim: Pick<SimulatorContext, "state">): Map<string, Stored> => {
    let all = worlds.get(sim.state);
    if (!all) worlds.set(sim.state, (all = new Map<string, Stored>()));
    return all;
  };
  const render = (sim: SimulatorContext, r: Stored): JsonObject => ({
    name: r.name,
    id: `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${r.resourceGroup}/providers/${spec.type}/${r.name}`,
    type: spec.type,
    location: r.location,
    ...(r.tags ? { tags: r.tags } : {}),
    ...spec.render(r),
  });
  const listIn = (sim: SimulatorContext, rg?: string): JsonObject[] =>
    [...records(sim).values()]
      .filter((r) => rg === undefined || r.resourceGroup.toLowerCase() === rg.toLowerCase())
      .map((r) => render(sim, r));
  const put: Handler = (ctx, sim, params) => {
    const rg = requireGroup(sim, params);
    const parsed = parseJsonBody(ctx);
    const body = isObject(parsed) ? parsed : {};
    const existing = records(sim).get(keyOf(rg, params.name));
    const location = typeof body.location === "string" ? normalizeLocation(body.location) : undefined;
    if (!location && !existing)
      throw new ArmError(400, "LocationRequired", "The location property is required for this definition.");
    const record = {
      resourceGroup: existing?.resourceGroup ?? rg,
      name: existing?.name ?? params.name,
      location: existing?.location ?? location!,
      ...(isObject(body.tags) ? { tags: body.tags } : {}),
      ...spec.fields(body, existing),
    };
    records(sim).set(keyOf(rg, params.name), record);
    send(ctx, existing ? 200 : 201, render(sim, record));
  };
  const get: Handler = (ctx, sim, params) => {
    const rg = requireGroup(sim, params);
    const r = records(sim).get(keyOf(rg, params.name));
    if (!r) throw resourceNotFound(spec.type, params.name, params.resourceGroup);
    send(ctx, 200, render(sim, r));
  };
  const del: Handler = (ctx, sim, params) => {
    const rg = requireGroup(sim, params);
    send(ctx, records(sim).delete(keyOf(rg, params.name)) ? 200 : 204);
  };
  const list: Handler = (ctx, sim, params) => {
    const rg = params.resourceGroup === undefined ? undefined : requireGroup(sim, params);
    if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
    sendPage(ctx, sim, listIn(sim, rg), (r) => r);
  };
  const idPattern = new RegExp(
    `^/subscriptions/([^/]+)/resourceGroups/([^/]+)/providers/${spec.type.replace(/[.]/g, "\\.")}/([^/]+)$`,
    "i",
  );
  const find = (sim: SimulatorContext, id: string): Stored | undefined => {
    const m = idPattern.exec(id);
    return m !== null && sim.state.isSubscription(m[1]) ? records(sim).get(keyOf(m[2], m[3])) : undefined;
  };
  return {
    type: spec.type,
    worlds,
    find,
    exists: (sim, id) => find(sim, id) !== undefined,
    listIn,
    reset: (sim) => void worlds.delete(sim.state),
    routes: () => routesFor(spec.type, { list, put, get, del }),
  };
}

/** The five routes of a type: the lists of the subscription and of a group, and one resource's PUT, GET, DELETE. */
function routesFor(
  type: string,
  h: { list: Handler; put: Handler; get: Handler; del: Handler },
): [string, string, Route][] {
  const SUB = "/subscriptions/:subscriptionId";
  const GROUP = `${SUB}/resourceGroups/:resourceGroup/providers/${type}`;
  return [
    ["GET", `${SUB}/providers/${type}`, { handler: h.list }],
    ["GET", GROUP, { handler: h.list }],
    ["PUT", `${GROUP}/:name`, { handler: h.put }],
    ["GET", `${GROUP}/:name`, { handler: h.get }],
    ["DELETE", `${GROUP}/:name`, { handler: h.del }],
  ];
}
