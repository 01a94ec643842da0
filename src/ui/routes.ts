// The status page at /ui (and / leads there): a static page (open: it holds no data) that reads the API with the
// caller's token, and JSON routes made for it (protected like every API route): tasks with their progress (attempt
// k/n, step k of n, what they wait for and until when, a timeline) and the actions the caller may take on them,
// filtered by substrings and paged; one task with its whole history; and the inventory of scale sets.
import { CLAIMABLE_STATES, FINISHED_STATES } from "../tasks/task-state.ts";
import { readFileSync } from "node:fs";
import { Type, type Static } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { ScaleSetReads } from "../azure/read-cache.ts";
import type { TaskProgress } from "../observability/task-progress.ts";
import { accountsOfTask, forbiddenTaskAccount } from "../auth/task-access.ts";
import { accountOfOperation } from "../tasks/operation-account.ts";
import { decideAccess, mayUseAccount, type Principal } from "../auth/principal.ts";
import { apiError } from "../api/errors.ts";
import { ErrorResponse, TaskState } from "../api/schemas.ts";
import type { Task } from "../tasks/task.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import { accountInventory, UiInventory } from "../api/inventory.ts";
import { taskTimeline } from "./task-timeline.ts";

const asset = (name: string) => readFileSync(new URL(`./static/${name}`, import.meta.url), "utf8");
const PAGE = asset("index.html");
const SCRIPT = asset("app.js");
const STYLE = asset("style.css");

const Retry = Type.Object(
  {
    attempt: Type.Integer(),
    operation: Type.String(),
    status: Type.String(),
    code: Type.Optional(Type.String()),
    atMs: Type.Integer(),
  },
  { additionalProperties: false },
);
const Segment = Type.Object(
  {
    kind: Type.Union(["queued", "attempt", "write", "wait", "backoff"].map((k) => Type.Literal(k))),
    fromMs: Type.Integer(),
    toMs: Type.Optional(Type.Integer({ description: "absent while it goes on" })),
    attempt: Type.Optional(Type.Integer()),
    ended: Type.Optional(Type.Union([Type.Literal("retry"), Type.Literal("failed")])),
    label: Type.String(),
  },
  { additionalProperties: false },
);
export const UiTask = Type.Object(
  {
    id: Type.String(),
    state: Type.Ref(TaskState),
    /** state, with running split: retrying (in a backoff between attempts) is not failing. */
    outcome: Type.Union(
      ["queued", "running", "retrying", "succeeded", "failed", "canceled"].map((k) => Type.Literal(k)),
    ),
    operations: Type.Array(Type.String()),
    who: Type.Optional(
      Type.String({ description: "submitted by …, canceled by …, resumed by … (the task's audit entries)" }),
    ),
    /** account/resourceGroup?/serverGroupName per operation */
    targets: Type.Array(
      Type.Object(
        {
          operation: Type.String(),
          account: Type.String(),
          region: Type.String(),
          resourceGroup: Type.Optional(Type.String()),
          serverGroupName: Type.String(),
        },
        { additionalProperties: false },
      ),
    ),
    operationIndex: Type.Integer(),
    phase: Type.String(),
    status: Type.String({ description: "the last history line" }),
    summary: Type.String({
      description: "the last history line that says something (not the closing 'Orchestration completed.')",
    }),
    attempt: Type.Integer({
      description: "the attempt running now (or the last one), as the history counts it; 0 before the first",
    }),
    attempts: Type.Integer({
      description: "the attempts an operation may make (RETRY_MAX_ATTEMPTS), as the history's 'attempt k/n'",
    }),
    step: Type.Optional(
      Type.Object(
        {
          number: Type.Integer(),
          of: Type.Integer(),
          unit: Type.Union([Type.Literal("operation"), Type.Literal("batch")]),
          name: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
    waiting: Type.Optional(
      Type.Object(
        { for: Type.String(), sinceMs: Type.Integer(), untilMs: Type.Optional(Type.Integer()) },
        { additionalProperties: false },
      ),
    ),
    elapsedMs: Type.Integer({ description: "from creation to the end, or to now" }),
    timeline: Type.Array(Segment),
    retries: Type.Array(Retry, { description: "retries this replica saw, newest last" }),
    /** What the caller may do now: its rights on every account of the task, and the task's state. */
    actions: Type.Object(
      { resume: Type.Boolean(), cancel: Type.Boolean(), why: Type.Optional(Type.String()) },
      { additionalProperties: false },
    ),
    armCalls: Type.Integer(),
    leaseOwner: Type.Optional(Type.String()),
    cancelRequestedAtMs: Type.Optional(Type.Integer()),
    createdAtMs: Type.Integer(),
    updatedAtMs: Type.Integer(),
    finishedAtMs: Type.Optional(Type.Integer()),
    failure: Type.Optional(
      Type.Object(
        { operation: Type.String(), code: Type.String(), message: Type.String(), retryable: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    history: Type.Optional(
      Type.Array(
        Type.Object(
          { phase: Type.String(), status: Type.String(), timeMs: Type.Integer() },
          { additionalProperties: false },
        ),
      ),
    ),
  },
  { $id: "UiTask", additionalProperties: false },
);
type UiTaskBody = Static<typeof UiTask>;
export const UiTaskList = Type.Object(
  {
    inFlight: Type.Array(Type.Ref(UiTask)),
    recent: Type.Array(Type.Ref(UiTask)),
    nextCursor: Type.Optional(Type.String({ description: "pass as cursor for older recent tasks" })),
    nowMs: Type.Integer({ description: "the service's clock, for times shown relative to now" }),
  },
  { $id: "UiTaskList", additionalProperties: false },
);

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

/** May this principal resume or cancel the task? Both write: every account of the task, with write rights. */
function actionsFor(principal: Principal, task: Task): UiTaskBody["actions"] {
  const denied = accountsOfTask(task)
    .map((a) => decideAccess(principal, a, "write"))
    .find((d) => !d.ok);
  const canWrite = !denied;
  const resumable = task.state === "failed" && task.failure?.retryable === true;
  const cancelable = task.state === "queued" || task.state === "running";
  const why = denied && !denied.ok && (resumable || cancelable) ? denied.reason : undefined;
  return { resume: canWrite && resumable, cancel: canWrite && cancelable, ...(why ? { why } : {}) };
}

/** "submitted by …, canceled by …, resumed by …": who acted on the task, as its audit entries say. */
function whoActed(task: Task): { who?: string } {
  const parts = [
    task.submittedBy && `submitted by ${task.submittedBy.name}`,
    task.canceledBy && `canceled by ${task.canceledBy.name}`,
    task.resumedBy && `resumed by ${task.resumedBy.name}`,
  ].filter(Boolean);
  return parts.length > 0 ? { who: parts.join(", ") } : {};
}

function view(
  task: Task,
  principal: Principal,
  progress: TaskProgress,
  accounts: AccountRegistry,
  maxAttempts: number,
  withHistory: boolean,
  nowMs: number,
): UiTaskBody {
  const last = task.history.at(-1);
  const seen = progress.get(task.id);
  const timeline = taskTimeline(task, nowMs);
  const outcome = task.state === "running" && timeline.retrying ? "retrying" : task.state;
  return {
    id: task.id,
    state: task.state,
    outcome,
    operations: task.operations.map((o) => o.name),
    ...whoActed(task),
    targets: task.operations.map((o) => {
      const d = o.description;
      const account = accountOfOperation(o) ?? "";
      // Where the service looks for it: the one rule of accounts.locate (the account's setting, else {application}-{region}).
      const located = str(d.resourceGroup)
        ? undefined
        : accounts.locate({
            credentials: account,
            region: str(d.region) ?? "",
            serverGroupName: str(d.serverGroupName) ?? "",
          });
      const resourceGroup = str(d.resourceGroup) ?? (located?.ok ? located.ref.resourceGroup : undefined);
      return {
        operation: o.name,
        account,
        region: str(d.region) ?? "",
        ...(resourceGroup ? { resourceGroup } : {}),
        serverGroupName: str(d.serverGroupName) ?? "",
      };
    }),
    operationIndex: task.operationIndex,
    phase: last?.phase ?? "INIT",
    status: last?.status ?? "",
    summary: timeline.summary,
    attempt: timeline.attempt?.number ?? 0,
    attempts: timeline.attempt?.of ?? maxAttempts,
    ...(timeline.step ? { step: timeline.step } : {}),
    ...(timeline.waiting ? { waiting: timeline.waiting } : {}),
    elapsedMs: Math.max(0, (task.finishedAtMs ?? nowMs) - task.createdAtMs),
    timeline: timeline.segments,
    retries: seen?.retries ?? [],
    actions: actionsFor(principal, task),
    armCalls: task.armCalls,
    ...(task.leaseOwner ? { leaseOwner: task.leaseOwner } : {}),
    ...(task.cancelRequestedAtMs !== undefined ? { cancelRequestedAtMs: task.cancelRequestedAtMs } : {}),
    createdAtMs: task.createdAtMs,
    updatedAtMs: task.updatedAtMs,
    ...(task.finishedAtMs !== undefined ? { finishedAtMs: task.finishedAtMs } : {}),
    ...(task.failure
      ? {
          failure: {
            operation: task.failure.operation,
            code: task.failure.code,
            message: task.failure.message,
            retryable: task.failure.retryable,
          },
        }
      : {}),
    ...(withHistory
      ? { history: task.history.map((h) => ({ phase: h.phase, status: h.status, timeMs: h.timeMs })) }
      : {}),
  };
}

/** Case-insensitive substring filters over what the page shows of a task. */
interface TaskFilter {
  serverGroup?: string;
  account?: string;
  operation?: string;
  id?: string;
}

function matches(task: Task, f: TaskFilter): boolean {
  const has = (values: (string | undefined)[], needle: string | undefined) =>
    !needle || values.some((v) => v?.toLowerCase().includes(needle.toLowerCase()));
  return (
    has(
      task.operations.map((o) => str(o.description.serverGroupName)),
      f.serverGroup,
    ) &&
    has(accountsOfTask(task), f.account) &&
    has(
      task.operations.map((o) => o.name),
      f.operation,
    ) &&
    has([task.id], f.id)
  );
}

/** How many stored tasks one request may look through for a page of matches (the rest comes with nextCursor). */
const MAX_SCANNED = 2000;
const filterText = (description: string) => Type.Optional(Type.String({ maxLength: 100, description }));

export interface UiRoutesOptions {
  store: TaskStore;
  progress: TaskProgress;
  accounts: AccountRegistry;
  reads: ScaleSetReads;
  /** RETRY_MAX_ATTEMPTS: the n of "attempt k/n" before a task's first attempt. */
  maxAttempts: number;
}

export const uiRoutes: FastifyPluginAsyncTypebox<UiRoutesOptions> = async (
  app,
  { store, progress, accounts, reads, maxAttempts },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
  app.addSchema(UiTask);
  app.addSchema(UiTaskList);
  app.addSchema(UiInventory);
  const open = { config: { access: "public" as const }, schema: { hide: true } };
  app.get("/", open, async (_request, reply) => reply.redirect("/ui", 302));
  app.get("/ui", open, async (_request, reply) =>
    reply.type("text/html; charset=utf-8").header("cache-control", "no-store").send(PAGE),
  );
  app.get("/ui/app.js", open, async (_request, reply) => reply.type("text/javascript; charset=utf-8").send(SCRIPT));
  app.get("/ui/style.css", open, async (_request, reply) => reply.type("text/css; charset=utf-8").send(STYLE));

  app.get(
    "/ui/api/tasks",
    {
      schema: {
        operationId: "uiListTasks",
        summary:
          "Tasks for the status page: in flight first, then recent (paged), with their progress and the caller's actions",
        description:
          "Filters are case-insensitive substrings. A page of recent tasks looks through at most 2000 stored tasks; nextCursor continues from there.",
        tags: ["tasks"],
        querystring: Type.Object(
          {
            serverGroup: filterText("part of a server group's name"),
            account: filterText("part of an account's name"),
            operation: filterText("part of an operation's name"),
            id: filterText("part of a task id"),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 })),
            cursor: Type.Optional(
              Type.String({ maxLength: 200, description: "nextCursor of the previous page of recent tasks" }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: { ...Type.Ref(UiTaskList), description: "Tasks in flight (running, queued) and recent ones" },
        },
      },
    },
    async (request) => {
      const { limit = 25, cursor, ...filter } = request.query;
      const now = Date.now();
      const wanted = (t: Task) => !forbiddenTaskAccount(request.principal, t) && matches(t, filter);
      // In flight: the states a task has not ended in (running first, then queued), from the state table; only on
      // the first page.
      const unfinished = cursor
        ? []
        : await Promise.all([...CLAIMABLE_STATES].reverse().map((state) => store.list({ limit: 200, state })));
      const inFlight = unfinished.flatMap((page) => page.tasks).filter(wanted);
      // Recent: finished tasks, newest first, whole store pages at a time so that nextCursor never skips one.
      const recent: Task[] = [];
      let next = cursor;
      for (let scanned = 0; recent.length < limit && scanned < MAX_SCANNED;) {
        const page = await store.list({ limit, ...(next ? { cursor: next } : {}) });
        scanned += page.tasks.length;
        recent.push(...page.tasks.filter((t) => FINISHED_STATES.has(t.state) && wanted(t)));
        next = page.nextCursor;
        if (!next) break;
      }
      return {
        inFlight: inFlight.map((t) => view(t, request.principal, progress, accounts, maxAttempts, false, now)),
        recent: recent.map((t) => view(t, request.principal, progress, accounts, maxAttempts, false, now)),
        ...(next ? { nextCursor: next } : {}),
        nowMs: now,
      };
    },
  );

  app.get(
    "/ui/api/tasks/:id",
    {
      schema: {
        operationId: "uiGetTask",
        description:
          "What the status page shows of one task: its history with times, its progress through the operations and attempts, and whether the caller may cancel or resume it. Only for a caller that may use the task's accounts.",
        summary: "One task for the status page, with its history (times included), progress and the caller's actions",
        tags: ["tasks"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: {
          200: { ...Type.Ref(UiTask), description: "The task, its history included" },
          404: { ...Type.Ref(ErrorResponse), description: "No task with that id" },
        },
      },
    },
    async (request) => {
      const task = await store.get(request.params.id);
      if (!task) throw apiError("NotFound", { what: `no task ${request.params.id}` });
      const denied = forbiddenTaskAccount(request.principal, task);
      if (denied)
        throw apiError("Forbidden", {
          why: `Access denied to account ${denied}: task ${task.id} acts on it and ${request.principal.name} may not use it`,
        });
      return view(task, request.principal, progress, accounts, maxAttempts, true, Date.now());
    },
  );

  app.get(
    "/ui/api/inventory",
    {
      schema: {
        operationId: "uiInventory",
        summary: "The scale sets of the accounts the caller may read, by account and cluster, from the read cache",
        description:
          "Capacity, instances in traffic and the last task of each. An account that cannot be listed says why, beside the others.",
        tags: ["clouddriver"],
        querystring: Type.Object(
          {
            account: filterText("part of an account's name"),
            serverGroup: filterText("part of a server group's name"),
          },
          { additionalProperties: false },
        ),
        response: { 200: { ...Type.Ref(UiInventory), description: "Accounts, their clusters and server groups" } },
      },
    },
    async (request) => {
      const account = request.query.account?.toLowerCase() ?? "";
      const serverGroup = request.query.serverGroup?.toLowerCase() ?? "";
      const names = accounts
        .names()
        .filter((n) => mayUseAccount(request.principal, n) && n.toLowerCase().includes(account));
      // The last task of each scale set, among the recent ones (newest first: the first seen is the last).
      const lastTasks = new Map<string, { id: string; state: Task["state"]; operation: string; atMs: number }>();
      for (const t of (await store.list({ limit: 500 })).tasks) {
        for (const op of t.operations) {
          const key = `${accountOfOperation(op) ?? ""}/${str(op.description.serverGroupName) ?? ""}`.toLowerCase();
          if (!lastTasks.has(key))
            lastTasks.set(key, { id: t.id, state: t.state, operation: op.name, atMs: t.updatedAtMs });
        }
      }
      return {
        accounts: await Promise.all(
          names.map((n) => accountInventory(reads, accounts.get(n)!, lastTasks, serverGroup)),
        ),
      };
    },
  );
};
