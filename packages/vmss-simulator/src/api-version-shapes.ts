// Answers shaped by api-version: a field that the specification of the request's api-version does not define is not
// sent at that version. Each rule names the resource type, the field's wire path and the first api-version of
// azure-rest-api-specs' Compute specification that defines it, as the definitions generated from it show: Microsoft's
// Python SDK (Debian's python3-azure, one models package per api-version from 2015-06-15 to 2022-08-01) and the
// AutoRest-generated @azure/arm-compute majors (19.2.0 for 2022-08-01 to 21.3.0 for 2023-09-01).
// test/simulator-spec.test.ts checks the answers against the vendored specifications (test/fixtures/arm-spec).
// Only the fields the simulator sends at the top of a resource and of its `properties` are covered; docs/simulator.md
// (Known differences) says what is not.

export interface FieldRule {
  /** The resource's `type`, as the body carries it. */
  type: string;
  /** Wire path of the field within the resource. */
  path: readonly string[];
  /** The first api-version whose specification defines the field. */
  since: string;
}

const VMSS = "Microsoft.Compute/virtualMachineScaleSets";
const VMSS_VM = "Microsoft.Compute/virtualMachineScaleSets/virtualMachines";

export const FIELD_RULES: readonly FieldRule[] = [
  { type: VMSS, path: ["etag"], since: "2023-09-01" },
  { type: VMSS, path: ["properties", "singlePlacementGroup"], since: "2016-04-30-preview" },
  { type: VMSS, path: ["properties", "overprovision"], since: "2017-03-30" },
  { type: VMSS, path: ["properties", "uniqueId"], since: "2017-03-30" },
  { type: VMSS, path: ["properties", "platformFaultDomainCount"], since: "2017-12-01" },
  { type: VMSS, path: ["properties", "doNotRunExtensionsOnOverprovisionedVMs"], since: "2018-10-01" },
  { type: VMSS, path: ["properties", "orchestrationMode"], since: "2020-12-01" },
  { type: VMSS, path: ["properties", "timeCreated"], since: "2021-11-01" },
  { type: VMSS_VM, path: ["etag"], since: "2023-09-01" },
  { type: VMSS_VM, path: ["properties", "vmId"], since: "2016-03-30" },
  { type: VMSS_VM, path: ["properties", "networkProfileConfiguration"], since: "2019-03-01" },
  { type: VMSS_VM, path: ["properties", "timeCreated"], since: "2023-07-01" },
  { type: "Microsoft.Compute/virtualMachines", path: ["etag"], since: "2023-09-01" },
];

/** api-versions compare as their dates (a preview sorts after its date's stable version). */
function before(apiVersion: string, since: string): boolean {
  return apiVersion.toLowerCase() < since.toLowerCase();
}

/** The rules that remove something at this api-version, keyed by lower-cased resource type. */
function rulesAt(apiVersion: string): Map<string, FieldRule[]> {
  const byType = new Map<string, FieldRule[]>();
  for (const rule of FIELD_RULES) {
    if (!before(apiVersion, rule.since)) continue;
    const key = rule.type.toLowerCase();
    byType.set(key, [...(byType.get(key) ?? []), rule]);
  }
  return byType;
}

/**
 * The answer as the api-version's specification defines it: the fields it does not define are left out of every
 * resource in the body (the resource itself, a list's `value`, nested resources). The body given is not changed.
 */
export function shapeForApiVersion(apiVersion: string | null | undefined, body: unknown): unknown {
  if (!apiVersion || body === null || typeof body !== "object") return body;
  const rules = rulesAt(apiVersion.trim());
  if (rules.size === 0) return body;
  return shape(body, rules);
}

function shape(value: unknown, rules: Map<string, FieldRule[]>): unknown {
  if (Array.isArray(value)) return value.map((v) => shape(v, rules));
  if (value === null || typeof value !== "object") return value;
  const copy: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) copy[k] = shape(v, rules);
  const type = copy.type;
  if (typeof type === "string") for (const rule of rules.get(type.toLowerCase()) ?? []) remove(copy, rule.path);
  return copy;
}

function remove(target: Record<string, unknown>, path: readonly string[]): void {
  const [head, ...rest] = path;
  if (rest.length === 0) {
    delete target[head];
    return;
  }
  const next = target[head];
  if (next !== null && typeof next === "object" && !Array.isArray(next)) remove(next as Record<string, unknown>, rest);
}
