// The API as the vmss-ops command calls it: the client package (src/client, openapi-fetch on types generated from
// openapi/openapi.json), with the command's two ways a call can go wrong as errors it can act on. Every request
// asks for strict handling (`Prefer: handling=strict`): a field the service would not read is a 400 naming it,
// never a silently dropped value.
import {
  createClient as createApiClient,
  submitOperation,
  type DryRun,
  type ErrorResponse,
  type OperationBody,
  type OperationName,
  type operations,
  type Schemas,
  type SubmissionQuery,
  type Task,
  type TaskList,
  type TaskRef,
} from "../client/index.ts";

export type { DryRun, ErrorResponse, OperationBody, OperationName, Schemas, Task, TaskList, TaskRef };

/** The error an answer carried: the service's ErrorResponse, or what stood in for it (a proxy's page). */
export type ServiceErrorBody = Omit<ErrorResponse, "error"> & { error: string };

/** GET /task's filters. */
export type TaskQuery = NonNullable<operations["listTasks"]["parameters"]["query"]>;

/** The service answered with a 4xx or 5xx. */
export class ServiceError extends Error {
  readonly status: number;
  readonly body: ServiceErrorBody;
  constructor(status: number, body: ServiceErrorBody) {
    super(body.message);
    this.status = status;
    this.body = body;
  }
}

/** No answer at all: connection refused, DNS, a timeout. */
export class Unreachable extends Error {}

export interface ClientOptions {
  baseUrl: string;
  token?: string;
  /** Bound on one request (a held ?wait= included). */
  requestTimeoutMs?: number;
}

/** What openapi-fetch resolves with: the answer's data, or its error, and the response. */
type Answer<D, E> = { data: D; error?: never; response: Response } | { data?: never; error: E; response: Response };

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");
  const api = createApiClient({ baseUrl: base, token: options.token, strict: true });
  const signal = () => AbortSignal.timeout(options.requestTimeoutMs ?? 90_000);

  /** The answer's data; a 4xx or 5xx as ServiceError, no answer as Unreachable. */
  async function call<D>(send: () => Promise<Answer<D, unknown>>): Promise<{ status: number; data: NonNullable<D> }> {
    let answer: Answer<D, unknown>;
    try {
      answer = await send();
    } catch (err) {
      if (err instanceof SyntaxError) throw new Unreachable(`${base} answered with something that is not JSON`);
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Unreachable(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const { response } = answer;
    if (answer.error !== undefined || !response.ok) {
      const error = answer.error;
      throw new ServiceError(
        response.status,
        typeof error === "object" && error !== null && "message" in error
          ? (error as ErrorResponse)
          : {
              statusCode: response.status,
              error: typeof error === "string" ? "NotJson" : "Error",
              message: typeof error === "string" && error ? error.slice(0, 200) : response.statusText,
            },
      );
    }
    if (answer.data === undefined || answer.data === null)
      throw new Unreachable(`${base} answered ${response.status} with no body`);
    return { status: response.status, data: answer.data };
  }

  return {
    /** POST /azure/ops/{operation} for any operation name and body (the service validates both). */
    submitRaw(operation: string, body: unknown, query: SubmissionQuery = {}) {
      return call(() => submitOperation(api, operation, body, query, { signal: signal() }));
    },
    /** POST /azure/ops: Clouddriver's list body, one task running its operations in order. */
    submitList(body: unknown[], query: SubmissionQuery = {}) {
      return call(() =>
        api.POST("/azure/ops", {
          params: { query },
          // Read from a file or the command line: the service validates it.
          body: body as OperationBody<"resizeServerGroup">[] as never,
          signal: signal(),
        }),
      );
    },
    task(id: string, wait?: number) {
      return call(() => api.GET("/task/{id}", { params: { path: { id }, query: { wait } }, signal: signal() }));
    },
    tasks(query: TaskQuery) {
      return call(() => api.GET("/task", { params: { query }, signal: signal() }));
    },
    resume(id: string) {
      return call(() => api.POST("/task/{id}:resume", { params: { path: { id } }, signal: signal() }));
    },
    cancel(id: string) {
      return call(() => api.POST("/task/{id}/cancel", { params: { path: { id } }, signal: signal() }));
    },
    ...readCalls(api, call, signal),
  };
}

type Api = ReturnType<typeof createApiClient>;
type Call = <D>(send: () => Promise<Answer<D, unknown>>) => Promise<{ status: number; data: NonNullable<D> }>;

/** The reads: applications, clusters and server groups (cached and as Azure reports them now), a group's contents. */
function readCalls(api: Api, call: Call, signal: () => AbortSignal) {
  return {
    application(app: string) {
      return call(() => api.GET("/applications/{app}", { params: { path: { app } }, signal: signal() }));
    },
    cluster(app: string, account: string, cluster: string) {
      return call(() =>
        api.GET("/applications/{app}/clusters/{account}/{cluster}/azure", {
          params: { path: { app, account, cluster } },
          signal: signal(),
        }),
      );
    },
    /** GET /azure/serverGroups/…: the scale set as Azure reports it now (no cache), in a named resource group. */
    serverGroupNow(account: string, region: string, resourceGroup: string, name: string) {
      return call(() =>
        api.GET("/azure/serverGroups/{account}/{region}/{resourceGroup}/{name}", {
          params: { path: { account, region, resourceGroup, name } },
          signal: signal(),
        }),
      );
    },
    resourceGroupContents(account: string, resourceGroup: string) {
      return call(() =>
        api.GET("/accounts/{account}/resource-groups/{resourceGroup}/contents", {
          params: { path: { account, resourceGroup } },
          signal: signal(),
        }),
      );
    },
    /** The VM sizes a region offers the account's subscription, smallest first, with their quota headroom. */
    regionVmSizes(account: string, region: string) {
      return call(() =>
        api.GET("/accounts/{account}/regions/{region}/vm-sizes", {
          params: { path: { account, region } },
          signal: signal(),
        }),
      );
    },
    serverGroup(account: string, region: string, serverGroup: string) {
      return call(() =>
        api.GET("/serverGroups/{account}/{region}/{serverGroup}", {
          params: { path: { account, region, serverGroup } },
          signal: signal(),
        }),
      );
    },
  };
}

export type Client = ReturnType<typeof createClient>;
