// Every answer a route can give is in its schema, so that the OpenAPI document names them all: the ones particular
// to the route (errorResponses in its definition), and here, for every route, those that follow from what it takes
// and from who may call it. A route added later is documented the same way without anyone remembering to.
import type { FastifyInstance } from "fastify";
import { Type } from "@sinclair/typebox";
import { API_ERRORS, type ApiErrorCode } from "./error-catalogue.ts";
import { errorResponses } from "./error-responses.ts";
import { ErrorResponse } from "./schemas.ts";

/** The errors fastify and our parsers answer for a body before the route sees it. */
const BODY_ERRORS: ApiErrorCode[] = [
  "ValidationError",
  "InvalidJson",
  "EmptyBody",
  "ForbiddenKey",
  "BodyTooDeep",
  "InvalidContentLength",
  "PayloadTooLarge",
  "UnsupportedMediaType",
];

interface RouteSchemaParts {
  hide?: boolean;
  params?: unknown;
  querystring?: unknown;
  body?: unknown;
  response?: Record<string, { description?: string }>;
}

/** The catalogue's codes a route answers beyond its own, by what it takes and how it is reached. */
export function commonErrors(schema: RouteSchemaParts, access: string | undefined): ApiErrorCode[] {
  const codes: ApiErrorCode[] = [];
  if (schema.params || schema.querystring) codes.push("ValidationError");
  if (schema.body) codes.push(...BODY_ERRORS);
  // Rate limits and load shedding spare the open routes and /metrics (overload.ts).
  const limited = access !== "public" && access !== "metrics";
  if (limited) codes.push("TooManyRequests");
  codes.push("InternalError");
  if (limited) codes.push("Overloaded", "TaskStoreUnavailable");
  codes.push("ShuttingDown");
  return [...new Set(codes)];
}

/** Adds `codes` to a route's responses: a status it declares already gains the codes its description lacks. */
function addAnswers(response: NonNullable<RouteSchemaParts["response"]>, codes: ApiErrorCode[]): void {
  for (const code of codes) {
    const status = API_ERRORS[code].status;
    const declared = response[status];
    const [added] = Object.values(errorResponses(code));
    if (!declared) response[status] = added;
    else if (!declared.description?.includes(`${code}:`))
      response[status] = { ...declared, description: `${declared.description ?? ""}. ${added.description}` };
  }
  response.default ??= {
    ...Type.Ref(ErrorResponse),
    description: "Any other error, in the same shape: its error field is a code of the error catalogue",
  };
}

/** Installs the hook; after access control's, whose classification (route config `access`) it reads. */
export function documentEveryAnswer(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    const schema = route.schema as RouteSchemaParts | undefined;
    if (!schema?.response || schema.hide) return;
    const access = (route.config as { access?: string } | undefined)?.access;
    addAnswers(schema.response, commonErrors(schema, access));
  });
}
