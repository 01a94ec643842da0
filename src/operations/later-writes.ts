// What a run may write after its first write, for a dry run: each operation's later writes, with what decides
// them. They are planned only on the read that follows the write before (Azure's answer decides them: which
// instances are behind the model, whether the deleted ones are gone, whether new ones are healthy), so a dry run
// names them, and sends no request for them.
import type { ScaleSetSnapshot, WriteKind, WriteStep } from "../azure/vmss-gateway.ts";
import { kindOf } from "../azure/scale-set-state.ts";
import { TAG_AUTOSCALE_SUSPENDED_BY } from "./autoscale-suspension.ts";
import type { OperationName } from "./operation-names.ts";
import { SUSPENDS_REPAIRS } from "./scale-set-kinds.ts";
import { describeAdditions, hasAdditions, parseAdditions, TAG_BALANCER_ADDED } from "./balancer-additions.ts";

/** A write a run may make after the first one, or a wait it makes between them. */
export interface LaterWrite {
  kind: WriteKind | "wait";
  /** What it writes, or waits for. */
  what: string;
  /** What decides whether it is made, and how: the read after the write before. */
  decidedBy: string;
}

type Later = (first: WriteStep, snapshot: ScaleSetSnapshot | undefined) => LaterWrite[];

const CONFIRMATION: LaterWrite = {
  kind: "wait",
  what: "Azure's instances to match the capacity (Succeeded, as many running as the capacity)",
  decidedBy: "each read after the write: the run ends only on what Azure confirms",
};

/** Disable and enable's rollout of a model change to instances, by the scale set's kind. */
function rollout(snapshot: ScaleSetSnapshot | undefined, what: string): LaterWrite[] {
  if (!snapshot) return [];
  const kind = kindOf(snapshot.vmss);
  if (kind.orchestration === "Flexible")
    return [
      {
        kind: "nicPools",
        what: `${what} on each VM's own NIC (Flexible), each NIC with If-Match its ETag`,
        decidedBy: "the NICs and their ETags listed on the read after the model's write",
      },
    ];
  if (kind.upgrade === "Manual")
    return [
      {
        kind: "manualUpgrade",
        what: `roll ${what} out to the instances not on the latest model (upgrade policy Manual)`,
        decidedBy: "which running instances the read after the model's write lists as not on the latest model",
      },
    ];
  return [
    {
      kind: "wait",
      what: `Azure to roll ${what} out (upgrade policy ${kind.upgrade})`,
      decidedBy: "each read: instances not on the latest model, and Azure's latest rolling upgrade",
    },
  ];
}

/** A write made around the operation's own (autoscale suspended, automatic repairs marked or suspended). */
function isWrapper(first: WriteStep): boolean {
  return first.kind === "repairs" || first.kind === "autoscale" || /^mark vmss-ops\./.test(first.summary);
}

/**
 * After a disable's or an enable's first write: the rollout of a change of the model (its pools) to the instances,
 * Azure's new instances after a change of capacity, nothing after the rollout itself.
 */
function afterModelOrCapacity(first: WriteStep, snapshot: ScaleSetSnapshot | undefined, what: string): LaterWrite[] {
  if (first.kind !== "update") return [];
  return first.patch.virtualMachineProfile !== undefined ? rollout(snapshot, what) : [CONFIRMATION];
}

/** The operation's own writes after a wrapper's first (autoscale suspended, repairs marked or suspended). */
function ownAfterWrapper(first: WriteStep, own: string): LaterWrite[] {
  return isWrapper(first)
    ? [{ kind: "update", what: own, decidedBy: "the read after this write, planned as this dry run's" }]
    : [];
}

/** Repairs resumed and unmarked at the end, where the operation suspends them and the scale set has them. */
function repairsResumed(operation: OperationName, snapshot: ScaleSetSnapshot | undefined): LaterWrite[] {
  if (!SUSPENDS_REPAIRS.has(operation) || snapshot?.repairs === undefined || snapshot.repairs === "NotRunning")
    return [];
  return [
    {
      kind: "repairs",
      what: "resume automatic repairs this task suspended, then remove its mark (update of the tags)",
      decidedBy: "the operation's own plan being done (or failed, or canceled)",
    },
  ];
}

const restoreCapacity: LaterWrite = {
  kind: "update",
  what: "restore the capacity the deleted instances left, so that Azure creates new instances in their place",
  decidedBy: "the read after the delete: once Azure no longer lists the named instances, the capacity it left",
};

const createLater: LaterWrite[] = [
  CONFIRMATION,
  {
    kind: "wait",
    what: "the instances to be healthy behind the load balancer before the server group serves",
    decidedBy: "each read: the health of its instances, up to the create's health deadline",
  },
  {
    kind: "update",
    what: "take the server group out of its backend pools, as disableServerGroup does, and fail the create",
    decidedBy: "its instances not healthy by the deadline",
  },
];

/** Each operation's later writes, typed over the registry: an operation added without a row fails tsc. */
export const LATER_WRITES: Record<OperationName, Later> = {
  resizeServerGroup: (first) => [
    ...(first.kind === "autoscale"
      ? [{ kind: "update" as const, what: "set the capacity", decidedBy: "the read after the setting's write" }]
      : []),
    CONFIRMATION,
  ],
  scaleDown: (first) => [
    ...(first.kind === "autoscale"
      ? [{ kind: "update" as const, what: "lower the capacity", decidedBy: "the read after the setting's write" }]
      : []),
    CONFIRMATION,
  ],
  disableServerGroup: (first, snapshot) => [
    ...(isWrapper(first)
      ? [
          ...ownAfterWrapper(first, "remove the backend pools (or scale to 0 without any)"),
          ...rollout(snapshot, "the removal of the backend pools"),
        ]
      : afterModelOrCapacity(first, snapshot, "the removal of the backend pools")),
    ...repairsResumed("disableServerGroup", snapshot),
  ],
  enableServerGroup: (first, snapshot) => [
    ...afterModelOrCapacity(first, snapshot, "the backend pools"),
    ...(snapshot?.autoscale?.tags?.[TAG_AUTOSCALE_SUSPENDED_BY] !== undefined && first.kind !== "autoscale"
      ? [
          {
            kind: "autoscale" as const,
            what: "resume the autoscale setting disableServerGroup suspended (enabled: true, its mark removed)",
            decidedBy: "the enable being done",
          },
        ]
      : []),
  ],
  terminateInstances: () => [
    { kind: "wait", what: "Azure to finish deleting the instances", decidedBy: "each read after the delete" },
    restoreCapacity,
    CONFIRMATION,
  ],
  terminateInstanceAndDecrementServerGroup: (first) => [
    ...(first.kind === "update"
      ? [
          {
            kind: "deleteInstances" as const,
            what: "delete the instance",
            decidedBy: "the read after the recorded min and max: the instance still listed",
          },
        ]
      : []),
    CONFIRMATION,
  ],
  rebootInstances: () => [
    {
      kind: "wait",
      what: "Azure to report the restarted instances running",
      decidedBy: "each read after the restart: their power state",
    },
  ],
  destroyServerGroup: (first, snapshot) => [
    ...(first.kind === "autoscale"
      ? [
          {
            kind: "delete" as const,
            what: "delete the scale set (If-Match the ETag of the read it is planned on)",
            decidedBy: "the read after the setting's delete",
          },
        ]
      : []),
    ...balancerCleanUpLater(snapshot),
  ],
  createServerGroup: () => createLater,
  cloneServerGroup: () => createLater,
  rollingUpgrade: (first, snapshot) => [
    ...ownAfterWrapper(first, "apply the new model and record the desired count"),
    {
      kind: "update",
      what: "each batch: surge the capacity above the desired count (maxSurge), so that Azure creates instances on the new model",
      decidedBy: "each read: how many instances run the new model and are healthy, within maxSurge and maxUnavailable",
    },
    {
      kind: "wait",
      what: "the new instances to be healthy (the load balancer's probe, or Azure's health extension)",
      decidedBy: "each read: their health",
    },
    {
      kind: "deleteInstances",
      what: "each batch: delete instances still on the old model (deletePolicy), as many as healthy ones replace",
      decidedBy: "each read: which old instances are left, and how many new ones are healthy",
    },
    {
      kind: "update",
      what: "scale back to the desired count, then remove the upgrade's under-way record",
      decidedBy: "every instance running the new model, healthy",
    },
    ...repairsResumed("rollingUpgrade", snapshot),
  ],
};

/** What a run of `operation` may write after `first`, planned on `snapshot` (none: a create). */
export function laterWrites(
  operation: OperationName,
  first: WriteStep,
  snapshot: ScaleSetSnapshot | undefined,
): LaterWrite[] {
  return LATER_WRITES[operation](first, snapshot);
}

/** A destroy of a group whose create added pools to a shared balancer: their removal, once the scale set is gone. */
function balancerCleanUpLater(snapshot: ScaleSetSnapshot | undefined): LaterWrite[] {
  const added = parseAdditions(snapshot?.vmss.tags?.[TAG_BALANCER_ADDED]);
  if (!added || !hasAdditions(added)) return [];
  return [
    {
      kind: "balancerPools",
      what: `remove what the create added: ${describeAdditions(added)} (If-Match the balancer's ETag)`,
      decidedBy:
        "a read of the balancer once Azure answers 404 for the scale set: a pool Azure lists members of is kept",
    },
  ];
}
