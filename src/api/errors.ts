// Every error leaves as ErrorResponse JSON with the right 4xx; only a bug is a 500, and it never stops the service.
import type { FastifyError, FastifyInstance } from "fastify";
import { AccountName, RegionName, ResourceGroupName, ScaleSetName, type FieldProblem } from "../operations/description.ts";
import type { ErrorResponse } from "./schemas.ts";
import { storeOutageReason } from "../tasks/store-outage.ts";
import { BacklogFullError } from "../tasks/backlog.ts";

/**
 * Retry-After, in seconds, while the task store is out of reach: a PostgreSQL restart or fail-over takes seconds,
 * and an orchestrator polling sooner only adds to the queue of connections.
 */
export const STORE_OUTAGE_RETRY_AFTER_S = 5;

/** A 4xx our own handlers decide on. */
export class ApiError extends Error {
  readonly statusCode: number;
  readonly error: string;
  readonly details?: FieldProblem[];
  readonly extra?: Partial<ErrorResponse>;
  /** Sent with the answer (a 503's Retry-After). */
  headers?: Record<string, string>;
  constructor(statusCode: number, error: string, message: string, details?: FieldProblem[], extra?: Partial<ErrorResponse>) {
    super(message);
    this.statusCode = statusCode;
    this.error = error;
    this.details = details;
    this.extra = extra;
  }
}

export function validationError(problems: FieldProblem[]): ApiError {
  return new ApiError(400, "ValidationError", problems.map((p) => `${p.field}: ${p.message}`).join("; "), problems);
}

interface AjvError {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
  parentSchema?: { description?: string };
  /** The value that failed (ajv's verbose mode). */
  data?: unknown;
  schemaPath?: string;
}

/** The branch of a union an object value plainly means: the only one whose required keys it all has. */
function intendedBranch(e: AjvError): number | undefined {
  const branches = (e.parentSchema as { anyOf?: BranchSchema[]; oneOf?: BranchSchema[] } | undefined)?.[e.keyword as "anyOf" | "oneOf"] ?? [];
  if (e.data === null || typeof e.data !== "object" || Array.isArray(e.data)) return undefined;
  const keys = new Set(Object.keys(e.data));
  const fitting = branches.flatMap((b, i) => (b.type === "object" && (b.required ?? []).length > 0 && b.required!.every((k) => keys.has(k)) ? [i] : []));
  return fitting.length === 1 ? fitting[0] : undefined;
}

/**
 * What a name must be, by its pattern. A field's own description says what the field is for ("defaults to the
 * account's defaultResourceGroup, …"), which is no answer to "what would be right": the naming rule is.
 */
const NAMING_RULES = new Map<string, string>([AccountName, RegionName, ResourceGroupName, ScaleSetName].map((schema) => [schema.pattern!, schema.description!]));

const TYPE_NAMES: Record<string, string> = {
  integer: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "a JSON object",
  array: "a list",
  null: "null",
};

interface BranchSchema {
  const?: unknown;
  type?: string;
  pattern?: string;
  description?: string;
  required?: string[];
  properties?: Record<string, unknown>;
  enum?: unknown[];
}

/** "must be one of "Oldest", "Newest"" or "must be a whole number or a percentage such as 25%". */
function describeUnion(branches: BranchSchema[], got: string): string {
  if (branches.length > 0 && branches.every((b) => b.const !== undefined)) return `must be one of ${branches.map((b) => JSON.stringify(b.const)).join(", ")}${got}`;
  const forms = branches.map((b) => {
    if (b.const !== undefined) return JSON.stringify(b.const);
    if (b.enum) return `one of ${b.enum.map((v) => JSON.stringify(v)).join(", ")}`;
    if (b.type === "object") return `{${(b.required && b.required.length > 0 ? b.required : Object.keys(b.properties ?? {})).join(", ")}}`;
    if (b.pattern) return NAMING_RULES.get(b.pattern) ?? (/^(a|an|the) /.test(b.description ?? "") ? b.description! : `a string matching ${b.pattern}`);
    if (b.type) return TYPE_NAMES[b.type] ?? b.type;
    return b.description ?? "another form";
  });
  return `must be ${[...new Set(forms)].join(" or ")}${got}`;
}

/** ajv's own words ("must be integer", "must be <= 1000") made into what would be right, with what was sent. */
function describeAjvError(e: AjvError): string {
  const got = e.data === undefined ? "" : `, got ${quoted(e.data)}`;
  const p = e.params;
  switch (e.keyword) {
    case "pattern": {
      // A description is a rule only when it names a thing ("a VM size such as …"); others document the field.
      const rule = NAMING_RULES.get(String(p.pattern)) ?? (/^(a|an|the) /.test(e.parentSchema?.description ?? "") ? e.parentSchema?.description : undefined);
      return `${rule ? `must be ${rule}` : `must match ${String(p.pattern)}`}${got}`;
    }
    case "type": {
      const types = String(p.type).split(",");
      return `must be ${types.map((t) => TYPE_NAMES[t] ?? t).join(" or ")}${got}`;
    }
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum": {
      const words = { minimum: "at least", maximum: "at most", exclusiveMinimum: "more than", exclusiveMaximum: "less than" }[e.keyword];
      return `must be ${words} ${String(p.limit)}${got}`;
    }
    case "enum":
      return `must be one of ${(p.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}${got}`;
    case "const":
      return `must be ${JSON.stringify(p.allowedValue)}${got}`;
    case "minLength":
      return `must be at least ${String(p.limit)} character(s) long${got}`;
    case "maxLength":
      return `must be at most ${String(p.limit)} characters long, got ${String((e.data as string | undefined)?.length ?? "more")}`;
    case "minItems":
      return `must have at least ${String(p.limit)} item(s)`;
    case "maxItems":
      return `must have at most ${String(p.limit)} items, got ${String((e.data as unknown[] | undefined)?.length ?? "more")}`;
    case "anyOf":
    case "oneOf":
      return describeUnion((e.parentSchema as { anyOf?: BranchSchema[]; oneOf?: BranchSchema[] } | undefined)?.[e.keyword] ?? [], got);
  }
  return `${e.message ?? "is invalid"}${got}`;
}

/** The value as a message quotes it: short, and never more than a line. */
function quoted(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** "/capacity/desired" → "capacity.desired"; "/0/resizeServerGroup/region" → "[0].resizeServerGroup.region". */
export function fieldPath(instancePath: string, child?: string): string {
  const parts = instancePath.split("/").slice(1).map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  if (child !== undefined) parts.push(child);
  return parts.reduce((acc, p) => (/^\d+$/.test(p) ? `${acc}[${p}]` : acc ? `${acc}.${p}` : p), "");
}

export function ajvErrorsToProblems(errors: AjvError[], context: string): FieldProblem[] {
  const where = context === "body" ? "" : context === "querystring" ? "query" : context;
  const seen = new Set<string>();
  const problems: FieldProblem[] = [];
  // A union (anyOf) reports each branch's failure, then its own. When the value plainly means one branch (an object
  // with every key that branch requires, and no other branch's), that branch's errors say what is wrong; otherwise one
  // sentence naming the forms the field takes does, where "image.id: is required; image.publisher: is not a known
  // field; …" would not.
  const unions = new Map<string, number | undefined>();
  for (const e of errors) if (e.keyword === "anyOf" || e.keyword === "oneOf") unions.set(e.instancePath, intendedBranch(e));
  const skip = (e: AjvError): boolean => {
    if (e.keyword === "anyOf" || e.keyword === "oneOf") return unions.get(e.instancePath) !== undefined;
    for (const [path, branch] of unions) {
      if (e.instancePath !== path && !e.instancePath.startsWith(`${path}/`)) continue;
      return branch === undefined || !new RegExp(`/(anyOf|oneOf)/${branch}/`).test(e.schemaPath ?? "");
    }
    return false;
  };
  for (const e of errors) {
    if (skip(e)) continue;
    let child: string | undefined;
    const described = describeAjvError(e);
    let message = described;
    if (e.keyword === "required") {
      child = String(e.params.missingProperty);
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      child = String(e.params.additionalProperty);
      const known = Object.keys((e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {});
      message = `is not a known field: remove it, or check its spelling${known.length > 0 && known.length <= 20 ? ` (known: ${known.join(", ")})` : ""}`;
    }
    const path = fieldPath(e.instancePath, child);
    const field = [where, path].filter(Boolean).join(".") || (where || "body");
    const key = `${field}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ field, message });
  }
  return problems;
}

function send(reply: { code(n: number): { send(body: unknown): unknown } }, body: ErrorResponse) {
  return reply.code(body.statusCode).send(body);
}

const FASTIFY_CODES: Record<string, string> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PayloadTooLarge",
  FST_ERR_CTP_INVALID_MEDIA_TYPE: "UnsupportedMediaType",
  FST_ERR_CTP_EMPTY_JSON_BODY: "EmptyBody",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "InvalidContentLength",
};

export function installErrorHandling(app: FastifyInstance, limits: { bodyLimitBytes?: number } = {}): void {
  app.setErrorHandler((err: FastifyError & Partial<ApiError>, request, reply) => {
    if (err instanceof ApiError) {
      if (err.headers) reply.headers(err.headers);
      return send(reply, {
        statusCode: err.statusCode,
        error: err.error,
        message: err.message,
        ...(err.details ? { details: err.details } : {}),
        ...err.extra,
      });
    }
    if (err.validation) {
      const problems = ajvErrorsToProblems(err.validation as unknown as AjvError[], err.validationContext ?? "body");
      return send(reply, {
        statusCode: 400,
        error: "ValidationError",
        message: problems.map((p) => `${p.field}: ${p.message}`).join("; "),
        details: problems,
      });
    }
    if (err instanceof BacklogFullError) {
      reply.header("retry-after", String(err.retryAfterSeconds));
      return send(reply, { statusCode: 429, error: "BacklogFull", message: err.message });
    }
    const outage = storeOutageReason(err);
    if (outage !== undefined) {
      // Not a bug: the store is down. An orchestrator retries a 503 with Retry-After; a 500 reads as ours to fix.
      // Info: every request meets it while the store is down; the runner says so at warn, once per outage.
      request.log.info({ reason: outage, err: err.message }, "task store unavailable");
      reply.header("retry-after", String(STORE_OUTAGE_RETRY_AFTER_S));
      return send(reply, {
        statusCode: 503,
        error: "TaskStoreUnavailable",
        message: `the task store cannot be reached (${outage}); nothing was done, retry after ${STORE_OUTAGE_RETRY_AFTER_S} s`,
      });
    }
    const status = typeof err.statusCode === "number" ? err.statusCode : 500;
    if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
      const sent = request.headers["content-type"] ?? "none";
      return send(reply, { statusCode: 415, error: "UnsupportedMediaType", message: `content-type ${sent} is not accepted: send the body as JSON with content-type: application/json` });
    }
    if (err.code === "FST_ERR_CTP_INVALID_JSON_BODY" && /prototype property/.test(String((err as { cause?: Error }).cause?.message ?? err.message))) {
      return send(reply, { statusCode: 400, error: "ForbiddenKey", message: "the body has a __proto__ or constructor.prototype key, which is refused: rename that key (no operation has such a field)" });
    }
    if (status >= 400 && status < 500) {
      const code = (err.code && FASTIFY_CODES[err.code]) ?? (err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY" ? "InvalidJson" : "BadRequest");
      const message =
        err.code === "FST_ERR_CTP_BODY_TOO_LARGE" && limits.bodyLimitBytes !== undefined
          ? `the body is larger than ${limits.bodyLimitBytes} bytes (BODY_LIMIT_BYTES)`
          : err.message;
      return send(reply, { statusCode: status, error: code, message });
    }
    request.log.error({ err }, "unhandled error");
    return send(reply, { statusCode: 500, error: "InternalError", message: "internal error; it has been logged" });
  });

  app.setNotFoundHandler((request, reply) =>
    send(reply, { statusCode: 404, error: "NotFound", message: `no route ${request.method} ${request.url.split("?")[0]}: the routes are listed at /docs and /openapi.json` }),
  );
}
