// Microsoft.Compute/images (managed images, what a bake such as Rosco's or Packer's leaves behind), as little as a
// scale set that names one needs (minimal-resources.ts): PUT (201 create, 200 update; `{location, tags?,
// properties}`), GET, DELETE, and the lists of a group and of the subscription, paged. The answer is the
// specification's (Image: `{name, id, type, location, tags?, properties: {storageProfile, provisioningState,
// hyperVGeneration}}`, examples Image_CreateFromABlob and Image_Get); the properties are kept as sent,
// `provisioningState` "Succeeded" and `hyperVGeneration` "V1" unless sent. The PUT answers at once (Azure's is
// long-running). A scale set may name only an image that exists in its location (references.ts); what the image holds
// is not simulated.
import { isObject, type JsonObject } from "./json.ts";
import { minimalResource } from "./minimal-resources.ts";

const managedImages = minimalResource<{ properties: JsonObject }>({
  type: "Microsoft.Compute/images",
  fields: (body, existing) => {
    const { provisioningState: _ignored, ...properties } = isObject(body.properties)
      ? body.properties
      : (existing?.properties ?? {});
    return { properties };
  },
  render: (image) => ({
    properties: { hyperVGeneration: "V1", ...image.properties, provisioningState: "Succeeded" },
  }),
});

/** Whether an ARM id is a managed image's (`…/providers/Microsoft.Compute/images/{name}`), held or not. */
export const MANAGED_IMAGE_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/images\/([^/]+)$/i;

/** The location of the image an ARM id names, or undefined when the simulator's subscription holds none by that id. */
export function managedImageLocation(sim: Parameters<typeof managedImages.find>[0], id: string): string | undefined {
  return managedImages.find(sim, id)?.location;
}

export const managedImageWorlds = managedImages.worlds;
export const managedImagesIn = managedImages.listIn;
export const resetManagedImages = managedImages.reset;
export const managedImageRoutes = managedImages.routes;
