// ARM management locks (Microsoft.Authorization/locks), at the three scopes a deploy meets: a resource group, a scale
// set, a Flexible scale set's VM (what Microsoft's "Orchestration modes API comparison" names in place of Uniform's
// instance protection). The REST spec (Microsoft.Authorization/stable/2020-05-01/locks.json):
// - `PUT`, `GET`, `DELETE {scope}/providers/Microsoft.Authorization/locks/{lock}`, `{ properties: { level, notes? } }`;
// - `GET {scope}/providers/Microsoft.Authorization/locks` lists them: ListAtResourceGroupLevel "all the management
//   locks for a resource group" (its own and those of every resource in it), ListAtResourceLevel "for a resource or
//   any level below" (with those it inherits from its resource group, as ARM lists them).
// "When you apply a lock at a parent scope, all child resources inherit the same lock" (the spec, on every PUT): a
// resource group's lock holds each resource in it. A CanNotDelete lock refuses a DELETE, a ReadOnly lock a DELETE and
// every write and action, with ARM's 409 ScopeLocked naming the locked scopes.
//
// `GET /subscriptions/{id}/providers/Microsoft.Authorization/locks` lists every lock in the subscription.
// Choices, written down in docs/simulator.md: no subscription locks, none on a Uniform set's instances; a Flexible VM
// is not a child of its scale set (it is a resource of the group), so the scale set's locks do not hold its VMs; a
// capacity decrease does not look at the VMs' locks.
import { ArmError, invalidParameter, missingParameter, resourceNotFound, subscriptionNotFound } from "./arm-errors.ts";
import { requireResourceGroup } from "./arm-checks.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { flexibleVmId, VM_TYPE } from "./flexible.ts";
import { parseJsonBody, send } from "./http.ts";
import { isObject, type JsonObject } from "./json.ts";
import { sendPage } from "./paging.ts";
import type { RouteParams } from "./router.ts";
import { isFlexible, scaleSetId, type ScaleSet, type Vm } from "./vmss-model.ts";
import type { SimState } from "./state.ts";

export const LOCK_TYPE = "Microsoft.Authorization/locks";
const LEVELS = ["CanNotDelete", "ReadOnly"] as const;
type LockLevel = (typeof LEVELS)[number];

interface Lock {
  name: string;
  level: LockLevel;
  notes?: string;
}

/** A scope a lock can sit on. */
export type LockScope =
  | { kind: "resourceGroup"; subscriptionId: string; resourceGroup: string }
  | { kind: "scaleSet"; ss: ScaleSet }
  | { kind: "vm"; ss: ScaleSet; vm: Vm };

// A scale set's and a VM's locks live with their record (deleted with it; made again under the same name, unlocked);
// a resource group's in a table of the simulator's state, emptied by a reset (clearLocks).
const recordLocks = new WeakMap<ScaleSet | Vm, Map<string, Lock>>();
const groupLocks = new WeakMap<SimState, Map<string, Map<string, Lock>>>();
/** Read and restored by a state directory (world-snapshot.ts). */
export { groupLocks, recordLocks };

function locksAt(sim: SimulatorContext, scope: LockScope): Map<string, Lock> {
  if (scope.kind === "resourceGroup") {
    let groups = groupLocks.get(sim.state);
    if (!groups) groupLocks.set(sim.state, (groups = new Map<string, Map<string, Lock>>()));
    const key = scope.resourceGroup.toLowerCase();
    let locks = groups.get(key);
    if (!locks) groups.set(key, (locks = new Map<string, Lock>()));
    return locks;
  }
  const record = scope.kind === "vm" ? scope.vm : scope.ss;
  let locks = recordLocks.get(record);
  if (!locks) recordLocks.set(record, (locks = new Map<string, Lock>()));
  return locks;
}

/** Forgets the resource groups' locks (the scale sets' and VMs' go with their records). */
export function clearLocks(sim: SimulatorContext): void {
  groupLocks.delete(sim.state);
}

export function scopeId(scope: LockScope): string {
  switch (scope.kind) {
    case "resourceGroup":
      return `/subscriptions/${scope.subscriptionId}/resourceGroups/${scope.resourceGroup}`;
    case "scaleSet":
      return scaleSetId(scope.ss);
    case "vm":
      return flexibleVmId(scope.ss, scope.vm.instanceId);
  }
}

function groupOf(scope: LockScope): LockScope {
  if (scope.kind === "resourceGroup") return scope;
  return { kind: "resourceGroup", subscriptionId: scope.ss.subscriptionId, resourceGroup: scope.ss.resourceGroup };
}

/** The locks that hold a scope: its own and its resource group's, each with the scope it sits on. */
function locksHolding(sim: SimulatorContext, scope: LockScope): { scope: LockScope; lock: Lock }[] {
  const scopes = scope.kind === "resourceGroup" ? [scope] : [groupOf(scope), scope];
  return scopes.flatMap((s) => [...locksAt(sim, s).values()].map((lock) => ({ scope: s, lock })));
}

/**
 * Refuses a delete (any lock) or a write or action (a ReadOnly lock) of the resource at `scope`: ARM's 409
 * ScopeLocked, in ARM's words, naming every scope whose lock forbids it.
 */
export function checkLocks(sim: SimulatorContext, scope: LockScope, action: "delete" | "write"): void {
  const forbidding = locksHolding(sim, scope).filter(({ lock }) => action === "delete" || lock.level === "ReadOnly");
  if (forbidding.length === 0) return;
  const locked = [...new Set(forbidding.map((f) => scopeId(f.scope)))].map((id) => `'${id}'`).join(",");
  throw new ArmError(
    409,
    "ScopeLocked",
    `The scope '${scopeId(scope)}' cannot perform ${action} operation because following scope(s) are locked: ${locked}. Please remove the lock and try again.`,
  );
}

/** A Flexible VM's delete or action (`power`: start, restart, …, which a ReadOnly lock forbids). */
export function checkVmLocks(sim: SimulatorContext, ss: ScaleSet, vm: Vm, action: string): void {
  checkLocks(sim, { kind: "vm", ss, vm }, action === "delete" ? "delete" : "write");
}

/**
 * A write or delete of a scale set, or (`vms`) the delete of some of its VMs: a Uniform set's instances are its child
 * resources and hold its locks; a Flexible set's VMs are resources of their own and hold theirs (and their group's).
 * `at` a resource group (a create): held by that group's locks only.
 */
export function checkScaleSetLocks(
  sim: SimulatorContext,
  at: ScaleSet | { subscriptionId: string; resourceGroup: string },
  action: "delete" | "write",
  vms: Vm[] = [],
): void {
  const ss = "vms" in at ? at : undefined;
  const scope: LockScope = ss
    ? { kind: "scaleSet", ss }
    : { kind: "resourceGroup", subscriptionId: at.subscriptionId, resourceGroup: at.resourceGroup };
  checkLocks(sim, scope, action);
  if (ss && isFlexible(ss)) for (const vm of vms) checkLocks(sim, { kind: "vm", ss, vm }, "delete");
  else if (vms.length > 0) checkLocks(sim, scope, "delete");
}

function renderLock(scope: LockScope, lock: Lock): JsonObject {
  return {
    id: `${scopeId(scope)}/providers/${LOCK_TYPE}/${lock.name}`,
    type: LOCK_TYPE,
    name: lock.name,
    properties: { level: lock.level, ...(lock.notes !== undefined ? { notes: lock.notes } : {}) },
  };
}

// ---- the scope a path names ----

function groupScope(sim: SimulatorContext, params: RouteParams): LockScope {
  const resourceGroup = requireResourceGroup(sim, params);
  return { kind: "resourceGroup", subscriptionId: params.subscriptionId, resourceGroup };
}

function scaleSetScope(sim: SimulatorContext, params: RouteParams): LockScope {
  const rg = requireResourceGroup(sim, params);
  const ss = sim.state.getScaleSet(rg, params.name);
  if (!ss) throw resourceNotFound("Microsoft.Compute/virtualMachineScaleSets", params.name, params.resourceGroup);
  return { kind: "scaleSet", ss };
}

function vmScope(sim: SimulatorContext, params: RouteParams): LockScope {
  requireResourceGroup(sim, params);
  const found = sim.state.findFlexibleVm(params.resourceGroup, params.vmName);
  if (!found) throw resourceNotFound(VM_TYPE, params.vmName, params.resourceGroup);
  return { kind: "vm", ...found };
}

type ScopeOf = (sim: SimulatorContext, params: RouteParams) => LockScope;

/** What a list at a scope shows: the locks holding it, and (a resource group) those of every resource in it. */
function listed(sim: SimulatorContext, scope: LockScope): { scope: LockScope; lock: Lock }[] {
  const own = locksHolding(sim, scope);
  if (scope.kind !== "resourceGroup") return own;
  const below = sim.state
    .listScaleSets(scope.resourceGroup)
    .flatMap((ss): LockScope[] => [
      { kind: "scaleSet", ss },
      ...[...ss.vms.values()].map((vm): LockScope => ({ kind: "vm", ss, vm })),
    ]);
  return [...own, ...below.flatMap((s) => [...locksAt(sim, s).values()].map((lock) => ({ scope: s, lock })))];
}

const listSubscriptionLocks: Handler = (ctx, sim, params) => {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const groups = new Map<string, string>(sim.state.resourceGroups);
  for (const key of groupLocks.get(sim.state)?.keys() ?? []) if (!groups.has(key)) groups.set(key, key);
  const all = [...groups.values()].flatMap((resourceGroup) =>
    listed(sim, { kind: "resourceGroup", subscriptionId: sim.state.subscriptionId, resourceGroup }),
  );
  sendPage(ctx, sim, all, (l) => renderLock(l.scope, l.lock));
};

function scopeHandlers(scopeOf: ScopeOf): { put: Handler; get: Handler; del: Handler; list: Handler } {
  return {
    put: (ctx, sim, params) => {
      const scope = scopeOf(sim, params);
      const body = parseJsonBody(ctx);
      const level = isObject(body) && isObject(body.properties) ? body.properties.level : undefined;
      if (level === undefined) throw missingParameter("properties.level");
      const known = LEVELS.find((l) => typeof level === "string" && l.toLowerCase() === level.toLowerCase());
      if (!known)
        throw invalidParameter(
          `The value '${typeof level === "string" ? level : JSON.stringify(level)}' of parameter 'level' is invalid. Allowed values are: ${LEVELS.join(", ")}.`,
          "properties.level",
        );
      const notes =
        isObject(body) && isObject(body.properties) && typeof body.properties.notes === "string"
          ? body.properties.notes
          : undefined;
      const locks = locksAt(sim, scope);
      const created = !locks.has(params.lockName.toLowerCase());
      const lock: Lock = { name: params.lockName, level: known, ...(notes !== undefined ? { notes } : {}) };
      locks.set(params.lockName.toLowerCase(), lock);
      send(ctx, created ? 201 : 200, renderLock(scope, lock));
    },
    get: (ctx, sim, params) => {
      const scope = scopeOf(sim, params);
      const lock = locksAt(sim, scope).get(params.lockName.toLowerCase());
      if (!lock) throw new ArmError(404, "LockNotFound", `The lock '${params.lockName}' could not be found.`);
      send(ctx, 200, renderLock(scope, lock));
    },
    del: (ctx, sim, params) => {
      const scope = scopeOf(sim, params);
      send(ctx, locksAt(sim, scope).delete(params.lockName.toLowerCase()) ? 200 : 204);
    },
    list: (ctx, sim, params) => {
      const scope = scopeOf(sim, params);
      sendPage(ctx, sim, listed(sim, scope), (l) => renderLock(l.scope, l.lock));
    },
  };
}

/**
 * The lock routes at a resource group, a scale set and a Flexible VM (`group`, `scaleSets` and `vms` are those
 * resources' paths, with :resourceGroup, :name and :vmName). Management locks are not Compute's: no Compute throttling.
 */
export function lockRoutes(group: string, scaleSets: string, vms: string): [string, string, Route][] {
  const subscription = group.replace(/\/resourceGroups\/:resourceGroup$/, "");
  const at = (resource: string, scopeOf: ScopeOf): [string, string, Route][] => {
    const h = scopeHandlers(scopeOf);
    const locks = `${resource}/providers/Microsoft.Authorization/locks`;
    return [
      ["GET", locks, { handler: h.list }],
      ["PUT", `${locks}/:lockName`, { handler: h.put }],
      ["GET", `${locks}/:lockName`, { handler: h.get }],
      ["DELETE", `${locks}/:lockName`, { handler: h.del }],
    ];
  };
  return [
    // ManagementLocks_ListAtSubscriptionLevel: every lock of every group and of every resource in it.
    ["GET", `${subscription}/providers/Microsoft.Authorization/locks`, { handler: listSubscriptionLocks }],
    ...at(group, groupScope),
    ...at(`${scaleSets}/:name`, scaleSetScope),
    ...at(`${vms}/:vmName`, vmScope),
  ];
}
