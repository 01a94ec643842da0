// destroyServerGroup: delete the scale set (Orca's Destroy stage, shrinkCluster, red/black's maxRemainingAsgs).
// Its goal is that the scale set not exist: a scale set that is gone already is a success, not a 404, and the
// result says what Azure answered when read afterwards. Once the scale set is gone, the backend pool and inbound NAT
// pool its create added to a shared load balancer or application gateway are removed too (balancer-cleanup.ts): only
// what the create recorded on the scale set (balancer-additions.ts), kept in the checkpoint before the delete, since
// the record goes with the scale set. Load balancers, subnets and storage themselves are not ours, and are kept.
import { Type } from "@sinclair/typebox";
import { failureLabel } from "../azure/arm-failure.ts";
import type { CleansUpAfterDelete, Deleter, Remembering, ScaleSetPlanner } from "../azure/planner.ts";
import { serverGroupFields } from "./description.ts";
import { defineOperation } from "./operation.ts";
import { capacityOf, type DestroyedServerGroupResult } from "./server-group-state.ts";
import {
  additionsFromJson,
  describeAdditions,
  parseAdditions,
  TAG_BALANCER_ADDED,
  type BalancerAdditions,
} from "./balancer-additions.ts";
import { balancerCleanUp } from "./balancer-cleanup.ts";
import type { RunContext } from "./operation.ts";

export const DestroyServerGroupDescription = Type.Object(
  { ...serverGroupFields },
  { $id: "DestroyServerGroupDescription", additionalProperties: true },
);

export const destroyServerGroup = defineOperation({
  name: "destroyServerGroup",
  summary: "Delete a scale set; one that is gone already counts as done",
  schema: DestroyServerGroupDescription,
  describe: (d) => `destroy ${d.serverGroupName}`,
  planner: (
    _d,
    target,
    run,
  ): ScaleSetPlanner<DestroyedServerGroupResult> &
    Deleter<DestroyedServerGroupResult> &
    Remembering &
    CleansUpAfterDelete => {
    // What the create added to a shared balancer: from the scale set's tag, or (the scale set gone) the checkpoint.
    let record = recordFrom(run);
    return {
      readsInstances: false,
      // Reached only while the scale set still exists: a read that answers 404 ends the operation in whenAbsent.
      plan: ({ vmss }) => {
        record = parseAdditions(vmss.tags?.[TAG_BALANCER_ADDED]) ?? record;
        return {
          kind: "delete",
          summary: `delete ${target.name} (capacity ${capacityOf(vmss)}, ${vmss.provisioningState ?? "state unknown"})${record ? `, then remove the ${describeAdditions(record)} that its create added` : ""}`,
        };
      },
      // Written with the checkpoint before the DELETE: a run that takes over once the scale set is gone still knows.
      memory: () => (record ? { balancerAdded: record } : undefined),
      afterAbsent: balancerCleanUp(target, () => record),
      result: () => {
        // plan() never answers "done", so the harness never asks for a result of an existing scale set.
        throw new Error("destroyServerGroup has no result while the scale set exists");
      },
      whenAbsent: ({ failure, wrote }) => ({
        type: "destroyedServerGroup",
        account: target.account,
        region: target.region,
        resourceGroup: target.resourceGroup,
        serverGroupName: target.name,
        deletedByThisTask: wrote,
        confirmedBy: `GET ${failureLabel(failure)}`,
      }),
    };
  },
});

function recordFrom(run: RunContext | undefined): BalancerAdditions | undefined {
  const memory = run?.memory as { balancerAdded?: unknown } | undefined;
  return additionsFromJson(memory?.balancerAdded);
}
