// The API as the vmss-ops command calls it: a small fetch wrapper typed on src/cli/api-types.ts, which is generated
// from openapi/openapi.json. A path, a body or an answer that the API no longer has fails `tsc`, so the command
// cannot drift from the service. (openapi-fetch would do the same at the cost of a runtime dependency for a few
// lines; the types are what keeps it honest.)
import type { components, paths } from "./api-types.ts";

export type Schemas = components["schemas"];
export type Task = Schemas["Task"];
export type TaskRef = Schemas["TaskRef"];
export type TaskList = Schemas["TaskList"];
export type ErrorResponse = Schemas["ErrorResponse"];
export type DryRun = Schemas["DryRun"];

/** Operations that have a route of their own: /azure/ops/resizeServerGroup, … */
export type OperationName = {
  [P in keyof paths]: P extends `/azure/ops/${infer O}` ? (O extends `{${string}}` ? never : O) : never;
}[keyof paths];
type JsonBody<Op> = Op extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;
/** The description an operation takes, as the API document says. */
export type OperationBody<O extends OperationName> = JsonBody<paths[`/azure/ops/${O}`]["post"]>;

/** The service answered with a 4xx or 5xx. */
export class ServiceError extends Error {
  readonly status: number;
  readonly body: ErrorResponse;
  constructor(status: number, body: ErrorResponse) {
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

type Query = Record<string, string | number | boolean | undefined>;

export function createClient(options: ClientOptions) {
  const base = options.baseUrl.replace(/\/+$/, "");

  async function call<T>(
    method: "GET" | "POST",
    path:
      keyof paths | `/task/${string}` | `/azure/ops/${string}` | `/applications/${string}` | `/serverGroups/${string}`,
    query: Query = {},
    body?: unknown,
  ): Promise<{ status: number; data: T }> {
    const qs = Object.entries(query)
      .filter(([, v]) => v !== undefined && v !== false)
      .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
      .join("&");
    const headers: Record<string, string> = { accept: "application/json" };
    if (body !== undefined) headers["content-type"] = "application/json";
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let res: Response;
    try {
      res = await fetch(`${base}${path}${qs ? `?${qs}` : ""}`, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(options.requestTimeoutMs ?? 90_000),
      });
    } catch (err) {
      const cause = (err as { cause?: { code?: string; message?: string } }).cause;
      throw new Unreachable(`cannot reach ${base}: ${cause?.code ?? cause?.message ?? (err as Error).message}`);
    }
    const text = await res.text();
    let data: unknown;
    try {
      data = text ? JSON.parse(text) : undefined;
    } catch {
      data = { statusCode: res.status, error: "NotJson", message: text.slice(0, 200) };
    }
    if (res.status >= 400)
      throw new ServiceError(
        res.status,
        (data as ErrorResponse) ?? { statusCode: res.status, error: "Error", message: res.statusText },
      );
    return { status: res.status, data: data as T };
  }

  return {
    /** POST /azure/ops/{operation}: a TaskRef, the plan with dryRun, the Task with wait. */
    submit<O extends OperationName>(
      operation: O,
      body: OperationBody<O>,
      query: { clientRequestId?: string; dryRun?: boolean; wait?: number } = {},
    ) {
      return call<TaskRef | Task | DryRun>("POST", `/azure/ops/${operation}`, query, body);
    },
    /** POST /azure/ops/{operation} for any operation name and body (the service validates them). */
    submitRaw(
      operation: string,
      body: unknown,
      query: { clientRequestId?: string; dryRun?: boolean; wait?: number } = {},
    ) {
      return call<TaskRef | Task | DryRun>("POST", `/azure/ops/${encodeURIComponent(operation)}`, query, body);
    },
    /** POST /azure/ops: Clouddriver's list body, one task running its operations in order. */
    submitList(body: unknown[], query: { clientRequestId?: string; dryRun?: boolean; wait?: number } = {}) {
      return call<TaskRef | Task | DryRun>("POST", "/azure/ops", query, body);
    },
    task(id: string, wait?: number) {
      return call<Task>("GET", `/task/${encodeURIComponent(id)}`, { wait });
    },
    tasks(query: { limit?: number; state?: string; operation?: string; serverGroup?: string; cursor?: string }) {
      return call<TaskList>("GET", "/task", query);
    },
    resume(id: string) {
      return call<TaskRef>("POST", `/task/${encodeURIComponent(id)}:resume`);
    },
    cancel(id: string) {
      return call<Task>("POST", `/task/${encodeURIComponent(id)}/cancel`);
    },
    application(app: string) {
      return call<{ name: string; clusters: Record<string, { name: string }[]> }>(
        "GET",
        `/applications/${encodeURIComponent(app)}`,
      );
    },
    cluster(app: string, account: string, cluster: string) {
      return call<{ serverGroups: ClusterServerGroup[] }>(
        "GET",
        `/applications/${encodeURIComponent(app)}/clusters/${encodeURIComponent(account)}/${encodeURIComponent(cluster)}/azure`,
      );
    },
    serverGroup(account: string, region: string, name: string) {
      return call<ClusterServerGroup>(
        "GET",
        `/serverGroups/${encodeURIComponent(account)}/${encodeURIComponent(region)}/${encodeURIComponent(name)}`,
      );
    },
  };
}

export interface ClusterServerGroup {
  name: string;
  region: string;
  disabled: boolean;
  capacity: { min: number; max: number; desired: number };
  instances: { name?: string; healthState?: string }[];
}

export type Client = ReturnType<typeof createClient>;
