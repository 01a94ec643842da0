// Microsoft.Compute/images (managed images, what a bake such as Rosco's or Packer's leaves behind), as little as a
// scale set that names one needs: PUT (201 create, 200 update; `{location, tags?, properties}`), GET, DELETE, and the
// lists of a group and of the subscription, paged. The answer is the specification's (Image: `{name, id, type,
// location, tags?, properties: {storageProfile, provisioningState, hyperVGeneration}}`, examples
// Image_CreateFromABlob and Image_Get); the properties are kept as sent, `provisioningState` "Succeeded" and
// `hyperVGeneration` "V1" unless sent. The PUT answers at once (Azure's is long-running). A scale set may name only an
// image that exists in its location (references.ts); what the image holds is not simulated.
import { ArmError, resourceGroupNotFound, resourceNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { parseJsonBody, send } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { normalizeLocation } from "./vmss-model.ts";

export const IMAGE_TYPE = "Microsoft.Compute/images";

interface ManagedImage {
  resourceGroup: string;
  name: string;
  location: string;
  tags?: JsonObject;
  properties: JsonObject;
}

const worlds = new WeakMap<SimState, Map<string, ManagedImage>>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const managedImageWorlds = worlds;
const keyOf = (rg: string, name: string) => `${rg.toLowerCase()}/${name.toLowerCase()}`;

function images(sim: Pick<SimulatorContext, "state">): Map<string, ManagedImage> {
  let all = worlds.get(sim.state);
  if (!all) worlds.set(sim.state, (all = new Map<string, ManagedImage>()));
  return all;
}

/** The control API's reset: none. */
export function resetManagedImages(sim: Pick<SimulatorContext, "state">): void {
  worlds.delete(sim.state);
}

/** Whether an ARM id is a managed image's (`…/providers/Microsoft.Compute/images/{name}`), held or not. */
export const MANAGED_IMAGE_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/images\/([^/]+)$/i;

/** The location of the image an ARM id names, or undefined when the simulator's subscription holds none by that id. */
export function managedImageLocation(sim: SimulatorContext, id: string): string | undefined {
  const m = MANAGED_IMAGE_ID.exec(id);
  if (!m || !sim.state.isSubscription(m[1])) return undefined;
  return images(sim).get(keyOf(m[2], m[3]))?.location;
}

function render(sim: SimulatorContext, image: ManagedImage): JsonObject {
  return {
    name: image.name,
    id: `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${image.resourceGroup}/providers/${IMAGE_TYPE}/${image.name}`,
    type: IMAGE_TYPE,
    location: image.location,
    ...(image.tags ? { tags: image.tags } : {}),
    properties: { hyperVGeneration: "V1", ...image.properties, provisioningState: "Succeeded" },
  };
}

/** Every image in a resource group, or in the subscription, as rendered. */
export function managedImagesIn(sim: SimulatorContext, rg?: string): JsonObject[] {
  return [...images(sim).values()]
    .filter((i) => rg === undefined || i.resourceGroup.toLowerCase() === rg.toLowerCase())
    .map((i) => render(sim, i));
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
  const existing = images(sim).get(keyOf(rg, params.name));
  const location = isObject(body) && typeof body.location === "string" ? normalizeLocation(body.location) : undefined;
  if (!location && !existing)
    throw new ArmError(400, "LocationRequired", "The location property is required for this definition.");
  const { provisioningState: _ignored, ...properties } =
    isObject(body) && isObject(body.properties) ? body.properties : (existing?.properties ?? {});
  const image: ManagedImage = {
    resourceGroup: existing?.resourceGroup ?? rg,
    name: existing?.name ?? params.name,
    location: existing?.location ?? location!,
    properties,
    ...(isObject(body) && isObject(body.tags) ? { tags: body.tags } : {}),
  };
  images(sim).set(keyOf(rg, params.name), image);
  send(ctx, existing ? 200 : 201, render(sim, image));
};

const get: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const image = images(sim).get(keyOf(rg, params.name));
  if (!image) throw resourceNotFound(IMAGE_TYPE, params.name, params.resourceGroup);
  send(ctx, 200, render(sim, image));
};

const del: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  send(ctx, images(sim).delete(keyOf(rg, params.name)) ? 200 : 204);
};

const list: Handler = (ctx, sim, params) => {
  const rg = params.resourceGroup === undefined ? undefined : requireGroup(sim, params);
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  sendPage(ctx, sim, managedImagesIn(sim, rg), (i) => i);
};

export function managedImageRoutes(): [string, string, Route][] {
  const SUB = "/subscriptions/:subscriptionId";
  const GROUP = `${SUB}/resourceGroups/:resourceGroup/providers/${IMAGE_TYPE}`;
  return [
    ["GET", `${SUB}/providers/${IMAGE_TYPE}`, { handler: list }],
    ["GET", GROUP, { handler: list }],
    ["PUT", `${GROUP}/:name`, { handler: put }],
    ["GET", `${GROUP}/:name`, { handler: get }],
    ["DELETE", `${GROUP}/:name`, { handler: del }],
  ];
}
