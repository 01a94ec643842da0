// Spinnaker's disable on Azure: a disabled server group's scaling is suspended (AWS suspends the group's scaling
// processes), so that Azure Monitor autoscale neither scales a group out of traffic back up nor moves it at all.
// disableServerGroup sets the autoscale setting that targets the scale set to `enabled: false` and marks it with a
// tag, first, before it takes the group out of traffic; enableServerGroup, once the group is back in traffic,
// enables again only a setting that carries the mark: a setting someone else disabled stays as they left it.
//
//   enabled ─▶ (disable) enabled false + mark ─▶ … ─▶ (enable) enabled true, mark removed
import type { AutoscaleSettingWire } from "../azure/autoscale-gateway.ts";
import { settingName } from "../azure/autoscale-gateway.ts";
import { wrapPlanner, type Planner } from "../azure/planner.ts";
import type { WriteStep } from "../azure/vmss-gateway.ts";
import { withAutoscaleDeleted } from "./autoscale-destroy.ts";

/** On an autoscale setting: disableServerGroup set it to enabled: false (its value: the operation). */
export const TAG_AUTOSCALE_SUSPENDED_BY = "vmss-ops.autoscale-suspended-by";

/** The write that suspends the setting, or undefined: none, or not enabled (already suspended, or by someone else). */
export function suspendAutoscaleStep(setting: AutoscaleSettingWire | null | undefined): WriteStep | undefined {
  if (!setting || setting.properties.enabled !== true) return undefined;
  const name = settingName(setting);
  return {
    kind: "autoscale",
    summary: `suspend autoscale setting ${name} (enabled: false, tagged ${TAG_AUTOSCALE_SUSPENDED_BY}) while the server group is disabled`,
    name,
    setting: {
      ...setting,
      tags: { ...setting.tags, [TAG_AUTOSCALE_SUSPENDED_BY]: "disableServerGroup" },
      properties: { ...setting.properties, enabled: false },
    },
  };
}

/** The write that resumes a setting this service suspended, or undefined: none, or not suspended by us. */
export function resumeAutoscaleStep(setting: AutoscaleSettingWire | null | undefined): WriteStep | undefined {
  if (!setting || setting.tags?.[TAG_AUTOSCALE_SUSPENDED_BY] === undefined) return undefined;
  const name = settingName(setting);
  const { [TAG_AUTOSCALE_SUSPENDED_BY]: _mark, ...tags } = setting.tags;
  return {
    kind: "autoscale",
    summary: `resume autoscale setting ${name}, suspended by disableServerGroup (enabled: true, mark removed)`,
    name,
    setting: { ...setting, tags, properties: { ...setting.properties, enabled: true } },
  };
}

/** The planner with the autoscale setting suspended before its own first step. */
export function withAutoscaleSuspended<R>(planner: Planner<R>): Planner<R> {
  return wrapPlanner(planner, {
    readsAutoscale: true,
    maxWrites: planner.maxWrites + 1,
    plan: (snapshot) => suspendAutoscaleStep(snapshot.autoscale) ?? planner.plan(snapshot),
  });
}

/** The planner with the autoscale setting this service suspended resumed once its own plan is done. */
export function withAutoscaleResumed<R>(planner: Planner<R>): Planner<R> {
  return wrapPlanner(planner, {
    readsAutoscale: true,
    maxWrites: planner.maxWrites + 1,
    plan(snapshot) {
      const own = planner.plan(snapshot);
      if (own.kind !== "done") return own;
      return resumeAutoscaleStep(snapshot.autoscale) ?? own;
    },
  });
}

/**
 * The operations that suspend, resume or delete the autoscale setting around their own plan (as SUSPENDS_REPAIRS
 * names repairs').
 */
const AUTOSCALE_POLICY: Record<string, <R>(planner: Planner<R>) => Planner<R>> = {
  disableServerGroup: (planner) => (planner.leavesAutoscale ? planner : withAutoscaleSuspended(planner)),
  enableServerGroup: (planner) => withAutoscaleResumed(planner),
  destroyServerGroup: (planner) => withAutoscaleDeleted(planner),
};

/** The operation's planner, with autoscale suspended or resumed when the operation is one that does. */
export function withAutoscalePolicy<R>(operation: string, planner: Planner<R>): Planner<R> {
  return AUTOSCALE_POLICY[operation]?.(planner) ?? planner;
}
