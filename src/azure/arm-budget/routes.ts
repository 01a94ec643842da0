// What an ARM call is charged to: the buckets of its Compute policy (per subscription, and per scale set, VM or
// operation), and ARM's per-subscription budget of its kind (reads, writes, deletes), found by its method and path.
import type { PipelineRequest } from "@azure/core-rest-pipeline";
import type { ArmBudgetFigures, ArmBudgetKind, BucketFigures, ComputePolicy } from "./figures.ts";

/** One bucket a call takes from: its key in the ledger, its figures, and what a person calls it. */
export interface ChargedBucket {
  key: string;
  figures: BucketFigures;
  /** e.g. "subscription write budget", "scale set read budget". */
  label: string;
  /** The name Azure gives it in x-ms-ratelimit-remaining-resource, or the ARM header's name. */
  azureName: string;
  /**
   * Spent by one replica alone, in its memory even when the ledger is shared (local-buckets.ts): an operation's, which
   * only the replica holding its task polls.
   */
  local?: true;
}

export type CallPriority = "task" | "cache";

export interface ArmCall {
  method: string;
  /** Lower case. */
  subscriptionId: string;
  buckets: ChargedBucket[];
}

const SUB = "/subscriptions/([^/]+)";
const VMSS = `${SUB}/resourceGroups/([^/]+)/providers/Microsoft\\.Compute/virtualMachineScaleSets`;
const ROUTES: [
  method: string,
  pattern: RegExp,
  policy: ComputePolicy | ((request: PipelineRequest) => ComputePolicy),
  resource: "scaleSet" | "vm" | "operation" | null,
][] = [
  [
    "GET",
    new RegExp(`^${SUB}/providers/Microsoft\\.Compute/virtualMachineScaleSets$`, "i"),
    "HighCostGetVMScaleSet",
    null,
  ],
  ["GET", new RegExp(`^${VMSS}$`, "i"), "HighCostGetVMScaleSet", null],
  ["GET", new RegExp(`^${VMSS}/([^/]+)$`, "i"), "GetVMScaleSet", "scaleSet"],
  // A PUT with If-Match changes a scale set (an action); without, it creates one.
  [
    "PUT",
    new RegExp(`^${VMSS}/([^/]+)$`, "i"),
    (r) => (r.headers.get("if-match") ? "VMScaleSetActions" : "CreateVMScaleSet"),
    "scaleSet",
  ],
  ["PATCH", new RegExp(`^${VMSS}/([^/]+)$`, "i"), "VMScaleSetActions", "scaleSet"],
  ["DELETE", new RegExp(`^${VMSS}/([^/]+)$`, "i"), "DeleteVMScaleSet", "scaleSet"],
  ["GET", new RegExp(`^${VMSS}/([^/]+)/virtualMachines$`, "i"), "HighCostGetVMScaleSet", "scaleSet"],
  ["GET", new RegExp(`^${VMSS}/([^/]+)/virtualMachines/([^/]+)$`, "i"), "GetVMScaleSetVM", "vm"],
  ["POST", new RegExp(`^${VMSS}/([^/]+)/[^/]+$`, "i"), "VMScaleSetActions", null],
  [
    "GET",
    new RegExp(`^${SUB}/providers/Microsoft\\.Compute/locations/([^/]+)/(?:operations|operationResults)/([^/]+)$`, "i"),
    "GetOperation",
    "operation",
  ],
];

const KIND_OF: Record<ComputePolicy, "read" | "write" | "poll"> = {
  GetVMScaleSet: "read",
  HighCostGetVMScaleSet: "read",
  GetVMScaleSetVM: "read",
  CreateVMScaleSet: "write",
  VMScaleSetActions: "write",
  DeleteVMScaleSet: "write",
  GetOperation: "poll",
};

function armKindOf(method: string): ArmBudgetKind {
  return method === "GET" || method === "HEAD" ? "reads" : method === "DELETE" ? "deletes" : "writes";
}

/** The buckets a request is charged to, or undefined for a call Compute does not throttle (tokens, metadata). */
export function chargeOf(request: PipelineRequest, figures: ArmBudgetFigures): ArmCall | undefined {
  const path = new URL(request.url).pathname.replace(/\/+$/, "");
  const method = request.method.toUpperCase();
  for (const [m, pattern, policyOf, resourceKind] of ROUTES) {
    if (m !== method) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const policy = typeof policyOf === "function" ? policyOf(request) : policyOf;
    const sub = match[1].toLowerCase();
    const kind = KIND_OF[policy];
    const f = figures.compute[policy];
    const buckets: ChargedBucket[] = [
      {
        key: `${sub}/${policy}`,
        figures: f.subscription,
        label: `subscription ${kind} budget`,
        azureName: `Microsoft.Compute/${policy}SubscriptionMaximum`,
      },
    ];
    if (f.resource && resourceKind) {
      const resource =
        resourceKind === "scaleSet"
          ? `${match[2]}/${match[3]}`
          : resourceKind === "vm"
            ? `${match[2]}/${match[3]}/${match[4]}`
            : match[3];
      const label = resourceKind === "scaleSet" ? "scale set" : resourceKind === "vm" ? "VM" : "operation";
      buckets.push({
        key: `${sub}/${policy}/${resource.toLowerCase()}`,
        figures: f.resource,
        label: `${label} ${kind} budget`,
        azureName: `Microsoft.Compute/${policy}Resource`,
        ...(resourceKind === "operation" ? { local: true as const } : {}),
      });
    }
    const arm = armKindOf(method);
    buckets.push({
      key: `${sub}/arm:${arm}`,
      figures: figures.arm[arm],
      label: `subscription ARM ${arm.slice(0, -1)} budget`,
      azureName: `x-ms-ratelimit-remaining-subscription-${arm}`,
    });
    return { method, subscriptionId: sub, buckets };
  }
  return undefined;
}
