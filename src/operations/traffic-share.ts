// A partial disable (Orca's rolling red/black: `disableServerGroup` with `desiredPercentage` below 100) decides which
// instances leave traffic as Clouddriver does. Pure: the instances as read in, the ones to take out now.
//
// spinnaker/clouddriver (commit read 2026-12-02):
// - clouddriver-core/…/helpers/EnableDisablePercentageCategorizer.java l.21-33: of `total` instances, ceil(total × p
//   / 100) are to be out; those already out count; the rest come from the ones still in, in order.
// - clouddriver-eureka/…/deploy/ops/AbstractEurekaSupport.groovy l.304-336 (getInstanceToModify): an instance is
//   "already out" unless some health is Up and none Down; only an instance up and serving is taken out.
// - clouddriver-aws/…/ops/AbstractEnableDisableAtomicOperation.groovy l.163-169: the chosen instances are reported as
//   the result object `instanceIdsToDisable`, which Orca's WaitForRequiredInstancesDownTask.groovy l.79-100 waits on.
//
// Health gating: an instance that fails its probe, is stopped or not yet running already serves nothing, so it counts
// toward the share and is never chosen; only an instance serving healthy traffic is taken out, and only as many as
// the share asks for. Each attempt decides again on a fresh read, so a share half-written by a failed attempt is not
// taken out twice: the instances already out count.

/** One instance as a partial disable sees it. */
export interface ShareInstance {
  /** The instance's name as Orca reads it (a Flexible set's VM name). */
  name: string;
  /** In a backend pool that serves traffic, and running and healthy as far as Azure reports. */
  serving: boolean;
}

export interface SharePlan {
  /** Instances that count: every instance we may act on. */
  total: number;
  /** How many are to be out of traffic: ceil(total × desiredPercentage / 100). */
  wanted: number;
  /** Instances already serving nothing (out of the pools, or not healthy), by name. */
  out: string[];
  /** Instances to take out of the pools now, by name: none when the share is out already. */
  takeOut: string[];
}

/** EnableDisablePercentageCategorizer.getInstancesToModify with AbstractEurekaSupport's eligibility, by name order. */
export function planShare(instances: ShareInstance[], desiredPercentage: number): SharePlan {
  if (!Number.isInteger(desiredPercentage) || desiredPercentage < 0 || desiredPercentage > 100)
    throw new RangeError(`desiredPercentage ${desiredPercentage} is not an integer in [0, 100]`);
  const byName = [...instances].sort((a, b) => a.name.localeCompare(b.name));
  const out = byName.filter((i) => !i.serving).map((i) => i.name);
  const serving = byName.filter((i) => i.serving).map((i) => i.name);
  const total = byName.length;
  const wanted = Math.ceil((total * desiredPercentage) / 100);
  const takeOut = serving.slice(0, Math.max(0, wanted - out.length));
  return { total, wanted, out, takeOut };
}

/** "1 of 4 instance(s) out of traffic (10 % asked: 1)": the share for a person. */
export function describeShare(plan: SharePlan, desiredPercentage: number): string {
  return `${plan.out.length} of ${plan.total} instance(s) out of traffic (${desiredPercentage} % asked: ${plan.wanted})`;
}
