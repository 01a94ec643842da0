// Request-body fields the service does not read. Operation bodies are open (additionalProperties), so that the stage
// context Orca sends as a description goes through unchanged; a field nobody reads must still never pass in silence:
// a misspelled `capcity` on scaleDown would otherwise plan "lower capacity 3 → 0". Each such field is named in the
// answer (ignoredFields), in the task's history and in a dry run; `Prefer: handling=strict` (RFC 7240 §4.4) makes
// them a 400. The fields Orca and Deck send that we deliberately do not read are listed here, once, with their
// source, and are not reported: a pipeline's every task would otherwise start with the same noise.
import { Kind, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import type { FastifyReply, FastifyRequest } from "fastify";
import type { FieldProblem } from "../operations/description.ts";
import type { HistoryEntry } from "../tasks/task.ts";

// Sources: spinnaker/orca at 2fdb327 (paths under orca-clouddriver/src/main/ unless they say orca-core), and
// spinnaker/deck at 3f2418e (paths under packages/). testkit/orca.ts and test/deploy-contract.test.ts replay
// these bodies.
const TSG = "TargetServerGroup.java l.136-160 (toClouddriverOperationPayload)";
const SG_TASK =
  "AbstractServerGroupTask.groovy l.87-94 and l.105-122 (stage outputs, then the context as the operation)";
const CLUSTER_TASK = "AbstractClusterWideClouddriverTask.groovy l.141-146 (stage outputs kept in the context)";
const STAGE =
  "orca-core StageExecutionImpl.java l.94-110 (the stage's config is its context) and deck core/src/domain/IStage.ts l.3-14";
const DECK_STAGE = "deck azure/src/pipeline/stages/{disableAsg,enableAsg,destroyAsg}/azure*AsgStage.js (l.47-70)";
const RESIZE = "ResizeServerGroupTask.groovy l.64-88 and kato/pipeline/support/ResizeStrategy.groovy l.28-46";
const DEPLOY =
  "deck azure/src/serverGroup/serverGroup.transformer.js l.37-143 (convertServerGroupCommandToDeployConfiguration)";
const CLUSTER_PICKER =
  "deck core/src/widgets/accountRegionClusterSelector.component.js l.84-95 (cluster and its moniker)";
const RRB =
  "RollingRedBlackStrategy.groovy l.146-200 (the pin and grow stages' context) and ResizeStrategySupport.groovy l.120-168";
const TARGET = "DetermineTargetServerGroupTask and TargetServerGroupResolver.groovy l.47-104 (dynamic targets)";

/**
 * Top-level fields of a description that Orca or Deck send and the service does not read, with where each comes
 * from. They are accepted, stored with the task as sent, and never reported as ignored, in strict mode too: they are
 * known, not unknown.
 */
export const ORCA_UNREAD_FIELDS: ReadonlyMap<string, string> = new Map([
  // Every Clouddriver operation Orca builds from a server group.
  ["accountName", TSG],
  ["asgName", TSG],
  ["cloudProvider", TSG],
  ["zone", TSG],
  ["namespace", TSG],
  // A stage's context is its configuration plus what its earlier tasks wrote.
  ["type", STAGE],
  ["name", STAGE],
  ["alias", STAGE],
  ["group", STAGE],
  ["comments", STAGE],
  ["failPipeline", STAGE],
  ["continuePipeline", STAGE],
  ["completeOtherBranchesThenFail", STAGE],
  ["failOnFailedExpressions", STAGE],
  ["stageEnabled", STAGE],
  ["stageTimeoutMs", STAGE],
  ["restrictExecutionDuringTimeWindow", STAGE],
  ["restrictedExecutionWindow", STAGE],
  ["skipWindowText", STAGE],
  ["sendNotifications", STAGE],
  ["notifications", STAGE],
  ["user", STAGE],
  ["notification.type", SG_TASK],
  ["deploy.account.name", SG_TASK],
  ["deploy.server.groups", SG_TASK],
  ["deployServerGroupsRegion", SG_TASK],
  ["kato.last.task.id", CLUSTER_TASK],
  ["kato.tasks", "MonitorKatoTask.groovy l.175-191 (the polled tasks, kept in the context)"],
  ["kato.result.expected", "CloneServerGroupTask.groovy l.74-79 (stage outputs kept in the context)"],
  // Deck's server-group stages (disable, enable, destroy, resize), and Orca's dynamic targets.
  ["regions", DECK_STAGE],
  ["target", DECK_STAGE],
  ["cluster", CLUSTER_PICKER],
  ["moniker", CLUSTER_PICKER],
  ["interestingHealthProviderNames", DECK_STAGE],
  // Deck's one-instance reboot names the application it was started from; the VM's name says the scale set.
  ["application", "deck core/src/instance/instance.write.service.ts l.84 (rebootInstance)"],
  ["targetLocation", TARGET],
  ["targetReferences", TARGET],
  ["cloudProviderType", "CreateServerGroupStage.groovy l.153 and MonitoredDeployStrategy.groovy l.504"],
  // The resize stage: how Orca computed the capacity it sends.
  ["action", RESIZE],
  ["resizeType", RESIZE],
  ["scalePct", RESIZE],
  ["scaleNum", RESIZE],
  ["originalCapacity", RESIZE],
  // The rolling red/black strategy's resize stages: how the capacity was derived from the source's.
  ["source", `${RRB}: the source the capacity was scaled from`],
  ["pinCapacity", RRB],
  ["pinMinimumCapacity", RRB],
  ["unpinMinimumCapacity", RRB],
  ["useNameAsLabel", `${RRB}: a hint to Deck`],
  ["targetHealthyDeployPercentage", RRB],
  // Deck's deploy configuration: the deploy strategy is Orca's, the rest describes Deck's dialog.
  ["strategy", DEPLOY],
  ["rollback", DEPLOY],
  ["scaleDown", DEPLOY],
  ["maxRemainingAsgs", DEPLOY],
  ["delayBeforeDisableSec", DEPLOY],
  ["delayBeforeScaleDownSec", DEPLOY],
  ["allowDeleteActive", DEPLOY],
  ["allowScaleDownActive", DEPLOY],
  ["freeFormDetails", DEPLOY],
  ["selectedProvider", DEPLOY],
  ["viewState", DEPLOY],
  ["zonesEnabled", DEPLOY],
  ["enableInboundNAT", DEPLOY],
  ["instanceType", DEPLOY],
  // The rolling red/black strategy's own settings, kept in the deploy stage's context.
  ["targetPercentages", "RollingRedBlackStageData.groovy l.22-27"],
  ["savedCapacity", "RollingRedBlackStrategy.groovy l.83-84"],
]);

/** Fields inside a description's objects that Orca or Deck send and the service does not read, by path. */
export const ORCA_UNREAD_NESTED_FIELDS: ReadonlyMap<string, string> = new Map([
  ["image.region", `${DEPLOY}: the pipeline's placeholder image names its region`],
]);

/** A field the service does not read, and the fields the object it was found in does take. */
export interface IgnoredField {
  field: string;
  known: readonly string[];
}

function isOrcaField(path: string): boolean {
  return ORCA_UNREAD_FIELDS.has(path) || ORCA_UNREAD_NESTED_FIELDS.has(path);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isSchema(value: unknown): value is TSchema {
  return typeof value === "object" && value !== null && Kind in value;
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * The fields of `value` that `schema` does not declare, wherever the schema leaves an object open, Orca's own left
 * out; named as the client sent them, after `prefix` (a list body's "[0].resizeServerGroup"). The value has passed
 * validation: in a union, the first branch it fits is the one that reads it.
 */
export function ignoredFields(schema: TSchema, value: unknown, prefix = ""): IgnoredField[] {
  return walk(schema, value, "").map((f) => ({ ...f, field: prefix ? `${prefix}.${f.field}` : f.field }));
}

function walk(schema: TSchema, value: unknown, path: string): IgnoredField[] {
  switch (schema[Kind]) {
    case "Object": {
      if (!isPlainObject(value)) return [];
      const properties = (schema.properties ?? {}) as Record<string, TSchema>;
      const known = Object.keys(properties);
      return Object.entries(value).flatMap(([key, v]) => {
        const at = join(path, key);
        if (Object.hasOwn(properties, key)) return walk(properties[key], v, at);
        if (isSchema(schema.additionalProperties)) return walk(schema.additionalProperties, v, at);
        // additionalProperties false: validation has refused the field already.
        if (schema.additionalProperties === false || isOrcaField(at)) return [];
        return [{ field: at, known }];
      });
    }
    case "Record": {
      if (!isPlainObject(value)) return [];
      const [[pattern, inner]] = Object.entries(schema.patternProperties as Record<string, TSchema>);
      const matches = new RegExp(pattern, "u");
      return Object.entries(value).flatMap(([key, v]) => {
        const at = join(path, key);
        if (matches.test(key)) return walk(inner, v, at);
        return schema.additionalProperties === false ? [] : [{ field: at, known: [] }];
      });
    }
    case "Array":
      return Array.isArray(value) ? value.flatMap((v, i) => walk(schema.items as TSchema, v, `${path}[${i}]`)) : [];
    case "Union": {
      const branch = (schema.anyOf as TSchema[]).find((b) => Value.Check(b, value));
      return branch ? walk(branch, value, path) : [];
    }
    default:
      return [];
  }
}

/** Edit distance (Levenshtein), for "did you mean". */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++)
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    previous = current;
  }
  return previous[b.length];
}

/** The declared name a misspelled one most likely meant: a case slip, or at most two edits (one for short names). */
function closest(name: string, known: readonly string[]): string | undefined {
  const exactButCase = known.find((k) => k.toLowerCase() === name.toLowerCase());
  if (exactButCase) return exactButCase;
  const limit = name.length <= 4 ? 1 : 2;
  const ranked = known.map((k) => ({ k, d: distance(name, k) })).filter((c) => c.d <= limit);
  ranked.sort((x, y) => x.d - y.d);
  return ranked[0]?.k;
}

/** Each ignored field as the 400 of a strict request says it: what is wrong and what would be right. */
export function ignoredFieldProblems(ignored: IgnoredField[], operation: string): FieldProblem[] {
  return ignored.map(({ field, known }) => {
    const name = field.slice(Math.max(field.lastIndexOf(".") + 1, field.lastIndexOf("]") + 1));
    const meant = closest(name, known);
    const right = meant
      ? `did you mean ${meant}?`
      : known.length > 0
        ? `the fields here are ${known.join(", ")}`
        : "leave it out";
    return {
      field,
      message: `is not a field of ${operation}: the service would not read it (refused under Prefer: handling=strict); ${right}`,
    };
  });
}

/** The task's first history line when the request had fields nobody reads. */
export function ignoredFieldsHistory(ignored: readonly string[]): HistoryEntry[] | undefined {
  if (ignored.length === 0) return undefined;
  return [{ phase: "INIT", status: `ignored: ${ignored.join(", ")} (not read by this service)`, timeMs: Date.now() }];
}

/**
 * Whether the request asks for strict handling: `Prefer: handling=strict` (RFC 7240 §4.4). Preferences are
 * comma-separated, may come in several Prefer headers, and their names and this value are case-insensitive; only the
 * first `handling` counts (§2).
 */
export function prefersStrictHandling(header: string | string[] | undefined): boolean {
  const preferences = (Array.isArray(header) ? header : [header ?? ""]).flatMap((h) => h.split(","));
  for (const preference of preferences) {
    const [token] = preference.split(";");
    const eq = token.indexOf("=");
    const name = (eq < 0 ? token : token.slice(0, eq)).trim().toLowerCase();
    if (name !== "handling") continue;
    const value = eq < 0 ? "" : token.slice(eq + 1).trim();
    return value.replace(/^"(.*)"$/, "$1").toLowerCase() === "strict";
  }
  return false;
}

/**
 * `Prefer: handling=strict` (RFC 7240): whether the request asks for it; when it does, the answer says it was applied
 * (RFC 7240 §3; set before validation, so that a 400 of the schema's says so too).
 */
export function strictHandling(request: FastifyRequest, reply: FastifyReply): boolean {
  const strict = prefersStrictHandling(request.headers.prefer);
  if (strict) reply.header("Preference-Applied", "handling=strict");
  return strict;
}
