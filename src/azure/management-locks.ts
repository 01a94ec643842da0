// ARM management locks (Microsoft.Authorization/locks) as read for a Flexible scale set: a VM of such a set is
// protected by a lock where a Uniform instance is by its protectionPolicy (Microsoft Learn, "Orchestration modes API
// comparison": "ARM Lock Resource for Instance Protection"). A lock holds the resource it sits on and every resource
// below that scope ("When you apply a lock at a parent scope, all child resources inherit the same lock": the REST
// spec, locks.json), so a resource group's lock holds each VM in it. Any lock refuses a delete (CanNotDelete,
// ReadOnly), which Azure answers 409 ScopeLocked; here it is only read, so that a delete is refused before it is sent.

/** The api-version of Microsoft.Authorization's locks this service reads with (the REST spec's latest stable). */
export const LOCKS_API_VERSION = "2020-05-01";

export interface ManagementLock {
  /** `{scope}/providers/Microsoft.Authorization/locks/{name}` */
  id: string;
  name: string;
  level: string;
  notes?: string;
}

const LOCK_SEGMENT = /\/providers\/Microsoft\.Authorization\/locks\/[^/]+$/i;

/** The scope a lock sits on: its id without `/providers/Microsoft.Authorization/locks/{name}`. */
export function scopeOfLock(lock: ManagementLock): string {
  return lock.id.replace(LOCK_SEGMENT, "");
}

/** The locks that hold a resource: on it, or on a scope above it (its resource group, its subscription). */
export function locksHolding(resourceId: string, locks: ManagementLock[]): ManagementLock[] {
  const id = resourceId.toLowerCase().replace(/\/+$/, "");
  return locks.filter((lock) => {
    const scope = scopeOfLock(lock).toLowerCase().replace(/\/+$/, "");
    return scope !== "" && (id === scope || id.startsWith(`${scope}/`));
  });
}

/** "keep (CanNotDelete, on /subscriptions/…/virtualMachines/web_0a1b2c3d)": how a refusal names a lock. */
export function describeLock(lock: ManagementLock): string {
  return `${lock.name} (${lock.level}, on ${scopeOfLock(lock)}${lock.notes ? `: ${lock.notes}` : ""})`;
}

/** A lock as a list answer holds it: nothing is known of a field until it is checked. */
type LockOnWire =
  { id?: unknown; name?: unknown; properties?: { level?: unknown; notes?: unknown } } | null | undefined;

/** The locks of a list answer, as far as they are well formed. */
export function parseLocks(value: unknown): ManagementLock[] {
  if (!Array.isArray(value)) return [];
  return (value as LockOnWire[]).flatMap((raw): ManagementLock[] => {
    const id = raw?.id;
    const level = raw?.properties?.level;
    if (typeof id !== "string" || typeof level !== "string") return [];
    const notes = raw?.properties?.notes;
    return [
      {
        id,
        name: typeof raw?.name === "string" ? raw.name : id.split("/").pop()!,
        level,
        ...(typeof notes === "string" && notes !== "" ? { notes } : {}),
      },
    ];
  });
}
