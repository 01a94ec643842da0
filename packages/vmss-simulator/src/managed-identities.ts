// Microsoft.ManagedIdentity/userAssignedIdentities, as much of it as a deploy uses: GET, PUT and DELETE of an
// identity, the list of a resource group's (`az identity create|show|delete|list`; REST api-version 2023-01-31), each
// with Azure's read-only `properties` {tenantId, principalId, clientId}. A seeded simulator has demo-rg's
// `demo-identity`.
//
// A scale set's `identity` is resolved when Azure accepts the write (resolveScaleSetIdentity): every user-assigned
// identity it names must exist, else 400 as Azure answers it ("Identity operation for resource … failed with error
// 'Failed to perform resource identity operation. Status: 'BadRequest''. … Resource '…' was not found.",
// Azure/azure-policy#1311); the model then holds each one's principalId and clientId, and a system-assigned identity
// gets a principal of its own (tenantId, principalId) that the scale set keeps for its life, as Azure's does.
import { randomUUID } from "node:crypto";
import { ArmError, resourceGroupNotFound, resourceNotFound, subscriptionNotFound } from "./arm-errors.ts";
import { SIMULATOR_TENANT_ID } from "./arm-reads.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { parseJsonBody, send } from "./http.ts";
import { clone, isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { normalizeLocation } from "./vmss-model.ts";

export const IDENTITY_TYPE = "Microsoft.ManagedIdentity/userAssignedIdentities";
export const DEMO_IDENTITY = { resourceGroup: "demo-rg", name: "demo-identity", location: "eastus" } as const;

interface UserAssignedIdentity {
  resourceGroup: string;
  name: string;
  location: string;
  tags: Record<string, string>;
  principalId: string;
  clientId: string;
}

const worlds = new WeakMap<SimState, Map<string, UserAssignedIdentity>>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const identityWorlds = worlds;

const keyOf = (resourceGroup: string, name: string) => `${resourceGroup.toLowerCase()}/${name.toLowerCase()}`;

function identities(sim: Pick<SimulatorContext, "state" | "seeded">): Map<string, UserAssignedIdentity> {
  let all = worlds.get(sim.state);
  if (!all) {
    all = new Map();
    worlds.set(sim.state, all);
    if (sim.seeded) {
      const { resourceGroup, name, location } = DEMO_IDENTITY;
      all.set(keyOf(resourceGroup, name), {
        resourceGroup,
        name,
        location,
        tags: {},
        principalId: randomUUID(),
        clientId: randomUUID(),
      });
    }
  }
  return all;
}

/** Back to the seeded identities (the control API's reset). */
export function resetManagedIdentities(sim: Pick<SimulatorContext, "state" | "seeded">): void {
  worlds.delete(sim.state);
}

function identityId(subscriptionId: string, i: Pick<UserAssignedIdentity, "resourceGroup" | "name">): string {
  return `/subscriptions/${subscriptionId}/resourcegroups/${i.resourceGroup}/providers/${IDENTITY_TYPE}/${i.name}`;
}

function render(sim: SimulatorContext, i: UserAssignedIdentity): JsonObject {
  return {
    id: identityId(sim.state.subscriptionId, i),
    name: i.name,
    type: IDENTITY_TYPE,
    location: i.location,
    tags: { ...i.tags },
    properties: { tenantId: SIMULATOR_TENANT_ID, principalId: i.principalId, clientId: i.clientId },
  };
}

/** The identities of a resource group, as ARM lists them (a resource group's contents). */
export function identitiesIn(sim: SimulatorContext, resourceGroup: string): JsonObject[] {
  return [...identities(sim).values()]
    .filter((i) => i.resourceGroup.toLowerCase() === resourceGroup.toLowerCase())
    .map((i) => render(sim, i));
}

function requireGroup(sim: SimulatorContext, params: RouteParams): string {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  const seededGroup = sim.seeded && params.resourceGroup.toLowerCase() === DEMO_IDENTITY.resourceGroup;
  if (!rg && !seededGroup) throw resourceGroupNotFound(params.resourceGroup);
  return rg ?? DEMO_IDENTITY.resourceGroup;
}

const getIdentity: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const found = identities(sim).get(keyOf(rg, params.name));
  if (!found) throw resourceNotFound(IDENTITY_TYPE, params.name, rg);
  send(ctx, 200, render(sim, found));
};

const listIdentities: Handler = (ctx, sim, params) => {
  // At the subscription (UserAssignedIdentities_ListBySubscription) or in a group (…_ListByResourceGroup).
  const rg = params.resourceGroup === undefined ? undefined : requireGroup(sim, params);
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const all = [...identities(sim).values()].filter(
    (i) => rg === undefined || i.resourceGroup.toLowerCase() === rg.toLowerCase(),
  );
  sendPage(ctx, sim, all, (i) => render(sim, i));
};

const putIdentity: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const body = parseJsonBody(ctx);
  if (!isObject(body) || typeof body.location !== "string" || body.location.trim() === "")
    throw new ArmError(400, "LocationRequired", "The location property is required for this definition.");
  const all = identities(sim);
  const existing = all.get(keyOf(rg, params.name));
  const tags = isObject(body.tags) ? (clone(body.tags) as Record<string, string>) : (existing?.tags ?? {});
  const identity: UserAssignedIdentity = {
    resourceGroup: existing?.resourceGroup ?? rg,
    name: existing?.name ?? params.name,
    location: normalizeLocation(body.location),
    tags,
    // Its principal is made once, with the identity: an update keeps it.
    principalId: existing?.principalId ?? randomUUID(),
    clientId: existing?.clientId ?? randomUUID(),
  };
  all.set(keyOf(rg, params.name), identity);
  send(ctx, existing ? 200 : 201, render(sim, identity));
};

const deleteIdentity: Handler = (ctx, sim, params) => {
  const rg = requireGroup(sim, params);
  const existed = identities(sim).delete(keyOf(rg, params.name));
  send(ctx, existed ? 200 : 204);
};

export function managedIdentityRoutes(): [string, string, Route][] {
  const group = "/subscriptions/:subscriptionId/resourceGroups/:resourceGroup";
  const base = `${group}/providers/Microsoft.ManagedIdentity/userAssignedIdentities`;
  return [
    [
      "GET",
      "/subscriptions/:subscriptionId/providers/Microsoft.ManagedIdentity/userAssignedIdentities",
      { handler: listIdentities },
    ],
    ["GET", base, { handler: listIdentities }],
    ["GET", `${base}/:name`, { handler: getIdentity }],
    ["PUT", `${base}/:name`, { handler: putIdentity }],
    ["DELETE", `${base}/:name`, { handler: deleteIdentity }],
  ];
}

/** `/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{name}`. */
const IDENTITY_ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/([^/]+)$/i;

function identityFailure(scaleSetId: string, message: string): ArmError {
  return new ArmError(
    400,
    "FailedIdentityOperation",
    `Identity operation for resource '${scaleSetId}' failed with error 'Failed to perform resource identity operation. Status: 'BadRequest'. Response: '{"error":{"code":"BadRequest","message":"${message}"}}'.'.`,
  );
}

/**
 * The model's `identity` as Azure keeps it once it accepts the write: the type as given, each user-assigned identity
 * (keyed by its id as given) with its principalId and clientId, the system-assigned principal when the type has one.
 * Throws Azure's 400 for a type it does not know, or a user-assigned identity that does not exist.
 */
export function resolveScaleSetIdentity(
  sim: SimulatorContext,
  model: JsonObject,
  scaleSetId: string,
  previous: JsonObject | undefined,
): JsonObject {
  const identity = model.identity;
  if (identity === undefined || identity === null) return model;
  if (!isObject(identity)) throw new ArmError(400, "InvalidParameter", "The value of parameter identity is invalid.");
  const type = typeof identity.type === "string" ? identity.type : "None";
  const kinds = type
    .split(",")
    .map((k) => k.trim().toLowerCase())
    .filter(Boolean);
  const allowed = ["systemassigned", "userassigned", "none"];
  if (kinds.length === 0 || kinds.some((k) => !allowed.includes(k)) || (kinds.includes("none") && kinds.length > 1))
    throw new ArmError(
      400,
      "InvalidParameter",
      `The value '${type}' of parameter 'identity.type' is invalid. Allowed values are: SystemAssigned, UserAssigned, 'SystemAssigned, UserAssigned', None.`,
      { target: "identity.type" },
    );
  const given = isObject(identity.userAssignedIdentities) ? identity.userAssignedIdentities : {};
  const ids = Object.keys(given);
  if (kinds.includes("userassigned") && ids.length === 0)
    throw new ArmError(
      400,
      "InvalidParameter",
      "The identity type 'UserAssigned' needs at least one identity in 'identity.userAssignedIdentities'.",
      { target: "identity.userAssignedIdentities" },
    );
  if (!kinds.includes("userassigned") && ids.length > 0)
    throw new ArmError(
      400,
      "InvalidParameter",
      `'identity.userAssignedIdentities' is given with the identity type '${type}', which has none.`,
      { target: "identity.userAssignedIdentities" },
    );
  const resolved: JsonObject = {};
  for (const id of ids) {
    const m = IDENTITY_ID.exec(id);
    const found =
      m && m[1].toLowerCase() === sim.state.subscriptionId.toLowerCase()
        ? identities(sim).get(keyOf(m[2], m[3]))
        : undefined;
    if (!found) throw identityFailure(scaleSetId, `Resource '${id}' was not found.`);
    resolved[id] = { principalId: found.principalId, clientId: found.clientId };
  }
  const out: JsonObject = { type };
  if (kinds.includes("systemassigned")) {
    // The scale set's own principal lives as long as its system-assigned identity: kept across updates.
    const before = isObject(previous?.identity) ? previous.identity.principalId : undefined;
    out.principalId = typeof before === "string" ? before : randomUUID();
    out.tenantId = SIMULATOR_TENANT_ID;
  }
  if (ids.length > 0) out.userAssignedIdentities = resolved;
  return { ...model, identity: out };
}
