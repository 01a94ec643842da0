// Small JSON helpers shared by the model and the routes.

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function clone<T>(value: T): T {
  return structuredClone(value);
}

/** JSON with object keys sorted, so two equal documents give the same string. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (isObject(value)) {
    const out: JsonObject = {};
    for (const key of Object.keys(value).sort()) {
      if (value[key] !== undefined) out[key] = sortKeys(value[key]);
    }
    return out;
  }
  return value;
}

/**
 * ARM PATCH merge: objects merge key by key, arrays (and anything else) replace as a whole.
 * `null` means "not given" and changes nothing (as Compute treats it; this is not RFC 7396).
 * Keys listed in `replaceWhole` (top level only) replace as a whole even when they are objects (ARM `tags`).
 * Returns a new object; the inputs are not modified.
 */
export function mergePatch(target: JsonObject, patch: JsonObject, replaceWhole: readonly string[] = []): JsonObject {
  const out = clone(target);
  for (const [key, value] of Object.entries(patch)) {
    if (value === undefined || value === null) continue;
    if (isObject(value) && isObject(out[key]) && !replaceWhole.includes(key)) {
      out[key] = mergePatch(out[key], value);
    } else {
      out[key] = clone(value);
    }
  }
  return out;
}

/** Reads a nested property: getPath(x, "properties", "upgradePolicy", "mode"). */
export function getPath(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (!isObject(current)) return undefined;
    current = current[key];
  }
  return current;
}
