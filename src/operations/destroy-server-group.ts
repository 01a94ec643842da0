// destroyServerGroup: delete the scale set (Orca's Destroy stage, shrinkCluster, red/black's maxRemainingAsgs).
// Its goal is that the scale set not exist: a scale set that is gone already is a success, not a 404, and the
// result says what Azure answered when read afterwards. Only the scale set is deleted: load balancers, pools,
// subnets and storage that clouddriver-azure's destroy also cleans up were made by its deploy, not by us.
import { Type } from "@sinclair/typebox";
import { failureLabel } from "../azure/arm-failure.ts";
import type { Deleter, ScaleSetPlanner } from "../azure/planner.ts";
import { serverGroupFields } from "./description.ts";
import { defineOperation } from "./operation.ts";
import { capacityOf, type DestroyedServerGroupResult } from "./server-group-state.ts";

export const DestroyServerGroupDescription = Type.Object(
  { ...serverGroupFields },
  { $id: "DestroyServerGroupDescription", additionalProperties: true },
);

export const destroyServerGroup = defineOperation({
  name: "destroyServerGroup",
  summary: "Delete a scale set; one that is gone already counts as done",
  schema: DestroyServerGroupDescription,
  describe: (d) => `destroy ${d.serverGroupName}`,
  planner: (_d, target): ScaleSetPlanner<DestroyedServerGroupResult> & Deleter<DestroyedServerGroupResult> => ({
    readsInstances: false,
    // Reached only while the scale set still exists: a read that answers 404 ends the operation in whenAbsent.
    plan: ({ vmss }) => ({
      kind: "delete",
      summary: `delete ${target.name} (capacity ${capacityOf(vmss)}, ${vmss.provisioningState ?? "state unknown"})`,
    }),
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
  }),
});
