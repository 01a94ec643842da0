// Spinnaker's group bounds on Azure: a resize's min and max are the bounds of the autoscale setting that targets the
// scale set (its profile in force), desired its capacity. Azure Monitor evaluates the setting about once a minute and
// moves the capacity into the profile's [minimum, maximum]: a capacity written outside them would be undone within
// the minute. These are the pure parts: which profile is in force, and the write that puts the bounds there.
import type { AutoscaleProfileWire, AutoscaleSettingWire } from "../azure/autoscale-gateway.ts";
import { settingName } from "../azure/autoscale-gateway.ts";
import type { WriteStep } from "../azure/vmss-gateway.ts";

const DAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** When a weekly recurrence last started at or before `now` (read as UTC), within the last week. */
function lastStart(profile: AutoscaleProfileWire, now: number): number | undefined {
  const schedule = profile.recurrence?.schedule;
  if (!schedule) return undefined;
  let best: number | undefined;
  for (let back = 0; back <= 7; back++) {
    const day = new Date(now - back * 86_400_000);
    if (!schedule.days.some((d) => d.toLowerCase() === DAYS[day.getUTCDay()])) continue;
    for (const h of schedule.hours)
      for (const m of schedule.minutes) {
        const at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), h, m);
        if (at <= now && (best === undefined || at > best)) best = at;
      }
  }
  return best;
}

/**
 * The index of the profile Azure Monitor applies at `now`: a fixedDate profile whose window holds now, else the
 * recurrence profile that started last, else the default profile (neither); -1 when there is none.
 */
export function activeProfileIndex(setting: AutoscaleSettingWire, now: number): number {
  const profiles = setting.properties.profiles;
  const fixed = profiles.findIndex(
    (p) => p.fixedDate && Date.parse(p.fixedDate.start) <= now && now <= Date.parse(p.fixedDate.end),
  );
  if (fixed >= 0) return fixed;
  let recurring: { index: number; at: number } | undefined;
  profiles.forEach((p, index) => {
    const at = lastStart(p, now);
    if (at !== undefined && (!recurring || at > recurring.at)) recurring = { index, at };
  });
  if (recurring) return recurring.index;
  return profiles.findIndex((p) => !p.recurrence && !p.fixedDate);
}

export interface Bounds {
  min: number;
  max: number;
  desired: number;
}

/** The profile in force's capacity as numbers, or undefined (no setting, no profile in force). */
export function autoscaleBounds(
  setting: AutoscaleSettingWire | null | undefined,
  now: number,
): (Bounds & { profile: string }) | undefined {
  if (!setting) return undefined;
  const i = activeProfileIndex(setting, now);
  if (i < 0) return undefined;
  const p = setting.properties.profiles[i];
  return {
    profile: p.name,
    min: Number(p.capacity.minimum),
    max: Number(p.capacity.maximum),
    desired: Number(p.capacity.default),
  };
}

/** The setting with the profile in force holding `want` (minimum, maximum, default = desired), or undefined: it does. */
export function planAutoscaleBounds(
  setting: AutoscaleSettingWire | null | undefined,
  want: Bounds,
  now: number,
): WriteStep | undefined {
  if (!setting) return undefined;
  const i = activeProfileIndex(setting, now);
  if (i < 0) return undefined;
  const profile = setting.properties.profiles[i];
  const capacity = { minimum: String(want.min), maximum: String(want.max), default: String(want.desired) };
  const c = profile.capacity;
  if (c.minimum === capacity.minimum && c.maximum === capacity.maximum && c.default === capacity.default)
    return undefined;
  const profiles = setting.properties.profiles.map((p, j) => (j === i ? { ...p, capacity } : p));
  const name = settingName(setting);
  return {
    kind: "autoscale",
    summary: `set autoscale setting ${name} (profile "${profile.name}") to min ${want.min}, max ${want.max}, default ${want.desired} (was min ${c.minimum}, max ${c.maximum}, default ${c.default}), so that Azure keeps the capacity there`,
    name,
    setting: { ...setting, properties: { ...setting.properties, profiles } },
  };
}
