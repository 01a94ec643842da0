// What Azure Monitor autoscale decides for one setting at one moment, as a pure function of the setting, the scale
// set's capacity, the metrics and the time of the last scale action. The loop that applies it is autoscale-run.ts.
//
// As Microsoft Learn describes the evaluation ("Understand autoscale settings", "Best practices for autoscale"):
// - the active profile: a fixedDate profile whose window holds now, else the recurrence profile that started last,
//   else the default profile (neither recurrence nor fixedDate);
// - the capacity is first brought into the profile's [minimum, maximum];
// - scale-out when any Increase rule's trigger is met, scale-in only when every Decrease rule's trigger is met; of
//   the rules that act, the one giving the greatest capacity wins; no action within a rule's cooldown of the last one;
// - a rule whose metric has no value: the capacity is raised to the profile's default if it is below it.
import type { JsonObject } from "../json.ts";
import { getPath, isObject } from "../json.ts";

export interface Capacity {
  minimum: number;
  maximum: number;
  default: number;
}

/** A metric's value, by the resource and metric name a trigger names; undefined: no data. */
export type MetricReader = (resourceUri: string, metricName: string) => number | undefined;

export interface EvaluationInput {
  /** The setting's properties, as stored (validated). */
  properties: JsonObject;
  capacity: number;
  now: number;
  /** When autoscale last changed the capacity (ms), if it ever did. */
  lastScaleActionAt?: number;
  metric: MetricReader;
}

export interface Decision {
  profile: string;
  bounds: Capacity;
  /** The capacity autoscale sets; equal to the input capacity when nothing changes. */
  target: number;
  /** Why, for a person: "clamped into [2, 5]", "rule 0 (Percentage CPU > 70): Increase by 1", … */
  reason: string;
}

const DAY_NAMES = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

export function capacityOfProfile(profile: unknown): Capacity {
  const c = getPath(profile, "capacity");
  return {
    minimum: Number(getPath(c, "minimum")),
    maximum: Number(getPath(c, "maximum")),
    default: Number(getPath(c, "default")),
  };
}

function profilesOf(properties: JsonObject): JsonObject[] {
  return Array.isArray(properties.profiles) ? properties.profiles.filter(isObject) : [];
}

/** UTC only: a fixedDate or recurrence in any other time zone is read as UTC (docs/simulator.md says so). */
function fixedDateHolds(profile: JsonObject, now: number): boolean {
  const start = Date.parse(String(getPath(profile, "fixedDate", "start")));
  const end = Date.parse(String(getPath(profile, "fixedDate", "end")));
  return start <= now && now <= end;
}

/** The latest time ≤ now at which a weekly recurrence started (within the last week), or undefined. */
export function lastRecurrenceStart(profile: JsonObject, now: number): number | undefined {
  const schedule = getPath(profile, "recurrence", "schedule");
  const days = getPath(schedule, "days");
  const hours = getPath(schedule, "hours");
  const minutes = getPath(schedule, "minutes");
  if (!Array.isArray(days) || !Array.isArray(hours) || !Array.isArray(minutes)) return undefined;
  let best: number | undefined;
  for (let back = 0; back <= 7; back++) {
    const day = new Date(now - back * 86_400_000);
    if (!days.some((d) => String(d).toLowerCase() === DAY_NAMES[day.getUTCDay()].toLowerCase())) continue;
    for (const h of hours)
      for (const m of minutes) {
        const at = Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate(), Number(h), Number(m));
        if (at <= now && (best === undefined || at > best)) best = at;
      }
  }
  return best;
}

/** The profile in force at `now`: fixedDate over recurrence over default; undefined when the setting has none. */
export function activeProfile(properties: JsonObject, now: number): JsonObject | undefined {
  const profiles = profilesOf(properties);
  const fixed = profiles.find((p) => isObject(p.fixedDate) && fixedDateHolds(p, now));
  if (fixed) return fixed;
  let recurring: { profile: JsonObject; at: number } | undefined;
  for (const p of profiles) {
    if (!isObject(p.recurrence)) continue;
    const at = lastRecurrenceStart(p, now);
    if (at !== undefined && (!recurring || at > recurring.at)) recurring = { profile: p, at };
  }
  if (recurring) return recurring.profile;
  return profiles.find((p) => !isObject(p.recurrence) && !isObject(p.fixedDate));
}

/** ISO 8601 durations as autoscale writes them (PT5M, PT1H, P1D); 0 when unreadable. */
export function durationMs(text: unknown): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/.exec(String(text));
  if (!m) return 0;
  const [d, h, min, s] = m.slice(1).map((x) => Number(x ?? 0));
  return ((d * 24 + h) * 60 + min) * 60_000 + s * 1000;
}

const OPERATORS: Record<string, (a: number, b: number) => boolean> = {
  Equals: (a, b) => a === b,
  NotEquals: (a, b) => a !== b,
  GreaterThan: (a, b) => a > b,
  GreaterThanOrEqual: (a, b) => a >= b,
  LessThan: (a, b) => a < b,
  LessThanOrEqual: (a, b) => a <= b,
};

type Trigger = "met" | "notMet" | "noData";

function triggerOf(rule: JsonObject, capacity: number, metric: MetricReader): Trigger {
  const t = rule.metricTrigger;
  const value = metric(String(getPath(t, "metricResourceUri")), String(getPath(t, "metricName")));
  if (value === undefined) return "noData";
  const perInstance = getPath(t, "dividePerInstance") === true ? value / Math.max(1, capacity) : value;
  const compare = OPERATORS[String(getPath(t, "operator"))];
  return compare?.(perInstance, Number(getPath(t, "threshold"))) ? "met" : "notMet";
}

/** The capacity a rule's scale action gives from `capacity`. */
export function capacityAfter(rule: JsonObject, capacity: number): number {
  const action = rule.scaleAction;
  const direction = String(getPath(action, "direction"));
  const value = Number(getPath(action, "value"));
  const sign = direction === "Increase" ? 1 : direction === "Decrease" ? -1 : 0;
  switch (String(getPath(action, "type"))) {
    case "ExactCount":
      return value;
    case "PercentChangeCount": {
      const change = Math.max(1, Math.ceil((capacity * value) / 100));
      return capacity + sign * change;
    }
    default: // ChangeCount, ServiceAllowedNextValue
      return capacity + sign * value;
  }
}

function describe(rule: JsonObject, index: number): string {
  const t = rule.metricTrigger;
  const a = rule.scaleAction;
  return `rule ${index} (${String(getPath(t, "metricName"))} ${String(getPath(t, "operator"))} ${String(getPath(t, "threshold"))}): ${String(getPath(a, "direction"))} ${String(getPath(a, "type"))} ${String(getPath(a, "value"))}`;
}

function clamp(n: number, bounds: Capacity): number {
  return Math.min(bounds.maximum, Math.max(bounds.minimum, n));
}

/** The rules' decision within the bounds, from a capacity already inside them. */
function ruleDecision(
  rules: JsonObject[],
  input: EvaluationInput,
  bounds: Capacity,
  from: number,
): { target: number; reason: string } | undefined {
  const triggers = rules.map((r) => triggerOf(r, from, input.metric));
  const inCooldown = (r: JsonObject) =>
    input.lastScaleActionAt !== undefined &&
    input.now - input.lastScaleActionAt < durationMs(getPath(r, "scaleAction", "cooldown"));
  const pick = (indices: number[]) => {
    const acting = indices.filter((i) => !inCooldown(rules[i]));
    if (acting.length === 0) return undefined;
    const best = acting
      .map((i) => ({ i, target: clamp(capacityAfter(rules[i], from), bounds) }))
      .reduce((a, b) => (b.target > a.target ? b : a));
    return { target: best.target, reason: describe(rules[best.i], best.i) };
  };
  const direction = (i: number) => String(getPath(rules[i], "scaleAction", "direction"));
  const out = rules.map((_, i) => i).filter((i) => direction(i) === "Increase" && triggers[i] === "met");
  if (out.length > 0) return pick(out);
  const ins = rules.map((_, i) => i).filter((i) => direction(i) === "Decrease");
  if (ins.length > 0 && ins.every((i) => triggers[i] === "met")) return pick(ins);
  if (triggers.includes("noData") && from < bounds.default)
    return { target: bounds.default, reason: "a rule's metric has no data: raised to the default" };
  return undefined;
}

/** What autoscale does now, or undefined when the setting has no profile in force. */
export function decide(input: EvaluationInput): Decision | undefined {
  const profile = activeProfile(input.properties, input.now);
  if (!profile) return undefined;
  const bounds = capacityOfProfile(profile);
  const name = String(profile.name);
  const clamped = clamp(input.capacity, bounds);
  const rules = Array.isArray(profile.rules) ? profile.rules.filter(isObject) : [];
  const byRules = ruleDecision(rules, input, bounds, clamped);
  if (byRules && byRules.target !== clamped) return { profile: name, bounds, ...byRules };
  if (clamped !== input.capacity)
    return { profile: name, bounds, target: clamped, reason: `brought into [${bounds.minimum}, ${bounds.maximum}]` };
  return { profile: name, bounds, target: input.capacity, reason: "no change" };
}
