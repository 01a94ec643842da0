// rollingUpgrade: apply a model change (image, custom data, size, tags) to one scale set and replace its out-of-date
// instances in batches: surge above the desired count (maxSurge), remove old instances only once their replacements
// are ready (or within maxUnavailable), in Cluster API Provider Azure's order. Every step is planned on a fresh read
// (rolling-upgrade-plan.ts), so a restart resumes the batch it was in and never surges twice. Scale sets whose
// upgrade policy lets Azure update instances itself (Rolling, Automatic) are refused before anything is written
// (the table in scale-set-kinds.ts). On a Flexible set, whose VMs report no latestModelApplied, the VMs there when the
// model is applied are recorded as the old ones (rolling-upgrade-model.ts).
import { Type, type Static } from "@sinclair/typebox";
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import { isGoneOrFailed } from "../azure/scale-set-state.ts";
import type { BatchWriter, PlannedStep, Remembering, ScaleSetPlanner } from "../azure/planner.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import { MAX_CAPACITY, serverGroupFields, type FieldProblem } from "./description.ts";
import { defineOperation, type RunContext } from "./operation.ts";
import {
  changeHash,
  describeChange,
  finishedTags,
  flexibleOldVms,
  modelPatch,
  readOldVmsRecord,
  recordedDesired,
  scaleSetInTraffic,
  TAG_UPGRADE_DESIRED,
  TAG_UPGRADE_MODEL,
  upgradeInstances,
  type ModelChange,
} from "./rolling-upgrade-model.ts";
import {
  batchPosition,
  planUpgradeStep,
  resolveBudget,
  type UpgradeBudget,
  type UpgradeInstance,
  type UpgradeStep,
} from "./rolling-upgrade-plan.ts";
import { capacityOf, serverGroupResult, type ServerGroupResult } from "./server-group-state.ts";

const Budget = (what: string, fallback: number) =>
  Type.Union([Type.Integer({ minimum: 0, maximum: MAX_CAPACITY }), Type.String({ pattern: "^(100|[1-9]?[0-9])%$" })], {
    description: `${what}: a whole number of instances, or a percentage of the desired count such as "25%" (default ${fallback})`,
  });

export const RollingUpgradeDescription = Type.Object(
  {
    ...serverGroupFields,
    image: Type.Optional(
      Type.Union(
        [
          Type.Object(
            {
              publisher: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" }),
              offer: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" }),
              sku: Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$" }),
              version: Type.Optional(
                Type.String({ pattern: "^(latest|[0-9]+\\.[0-9]+\\.[0-9]+)$", description: "default latest" }),
              ),
            },
            { additionalProperties: false, description: "a marketplace image" },
          ),
          Type.Object(
            {
              id: Type.String({
                pattern:
                  "^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\\.Compute/(images|galleries)/[^?#]{1,400}$",
              }),
            },
            { additionalProperties: false, description: "a custom image or gallery image version, by resource id" },
          ),
        ],
        { description: "the image new instances boot from" },
      ),
    ),
    customData: Type.Optional(
      Type.String({
        maxLength: 87_380,
        pattern: "^[A-Za-z0-9+/]*={0,2}$",
        description: "base64 custom data for new instances",
      }),
    ),
    sku: Type.Optional(
      Type.Object(
        { name: Type.String({ pattern: "^[A-Za-z0-9_]{1,64}$", description: "a VM size such as Standard_D4s_v3" }) },
        { additionalProperties: false },
      ),
    ),
    tags: Type.Optional(
      Type.Record(Type.String({ minLength: 1, maxLength: 512 }), Type.String({ maxLength: 256 }), {
        description: "tags merged into the scale set's",
      }),
    ),
    maxSurge: Type.Optional(Budget("instances above the desired count at most (rounded up)", 1)),
    maxUnavailable: Type.Optional(Budget("ready instances below the desired count at most (rounded down)", 0)),
    deletePolicy: Type.Optional(
      Type.Union([Type.Literal("Oldest"), Type.Literal("Newest")], {
        description: "which out-of-date instances go first (default Oldest)",
      }),
    ),
  },
  {
    $id: "RollingUpgradeDescription",
    additionalProperties: true,
    examples: [
      {
        credentials: "demo",
        region: "eastus",
        serverGroupName: "web-prod-v001",
        image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
        maxSurge: 2,
        maxUnavailable: 0,
        deletePolicy: "Oldest",
      },
    ],
  },
);
export type RollingUpgradeDescription = Static<typeof RollingUpgradeDescription>;

const TAG_PREFIX = "vmss-ops.";

export function checkRollingUpgrade(d: RollingUpgradeDescription): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (!d.image && d.customData === undefined && !d.sku && !d.tags) {
    problems.push({ field: "image", message: "give at least one change: image, customData, sku or tags" });
  }
  const zero = (v: number | string | undefined, fallback: number) => (v ?? fallback) === 0 || v === "0%";
  if (zero(d.maxSurge, 1) && zero(d.maxUnavailable, 0)) {
    problems.push({
      field: "maxSurge",
      message:
        "maxSurge and maxUnavailable are both 0: no instance could ever be replaced; allow a surge or some unavailability",
    });
  }
  for (const key of Object.keys(d.tags ?? {})) {
    if (key.toLowerCase().startsWith(TAG_PREFIX))
      problems.push({ field: `tags.${key}`, message: `tags starting with ${TAG_PREFIX} are this service's records` });
  }
  return problems;
}

function changeOf(d: RollingUpgradeDescription): ModelChange {
  return {
    ...(d.image ? { image: d.image } : {}),
    ...(d.customData !== undefined ? { customData: d.customData } : {}),
    ...(d.sku ? { sku: d.sku } : {}),
    ...(d.tags ? { tags: d.tags } : {}),
  };
}

const live = (vm: UpgradeInstance) => !isGoneOrFailed(vm.state);
const ids = (list: string[]) => list.join(", ");

function budgetFor(d: RollingUpgradeDescription, desired: number): UpgradeBudget {
  const budget = {
    surge: resolveBudget(d.maxSurge ?? 1, desired, "up"),
    unavailable: resolveBudget(d.maxUnavailable ?? 0, desired, "down"),
  };
  if (budget.surge === 0 && budget.unavailable === 0 && desired > 0) {
    throw new RefusalError(
      "NoUpgradeBudget",
      `maxSurge ${d.maxSurge ?? 1} and maxUnavailable ${d.maxUnavailable ?? 0} both come to 0 of ${desired} instance(s): none could be replaced`,
    );
  }
  return budget;
}

/** What one read shows, in the terms the history lines use. */
interface UpgradeView {
  vmss: VirtualMachineScaleSet;
  desired: number;
  inTraffic: boolean;
  instances: UpgradeInstance[];
  running: UpgradeInstance[];
  outOfDate: UpgradeInstance[];
  ready: number;
  /** "batch 3/5" */
  at: string;
}

function viewOf(snapshot: ScaleSetSnapshot, desired: number, budget: UpgradeBudget): UpgradeView {
  const inTraffic = scaleSetInTraffic(snapshot.vmss);
  const instances = upgradeInstances(snapshot.vms ?? [], inTraffic, readOldVmsRecord(snapshot.vmss));
  const running = instances.filter(live);
  const outOfDate = running.filter((vm) => !vm.latestModel);
  const { batch, batches } = batchPosition(desired, outOfDate.length, budget);
  return {
    vmss: snapshot.vmss,
    desired,
    inTraffic,
    instances,
    running,
    outOfDate,
    ready: instances.filter((vm) => vm.ready).length,
    at: `batch ${batch}/${batches}`,
  };
}

function deleteStep(step: Extract<UpgradeStep, { kind: "delete" }>, view: UpgradeView): PlannedStep {
  const capacity = capacityOf(view.vmss);
  const after = `capacity ${capacity} → ${capacity - step.ids.length}`;
  if (step.why === "failed")
    return {
      kind: "deleteInstances",
      summary: `${view.at}: remove failed instance(s) ${ids(step.ids)} (${after})`,
      instanceIds: step.ids,
    };
  const above = Math.max(0, view.running.length - view.desired);
  const what = step.why === "replaced" ? "delete out-of-date instance(s)" : "delete extra instance(s)";
  return {
    kind: "deleteInstances",
    summary: `${view.at}: surged ${above}, replaced ${step.ids.length}, healthy ${step.readyAfter}/${view.desired}: ${what} ${ids(step.ids)} (${after})`,
    instanceIds: step.ids,
  };
}

function scaleStep(capacity: number, view: UpgradeView): PlannedStep {
  const verb =
    capacity > view.desired
      ? `surge ${view.running.length} → ${capacity}`
      : `scale ${view.running.length} → ${capacity} (back to desired)`;
  return {
    kind: "update",
    summary: `${view.at}: ${verb}, ${view.outOfDate.length} out-of-date instance(s) left`,
    patch: { sku: { ...view.vmss.sku, capacity } },
  };
}

function allocationStop(failure: string, view: UpgradeView): RefusalError {
  const { ready, outOfDate, running, desired } = view;
  return new RefusalError(
    "AllocationFailed",
    `${failure}; the failed instance(s) were removed and the upgrade stopped before surging again. ${ready} instance(s) ready (${outOfDate.length} on the old model, ${running.length - outOfDate.length} on the new), ${desired - outOfDate.length} of ${desired} replaced. Submit the same rollingUpgrade again to continue from here`,
  );
}

function endStep(view: UpgradeView, change: ModelChange): PlannedStep {
  if (view.vmss.tags?.[TAG_UPGRADE_DESIRED] !== undefined) {
    return {
      kind: "update",
      summary: `every instance runs the new model, healthy ${view.ready}/${view.desired}: remove the upgrade's under-way record`,
      patch: { tags: finishedTags(view.vmss.tags) },
    };
  }
  return {
    kind: "done",
    summary: `every instance runs the new model (${describeChange(change)}), healthy ${view.ready}/${view.desired}`,
  };
}

/** What a rolling upgrade's planner keeps in the task's checkpoint, so that a replica taking over knows it too. */
interface UpgradeMemory {
  /** This task surged the scale set. */
  surged: boolean;
  /** Why it stops before surging again: instances of its surge could not be allocated. */
  allocationFailure?: string;
}

function upgradeMemory(value: unknown): UpgradeMemory {
  const m = value as Partial<UpgradeMemory> | null | undefined;
  return {
    surged: m?.surged === true,
    ...(typeof m?.allocationFailure === "string" ? { allocationFailure: m.allocationFailure } : {}),
  };
}

export function rollingUpgradePlanner(
  d: RollingUpgradeDescription,
  target: ScaleSetRef,
  run?: RunContext,
): ScaleSetPlanner<ServerGroupResult> & BatchWriter & Remembering {
  const change = changeOf(d);
  const hash = changeHash(change);
  const deletePolicy = d.deletePolicy ?? "Oldest";
  // Set when instances of a surge this task made could not be allocated: once they are removed, the upgrade stops
  // there instead of surging into the same shortage. Checkpointed with the task: a replica that takes over after a
  // restart stops too, instead of trying one more surge.
  const remembered = upgradeMemory(run?.memory);
  let surgedHere = remembered.surged;
  let allocationFailure: string | undefined = remembered.allocationFailure;

  function plan(snapshot: ScaleSetSnapshot): PlannedStep {
    const { vmss } = snapshot;
    // An upgrade under way keeps the desired count it recorded (the capacity now may include its surge).
    const desired = recordedDesired(vmss) ?? capacityOf(vmss);
    if (vmss.tags?.[TAG_UPGRADE_MODEL] !== hash) {
      return {
        kind: "update",
        summary: `apply the new model (${describeChange(change)}) and record desired count ${desired} for the rolling upgrade`,
        patch: modelPatch(vmss, change, desired, flexibleOldVms(vmss, snapshot.vms)),
      };
    }
    const budget = budgetFor(d, desired);
    const view = viewOf(snapshot, desired, budget);
    const step = planUpgradeStep({ desired, budget, deletePolicy, instances: view.instances });
    switch (step.kind) {
      case "delete": {
        const failedNew = view.instances.filter((vm) => vm.state.toLowerCase() === "failed" && vm.latestModel);
        if (step.why === "failed" && surgedHere && failedNew.length > 0) {
          allocationFailure = `Azure could not allocate ${failedNew.length} new instance(s) (${ids(failedNew.map((vm) => vm.id))}) in ${view.at}`;
        }
        return deleteStep(step, view);
      }
      case "scale":
        if (allocationFailure) throw allocationStop(allocationFailure, view);
        surgedHere = true;
        return scaleStep(step.capacity, view);
      case "wait":
        return { kind: "wait", summary: `${view.at}: ${waitReason(step.why, view.inTraffic)}` };
      case "done":
        return endStep(view, change);
    }
  }

  return {
    readsInstances: true,
    // Each batch is a surge and a delete (and perhaps a removal of failed instances); the plan converges because
    // every batch leaves fewer instances out of date.
    maxWrites: 3 * MAX_CAPACITY + 8,
    plan,
    result: (snapshot) => serverGroupResult(snapshot, target),
    memory: (): UpgradeMemory | undefined =>
      surgedHere || allocationFailure
        ? { surged: surgedHere, ...(allocationFailure ? { allocationFailure } : {}) }
        : undefined,
  };
}

function waitReason(why: "deleting" | "replacementsNotReady" | "notReady", inTraffic: boolean): string {
  const healthy = inTraffic ? "running and healthy in the load balancer's pool" : "running";
  if (why === "deleting") return "waiting for Azure to finish deleting instance(s)";
  if (why === "replacementsNotReady") return `waiting for the new instance(s) to be ${healthy}`;
  return `waiting for instances to be ${healthy} before removing more`;
}

export const rollingUpgrade = defineOperation({
  name: "rollingUpgrade",
  summary:
    "Apply a model change and replace out-of-date instances in batches, surging above the desired count (maxSurge, maxUnavailable)",
  schema: RollingUpgradeDescription,
  check: checkRollingUpgrade,
  describe: (d) =>
    `rolling upgrade of ${d.serverGroupName}: ${describeChange(changeOf(d))}; maxSurge ${d.maxSurge ?? 1}, maxUnavailable ${d.maxUnavailable ?? 0}, delete ${d.deletePolicy ?? "Oldest"} first`,
  planner: rollingUpgradePlanner,
});
