// What a client asks ARM about itself and its subscription before it acts, as `vmss-ops doctor` does:
//   - the caller's effective permissions at a scope (Microsoft.Authorization `Permissions_ListForResourceGroup`,
//     `…ForResource`, and at the subscription): `{value: [{actions, notActions, dataActions, notDataActions}]}`;
//   - Compute's usages in a location (`Usage_List`: `{value: [{unit, currentValue, limit, name: {value,
//     localizedValue}}]}`: regional cores, cores per VM family, scale sets, VMs) and its VM sizes (`ResourceSkus_List`:
//     family and vCPUs per size, as `az vm list-skus` reads them);
//   - a resource provider's registration (`Providers_Get`): registrationState and each resource type's api-versions.
// The caller is an Owner unless the control API denies chosen actions; quota limits and registrations are set there
// too, so that every refusal a client must handle can be produced.
import { COMPUTE_API_VERSIONS } from "./api-versions.ts";
import { ArmError, resourceGroupNotFound, subscriptionNotFound } from "./arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { send } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { normalizeLocation, sortedVms } from "./vmss-model.ts";

/** An action the caller may not perform at a scope (an ARM id) and below it; everywhere when no scope. */
export interface Denial {
  action: string;
  scope?: string;
  /** A data action (Key Vault's secrets), listed in notDataActions. */
  data?: boolean;
}

/** A VM size: its vCPUs and the quota family it counts against. */
interface VmSize {
  vCPUs: number;
  family: string;
  familyName: string;
}

/** The sizes the simulator knows (Azure's ResourceSkus answer for them); other sizes count 2 vCPUs and no family. */
const VM_SIZES: Record<string, VmSize> = {
  Standard_B1ls: { vCPUs: 1, family: "standardBSFamily", familyName: "Standard BS Family vCPUs" },
  Standard_B1s: { vCPUs: 1, family: "standardBSFamily", familyName: "Standard BS Family vCPUs" },
  Standard_B2s: { vCPUs: 2, family: "standardBSFamily", familyName: "Standard BS Family vCPUs" },
  Standard_D2s_v3: { vCPUs: 2, family: "standardDSv3Family", familyName: "Standard DSv3 Family vCPUs" },
  Standard_D4s_v3: { vCPUs: 4, family: "standardDSv3Family", familyName: "Standard DSv3 Family vCPUs" },
  Standard_D2s_v5: { vCPUs: 2, family: "standardDSv5Family", familyName: "Standard DSv5 Family vCPUs" },
  Standard_F2s_v2: { vCPUs: 2, family: "standardFSv2Family", familyName: "Standard FSv2 Family vCPUs" },
};

/** A subscription's default limits (a pay-as-you-go subscription's, rounded). */
const DEFAULT_LIMITS: Record<string, number> = {
  cores: 100,
  virtualMachines: 25000,
  virtualMachineScaleSets: 2500,
  availabilitySets: 2500,
};
const DEFAULT_FAMILY_LIMIT = 100;

/** Provider namespaces the simulator answers for, with their resource types and api-versions. */
const PROVIDERS: Record<string, { types: string[]; apiVersions: readonly string[] }> = {
  "Microsoft.Compute": {
    types: [
      "virtualMachineScaleSets",
      "virtualMachineScaleSets/virtualMachines",
      "virtualMachines",
      "locations/operations",
      "locations/usages",
      "skus",
    ],
    apiVersions: COMPUTE_API_VERSIONS,
  },
  "Microsoft.Network": {
    types: ["networkInterfaces", "loadBalancers", "applicationGateways", "virtualNetworks", "locations/operations"],
    apiVersions: ["2020-11-01", "2022-07-01", "2023-09-01", "2024-01-01", "2024-05-01"],
  },
  "Microsoft.KeyVault": {
    types: ["vaults", "vaults/secrets"],
    apiVersions: ["2022-07-01", "2023-07-01", "2024-11-01"],
  },
  "Microsoft.ManagedIdentity": { types: ["userAssignedIdentities"], apiVersions: ["2023-01-31", "2024-11-30"] },
  "Microsoft.Authorization": { types: ["permissions", "locks"], apiVersions: ["2020-05-01", "2022-04-01"] },
};

const LOCATIONS = ["East US", "East US 2", "West US", "West US 2", "West Europe", "North Europe"];

/** The locations with availability zones, as Azure's: West US has none. */
const ZONAL_LOCATIONS = new Set(["eastus", "eastus2", "westus2", "westeurope", "northeurope"]);

/** Whether a location offers availability zones (1, 2 and 3 for every size the simulator knows). */
export function locationHasZones(location: string): boolean {
  return ZONAL_LOCATIONS.has(normalizeLocation(location));
}

/** What the control API set: denials, quota limits per location, provider registrations, the Date header's skew. */
export interface SubscriptionSettings {
  denials: Denial[];
  /** location (normalized) → usage name → limit. */
  limits: Map<string, Record<string, number>>;
  /** namespace (lower case) → registration state and api-versions withdrawn. */
  providers: Map<string, { registrationState?: string; withoutApiVersions?: string[] }>;
  /** Added to the time the Date header of every ARM answer says (a skewed clock, as a client sees it). */
  dateSkewMs: number;
  /** The subscription's state as `GET /subscriptions/{id}` reports it (Enabled, Warned, PastDue, Disabled, Deleted). */
  state: string;
  /** location (normalized) → the sizes restricted there (`NotAvailableForSubscription`), as a new subscription finds. */
  restrictedSizes: Map<string, string[]>;
}

const worlds = new WeakMap<SimState, SubscriptionSettings>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const subscriptionSettingsWorlds = worlds;

export function subscriptionSettings(sim: Pick<SimulatorContext, "state">): SubscriptionSettings {
  let s = worlds.get(sim.state);
  if (!s) {
    s = {
      denials: [],
      limits: new Map(),
      providers: new Map(),
      dateSkewMs: 0,
      state: "Enabled",
      restrictedSizes: new Map(),
    };
    worlds.set(sim.state, s);
  }
  return s;
}

export function resetSubscriptionSettings(sim: Pick<SimulatorContext, "state">): void {
  worlds.delete(sim.state);
}

function requireSubscription(sim: SimulatorContext, params: RouteParams): void {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
}

function normalizeScope(scope: string): string {
  return scope.toLowerCase().replace(/\/+$/, "");
}

/** The denials that hold at a scope: given there, or on a scope above it, or everywhere. */
export function denialsAt(denials: readonly Denial[], scope: string): Denial[] {
  const at = normalizeScope(scope);
  return denials.filter((d) => {
    if (d.scope === undefined) return true;
    const s = normalizeScope(d.scope);
    return at === s || at.startsWith(`${s}/`);
  });
}

function permissionsAt(sim: SimulatorContext, scope: string): JsonObject {
  const denials = denialsAt(subscriptionSettings(sim).denials, scope);
  return {
    value: [
      {
        actions: ["*"],
        notActions: denials.filter((d) => !d.data).map((d) => d.action),
        dataActions: ["*"],
        notDataActions: denials.filter((d) => d.data).map((d) => d.action),
      },
    ],
  };
}

const subscriptionPermissions: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  send(ctx, 200, permissionsAt(sim, `/subscriptions/${sim.state.subscriptionId}`));
};

const resourceGroupPermissions: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const name = sim.state.resourceGroupName(params.resourceGroup);
  if (name === undefined) throw resourceGroupNotFound(params.resourceGroup);
  send(ctx, 200, permissionsAt(sim, `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${name}`));
};

const resourcePermissions: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const name = sim.state.resourceGroupName(params.resourceGroup);
  if (name === undefined) throw resourceGroupNotFound(params.resourceGroup);
  const scope = `/subscriptions/${sim.state.subscriptionId}/resourceGroups/${name}/providers/${params.namespace}/${params.type}/${params.name}`;
  send(ctx, 200, permissionsAt(sim, scope));
};

function sizeOf(skuName: string): VmSize | undefined {
  const key = Object.keys(VM_SIZES).find((k) => k.toLowerCase() === skuName.toLowerCase());
  return key ? VM_SIZES[key] : undefined;
}

/** What the location's scale sets use now: their VMs' vCPUs (regional and per family), scale sets, VMs. */
function currentUsage(sim: SimulatorContext, location: string): Record<string, number> {
  const used: Record<string, number> = {
    cores: 0,
    virtualMachines: 0,
    virtualMachineScaleSets: 0,
    availabilitySets: 0,
  };
  for (const ss of sim.state.listScaleSets()) {
    if (normalizeLocation(ss.location) !== location) continue;
    used.virtualMachineScaleSets++;
    const skuName = (ss.model.sku as { name?: string } | undefined)?.name ?? "";
    const size = sizeOf(skuName);
    const count = sortedVms(ss).filter((vm) => vm.provisioningState !== "Deleting").length;
    used.virtualMachines += count;
    used.cores += count * (size?.vCPUs ?? 2);
    if (size) used[size.family] = (used[size.family] ?? 0) + count * size.vCPUs;
  }
  return used;
}

const usages: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const location = normalizeLocation(params.location);
  const used = currentUsage(sim, location);
  const limits = subscriptionSettings(sim).limits.get(location) ?? {};
  const families = new Map(Object.values(VM_SIZES).map((s) => [s.family, s.familyName]));
  const names: [string, string][] = [
    ["availabilitySets", "Availability Sets"],
    ["cores", "Total Regional vCPUs"],
    ["virtualMachines", "Virtual Machines"],
    ["virtualMachineScaleSets", "Virtual Machine Scale Sets"],
    ...families.entries(),
  ];
  send(ctx, 200, {
    value: names.map(([value, localizedValue]) => ({
      unit: "Count",
      currentValue: used[value] ?? 0,
      limit: limits[value] ?? DEFAULT_LIMITS[value] ?? DEFAULT_FAMILY_LIMIT,
      name: { value, localizedValue },
    })),
  });
};

const skus: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const filter = /location\s+eq\s+'([^']+)'/i.exec(ctx.url.searchParams.get("$filter") ?? "");
  const locations = filter ? [filter[1]] : LOCATIONS.map(normalizeLocation);
  const restricted = subscriptionSettings(sim).restrictedSizes;
  // Azure's answer for a size the subscription may not use in a location (as `az vm list-skus` shows it).
  const restrictionsOf = (name: string) =>
    locations
      .filter((l) => restricted.get(normalizeLocation(l))?.some((r) => r.toLowerCase() === name.toLowerCase()))
      .map((location) => ({
        type: "Location",
        values: [location],
        restrictionInfo: { locations: [location], zones: [] },
        reasonCode: "NotAvailableForSubscription",
      }));
  send(ctx, 200, {
    value: Object.entries(VM_SIZES).map(([name, size]) => ({
      resourceType: "virtualMachines",
      name,
      tier: "Standard",
      size: name.replace(/^Standard_/, ""),
      family: size.family,
      locations,
      // Per location, the zones the size is offered in (none where the location has none), as `az vm list-skus --zone` reads it.
      locationInfo: locations.map((location) => ({
        location,
        zones: locationHasZones(location) ? ["1", "2", "3"] : [],
      })),
      capabilities: [
        { name: "vCPUs", value: String(size.vCPUs) },
        { name: "MemoryGB", value: String(size.vCPUs * 4) },
      ],
      restrictions: restrictionsOf(name),
    })),
  });
};

const provider: Handler = (ctx, sim, params) => {
  requireSubscription(sim, params);
  const namespace = Object.keys(PROVIDERS).find((n) => n.toLowerCase() === params.namespace.toLowerCase());
  if (!namespace)
    throw new ArmError(404, "InvalidResourceNamespace", `The resource namespace '${params.namespace}' is invalid.`);
  const { types, apiVersions } = PROVIDERS[namespace];
  const set = subscriptionSettings(sim).providers.get(namespace.toLowerCase()) ?? {};
  const withdrawn = new Set(set.withoutApiVersions ?? []);
  const offered = [...apiVersions].reverse().filter((v) => !withdrawn.has(v));
  send(ctx, 200, {
    id: `/subscriptions/${sim.state.subscriptionId}/providers/${namespace}`,
    namespace,
    registrationState: set.registrationState ?? "Registered",
    registrationPolicy: "RegistrationRequired",
    resourceTypes: types.map((resourceType) => ({
      resourceType,
      locations: LOCATIONS,
      apiVersions: offered,
      ...(offered[0] ? { defaultApiVersion: offered[0] } : {}),
      capabilities: "None",
    })),
  });
};

/** The ARM routes. The subscription's provider route is last: a namespace is one segment, as for any provider. */
export function subscriptionReadRoutes(): [string, string, Route][] {
  const SUB = "/subscriptions/:subscriptionId";
  const PERMISSIONS = "providers/Microsoft.Authorization/permissions";
  return [
    ["GET", `${SUB}/${PERMISSIONS}`, { handler: subscriptionPermissions }],
    ["GET", `${SUB}/resourceGroups/:resourceGroup/${PERMISSIONS}`, { handler: resourceGroupPermissions }],
    [
      "GET",
      `${SUB}/resourceGroups/:resourceGroup/providers/:namespace/:type/:name/${PERMISSIONS}`,
      { handler: resourcePermissions },
    ],
    ["GET", `${SUB}/providers/Microsoft.Compute/locations/:location/usages`, { handler: usages }],
    ["GET", `${SUB}/providers/Microsoft.Compute/skus`, { handler: skus }],
    ["GET", `${SUB}/providers/:namespace`, { handler: provider }],
  ];
}

const SUBSCRIPTION_STATES = ["Enabled", "Warned", "PastDue", "Disabled", "Deleted"];

function badRequest(message: string): ArmError {
  return new ArmError(400, "BadRequest", message);
}

function parseDenials(value: unknown): Denial[] {
  if (!Array.isArray(value)) throw badRequest('"deny" must be a list of {action, scope?, data?}');
  return value.map((d, i) => {
    if (!isObject(d) || typeof d.action !== "string" || d.action === "")
      throw badRequest(
        `deny[${i}].action must be an action name, e.g. Microsoft.Compute/virtualMachineScaleSets/write`,
      );
    if (d.scope !== undefined && typeof d.scope !== "string")
      throw badRequest(`deny[${i}].scope must be an ARM id, e.g. /subscriptions/{id}/resourceGroups/{name}`);
    return {
      action: d.action,
      ...(typeof d.scope === "string" ? { scope: d.scope } : {}),
      ...(d.data === true ? { data: true } : {}),
    };
  });
}

function numbers(value: unknown, what: string): Record<string, number> {
  if (!isObject(value)) throw badRequest(`${what} must be an object of usage name → number`);
  for (const [k, v] of Object.entries(value))
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0) throw badRequest(`${what}.${k} must be a whole number`);
  return value as Record<string, number>;
}

/**
 * The control routes (`/_sim/subscription/...`): PUT permissions `{deny: [{action, scope?, data?}]}`, PUT
 * usages/{location} `{limits: {cores: 4, standardDSv3Family: 2}}`, PUT providers/{namespace} `{registrationState?,
 * withoutApiVersions?}`, PUT skus/{location} `{notAvailable: [size]}` (restricted, NotAvailableForSubscription), PUT
 * state `{state}`, PUT clock `{dateSkewSeconds}`; GET of the subscription's settings.
 */
export function addSubscriptionControlRoutes<R extends { add(method: string, pattern: string, handler: Handler): R }>(
  router: R,
  prefix: string,
  readObject: (ctx: Parameters<Handler>[0]) => JsonObject,
): R {
  const P = `${prefix}/subscription`;
  const view = (sim: SimulatorContext) => {
    const s = subscriptionSettings(sim);
    return {
      denials: s.denials,
      limits: Object.fromEntries(s.limits),
      providers: Object.fromEntries(s.providers),
      dateSkewSeconds: s.dateSkewMs / 1000,
      state: s.state,
      restrictedSizes: Object.fromEntries(s.restrictedSizes),
    };
  };
  return router
    .add("GET", P, (ctx, sim) => send(ctx, 200, view(sim)))
    .add("PUT", `${P}/permissions`, (ctx, sim) => {
      subscriptionSettings(sim).denials = parseDenials(readObject(ctx).deny ?? []);
      send(ctx, 200, view(sim));
    })
    .add("PUT", `${P}/usages/:location`, (ctx, sim, params) => {
      const limits = numbers(readObject(ctx).limits ?? {}, "limits");
      subscriptionSettings(sim).limits.set(normalizeLocation(params.location), { ...limits });
      send(ctx, 200, view(sim));
    })
    .add("PUT", `${P}/providers/:namespace`, (ctx, sim, params) => {
      const body = readObject(ctx);
      if (body.registrationState !== undefined && typeof body.registrationState !== "string")
        throw badRequest("registrationState must be a string, e.g. NotRegistered");
      const without = body.withoutApiVersions ?? [];
      if (!Array.isArray(without) || without.some((v) => typeof v !== "string"))
        throw badRequest("withoutApiVersions must be a list of api-versions");
      subscriptionSettings(sim).providers.set(params.namespace.toLowerCase(), {
        ...(typeof body.registrationState === "string" ? { registrationState: body.registrationState } : {}),
        withoutApiVersions: without as string[],
      });
      send(ctx, 200, view(sim));
    })
    .add("PUT", `${P}/skus/:location`, (ctx, sim, params) => {
      const sizes = readObject(ctx).notAvailable ?? [];
      if (!Array.isArray(sizes) || sizes.some((v) => typeof v !== "string"))
        throw badRequest("notAvailable must be a list of VM sizes, e.g. Standard_B1ls");
      subscriptionSettings(sim).restrictedSizes.set(normalizeLocation(params.location), sizes as string[]);
      send(ctx, 200, view(sim));
    })
    .add("PUT", `${P}/state`, (ctx, sim) => {
      const state = readObject(ctx).state;
      if (typeof state !== "string" || !SUBSCRIPTION_STATES.includes(state))
        throw badRequest(`state must be one of ${SUBSCRIPTION_STATES.join(", ")}`);
      subscriptionSettings(sim).state = state;
      send(ctx, 200, view(sim));
    })
    .add("PUT", `${P}/clock`, (ctx, sim) => {
      const skew = readObject(ctx).dateSkewSeconds;
      if (typeof skew !== "number" || !Number.isFinite(skew)) throw badRequest("dateSkewSeconds must be a number");
      subscriptionSettings(sim).dateSkewMs = skew * 1000;
      send(ctx, 200, view(sim));
    });
}

/** The Date header of an ARM answer when the clock is skewed; none (Node's own) otherwise. */
export function skewedDateHeader(sim: Pick<SimulatorContext, "state">): Record<string, string> {
  const skew = subscriptionSettings(sim).dateSkewMs;
  return skew === 0 ? {} : { date: new Date(Date.now() + skew).toUTCString() };
}
