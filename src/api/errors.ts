// Every error leaves as ErrorResponse JSON with the right 4xx; only a bug is a 500, and it never stops the service.
import { maxHeaderSize, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  AccountName,
  RegionName,
  ResourceGroupName,
  ScaleSetName,
  type FieldProblem,
} from "../operations/description.ts";
import { ApiError, apiError } from "./error-catalogue.ts";
import { CreateOutcomeUnknownError, storeOutageReason } from "../tasks/store-outage.ts";
import { BacklogFullError } from "../tasks/backlog.ts";

/**
 * Retry-After, in seconds, while the task store is out of reach: a PostgreSQL restart or fail-over takes seconds,
 * and an orchestrator polling sooner only adds to the queue of connections.
 */
export const STORE_OUTAGE_RETRY_AFTER_S = 5;

export { ApiError, apiError } from "./error-catalogue.ts";

export function validationError(problems: FieldProblem[]): ApiError {
  return apiError("ValidationError", { problems });
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
  const branches =
    (e.parentSchema as { anyOf?: BranchSchema[]; oneOf?: BranchSchema[] } | undefined)?.[
      e.keyword as "anyOf" | "oneOf"
    ] ?? [];
  if (e.data === null || typeof e.data !== "object" || Array.isArray(e.data)) return undefined;
  const keys = new Set(Object.keys(e.data));
  const fitting = branches.flatMap((b, i) =>
    b.type === "object" && (b.required ?? []).length > 0 && b.required!.every((k) => keys.has(k)) ? [i] : [],
  );
  return fitting.length === 1 ? fitting[0] : undefined;
}

/**
 * What a name must be, by its pattern. A field's own description says what the field is for ("Without
 * resourceGroup, a server group is in …"), which is no answer to "what would be right": the naming rule is.
 */
const NAMING_RULES = new Map<string, string>(
  [AccountName, RegionName, ResourceGroupName, ScaleSetName].map((schema) => [schema.pattern!, schema.description!]),
);

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
  if (branches.length > 0 && branches.every((b) => b.const !== undefined))
    return `must be one of ${branches.map((b) => JSON.stringify(b.const)).join(", ")}${got}`;
  const forms = branches.map((b) => {
    if (b.const !== undefined) return JSON.stringify(b.const);
    if (b.enum) return `one of ${b.enum.map((v) => JSON.stringify(v)).join(", ")}`;
    if (b.type === "object")
      return `{${(b.required && b.required.length > 0 ? b.required : Object.keys(b.properties ?? {})).join(", ")}}`;
    if (b.pattern)
      return (
        NAMING_RULES.get(b.pattern) ??
        (/^(a|an|the) /.test(b.description ?? "") ? b.description! : `a string matching ${b.pattern}`)
      );
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
      const rule =
        NAMING_RULES.get(String(p.pattern)) ??
        (/^(a|an|the) /.test(e.parentSchema?.description ?? "") ? e.parentSchema?.description : undefined);
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
      const words = {
        minimum: "at least",
        maximum: "at most",
        exclusiveMinimum: "more than",
        exclusiveMaximum: "less than",
      }[e.keyword];
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
    case "not":
      // A refused field (`not: {}`): its description says why and what to send instead; its value is not quoted,
      // as it may be a secret.
      return e.parentSchema?.description ?? "is refused";
    case "anyOf":
    case "oneOf":
      return describeUnion(
        (e.parentSchema as { anyOf?: BranchSchema[]; oneOf?: BranchSchema[] } | undefined)?.[e.keyword] ?? [],
        got,
      );
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
  const parts = instancePath
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
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
  for (const e of errors)
    if (e.keyword === "anyOf" || e.keyword === "oneOf") unions.set(e.instancePath, intendedBranch(e));
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
      const known = Object.keys(
        (e.parentSchema as { properties?: Record<string, unknown> } | undefined)?.properties ?? {},
      );
      message = `is not a known field: remove it, or check its spelling${known.length > 0 && known.length <= 20 ? ` (known: ${known.join(", ")})` : ""}`;
    }
    const path = fieldPath(e.instancePath, child);
    const field = [where, path].filter(Boolean).join(".") || where || "body";
    const key = `${field}\n${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push({ field, message });
  }
  return problems;
}

function send(reply: FastifyReply, err: ApiError) {
  if (err.headers) reply.headers(err.headers);
  return reply.code(err.statusCode).send(err.body());
}

/** Fastify's own 4xx codes, as the catalogue names them (any other is BadRequest, with fastify's status). */
const FASTIFY_CODES: Record<string, "PayloadTooLarge" | "EmptyBody" | "InvalidContentLength"> = {
  FST_ERR_CTP_BODY_TOO_LARGE: "PayloadTooLarge",
  FST_ERR_CTP_EMPTY_JSON_BODY: "EmptyBody",
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: "InvalidContentLength",
};

/** The catalogue's answer for an error fastify raised before a route ran (a 4xx). */
function frameworkError(
  err: FastifyError,
  status: number,
  request: FastifyRequest,
  limits: { bodyLimitBytes?: number },
): ApiError {
  if (err.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE")
    return apiError("UnsupportedMediaType", { contentType: request.headers["content-type"] ?? "none" });
  const cause = String((err as { cause?: Error }).cause?.message ?? err.message);
  if (err.code === "FST_ERR_CTP_INVALID_JSON_BODY" && /prototype property/.test(cause))
    return apiError("ForbiddenKey", {});
  if (err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY")
    return apiError("InvalidJson", { reason: err.message });
  const known = err.code ? FASTIFY_CODES[err.code] : undefined;
  if (known === "PayloadTooLarge")
    return apiError("PayloadTooLarge", { limitBytes: limits.bodyLimitBytes, said: err.message });
  if (known === "EmptyBody") return apiError("EmptyBody", {});
  if (known === "InvalidContentLength") return apiError("InvalidContentLength", { said: err.message });
  return apiError("BadRequest", { said: err.message }, { status });
}

/**
 * The longest path parameter the router matches. No parameter of the API is longer (a task id is at most 128
 * characters, an unknown operation's name is quoted up to 200): a longer one is refused before routing, by
 * answerRouterError, and one up to this long reaches the route, whose schema names the parameter and its limit.
 */
export const MAX_PATH_PARAMETER_LENGTH = 256;

/**
 * Fastify's frameworkErrors: what its router refuses before any route runs (a path parameter longer than
 * MAX_PATH_PARAMETER_LENGTH, a path that is not valid percent-encoding) answers our ErrorResponse, not fastify's own
 * body, with the 400 every route with a path parameter declares.
 */
export function answerRouterError(err: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const problem =
    err.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? `a path segment is longer than ${MAX_PATH_PARAMETER_LENGTH} characters; no parameter of this API is that long`
      : "the path is not valid percent-encoding (a % must be followed by two hex digits)";
  void send(reply, validationError([{ field: "path", message: problem }]));
}

/**
 * Fastify's clientErrorHandler: what Node's HTTP parser refuses before fastify sees a request (its clientError
 * event). A request line and headers over maxHeaderSize are a 431, a request not received in time a 408, bytes
 * that are not HTTP a 400: each the ErrorResponse of the catalogue, where fastify's default writes its own body.
 * The connection is closed after it, as Node and fastify do.
 */
export function answerClientError(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  const answer =
    err.code === "HPE_HEADER_OVERFLOW"
      ? apiError("HeadersTooLarge", { limitBytes: maxHeaderSize })
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? apiError("BadRequest", { said: "the request was not received in time" }, { status: 408 })
        : apiError("BadRequest", { said: "the request is not valid HTTP" });
  this.log.debug({ err: err.message, code: err.code }, `client error: ${answer.statusCode}`);
  if (socket.writable) {
    const body = JSON.stringify(answer.body());
    socket.write(
      `HTTP/1.1 ${answer.statusCode} ${STATUS_CODES[answer.statusCode]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}

export function installErrorHandling(app: FastifyInstance, limits: { bodyLimitBytes?: number } = {}): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    if (err instanceof ApiError) return send(reply, err);
    if (err.validation)
      return send(reply, validationError(ajvErrorsToProblems(err.validation, err.validationContext ?? "body")));
    if (err instanceof BacklogFullError)
      return send(
        reply,
        apiError("BacklogFull", { queued: err.queued, limit: err.limit, retryAfterSeconds: err.retryAfterSeconds }),
      );
    if (err instanceof CreateOutcomeUnknownError && err.clientRequestId !== undefined) {
      // The task may exist: the answer says how to find it, or have it made once.
      request.log.debug({ reason: err.reason, clientRequestId: err.clientRequestId }, "create outcome unknown");
      return send(
        reply,
        apiError(
          "TaskOutcomeUnknown",
          { clientRequestId: err.clientRequestId, reason: err.reason, retryAfterSeconds: STORE_OUTAGE_RETRY_AFTER_S },
          { headers: { "client-request-id": err.clientRequestId } },
        ),
      );
    }
    const outage = storeOutageReason(err);
    if (outage !== undefined) {
      // Not a bug: the store is down. An orchestrator retries a 503 with Retry-After; a 500 reads as ours to fix.
      // Debug: every request meets it while the store is down; the outage is logged at warn once (app/parts.ts).
      request.log.debug({ reason: outage, err: err.message }, "task store unavailable");
      return send(
        reply,
        apiError("TaskStoreUnavailable", { reason: outage, retryAfterSeconds: STORE_OUTAGE_RETRY_AFTER_S }),
      );
    }
    const status = typeof err.statusCode === "number" ? err.statusCode : 500;
    if (status >= 400 && status < 500) return send(reply, frameworkError(err, status, request, limits));
    request.log.error({ err }, "unhandled error");
    return send(reply, apiError("InternalError", {}));
  });

  app.setNotFoundHandler((request, reply) =>
    send(
      reply,
      apiError("NotFound", {
        what: `no route ${request.method} ${request.url.split("?")[0]}: the routes are listed at /docs and /openapi.json`,
      }),
    ),
  );
}
