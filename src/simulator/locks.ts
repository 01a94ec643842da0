// ARM management locks (Microsoft.Authorization/locks) on a Flexible scale set's VMs: what Microsoft's "Orchestration
// modes API comparison" names in place of Uniform's instance protection. `PUT`, `GET` and `DELETE
// …/virtualMachines/{vm}/providers/Microsoft.Authorization/locks/{lock}`, `{ properties: { level, notes? } }`.
// A CanNotDelete lock refuses the VM's DELETE, a ReadOnly lock its DELETE and its actions, with ARM's 409 ScopeLocked.
//
// Choices, written down in docs/simulator.md: only locks on the VM itself are modelled (none on resource groups or
// scale sets); the scale set's own writes (a scale-in, its batch delete) do not look at the VMs' locks.
import { ArmError, invalidParameter, missingParameter, resourceNotFound } from "./arm-errors.ts";
import { requireResourceGroup } from "./arm-checks.ts";
import type { Handler, Route, SimulatorContext } from "./context.ts";
import { flexibleVmId, VM_TYPE } from "./flexible.ts";
import { parseJsonBody, send } from "./http.ts";
import { isObject } from "./json.ts";
import type { RouteParams } from "./router.ts";
import type { ScaleSet, Vm } from "./vmss-model.ts";

export const LOCK_TYPE = "Microsoft.Authorization/locks";
const LEVELS = ["CanNotDelete", "ReadOnly"] as const;
type LockLevel = (typeof LEVELS)[number];

interface Lock {
  name: string;
  level: LockLevel;
  notes?: string;
}

/** The locks of each VM (its record: a VM deleted and made again under the same name starts unlocked). */
const locksOf = new WeakMap<Vm, Map<string, Lock>>();

function vmLocks(vm: Vm): Map<string, Lock> {
  let locks = locksOf.get(vm);
  if (!locks) locksOf.set(vm, (locks = new Map()));
  return locks;
}

/** Refuses `action` on the VM when a lock forbids it: ARM's 409 ScopeLocked, in ARM's words. */
export function checkVmLocks(sim: SimulatorContext, ss: ScaleSet, vm: Vm, action: string): void {
  const levels = [...vmLocks(vm).values()].map((l) => l.level);
  const locked = action === "delete" ? levels.length > 0 : levels.includes("ReadOnly");
  if (!locked) return;
  const scope = flexibleVmId(ss, vm.instanceId);
  const verb = action === "delete" ? "delete" : "write";
  throw new ArmError(409, "ScopeLocked", `The scope '${scope}' cannot perform ${verb} operation because following scope(s) are locked: '${scope}'. Please remove the lock and try again.`);
}

function requireVm(sim: SimulatorContext, params: RouteParams): { ss: ScaleSet; vm: Vm } {
  requireResourceGroup(sim, params);
  const found = sim.state.findFlexibleVm(params.resourceGroup, params.vmName);
  if (!found) throw resourceNotFound(VM_TYPE, params.vmName, params.resourceGroup);
  return found;
}

function renderLock(ss: ScaleSet, vm: Vm, lock: Lock) {
  return {
    id: `${flexibleVmId(ss, vm.instanceId)}/providers/${LOCK_TYPE}/${lock.name}`,
    type: LOCK_TYPE,
    name: lock.name,
    properties: { level: lock.level, ...(lock.notes !== undefined ? { notes: lock.notes } : {}) },
  };
}

const putLock: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireVm(sim, params);
  const body = parseJsonBody(ctx);
  const level = isObject(body) && isObject(body.properties) ? body.properties.level : undefined;
  if (level === undefined) throw missingParameter("properties.level");
  const known = LEVELS.find((l) => typeof level === "string" && l.toLowerCase() === level.toLowerCase());
  if (!known) throw invalidParameter(`The value '${String(level)}' of parameter 'level' is invalid. Allowed values are: ${LEVELS.join(", ")}.`, "properties.level");
  const notes = isObject(body) && isObject(body.properties) && typeof body.properties.notes === "string" ? body.properties.notes : undefined;
  const locks = vmLocks(vm);
  const created = !locks.has(params.lockName.toLowerCase());
  const lock: Lock = { name: params.lockName, level: known, ...(notes !== undefined ? { notes } : {}) };
  locks.set(params.lockName.toLowerCase(), lock);
  send(ctx, created ? 201 : 200, renderLock(ss, vm, lock));
};

const getLock: Handler = (ctx, sim, params) => {
  const { ss, vm } = requireVm(sim, params);
  const lock = vmLocks(vm).get(params.lockName.toLowerCase());
  if (!lock) throw new ArmError(404, "LockNotFound", `The lock '${params.lockName}' could not be found.`);
  send(ctx, 200, renderLock(ss, vm, lock));
};

const deleteLock: Handler = (ctx, sim, params) => {
  const { vm } = requireVm(sim, params);
  send(ctx, vmLocks(vm).delete(params.lockName.toLowerCase()) ? 200 : 204);
};

/** Management locks are not Compute's: no Compute throttling. */
export function lockRoutes(vms: string): [string, string, Route][] {
  const path = `${vms}/:vmName/providers/Microsoft.Authorization/locks/:lockName`;
  return [
    ["PUT", path, { handler: putLock }],
    ["GET", path, { handler: getLock }],
    ["DELETE", path, { handler: deleteLock }],
  ];
}
