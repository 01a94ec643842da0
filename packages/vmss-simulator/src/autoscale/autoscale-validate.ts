// The checks a write of an autoscale setting meets, from autoscale_API.json (2022-10-01): required fields, enum
// values, at most 20 profiles and 10 rules a profile, capacities as whole numbers with minimum ≤ default ≤ maximum,
// a profile with a recurrence or a fixedDate but not both. Each refusal is a 400 naming the field (`target`), with
// ARM's InvalidParameter / LocationRequired codes (Azure Monitor's exact wording is not public).
import { ArmError, invalidParameter, locationRequired } from "../arm-errors.ts";
import { isObject, type JsonObject } from "../json.ts";

const DIRECTIONS = ["None", "Increase", "Decrease"];
const ACTION_TYPES = ["ChangeCount", "PercentChangeCount", "ExactCount", "ServiceAllowedNextValue"];
const OPERATORS = ["Equals", "NotEquals", "GreaterThan", "GreaterThanOrEqual", "LessThan", "LessThanOrEqual"];
const STATISTICS = ["Average", "Min", "Max", "Sum", "Count"];
const AGGREGATIONS = ["Average", "Minimum", "Maximum", "Total", "Count", "Last"];
const DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];
const MAX_PROFILES = 20;
const MAX_RULES = 10;
const DURATION = /^P(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?$/;

function bad(message: string, target: string): ArmError {
  return invalidParameter(message, target);
}

function requireObject(value: unknown, target: string): JsonObject {
  if (!isObject(value)) throw bad(`'${target}' is required and must be an object.`, target);
  return value;
}

function requireString(value: unknown, target: string): string {
  if (typeof value !== "string" || value.trim() === "") throw bad(`'${target}' is required.`, target);
  return value;
}

function requireOneOf(value: unknown, allowed: string[], target: string): void {
  if (typeof value !== "string" || !allowed.some((a) => a.toLowerCase() === value.toLowerCase()))
    throw bad(`'${target}' must be one of ${allowed.join(", ")}.`, target);
}

function wholeString(value: unknown, target: string): number {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^\d+$/.test(text)) throw bad(`'${target}' must be a whole number ≥ 0.`, target);
  return Number(text);
}

function durationField(value: unknown, target: string): void {
  if (typeof value !== "string" || !DURATION.test(value) || value === "P" || value.endsWith("T"))
    throw bad(`'${target}' must be an ISO 8601 duration (e.g. PT5M).`, target);
}

function validateCapacity(value: unknown, target: string): void {
  const c = requireObject(value, target);
  const min = wholeString(c.minimum, `${target}.minimum`);
  const max = wholeString(c.maximum, `${target}.maximum`);
  const def = wholeString(c.default, `${target}.default`);
  if (min > max) throw bad(`'${target}.minimum' (${min}) is greater than its maximum (${max}).`, `${target}.minimum`);
  if (def < min || def > max)
    throw bad(`'${target}.default' (${def}) must be between minimum ${min} and maximum ${max}.`, `${target}.default`);
}

function validateRule(value: unknown, target: string): void {
  const rule = requireObject(value, target);
  const t = requireObject(rule.metricTrigger, `${target}.metricTrigger`);
  requireString(t.metricName, `${target}.metricTrigger.metricName`);
  requireString(t.metricResourceUri, `${target}.metricTrigger.metricResourceUri`);
  durationField(t.timeGrain, `${target}.metricTrigger.timeGrain`);
  requireOneOf(t.statistic, STATISTICS, `${target}.metricTrigger.statistic`);
  durationField(t.timeWindow, `${target}.metricTrigger.timeWindow`);
  requireOneOf(t.timeAggregation, AGGREGATIONS, `${target}.metricTrigger.timeAggregation`);
  requireOneOf(t.operator, OPERATORS, `${target}.metricTrigger.operator`);
  if (typeof t.threshold !== "number" || !Number.isFinite(t.threshold))
    throw bad(`'${target}.metricTrigger.threshold' must be a number.`, `${target}.metricTrigger.threshold`);
  const a = requireObject(rule.scaleAction, `${target}.scaleAction`);
  requireOneOf(a.direction, DIRECTIONS, `${target}.scaleAction.direction`);
  requireOneOf(a.type, ACTION_TYPES, `${target}.scaleAction.type`);
  wholeString(a.value ?? "1", `${target}.scaleAction.value`);
  durationField(a.cooldown, `${target}.scaleAction.cooldown`);
}

function validateSchedule(profile: JsonObject, target: string): void {
  if (profile.recurrence !== undefined && profile.fixedDate !== undefined)
    throw bad(`'${target}' has both a recurrence and a fixedDate; give one.`, target);
  if (profile.fixedDate !== undefined) {
    const f = requireObject(profile.fixedDate, `${target}.fixedDate`);
    for (const field of ["start", "end"] as const)
      if (Number.isNaN(Date.parse(requireString(f[field], `${target}.fixedDate.${field}`))))
        throw bad(`'${target}.fixedDate.${field}' must be a date-time.`, `${target}.fixedDate.${field}`);
  }
  if (profile.recurrence !== undefined) {
    const r = requireObject(profile.recurrence, `${target}.recurrence`);
    requireOneOf(r.frequency, ["Week"], `${target}.recurrence.frequency`);
    const s = requireObject(r.schedule, `${target}.recurrence.schedule`);
    requireString(s.timeZone, `${target}.recurrence.schedule.timeZone`);
    const list = (field: string, ok: (v: unknown) => boolean) => {
      const v = s[field];
      if (!Array.isArray(v) || v.length === 0 || !v.every(ok))
        throw bad(`'${target}.recurrence.schedule.${field}' is invalid.`, `${target}.recurrence.schedule.${field}`);
    };
    list("days", (d) => typeof d === "string" && DAYS.some((x) => x.toLowerCase() === d.toLowerCase()));
    list("hours", (h) => Number.isInteger(h) && (h as number) >= 0 && (h as number) < 24);
    list("minutes", (m) => Number.isInteger(m) && (m as number) >= 0 && (m as number) < 60);
  }
}

function validateProfile(value: unknown, target: string): void {
  const profile = requireObject(value, target);
  requireString(profile.name, `${target}.name`);
  validateCapacity(profile.capacity, `${target}.capacity`);
  if (!Array.isArray(profile.rules)) throw bad(`'${target}.rules' is required (an array).`, `${target}.rules`);
  if (profile.rules.length > MAX_RULES)
    throw bad(`'${target}.rules' holds more than ${MAX_RULES} rules.`, `${target}.rules`);
  profile.rules.forEach((r, i) => validateRule(r, `${target}.rules[${i}]`));
  validateSchedule(profile, target);
}

/** The properties of a PUT (or of a PATCH merged into the stored setting). */
export function validateAutoscaleProperties(value: unknown): JsonObject {
  const properties = requireObject(value, "properties");
  const profiles = properties.profiles;
  if (!Array.isArray(profiles) || profiles.length === 0)
    throw bad("'properties.profiles' is required (1 to 20 profiles).", "properties.profiles");
  if (profiles.length > MAX_PROFILES)
    throw bad(`'properties.profiles' holds more than ${MAX_PROFILES} profiles.`, "properties.profiles");
  profiles.forEach((p, i) => validateProfile(p, `properties.profiles[${i}]`));
  requireString(properties.targetResourceUri, "properties.targetResourceUri");
  if (properties.enabled !== undefined && typeof properties.enabled !== "boolean")
    throw bad("'properties.enabled' must be true or false.", "properties.enabled");
  if (properties.notifications !== undefined && !Array.isArray(properties.notifications))
    throw bad("'properties.notifications' must be an array.", "properties.notifications");
  return properties;
}

export function validateLocation(body: JsonObject): string {
  if (typeof body.location !== "string" || body.location.trim() === "") throw locationRequired();
  return body.location;
}

export function validateTags(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === "string"))
    throw bad("'tags' must be an object of string values.", "tags");
  return value as Record<string, string>;
}
