// A clone's Azure Monitor autoscale setting: the source's, copied to the new group. Azure ties a setting to one
// target (targetResourceUri), so a copy of the scale set alone would run without the scaling its source had, or
// (Orca's red/black) with none while the old group's setting is deleted with it. Every profile, rule, recurrence
// or fixed-date schedule and notification is kept; the clone's capacity is applied to the profile in force as
// resize applies it (min and max the bounds, desired the default); rules that watch the source watch the copy.
// Built in prepare (the source is read once), written by the create's planner once the scale set exists.
import type { AutoscaleSettingWire } from "../../azure/autoscale-gateway.ts";
import { settingName } from "../../azure/autoscale-gateway.ts";
import type { WriteStep } from "../../azure/vmss-gateway.ts";
import { autoscaleBounds, planAutoscaleBounds } from "../autoscale-bounds.ts";
import { suspendAutoscaleStep, TAG_AUTOSCALE_SUSPENDED_BY } from "../autoscale-suspension.ts";

/** The copy as prepare made it: written whole, under its own name, in the new group's resource group. */
export interface AutoscaleCopy {
  /** The source's setting, for the history. */
  from: string;
  name: string;
  setting: AutoscaleSettingWire;
}

export interface CopyTarget {
  sourceId: string;
  sourceName: string;
  targetId: string;
  targetName: string;
  region: string;
  /** The clone body's capacity: what it gives replaces the profile in force's bounds and default. */
  capacity?: { min?: number; max?: number; desired?: number };
  /** The new group starts in traffic; out of it, its setting is suspended as disableServerGroup suspends one. */
  inTraffic: boolean;
  /** Names of the resource group's settings that target another resource (lower case): never replaced. */
  taken: Set<string>;
  now: number;
}

const same = (a: string | undefined, b: string) => (a ?? "").toLowerCase() === b.toLowerCase();

/**
 * The new setting's name: the source's with the source group's name replaced by the new one's
 * (`web-prod-v001-autoscale` → `web-prod-v002-autoscale`), else `<new group>-autoscale`; a name another resource's
 * setting holds gets a number (`-2`, `-3`, …), since a PUT would replace that setting.
 */
export function copiedSettingName(from: string, t: Pick<CopyTarget, "sourceName" | "targetName" | "taken">): string {
  const at = from.toLowerCase().indexOf(t.sourceName.toLowerCase());
  const base =
    at >= 0
      ? `${from.slice(0, at)}${t.targetName}${from.slice(at + t.sourceName.length)}`
      : `${t.targetName}-autoscale`;
  let name = base;
  for (let n = 2; t.taken.has(name.toLowerCase()); n++) name = `${base}-${n}`;
  return name;
}

/** The profiles with every rule that watches the source watching the copy instead (other resources' rules kept). */
function repointedProfiles(
  setting: AutoscaleSettingWire,
  t: CopyTarget,
): AutoscaleSettingWire["properties"]["profiles"] {
  return setting.properties.profiles.map((p) => ({
    ...p,
    rules: (p.rules ?? []).map((r) =>
      same(r.metricTrigger.metricResourceUri, t.sourceId)
        ? { ...r, metricTrigger: { ...r.metricTrigger, metricResourceUri: t.targetId } }
        : r,
    ),
  }));
}

/** The source's enabled state, as its owner set it: a suspension by our disable is the source's state, not its setting. */
function ownersEnabled(setting: AutoscaleSettingWire): boolean {
  return setting.tags?.[TAG_AUTOSCALE_SUSPENDED_BY] !== undefined ? true : setting.properties.enabled !== false;
}

/** The copy of `source` for the new group, or undefined when the source has no setting. */
export function copyAutoscaleSetting(
  source: AutoscaleSettingWire | null | undefined,
  t: CopyTarget,
): AutoscaleCopy | undefined {
  if (!source) return undefined;
  const from = settingName(source);
  const name = copiedSettingName(from, t);
  const { [TAG_AUTOSCALE_SUSPENDED_BY]: _mark, ...tags } = source.tags ?? {};
  let setting: AutoscaleSettingWire = {
    ...structuredClone(source),
    location: t.region,
    tags,
    properties: {
      ...structuredClone(source.properties),
      ...(source.properties.name !== undefined ? { name } : {}),
      enabled: ownersEnabled(source),
      targetResourceUri: t.targetId,
      targetResourceLocation: t.region,
      profiles: repointedProfiles(source, t),
    },
  };
  const { id: _id, name: _name, ...written } = setting; // Azure's own: the copy is written under its new name
  setting = written;
  setting = withCapacity(setting, t);
  const suspended = t.inTraffic ? undefined : suspendAutoscaleStep(setting);
  if (suspended?.kind === "autoscale" && suspended.setting) setting = suspended.setting;
  return { from, name, setting };
}

/** The clone's capacity on the profile in force, as resize writes it; what the body leaves out stays the profile's. */
function withCapacity(setting: AutoscaleSettingWire, t: CopyTarget): AutoscaleSettingWire {
  const c = t.capacity;
  const held = autoscaleBounds(setting, t.now);
  if (!c || !held || (c.min === undefined && c.max === undefined && c.desired === undefined)) return setting;
  const desired = c.desired ?? held.desired;
  const want = {
    min: c.min ?? Math.min(held.min, desired),
    max: c.max ?? Math.max(held.max, desired),
    desired,
  };
  const step = planAutoscaleBounds(setting, want, t.now);
  return step?.kind === "autoscale" && step.setting ? step.setting : setting;
}

/** The write of the copy, with a line that says what it keeps. */
export function copyStep(copy: AutoscaleCopy, sourceName: string): WriteStep {
  const profiles = copy.setting.properties.profiles;
  const rules = profiles.reduce((n, p) => n + (p.rules?.length ?? 0), 0);
  const notifications = copy.setting.properties.notifications?.length ?? 0;
  const bounds = autoscaleBounds(copy.setting, Date.now());
  return {
    kind: "autoscale",
    summary: `copy autoscale setting ${copy.from} of ${sourceName} as ${copy.name}: ${profiles.length} profile(s), ${rules} rule(s), ${notifications} notification(s)${bounds ? `, profile "${bounds.profile}" at min ${bounds.min}, max ${bounds.max}, default ${bounds.desired}` : ""}${copy.setting.properties.enabled ? "" : ", not enabled"}`,
    name: copy.name,
    setting: copy.setting,
  };
}
