// Every error this API answers, declared once: its code, its HTTP status, when it is answered and its message.
// Routes build them only with apiError(code, params); the OpenAPI document's error responses (error-responses.ts)
// and the table in docs/api.md (npm run docs:errors) are generated from this list, and
// test/error-catalogue.test.ts holds src/ to it. Fastify's lib/errors.js is the model: a code is a promise to
// clients, so it is written in one place where docs and tests can list it.
import type { FieldProblem } from "../operations/description.ts";

interface CatalogueEntry<P> {
  status: number;
  /** When it is answered, for a person: the OpenAPI document and docs/api.md say it. */
  when: string;
  message: (p: P) => string;
  /** One entry per field, when the error is about fields. */
  details?: (p: P) => FieldProblem[];
  /** Fields beside message that a program reads (the operations there are, the clientRequestId to repeat with). */
  extra?: (p: P) => ErrorExtra;
  /** The answer carries Retry-After, in seconds (p.retryAfterSeconds). */
  retryAfter?: true;
  /**
   * "any": any route may answer it (the error handler, access control, overload protection, a stopping replica,
   * forwarding to Clouddriver, which the not-found handler does too): documented once on the ErrorResponse schema,
   * not route by route.
   */
  scope?: "any";
  /** Parameters the docs table shows the message with. */
  example: P;
}

function entry<P>(e: CatalogueEntry<P>): CatalogueEntry<P> {
  return e;
}

/** Fields and what is wrong with each, as one sentence: "capacity.desired: must be …; region: is required". */
function listProblems(problems: FieldProblem[]): string {
  return problems.map((p) => `${p.field}: ${p.message}`).join("; ");
}

type NoParams = Record<string, never>;

export const API_ERRORS = {
  ValidationError: entry<{ problems: FieldProblem[] }>({
    status: 400,
    when: "a field is missing or wrong; details has one entry per field (capacity.desired, [1].disableServerGroup.region, query.limit)",
    message: (p) => listProblems(p.problems),
    details: (p) => p.problems,
    scope: "any",
    example: { problems: [{ field: "capacity.desired", message: "must be a whole number, got 2.5" }] },
  }),
  InvalidJson: entry<{ reason: string }>({
    status: 400,
    when: "the body is not JSON",
    message: (p) => `the body is not valid JSON (${p.reason}): send a JSON object with content-type: application/json`,
    scope: "any",
    example: { reason: "Unexpected token 'x', \"x\" is not valid JSON" },
  }),
  EmptyBody: entry<NoParams>({
    status: 400,
    when: "a body was expected and is empty",
    message: () => "the body is empty: send a JSON object, the operation's description",
    scope: "any",
    example: {},
  }),
  ForbiddenKey: entry<{ key?: "__proto__" | "constructor.prototype" }>({
    status: 400,
    when: "the body has a __proto__ or constructor.prototype key",
    message: (p) =>
      `the body has a ${p.key ? `"${p.key}"` : "__proto__ or constructor.prototype"} key, which is refused: remove it (no operation has such a field)`,
    scope: "any",
    example: { key: "__proto__" },
  }),
  BodyTooDeep: entry<{ maxDepth: number }>({
    status: 400,
    when: "the body nests deeper than BODY_MAX_DEPTH",
    message: (p) =>
      `the body nests arrays and objects more than ${p.maxDepth} levels deep (BODY_MAX_DEPTH): no operation's description nests that deep, so send a flatter body`,
    scope: "any",
    example: { maxDepth: 32 },
  }),
  InvalidContentLength: entry<{ said: string }>({
    status: 400,
    when: "the Content-Length header does not match the body (as fastify says it)",
    message: (p) => p.said,
    scope: "any",
    example: { said: "Request body size did not match Content-Length" },
  }),
  BadRequest: entry<{ said: string }>({
    status: 400,
    when: "another 4xx fastify decides on before a route runs (its status is kept)",
    message: (p) => p.said,
    scope: "any",
    example: { said: "…" },
  }),
  InvalidCursor: entry<{ cursor: string }>({
    status: 400,
    when: "GET /task?cursor= that this service did not give",
    message: (p) => `query.cursor: ${cursorProblem(p.cursor)}`,
    details: (p) => [{ field: "query.cursor", message: cursorProblem(p.cursor) }],
    example: { cursor: "abc" },
  }),
  InvalidPath: entry<{ reason: string; clouddriver: string }>({
    status: 400,
    when: "a request to forward to Clouddriver whose path would leave Clouddriver's URL (dot segments)",
    message: (p) => `${p.reason}: requests forwarded to Clouddriver must stay under ${p.clouddriver}`,
    scope: "any",
    example: { reason: "the path has a dot segment", clouddriver: "http://clouddriver:7002" },
  }),
  Unauthorized: entry<{ why: string }>({
    status: 401,
    when: "with access control on: no token, or a wrong one (WWW-Authenticate says which, RFC 6750: invalid_token for a bad, expired or foreign token)",
    message: (p) => p.why,
    scope: "any",
    example: { why: "the bearer token is not valid" },
  }),
  Forbidden: entry<{ why: string }>({
    status: 403,
    when: "with access control on: an account the caller may not use, or a write by a read-only caller",
    message: (p) => p.why,
    scope: "any",
    example: { why: "oncall may only read: a write needs a principal that is not readOnly" },
  }),
  NotFound: entry<{ what: string }>({
    status: 404,
    when: "an unknown task, route or scale set (what was looked for, and where to look)",
    message: (p) => p.what,
    scope: "any",
    example: {
      what: "no task 7c1e: check the id, or list the tasks there are with GET /task (finished tasks are pruned after TASK_RETENTION_MS)",
    },
  }),
  UnknownOperation: entry<{ operation: string; known: string[] }>({
    status: 404,
    when: "an operation this service does not serve; knownOperations lists those it does",
    message: (p) => `unknown operation "${p.operation}"; known: ${p.known.join(", ")}`,
    extra: (p) => ({ knownOperations: p.known }),
    example: { operation: "resize", known: ["resizeServerGroup", "…"] },
  }),
  ClientRequestIdReused: entry<{ clientRequestId: string; taskId: string }>({
    status: 409,
    when: "a clientRequestId sent again with another body",
    message: (p) =>
      `clientRequestId "${p.clientRequestId}" was already used for a different request (task ${p.taskId}): send a new clientRequestId for a new request, or the same body to get that task`,
    example: { clientRequestId: "orca-stage-7", taskId: "7c1e" },
  }),
  TaskNotRetryable: entry<{ id: string; state: string; failedWith?: string }>({
    status: 409,
    when: "POST /task/{id}:resume of a task that succeeded, or failed in a way running it again cannot change",
    message: (p) =>
      p.state === "succeeded"
        ? `task ${p.id} succeeded; there is nothing to resume`
        : `task ${p.id} ${p.state === "canceled" ? "was canceled" : `failed with ${p.failedWith ?? "an error"}`}, which running it again cannot change (status.retryable is false)`,
    example: { id: "7c1e", state: "failed", failedWith: "ResourceNotFound" },
  }),
  TaskFinished: entry<{ id: string; state: string }>({
    status: 409,
    when: "POST /task/{id}/cancel of a task that has ended",
    message: (p) =>
      `task ${p.id} has already ${p.state === "canceled" ? "been canceled" : p.state}; there is nothing to cancel`,
    example: { id: "7c1e", state: "succeeded" },
  }),
  PayloadTooLarge: entry<{ limitBytes?: number; said: string }>({
    status: 413,
    when: "a body over BODY_LIMIT_BYTES",
    message: (p) =>
      p.limitBytes !== undefined ? `the body is larger than ${p.limitBytes} bytes (BODY_LIMIT_BYTES)` : p.said,
    scope: "any",
    example: { limitBytes: 400000, said: "" },
  }),
  UnsupportedMediaType: entry<{ contentType: string } | { charset: string }>({
    status: 415,
    when: "a body that is not application/json, or not UTF-8",
    message: (p) =>
      "charset" in p
        ? `a JSON body must be UTF-8; Content-Type says charset=${p.charset}: send it as UTF-8, with charset=utf-8 or no charset`
        : `content-type ${p.contentType} is not accepted: send the body as JSON with content-type: application/json`,
    scope: "any",
    example: { contentType: "text/plain" },
  }),
  TooManyRequests: entry<{ message: string; retryAfterSeconds: number }>({
    status: 429,
    when: "too many requests from one principal in RATE_LIMIT_WINDOW_MS (RATE_LIMIT_SUBMISSIONS, RATE_LIMIT_READS)",
    message: (p) => p.message,
    retryAfter: true,
    scope: "any",
    example: { message: "ci sent more than 100 reads in 60 s; retry after 42 s", retryAfterSeconds: 42 },
  }),
  HeadersTooLarge: entry<{ limitBytes: number }>({
    status: 431,
    when: "the request line and headers are larger than Node's maxHeaderSize (16 KB), refused before any route runs",
    message: (p) =>
      `the request line and headers are larger than ${p.limitBytes} bytes: send a shorter URL or fewer, shorter headers`,
    scope: "any",
    example: { limitBytes: 16384 },
  }),
  BacklogFull: entry<{ queued: number; limit: number; retryAfterSeconds: number }>({
    status: 429,
    when: "TASK_BACKLOG_LIMIT tasks already wait to start; nothing was created",
    message: (p) =>
      `${p.queued} tasks are waiting to start, the most this service takes (TASK_BACKLOG_LIMIT ${p.limit}); nothing was created, retry after ${p.retryAfterSeconds} s`,
    retryAfter: true,
    example: { queued: 500, limit: 500, retryAfterSeconds: 5 },
  }),
  InternalError: entry<NoParams>({
    status: 500,
    when: "a bug in this service (logged), never a refusal of good input",
    message: () => "internal error; it has been logged",
    scope: "any",
    example: {},
  }),
  AzureError: entry<{ what: string; said: string }>({
    status: 502,
    when: "Azure answered a read with an error that asking again will not change",
    message: (p) => `reading ${p.what}: ${p.said}`,
    example: { what: "server group web-prod-v001 in demo/eastus/demo-rg", said: "AuthorizationFailed: …" },
  }),
  ClouddriverUnavailable: entry<{ clouddriver: string; code: string; request: string }>({
    status: 502,
    when: "a request forwarded to Clouddriver (CLOUDDRIVER_URL) could not reach it",
    message: (p) =>
      `Clouddriver at ${p.clouddriver} could not be reached (${p.code}) for ${p.request}; this service forwards what it does not serve there`,
    scope: "any",
    example: { clouddriver: "http://clouddriver:7002", code: "ECONNREFUSED", request: "GET /task/abc" },
  }),
  AzureUnavailable: entry<{ what: string; said: string; retryAfterSeconds: number }>({
    status: 503,
    when: "Azure did not answer a read, throttled it, or failed it in a way that asking again can change",
    message: (p) => `reading ${p.what}: ${p.said}`,
    retryAfter: true,
    example: {
      what: "server group web-prod-v001 in demo/eastus/demo-rg",
      said: "429 TooManyRequests: …",
      retryAfterSeconds: 5,
    },
  }),
  IdentityProviderUnavailable: entry<{ reason: string; retryAfterSeconds: number }>({
    status: 503,
    when: "an OpenID Connect token could not be checked: the issuer's discovery document or keys cannot be read",
    message: (p) => `${p.reason}; nothing was done, retry after ${p.retryAfterSeconds} s`,
    retryAfter: true,
    scope: "any",
    example: {
      reason:
        "the identity provider https://login.microsoftonline.com/…/v2.0 cannot be reached to check the token (ECONNREFUSED)",
      retryAfterSeconds: 5,
    },
  }),
  TaskStoreUnavailable: entry<{ reason: string; retryAfterSeconds: number }>({
    status: 503,
    when: "the task store cannot be used: PostgreSQL out of reach or too slow to answer (TASK_STORE_CALL_TIMEOUT_MS a call, TASK_STORE_REQUEST_DEADLINE_MS a request), or SQLite's disk full, its file read-only, an I/O error, or busy past its timeout; nothing was done",
    message: (p) =>
      `the task store cannot be used now (${p.reason}); nothing was done, retry after ${p.retryAfterSeconds} s`,
    retryAfter: true,
    scope: "any",
    example: { reason: "connection refused", retryAfterSeconds: 5 },
  }),
  TaskOutcomeUnknown: entry<{ clientRequestId: string; reason: string; retryAfterSeconds: number }>({
    status: 503,
    when: "a submission's create was sent to the task store and its answer did not come in time (TASK_STORE_REQUEST_DEADLINE_MS) or its connection broke: the task may have been created. Repeat the request with the clientRequestId this answer gives (its clientRequestId field and Client-Request-Id header; the caller's own, or one the service gave the request when it had none): that answers the task if it was created, or creates it, once",
    message: (p) =>
      `the task may have been created: the task store did not answer in time (${p.reason}); repeat the request with clientRequestId=${p.clientRequestId} to get it (created at most once), after ${p.retryAfterSeconds} s`,
    extra: (p) => ({ clientRequestId: p.clientRequestId }),
    retryAfter: true,
    example: { clientRequestId: "orca-stage-7", reason: "RequestDeadline", retryAfterSeconds: 5 },
  }),
  Overloaded: entry<{ measure: string; retryAfterSeconds: number }>({
    status: 503,
    when: "this replica is overloaded (OVERLOAD_MAX_*: event-loop delay or utilisation, memory)",
    message: (p) => `this replica is overloaded (${p.measure}); retry after ${p.retryAfterSeconds} s`,
    retryAfter: true,
    scope: "any",
    example: { measure: "eventLoopDelay 1200", retryAfterSeconds: 10 },
  }),
  ShuttingDown: entry<{ retryAfterSeconds: number }>({
    status: 503,
    when: "this replica is stopping (SIGTERM, SIGINT); another replica, or this one restarted, will answer",
    message: () => "this replica is shutting down; retry, another replica (or this one after its restart) will answer",
    retryAfter: true,
    scope: "any",
    example: { retryAfterSeconds: 5 },
  }),
  ClouddriverTimeout: entry<{ clouddriver: string; code: string; request: string }>({
    status: 504,
    when: "a request forwarded to Clouddriver got no answer in time",
    message: (p) =>
      `Clouddriver at ${p.clouddriver} did not answer in time (${p.code}) for ${p.request}; this service forwards what it does not serve there`,
    scope: "any",
    example: { clouddriver: "http://clouddriver:7002", code: "UND_ERR_HEADERS_TIMEOUT", request: "GET /task/abc" },
  }),
};

export type ApiErrorCode = keyof typeof API_ERRORS;
export type ApiErrorParams<C extends ApiErrorCode> = (typeof API_ERRORS)[C] extends CatalogueEntry<infer P> ? P : never;

/** The catalogue as entries, for documents and tests. */
export function catalogueEntries(): {
  code: ApiErrorCode;
  status: number;
  when: string;
  retryAfter: boolean;
  scope: "route" | "any";
  example: string;
}[] {
  return (Object.keys(API_ERRORS) as ApiErrorCode[]).map((code) => {
    const e = API_ERRORS[code] as unknown as CatalogueEntry<unknown>;
    return {
      code,
      status: e.status,
      when: e.when,
      retryAfter: e.retryAfter === true,
      scope: e.scope ?? "route",
      example: e.message(e.example),
    };
  });
}

function cursorProblem(cursor: string): string {
  return `"${cursor.slice(0, 40)}" is not a cursor this service gave: pass a page's nextCursor as it came, or no cursor for the first page`;
}

/** Fields of an error's body beside its message, for programs. */
interface ErrorExtra {
  knownOperations?: string[];
  clientRequestId?: string;
}

/** The JSON every error leaves as (ErrorResponse in the OpenAPI document). */
export interface ErrorBody extends ErrorExtra {
  statusCode: number;
  error: string;
  message: string;
  details?: FieldProblem[];
}

/** An answer of the catalogue, thrown by a route and sent by the error handler (errors.ts). Build it with apiError. */
export class ApiError extends Error {
  override name = "ApiError";
  readonly statusCode: number;
  readonly error: ApiErrorCode;
  readonly details?: FieldProblem[];
  readonly extra?: ErrorExtra;
  /** Sent with the answer (a 503's Retry-After). */
  readonly headers?: Record<string, string>;
  constructor(
    code: ApiErrorCode,
    statusCode: number,
    message: string,
    more: { details?: FieldProblem[]; extra?: ErrorExtra; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.error = code;
    this.statusCode = statusCode;
    if (more.details) this.details = more.details;
    if (more.extra) this.extra = more.extra;
    if (more.headers) this.headers = more.headers;
  }

  /** The body as it is sent. */
  body(): ErrorBody {
    return {
      statusCode: this.statusCode,
      error: this.error,
      message: this.message,
      ...(this.details ? { details: this.details } : {}),
      ...this.extra,
    };
  }
}

/**
 * The error `code` of the catalogue, its message made from `params`. `status` only for BadRequest, whose status is
 * the one fastify decided.
 */
export function apiError<C extends ApiErrorCode>(
  code: C,
  params: ApiErrorParams<C>,
  options: { status?: number; headers?: Record<string, string> } = {},
): ApiError {
  const e = API_ERRORS[code] as unknown as CatalogueEntry<ApiErrorParams<C>>;
  const retryAfter = (params as { retryAfterSeconds?: number }).retryAfterSeconds;
  return new ApiError(code, options.status ?? e.status, e.message(params), {
    details: e.details?.(params),
    extra: e.extra?.(params),
    headers:
      e.retryAfter && retryAfter !== undefined
        ? { ...options.headers, "retry-after": String(retryAfter) }
        : options.headers,
  });
}
