// Schema pieces shared by every operation's description (Clouddriver's field names), and Azure's naming rules
// for the names that end up in ARM URLs.
import { Type, type Static } from "@sinclair/typebox";
import type { FieldProblem } from "../azure/accounts.ts";
import { SERVER_GROUP_RESOURCE_GROUP_RULE } from "../naming/frigga.ts";

export const MAX_CAPACITY = 1000; // Azure's limit of instances in one scale set

export const AccountName = Type.String({
  pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$",
  description: "an account name: 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit",
});

export const RegionName = Type.String({
  pattern: "^[a-z][a-z0-9]{1,39}$",
  description: "an Azure region name such as eastus: lowercase letters and digits, no spaces",
});

/** Azure: 1-90 characters, letters, digits, '_', '-', '.', '(' and ')'; may not end with '.'. */
export const ResourceGroupName = Type.String({
  pattern: "^[-\\p{L}\\p{N}._()]{0,89}[-\\p{L}\\p{N}_()]$",
  description: "an Azure resource group name: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending with '.'",
});

/** Azure: 1-64 characters, letters, digits, '_', '-', '.'; starts with a letter or digit, ends with one or '_'. */
export const ScaleSetName = Type.String({
  pattern: "^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9_])?$",
  description:
    "an Azure scale set name: 1-64 letters, digits, '_', '-' or '.', starting with a letter or digit and not ending with '.' or '-'",
});

export const InstanceCount = Type.Integer({ minimum: 0, maximum: MAX_CAPACITY });

export const Capacity = Type.Object(
  { min: InstanceCount, max: InstanceCount, desired: InstanceCount },
  {
    $id: "Capacity",
    description: "Instance counts, 0 to 1000: min ≤ desired ≤ max (a resize lowers a higher min to desired).",
    additionalProperties: false,
  },
);
export type Capacity = Static<typeof Capacity>;

/**
 * The fields that locate a server group. Orca sends more (cloudProvider, moniker, user, …): bodies are open, so that
 * its requests work unchanged, and a field nobody reads is named in the answer (src/api/ignored-fields.ts).
 */
export const serverGroupFields = {
  credentials: Type.Optional({ ...AccountName, description: "the account name (Clouddriver's field)" }),
  account: Type.Optional({ ...AccountName, description: "the account name; an alias of credentials" }),
  region: RegionName,
  serverGroupName: ScaleSetName,
  resourceGroup: Type.Optional({
    ...ResourceGroupName,
    description: SERVER_GROUP_RESOURCE_GROUP_RULE,
  }),
};

// Where a description's server group is and what can be wrong with a request's field are the accounts' terms: the
// accounts locate a server group from a description (azure/accounts.ts).
export type { FieldProblem, ServerGroupLocator } from "../azure/accounts.ts";

/**
 * Orca sends its stage context as the description, with `null` wherever a value was never set (desiredPercentage,
 * targetSize, resourceGroup, …). null means absent: these keys are dropped, in nested objects too, before the schema
 * judges the rest, so a null optional field is simply not given and a null required one is reported as missing.
 * Array elements are kept as they are: [null] is a wrong value, not an absent one.
 */
export function withoutNulls<T>(value: T): T {
  if (Array.isArray(value))
    return value.map((v: unknown) => (v !== null && typeof v === "object" ? withoutNulls(v) : v)) as T;
  if (value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (v !== null) out[k] = typeof v === "object" ? withoutNulls(v) : v;
  }
  return out as T;
}

export function checkCapacityOrder(capacity: Capacity, field = "capacity"): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (capacity.min > capacity.desired) {
    problems.push({
      field: `${field}.min`,
      message: `min (${capacity.min}) must not exceed desired (${capacity.desired})`,
    });
  }
  if (capacity.desired > capacity.max) {
    problems.push({
      field: `${field}.max`,
      message: `max (${capacity.max}) must not be below desired (${capacity.desired})`,
    });
  }
  return problems;
}
