// Microsoft.Compute/capacityReservationGroups, as little as a scale set that names one needs (minimal-resources.ts):
// PUT (201 create, 200 update; `{location, tags?, zones?}`), GET, DELETE, and the lists of a group and of the
// subscription. The answer has the shape of the specification's CapacityReservationGroup_CreateOrUpdate example
// (`{name, id, type, location, tags, zones}`). A scale set may name only one that exists (references.ts). What the
// simulator does not hold: the capacity reservations of a group (…/capacityReservations, 501 like every route it does
// not serve), and so neither the check that a group reserves the scale set's size, nor Azure's refusal to delete a
// group that scale sets still name.
import { minimalResource } from "./minimal-resources.ts";

const capacityReservationGroups = minimalResource<{ zones?: string[] }>({
  type: "Microsoft.Compute/capacityReservationGroups",
  fields: (body, existing) => {
    const zones = Array.isArray(body.zones) ? body.zones.map(String) : existing?.zones;
    return zones ? { zones } : {};
  },
  render: (g) => (g.zones ? { zones: g.zones } : {}),
});

export const capacityReservationGroupWorlds = capacityReservationGroups.worlds;
export const capacityReservationGroupExists = capacityReservationGroups.exists;
export const capacityReservationGroupsIn = capacityReservationGroups.listIn;
export const resetCapacityReservationGroups = capacityReservationGroups.reset;
export const capacityReservationGroupRoutes = capacityReservationGroups.routes;
