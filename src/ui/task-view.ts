// What the status page shows of a task: its progress (attempt k/n, step k of n, what it waits for and until when, a
// timeline), who acted on it, and the actions the caller may take on it.
import { Type, type Static } from "@sinclair/typebox";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { TaskProgress } from "../observability/task-progress.ts";
import { accountsOfTask } from "../auth/task-access.ts";
import { accountOfOperation } from "../tasks/operation-account.ts";
import { decideAccess, type Principal } from "../auth/principal.ts";
import { TaskState } from "../api/schemas.ts";
import type { Task } from "../tasks/task.ts";
import { taskTimeline } from "./task-timeline.ts";

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

export function str(v: unknown): string | undefined {
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

export function view(
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
export interface TaskFilter {
  serverGroup?: string;
  account?: string;
  operation?: string;
  id?: string;
}

export function taskMatchesFilter(task: Task, f: TaskFilter): boolean {
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

/** A case-insensitive substring filter of the page, as a query parameter. */
export const filterText = (description: string) => Type.Optional(Type.String({ maxLength: 100, description }));
