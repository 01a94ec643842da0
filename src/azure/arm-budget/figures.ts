// Azure's throttling figures the ARM budget counts by: Compute's token buckets per policy ("kind of call"), one per
// resource and one per subscription, and ARM's per-subscription read, write and delete budgets
// (https://learn.microsoft.com/azure/virtual-machines/compute-throttling-limits, and
// https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling).
// The simulator keeps its own copy of these figures and this arithmetic (throttling.ts, token-bucket.ts) on purpose:
// it plays Azure and imports nothing outside its package (packages/vmss-simulator), and a copy shared with it would let one mistake pass both.

export interface BucketFigures {
  /** Capacity: the calls a full bucket allows at once. */
  burst: number;
  /** Tokens back per minute. */
  refillPerMinute: number;
}

export interface PolicyFigures {
  /** Per resource (scale set, VM, operation); null where Azure counts only per subscription. */
  resource: BucketFigures | null;
  subscription: BucketFigures;
}

export type ComputePolicy =
  | "GetVMScaleSet"
  | "HighCostGetVMScaleSet"
  | "GetVMScaleSetVM"
  | "CreateVMScaleSet"
  | "VMScaleSetActions"
  | "DeleteVMScaleSet"
  | "GetOperation";

export type ArmBudgetKind = "reads" | "writes" | "deletes";

/** Azure's published Compute figures ("Throttling limits for Virtual Machine Scale Sets", and Get Operation). */
export const AZURE_COMPUTE_POLICIES: Readonly<Record<ComputePolicy, PolicyFigures>> = {
  GetVMScaleSet: { resource: { burst: 36, refillPerMinute: 12 }, subscription: { burst: 2400, refillPerMinute: 800 } },
  HighCostGetVMScaleSet: {
    resource: { burst: 30, refillPerMinute: 10 },
    subscription: { burst: 1080, refillPerMinute: 360 },
  },
  GetVMScaleSetVM: {
    resource: { burst: 36, refillPerMinute: 12 },
    subscription: { burst: 6000, refillPerMinute: 2000 },
  },
  CreateVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 375, refillPerMinute: 125 } },
  VMScaleSetActions: {
    resource: { burst: 12, refillPerMinute: 4 },
    subscription: { burst: 1500, refillPerMinute: 500 },
  },
  DeleteVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 525, refillPerMinute: 175 } },
  GetOperation: { resource: { burst: 45, refillPerMinute: 15 }, subscription: { burst: 15000, refillPerMinute: 5000 } },
};

/** ARM's per-subscription budgets, as the recordings report them (11999 reads, 1199 writes, 14999 deletes an hour). */
export const AZURE_ARM_BUDGETS: Readonly<Record<ArmBudgetKind, BucketFigures>> = {
  reads: { burst: 12000, refillPerMinute: 200 },
  writes: { burst: 1200, refillPerMinute: 20 },
  deletes: { burst: 15000, refillPerMinute: 250 },
};

export interface ArmBudgetFigures {
  compute: Record<ComputePolicy, PolicyFigures>;
  arm: Record<ArmBudgetKind, BucketFigures>;
}

export interface ArmBudgetOptions {
  /** Changes to Azure's figures (only what is given). */
  compute?: Partial<Record<ComputePolicy, Partial<PolicyFigures>>>;
  arm?: Partial<Record<ArmBudgetKind, BucketFigures>>;
  /**
   * Multiplies every refill rate: 1 for Azure; a simulator running at a time scale refills that much faster.
   */
  refillScale?: number;
  /** Share of each bucket that reads for a cache leave to calls made for a task (default 0.1). */
  readReserve?: number;
  /**
   * After the ledger did not answer, calls go without it for this long before a take asks it again (default 5000):
   * a ledger out of reach costs one call its bound, not every call.
   */
  ledgerRetryMs?: number;
  /**
   * With a shared ledger: how long a replica spends a slice of a bucket it leased (tokens taken ahead of its calls)
   * before it gives the unspent ones back (default 1000 ms). Slices are sized by the replica's calls to the bucket in
   * the last lease (leaseWant).
   */
  leaseMs?: number;
  /** The most of a bucket one lease takes: this share of its burst, and of what is left above the reserve (0.25). */
  leaseShare?: number;
  /** With a shared ledger: the longest a busy replica leaves between two take statements (takeSpacingMs; 400 ms). */
  maxTakeSpacingMs?: number;
}

export function budgetFigures(options: ArmBudgetOptions = {}): ArmBudgetFigures {
  const scale = options.refillScale ?? 1;
  const scaled = (f: BucketFigures): BucketFigures => ({ burst: f.burst, refillPerMinute: f.refillPerMinute * scale });
  const compute = {} as Record<ComputePolicy, PolicyFigures>;
  for (const [name, figures] of Object.entries(AZURE_COMPUTE_POLICIES) as [ComputePolicy, PolicyFigures][]) {
    const override = options.compute?.[name];
    const resource =
      override?.resource === null ? null : figures.resource && { ...figures.resource, ...override?.resource };
    compute[name] = {
      resource: resource && scaled(resource),
      subscription: scaled({ ...figures.subscription, ...override?.subscription }),
    };
  }
  const arm = {} as Record<ArmBudgetKind, BucketFigures>;
  for (const kind of ["reads", "writes", "deletes"] as const)
    arm[kind] = scaled(options.arm?.[kind] ?? AZURE_ARM_BUDGETS[kind]);
  return { compute, arm };
}
