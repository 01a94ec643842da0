// Every error leaves as ErrorResponse JSON with the right 4xx; only a bug is a 500, and it never stops the service.
import type { FastifyError, FastifyInstance } from "fastify";
import type { FieldProblem } from "../operations/description.ts";
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
  for (const e of errors) {
    let child: string | undefined;
    let message = e.message ?? "is invalid";
    if (e.keyword === "required") {
      child = String(e.params.missingProperty);
      message = "is required";
    } else if (e.keyword === "additionalProperties") {
      child = String(e.params.additionalProperty);
      message = "is not a known field";
    } else if (e.keyword === "pattern" && e.parentSchema?.description) {
      message = `must be ${e.parentSchema.description}`;
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
    send(reply, { statusCode: 404, error: "NotFound", message: `no route ${request.method} ${request.url.split("?")[0]}` }),
  );
}
