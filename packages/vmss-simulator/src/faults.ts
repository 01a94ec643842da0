// Injected faults: the next `count` ARM requests matching a method and a path fragment are answered
// with an error (respond), have their long-running operation fail (failOperation), get fewer VMs than they ask for
// (allocationFailed), are preempted halfway by another writer's write (preemptOperation), lose their connection
// (dropConnection), or find the scale set changed by another writer just before they are handled (outOfBandChange).
// Kinds (kinds.ts): a Rolling set's rollout that Azure stops halfway (failRollout), Spot VMs evicted just before the
// request is handled (evictSpot).
import { randomUUID } from "node:crypto";
import type { TObject } from "@sinclair/typebox";
import { ValueErrorType } from "@sinclair/typebox/errors";
import { Value } from "@sinclair/typebox/value";
import {
  FAULT_ACTIONS,
  FAULT_SPECS,
  ScaleSetChangeSchema,
  type FaultAction,
  type FaultSpec,
  type ScaleSetChange,
} from "./fault-specs.ts";
import { isObject } from "./json.ts";
import { validateTags } from "./limits.ts";

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

/** Every field some action takes, and the actions that take it. */
const ACTIONS_OF_FIELD = new Map<string, FaultAction[]>();
for (const action of FAULT_ACTIONS)
  for (const field of Object.keys(FAULT_SPECS[action].properties))
    ACTIONS_OF_FIELD.set(field, [...(ACTIONS_OF_FIELD.get(field) ?? []), action]);

/** Validates a POST /_sim/faults body against its action's schema; throws FaultValidationError naming the bad field. */
export function parseFault(body: unknown, now: number): Fault {
  if (!isObject(body)) throw new FaultValidationError("the body must be a JSON object");
  const action = body.action ?? "respond";
  if (typeof action !== "string" || !(FAULT_ACTIONS as string[]).includes(action)) {
    throw new FaultValidationError(`"action" must be one of ${FAULT_ACTIONS.join(", ")}`);
  }
  const schema = FAULT_SPECS[action as FaultAction];
  const problem = unknownField(action, schema, body) ?? schemaProblem(action, schema, body);
  if (problem !== undefined) throw new FaultValidationError(problem);
  const spec = body as FaultSpec;
  const change = "change" in spec && spec.change !== undefined ? checkedChange(spec.change) : undefined;
  return {
    ...(spec as Omit<Fault, "id" | "createdAt" | "count" | "action">),
    ...(change !== undefined ? { change } : {}),
    id: randomUUID(),
    action: action as FaultAction,
    method: spec.method.toUpperCase(),
    count: spec.count ?? 1,
    createdAt: now,
  };
}

/** A field the action's schema does not have: unknown to every action, or another action's. */
function unknownField(action: string, schema: TObject, body: Record<string, unknown>): string | undefined {
  for (const key of Object.keys(body)) {
    if (key in schema.properties) continue;
    const actions = ACTIONS_OF_FIELD.get(key);
    if (!actions) return `unknown field "${key}" (known: ${[...ACTIONS_OF_FIELD.keys()].join(", ")})`;
    return `"${key}" is only for action${actions.length > 1 ? "s" : ""} ${actions.map((a) => `"${a}"`).join(", ")}, not "${action}"`;
  }
  return undefined;
}

/** The first field the schema refuses, in words: missing, or not what its description says it must be. */
function schemaProblem(action: string, schema: TObject, body: Record<string, unknown>): string | undefined {
  const error = Value.Errors(schema, body).First();
  if (!error) return undefined;
  const field = error.path.split("/")[1] ?? "";
  if (error.type === ValueErrorType.ObjectRequiredProperty) return `"${field}" is required for action "${action}"`;
  if (field === "change") return `"change": ${changeProblem(body.change)}`;
  return `"${field}" must be ${schema.properties[field]?.description ?? "as its schema says"}`;
}

function changeProblem(value: unknown): string {
  try {
    parseScaleSetChange(value);
  } catch (err) {
    return (err as Error).message;
  }
  return "must be an object with capacity, tags and/or nicTags";
}

/** A fault's change, held to Azure's tag limits as a PATCH is. */
function checkedChange(value: ScaleSetChange): ScaleSetChange {
  try {
    return parseScaleSetChange(value);
  } catch (err) {
    throw new FaultValidationError(`"change": ${(err as Error).message}`);
  }
}

/**
 * Validates `{ capacity?, tags?, nicTags? }` (at least one) against its schema, tags within Azure's tag limits.
 * Throws an Error (an ArmError for Azure's tag codes).
 */
export function parseScaleSetChange(value: unknown): ScaleSetChange {
  if (!isObject(value)) throw new Error(ScaleSetChangeSchema.description);
  const known = Object.keys(ScaleSetChangeSchema.properties);
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) throw new Error(`unknown field "${key}" (known: ${known.join(", ")})`);
  }
  const error = Value.Errors(ScaleSetChangeSchema, value).First();
  if (error) {
    const field = error.path.split("/")[1] as keyof typeof ScaleSetChangeSchema.properties;
    throw new Error(`"${field}" must be ${ScaleSetChangeSchema.properties[field].description}`);
  }
  const { capacity, tags, nicTags } = value as ScaleSetChange;
  if (capacity === undefined && tags === undefined && nicTags === undefined)
    throw new Error("give capacity, tags and/or nicTags");
  for (const map of [tags, nicTags]) {
    if (map === undefined) continue;
    validateTags(Object.fromEntries(Object.entries(map).filter(([, v]) => v !== null))); // throws ArmError with Azure's code
  }
  return {
    ...(capacity !== undefined ? { capacity } : {}),
    ...(tags !== undefined ? { tags: { ...tags } } : {}),
    ...(nicTags !== undefined ? { nicTags: { ...nicTags } } : {}),
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
