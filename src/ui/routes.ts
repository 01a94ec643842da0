// The status page at /ui: a static page (open: it holds no data) that reads the API with the caller's token, and
// two JSON routes made for it (protected like every API route): tasks with their progress, attempts and retries,
// filtered by scale set and account, and one task with its whole history.
import { CLAIMABLE_STATES } from "../tasks/task-state.ts";
import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { TaskProgress } from "../observability/task-progress.ts";
import { accountsOfTask, forbiddenTaskAccount } from "../auth/task-access.ts";
import { ApiError } from "../api/errors.ts";
import { ErrorResponse, TaskState } from "../api/schemas.ts";
import type { Task } from "../tasks/task.ts";
import type { TaskStore } from "../tasks/task-store.ts";

const asset = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8");
const PAGE = asset("index.html");
const SCRIPT = asset("app.js");
const STYLE = asset("style.css");

const Retry = Type.Object(
  { attempt: Type.Integer(), operation: Type.String(), status: Type.String(), code: Type.Optional(Type.String()), atMs: Type.Integer() },
  { additionalProperties: false },
);
export const UiTask = Type.Object(
  {
    id: Type.String(),
    state: Type.Ref(TaskState),
    operations: Type.Array(Type.String()),
    /** account/resourceGroup?/serverGroupName per operation */
    targets: Type.Array(Type.Object({ operation: Type.String(), account: Type.String(), region: Type.String(), resourceGroup: Type.Optional(Type.String()), serverGroupName: Type.String() }, { additionalProperties: false })),
    operationIndex: Type.Integer(),
    phase: Type.String(),
    status: Type.String({ description: "the last history line" }),
    attempt: Type.Integer({ description: "the attempt running now (or the last one)" }),
    retries: Type.Array(Retry, { description: "retries this replica saw, newest last" }),
    armCalls: Type.Integer(),
    leaseOwner: Type.Optional(Type.String()),
    createdAtMs: Type.Integer(),
    updatedAtMs: Type.Integer(),
    finishedAtMs: Type.Optional(Type.Integer()),
    failure: Type.Optional(Type.Object({ operation: Type.String(), code: Type.String(), message: Type.String() }, { additionalProperties: false })),
    history: Type.Optional(Type.Array(Type.Object({ phase: Type.String(), status: Type.String(), timeMs: Type.Integer() }, { additionalProperties: false }))),
  },
  { $id: "UiTask", additionalProperties: false },
);
type UiTaskBody = Static<typeof UiTask>;
export const UiTaskList = Type.Object({ inFlight: Type.Array(Type.Ref(UiTask)), recent: Type.Array(Type.Ref(UiTask)) }, { $id: "UiTaskList", additionalProperties: false });

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function view(task: Task, progress: TaskProgress, accounts: AccountRegistry, withHistory: boolean): UiTaskBody {
  const last = task.history.at(-1);
  const seen = progress.get(task.id);
  return {
    id: task.id,
    state: task.state,
    operations: task.operations.map((o) => o.name),
    targets: task.operations.map((o) => {
      const d = o.description;
      const account = str(d.credentials) ?? str(d.account) ?? "";
      // Where the service looks for it: the one rule of accounts.resolve (the account's setting, else {application}-{region}).
      const located = str(d.resourceGroup) ? undefined : accounts.resolve({ credentials: account, region: str(d.region) ?? "", serverGroupName: str(d.serverGroupName) ?? "" });
      const resourceGroup = str(d.resourceGroup) ?? (located?.ok ? located.ref.resourceGroup : undefined);
      return { operation: o.name, account, region: str(d.region) ?? "", ...(resourceGroup ? { resourceGroup } : {}), serverGroupName: str(d.serverGroupName) ?? "" };
    }),
    operationIndex: task.operationIndex,
    phase: last?.phase ?? "INIT",
    status: last?.status ?? "",
    attempt: seen?.attempt ?? task.checkpoint?.attempt ?? (task.state === "queued" ? 0 : 1),
    retries: seen?.retries ?? [],
    armCalls: task.armCalls,
    ...(task.leaseOwner ? { leaseOwner: task.leaseOwner } : {}),
    createdAtMs: task.createdAtMs,
    updatedAtMs: task.updatedAtMs,
    ...(task.finishedAtMs !== undefined ? { finishedAtMs: task.finishedAtMs } : {}),
    ...(task.failure ? { failure: { operation: task.failure.operation, code: task.failure.code, message: task.failure.message } } : {}),
    ...(withHistory ? { history: task.history.map((h) => ({ phase: h.phase, status: h.status, timeMs: h.timeMs })) } : {}),
  };
}

export const uiRoutes: FastifyPluginAsyncTypebox<{ store: TaskStore; progress: TaskProgress; accounts: AccountRegistry }> = async (app, { store, progress, accounts }) => {
  app.addSchema(UiTask);
  app.addSchema(UiTaskList);
  const open = { config: { access: "public" as const }, schema: { hide: true } };
  app.get("/ui", open, async (_request, reply) => reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(PAGE));
  app.get("/ui/app.js", open, async (_request, reply) => reply.type("text/javascript; charset=utf-8").send(SCRIPT));
  app.get("/ui/style.css", open, async (_request, reply) => reply.type("text/css; charset=utf-8").send(STYLE));

  app.get(
    "/ui/api/tasks",
    {
      schema: {
        operationId: "uiListTasks",
        summary: "Tasks for the status page: in flight first, then recent, with attempts and retries",
        tags: ["tasks"],
        querystring: Type.Object(
          {
            serverGroup: Type.Optional(Type.String({ maxLength: 100 })),
            account: Type.Optional(Type.String({ maxLength: 100 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 50 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: { ...Type.Ref(UiTaskList), description: "Tasks in flight (running, queued) and recent ones" } },
      },
    },
    async (request) => {
      const { serverGroup, account, limit = 50 } = request.query;
      const wanted = (t: Task) =>
        !forbiddenTaskAccount(request.principal, t) && (!account || accountsOfTask(t).some((a) => a.toLowerCase() === account.toLowerCase()));
      // In flight: the states a task has not ended in (running first, then queued), from the state table.
      const [recent, ...unfinished] = await Promise.all([
        store.list({ limit: Math.min(200, limit * 2), serverGroup }),
        ...[...CLAIMABLE_STATES].reverse().map((state) => store.list({ limit: 200, state, serverGroup })),
      ]);
      const inFlight = unfinished.flatMap((page) => page.tasks).filter(wanted);
      const inFlightIds = new Set(inFlight.map((t) => t.id));
      return {
        inFlight: inFlight.map((t) => view(t, progress, accounts, false)),
        recent: recent.tasks.filter((t) => !inFlightIds.has(t.id) && wanted(t)).slice(0, limit).map((t) => view(t, progress, accounts, false)),
      };
    },
  );

  app.get(
    "/ui/api/tasks/:id",
    {
      schema: {
        operationId: "uiGetTask",
        summary: "One task for the status page, with its history (times included)",
        tags: ["tasks"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: { 200: { ...Type.Ref(UiTask), description: "The task, its history included" }, 404: { ...Type.Ref(ErrorResponse), description: "No task with that id" } },
      },
    },
    async (request) => {
      const task = await store.get(request.params.id);
      if (!task) throw new ApiError(404, "NotFound", `no task ${request.params.id}`);
      const denied = forbiddenTaskAccount(request.principal, task);
      if (denied) throw new ApiError(403, "Forbidden", `Access denied to account ${denied}: task ${task.id} acts on it and ${request.principal.name} may not use it`);
      return view(task, progress, accounts, true);
    },
  );
};
