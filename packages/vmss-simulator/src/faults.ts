// Injected faults: the next `count` ARM requests matching a method and a path fragment are answered
// with an error (respond), have their long-running operation fail (failOperation), get fewer VMs than they ask for
// (allocationFailed), are preempted halfway by another writer's write (preemptOperation), lose their connection
// (dropConnection), or find the scale set changed by another writer just before they are handled (outOfBandChange).
// Kinds (kinds.ts): a Rolling set's rollout that Azure stops halfway (failRollout), Spot VMs evicted just before the
// request is handled (evictSpot).
import { randomUUID } from "node:crypto";
import { isObject } from "./json.ts";
import { MAX_CAPACITY, MIN_CAPACITY, validateTags } from "./limits.ts";

export const FAULT_ACTIONS = [
  "respond",
  "failOperation",
  "allocationFailed",
  "preemptOperation",
  "dropConnection",
  "outOfBandChange",
  "failRollout",
  "evictSpot",
] as const;
export type FaultAction = (typeof FAULT_ACTIONS)[number];

/** An out-of-band change, as `PATCH /_sim/scaleSets/{rg}/{name}` takes it: tags merge (null removes one). */
export interface ScaleSetChange {
  capacity?: number;
  tags?: Record<string, string | null>;
  /** Merged into the tags of every NIC configuration of the model: a network-profile edit, as in the portal. */
  nicTags?: Record<string, string | null>;
}

export interface Fault {
  id: string;
  action: FaultAction;
  /** Upper-case HTTP method, or "*" for any. */
  method: string;
  /** Matched case-insensitively against the URL path (no query). */
  pathContains: string;
  /** respond: the HTTP status. failOperation: the status of the Location (operationResults) URL, default 500. */
  status?: number;
  /** respond / failOperation: the ARM error code. */
  code?: string;
  message?: string;
  /** respond: sent as Retry-After (seconds). */
  retryAfterSeconds?: number;
  /**
   * outOfBandChange: applied at once to the scale set the request addresses, before the request is handled.
   * preemptOperation: the other writer's write that preempts the operation halfway (default: no change).
   */
  change?: ScaleSetChange;
  /** allocationFailed: how many of the VMs the write creates can still be allocated (default 0); the rest end Failed. */
  allocatable?: number;
  /** evictSpot: how many running Spot VMs Azure evicts (default 1). */
  evictions?: number;
  /** Matches left; the fault is removed when it reaches 0. */
  count: number;
  createdAt: number;
}

export class FaultValidationError extends Error {
  override name = "FaultValidationError";
}

const KNOWN_KEYS = new Set([
  "action",
  "method",
  "pathContains",
  "status",
  "code",
  "message",
  "count",
  "retryAfterSeconds",
  "change",
  "allocatable",
  "evictions",
]);

function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

/** Validates a POST /_sim/faults body; throws FaultValidationError with a message naming the bad field. */
export function parseFault(body: unknown, now: number): Fault {
  if (!isObject(body)) throw new FaultValidationError("the body must be a JSON object");
  for (const key of Object.keys(body)) {
    if (!KNOWN_KEYS.has(key))
      throw new FaultValidationError(`unknown field "${key}" (known: ${[...KNOWN_KEYS].join(", ")})`);
  }
  const action = body.action ?? "respond";
  if (typeof action !== "string" || !(FAULT_ACTIONS as readonly string[]).includes(action)) {
    throw new FaultValidationError(`"action" must be one of ${FAULT_ACTIONS.join(", ")}`);
  }
  const { method, pathContains, status, code, message, retryAfterSeconds } = body;
  if (typeof method !== "string" || !/^(\*|[A-Za-z]+)$/.test(method)) {
    throw new FaultValidationError('"method" must be an HTTP method such as "PATCH", or "*" for any');
  }
  if (typeof pathContains !== "string")
    throw new FaultValidationError('"pathContains" must be a string ("" matches every path)');
  const count = body.count ?? 1;
  if (!isInt(count) || count < 1 || count > 1_000_000)
    throw new FaultValidationError('"count" must be a whole number from 1 to 1000000');
  if (status !== undefined && (!isInt(status) || status < 400 || status > 599)) {
    throw new FaultValidationError('"status" must be a whole number from 400 to 599');
  }
  if (action === "respond" && status === undefined)
    throw new FaultValidationError('"status" is required for action "respond"');
  if (code !== undefined && (typeof code !== "string" || code === ""))
    throw new FaultValidationError('"code" must be a non-empty string');
  if ((action === "respond" || action === "failOperation") && code === undefined) {
    throw new FaultValidationError(`"code" is required for action "${action}"`);
  }
  if (message !== undefined && typeof message !== "string")
    throw new FaultValidationError('"message" must be a string');
  if (
    retryAfterSeconds !== undefined &&
    (!isInt(retryAfterSeconds) || retryAfterSeconds < 0 || retryAfterSeconds > 86_400)
  ) {
    throw new FaultValidationError('"retryAfterSeconds" must be a whole number from 0 to 86400');
  }
  const allocatable = body.allocatable;
  if (allocatable !== undefined) {
    if (action !== "allocationFailed")
      throw new FaultValidationError('"allocatable" is only for action "allocationFailed"');
    if (!isInt(allocatable) || allocatable < 0 || allocatable > 1000)
      throw new FaultValidationError('"allocatable" must be a whole number from 0 to 1000');
  }
  const evictions = body.evictions;
  if (evictions !== undefined) {
    if (action !== "evictSpot") throw new FaultValidationError('"evictions" is only for action "evictSpot"');
    if (!isInt(evictions) || evictions < 1 || evictions > 1000)
      throw new FaultValidationError('"evictions" must be a whole number from 1 to 1000');
  }
  const change = faultChange(action, body.change);
  return {
    id: randomUUID(),
    action: action as FaultAction,
    method: method.toUpperCase(),
    pathContains,
    ...(status !== undefined ? { status: status } : {}),
    ...(code !== undefined ? { code: code } : {}),
    ...(message !== undefined ? { message: message } : {}),
    ...(retryAfterSeconds !== undefined ? { retryAfterSeconds: retryAfterSeconds } : {}),
    ...(change !== undefined ? { change } : {}),
    ...(allocatable !== undefined ? { allocatable: allocatable } : {}),
    ...(evictions !== undefined ? { evictions: evictions } : {}),
    count: count,
    createdAt: now,
  };
}

/** The scale set change of an outOfBandChange (required) or a preemptOperation (optional); none for other actions. */
function faultChange(action: string, value: unknown): ScaleSetChange | undefined {
  const required = action === "outOfBandChange";
  if (!required && !(action === "preemptOperation" && value !== undefined)) {
    if (value !== undefined)
      throw new FaultValidationError('"change" is only for actions "outOfBandChange" and "preemptOperation"');
    return undefined;
  }
  try {
    return parseScaleSetChange(value);
  } catch (err) {
    throw new FaultValidationError(`"change": ${(err as Error).message}`);
  }
}

/**
 * Validates `{ capacity?, tags? }` (at least one): capacity a whole number 0..1000, tags an object of strings
 * (or null to remove a tag) within Azure's tag limits. Throws an Error (an ArmError for Azure's tag codes).
 */
export function parseScaleSetChange(value: unknown): ScaleSetChange {
  if (!isObject(value)) throw new Error("must be an object with capacity, tags and/or nicTags");
  for (const key of Object.keys(value)) {
    if (key !== "capacity" && key !== "tags" && key !== "nicTags")
      throw new Error(`unknown field "${key}" (known: capacity, tags, nicTags)`);
  }
  const { capacity, tags, nicTags } = value;
  if (capacity === undefined && tags === undefined && nicTags === undefined)
    throw new Error("give capacity, tags and/or nicTags");
  if (capacity !== undefined && (!isInt(capacity) || capacity < MIN_CAPACITY || capacity > MAX_CAPACITY)) {
    throw new Error(`"capacity" must be a whole number from ${MIN_CAPACITY} to ${MAX_CAPACITY}`);
  }
  for (const [field, map] of [
    ["tags", tags],
    ["nicTags", nicTags],
  ] as const) {
    if (map === undefined) continue;
    if (!isObject(map) || !Object.values(map).every((v) => typeof v === "string" || v === null)) {
      throw new Error(`"${field}" must be an object of strings (null removes a tag)`);
    }
    validateTags(Object.fromEntries(Object.entries(map).filter(([, v]) => v !== null))); // throws ArmError with Azure's code
  }
  return {
    ...(capacity !== undefined ? { capacity: capacity } : {}),
    ...(tags !== undefined ? { tags: { ...(tags as Record<string, string | null>) } } : {}),
    ...(nicTags !== undefined ? { nicTags: { ...(nicTags as Record<string, string | null>) } } : {}),
  };
}

export function faultMessage(fault: Fault): string {
  return fault.message ?? `Injected by the simulator: ${fault.code ?? "fault"}.`;
}

export class FaultStore {
  #faults: Fault[] = [];

  add(fault: Fault): Fault {
    this.#faults.push(fault);
    return fault;
  }

  list(): Fault[] {
    return this.#faults.map((f) => ({ ...f }));
  }

  clear(): void {
    this.#faults = [];
  }

  /** Consumes one match of the oldest fault with one of `actions` that matches the request, if any. */
  take(method: string, pathname: string, actions: readonly FaultAction[]): Fault | undefined {
    const m = method.toUpperCase();
    const path = pathname.toLowerCase();
    const index = this.#faults.findIndex(
      (f) =>
        actions.includes(f.action) &&
        (f.method === "*" || f.method === m) &&
        path.includes(f.pathContains.toLowerCase()),
    );
    if (index < 0) return undefined;
    const fault = this.#faults[index];
    fault.count--;
    if (fault.count <= 0) this.#faults.splice(index, 1);
    return { ...fault };
  }
}
