// destroyServerGroup and the autoscale setting that targets the scale set: Azure does not delete a setting with its
// target, and one left behind names a scale set that no longer exists (and would act on a new one of that name).
// The setting is deleted first, on the read that plans the destroy: once the scale set is gone, no read of it is
// left to plan anything on.
import { settingName } from "../azure/autoscale-gateway.ts";
import { wrapPlanner, type Planner } from "../azure/planner.ts";

/** The planner with the setting that targets the scale set deleted before its own steps. */
export function withAutoscaleDeleted<R>(planner: Planner<R>): Planner<R> {
  return wrapPlanner(planner, {
    readsAutoscale: true,
    maxWrites: planner.maxWrites + 1,
    plan(snapshot) {
      const setting = snapshot.autoscale;
      if (!setting) return planner.plan(snapshot);
      const name = settingName(setting);
      return {
        kind: "autoscale",
        summary: `delete autoscale setting ${name}, which targets the scale set (Azure does not delete it with the scale set)`,
        name,
      };
    },
  });
}
