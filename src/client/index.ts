// @vmss-ops/client: the vmss-ops API for TypeScript. openapi-fetch is the runtime (a fetch wrapper of a few KB, no
// code of ours on the wire); openapi.ts holds the API's types, generated from openapi/openapi.json by
// scripts/write-client.ts (npm run client), and a test fails when the two drift. Every path, parameter, body and
// answer is typed from the document: a call the API does not have, or a field it does not take, fails `tsc`.
import createFetchClient, { type Client, type Middleware } from "openapi-fetch";
import type { components, operations, paths } from "./openapi.ts";

export type { components, operations, paths };

export type Schemas = components["schemas"];
export type Task = Schemas["Task"];
export type TaskRef = Schemas["TaskRef"];
export type TaskList = Schemas["TaskList"];
export type DryRun = Schemas["DryRun"];
export type ErrorResponse = Schemas["ErrorResponse"];

/** Operations that have a route of their own: /azure/ops/resizeServerGroup, … */
export type OperationName = {
  [P in keyof paths]: P extends `/azure/ops/${infer O}` ? (O extends `{${string}}` ? never : O) : never;
}[keyof paths];
type JsonBody<Op> = Op extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** The description an operation takes, as the API document says. */
export type OperationBody<O extends OperationName> = JsonBody<paths[`/azure/ops/${O}`]["post"]>;
/** The query of a submission: clientRequestId, dryRun, wait. */
export type SubmissionQuery = NonNullable<operations["resizeServerGroup"]["parameters"]["query"]>;

export type VmssOpsClient = Client<paths>;

export interface ClientOptions {
  /** Where the service listens, e.g. http://127.0.0.1:7002. */
  baseUrl: string;
  /** A bearer token, sent as Authorization on every request. */
  token?: string;
  /**
   * Send `Prefer: handling=strict` (RFC 7240) on every request (default true): a field the service would not read is
   * then a 400 naming it, instead of a name in the answer's ignoredFields. Turn it off to forward bodies built by
   * another tool (Orca's stage contexts) as they are.
   */
  strict?: boolean;
  /** Headers sent on every request, beside those. */
  headers?: Record<string, string>;
  /** The fetch to use (default: the global one). */
  fetch?: (input: Request) => Promise<Response>;
}

export function createClient(options: ClientOptions): VmssOpsClient {
  return createFetchClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: {
      ...(options.strict === false ? {} : { prefer: "handling=strict" }),
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...options.headers,
    },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
}

/**
 * POST /azure/ops/{operation} for an operation named at run time (a command line, a file), with a body nobody has
 * typed: the service validates both, and answers 404 naming the operations there are. Where the operation is known
 * when the code is written, call `client.POST("/azure/ops/resizeServerGroup", …)`: its body is typed.
 */
export function submitOperation(
  client: VmssOpsClient,
  operation: string,
  body: unknown,
  query: SubmissionQuery = {},
  init: { signal?: AbortSignal } = {},
) {
  // The one place where an untyped body meets a typed route: every operation route answers alike (a TaskRef, a
  // Task, a DryRun or an ErrorResponse), so resize's types stand for any of them.
  return client.POST(`/azure/ops/${encodeURIComponent(operation)}` as "/azure/ops/resizeServerGroup", {
    params: { query },
    body: body as OperationBody<"resizeServerGroup">,
    ...init,
  });
}

export type { Middleware };
