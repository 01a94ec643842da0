// Microsoft.Compute/proximityPlacementGroups, as little as a scale set that names one needs (minimal-resources.ts):
// PUT (201 create, 200 update; `{location, tags?, properties?: {proximityPlacementGroupType}}`), GET, DELETE, and the
// lists of a group and of the subscription. The answer is the recorded one
// (test/fixtures/azure-recordings/vmss-update-2024-11-01.json[4]: `{name, id, type, location, properties:
// {proximityPlacementGroupType: "Standard"}}`). A scale set may name only one that exists (references.ts); what Azure
// places near what is not simulated.
import { isObject } from "./json.ts";
import { minimalResource } from "./minimal-resources.ts";

const proximityPlacementGroups = minimalResource({
  type: "Microsoft.Compute/proximityPlacementGroups",
  fields: (body) => {
    const properties = isObject(body.properties) ? body.properties : {};
    const type = properties.proximityPlacementGroupType;
    return { groupType: typeof type === "string" ? type : "Standard" };
  },
  render: (g) => ({ properties: { proximityPlacementGroupType: g.groupType } }),
});

export const proximityPlacementGroupWorlds = proximityPlacementGroups.worlds;
export const proximityPlacementGroupExists = proximityPlacementGroups.exists;
export const proximityPlacementGroupsIn = proximityPlacementGroups.listIn;
export const resetProximityPlacementGroups = proximityPlacementGroups.reset;
export const proximityPlacementGroupRoutes = proximityPlacementGroups.routes;
