// A write's change to what Azure holds, field by field, in the shape of Azure's deployment what-if
// (Microsoft.Resources deployments/whatIf: WhatIfChange and WhatIfPropertyChange): per resource a changeType, and
// per property a path, a propertyChangeType, and the value before and after. A PATCH is predicted as Azure applies
// it: objects merged, arrays and `tags` replaced whole; a PUT's body is the whole resource after it.
//
// What-if's property change types are Create, Delete, Modify, Array (nested changes of an array) and NoEffect (a
// property the service sets itself: a body that leaves out or differs on one changes nothing). A resource's is
// Create, Delete, Modify or NoChange here: what-if's Ignore (a resource the template leaves out), Deploy (not known
// whether it changes) and Unsupported have no case, a write naming its resource and being known whole.

export type ResourceChangeType = "Create" | "Delete" | "Modify" | "NoChange";
export type PropertyChangeType = "Create" | "Delete" | "Modify" | "Array" | "NoEffect";

export interface PropertyChange {
  /** Dotted, from the resource's root (`sku.capacity`); an array's children are its indexes (`0`), theirs relative. */
  path: string;
  propertyChangeType: PropertyChangeType;
  before?: unknown;
  after?: unknown;
  children?: PropertyChange[];
}

export interface ResourceChange {
  /** The resource's ARM id (the request's path without its query). */
  resourceId: string;
  changeType: ResourceChangeType;
  /** Modify and NoChange: the properties the write changes, and those it leaves to Azure (NoEffect). */
  delta?: PropertyChange[];
}

/**
 * Properties Azure sets and a write does not: its identity and ETag (at the resource's root), and its state and
 * timestamps wherever they are. A body that leaves them out or holds an older value changes nothing (NoEffect),
 * where any other property would be a Delete or a Modify.
 */
const SET_BY_AZURE_AT_ROOT: ReadonlySet<string> = new Set(["id", "name", "type", "etag", "systemData"]);
const SET_BY_AZURE: ReadonlySet<string> = new Set([
  "etag",
  "provisioningState",
  "uniqueId",
  "resourceGuid",
  "timeCreated",
  "createdTime",
  "lastModifiedTime",
]);

function setByAzure(key: string, atRoot: boolean): boolean {
  return SET_BY_AZURE.has(key) || (atRoot && SET_BY_AZURE_AT_ROOT.has(key));
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** An empty list sent where Azure's read has none is no change: Azure answers a PATCH of [] without the property. */
function isEmptyList(v: unknown): boolean {
  return v === undefined || (Array.isArray(v) && v.length === 0);
}

function same(a: unknown, b: unknown): boolean {
  if (a === b || (isEmptyList(a) && isEmptyList(b))) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => same(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!same(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** The resource after a PATCH of `patch`, as ARM applies one: objects merged, arrays and `tags` replaced. */
export function afterPatch(before: unknown, patch: unknown, key = ""): unknown {
  if (!isObject(before) || !isObject(patch) || key === "tags") return patch;
  const out: Json = { ...before };
  for (const [k, v] of Object.entries(patch)) out[k] = v === undefined ? before[k] : afterPatch(before[k], v, k);
  return out;
}

function joined(prefix: string, key: string): string {
  return prefix === "" ? key : `${prefix}.${key}`;
}

function leafChange(path: string, ignored: boolean, before: unknown, after: unknown): PropertyChange | undefined {
  if (same(before, after)) return undefined;
  const present = (v: unknown) => v !== undefined;
  const kind: PropertyChangeType = ignored
    ? "NoEffect"
    : !present(before)
      ? "Create"
      : !present(after)
        ? "Delete"
        : "Modify";
  return {
    path,
    propertyChangeType: kind,
    ...(present(before) ? { before } : {}),
    ...(present(after) ? { after } : {}),
  };
}

function arrayChange(path: string, before: unknown[], after: unknown[]): PropertyChange | undefined {
  if (same(before, after)) return undefined;
  const children: PropertyChange[] = [];
  for (let i = 0; i < Math.max(before.length, after.length); i++) {
    const [b, a] = [before[i], after[i]];
    if (isObject(b) && isObject(a)) {
      const nested = propertyChanges(b, a, "", false);
      if (nested.length > 0) children.push({ path: String(i), propertyChangeType: "Modify", children: nested });
    } else {
      const leaf = leafChange(String(i), false, b, a);
      if (leaf) children.push(leaf);
    }
  }
  return { path, propertyChangeType: "Array", children };
}

/**
 * The properties that differ between two states of a resource, nested objects flattened into dotted paths. `root`:
 * these are the resource's own (not an array element's), whose id and name are Azure's.
 */
export function propertyChanges(before: Json, after: Json, prefix = "", root = true): PropertyChange[] {
  const out: PropertyChange[] = [];
  for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
    const [b, a] = [before[key], after[key]];
    const path = joined(prefix, key);
    const ignored = setByAzure(key, root && prefix === "");
    if (isObject(b) && isObject(a) && !ignored) out.push(...propertyChanges(b, a, path, root));
    else if (Array.isArray(b) && Array.isArray(a)) {
      const change = arrayChange(path, b, a);
      if (change) out.push(change);
    } else {
      const change = leafChange(path, ignored, b, a);
      if (change) out.push(change);
    }
  }
  return out;
}

/** A change of an existing resource: Modify when a property the write sets changes, else NoChange. */
export function modifyOf(resourceId: string, before: unknown, after: unknown): ResourceChange {
  const delta = propertyChanges(isObject(before) ? before : {}, isObject(after) ? after : {});
  const changes = delta.some((d) => d.propertyChangeType !== "NoEffect");
  return { resourceId, changeType: changes ? "Modify" : "NoChange", ...(delta.length > 0 ? { delta } : {}) };
}
