// GET /task/{id} and GET /task: what orchestrators poll; POST /task/{id}:resume: how Orca retries a failed task.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { FastifyReply } from "fastify";
import type { TaskStore } from "../../tasks/task-store.ts";
import { phaseOf } from "../../tasks/task-runner.ts";
import { FINISHED_STATES, toClouddriverTask, type HistoryEntry, type Task as StoredTask } from "../../tasks/task.ts";
import type { TaskBodies, TaskBody } from "../task-bodies.ts";
import type { ClouddriverForwarder } from "../clouddriver-forwarding.ts";
import { accountsOfTask, forbiddenAccount, forbiddenTaskAccount } from "../../auth/task-access.ts";
import { requireAccount } from "../access-control.ts";
import { apiError } from "../error-catalogue.ts";
import { errorResponses, FORWARDING_ERRORS } from "../error-responses.ts";
import { Task, TaskList, TaskRef, TaskState, WaitSeconds } from "../schemas.ts";
import type { TaskWaiter } from "../../tasks/task-waiter.ts";
import { heldUntilEnd } from "../client-gone.ts";
import { isCursor } from "../../tasks/cursor.ts";
import type { AuditTrail } from "../audit-trail.ts";
import { targetsOf, type NewAuditEntry } from "../../tasks/audit.ts";

/** 404 for a task id: what to check, and where the tasks there are are listed. */
function noTask(id: string) {
  return apiError("NotFound", {
    what: `no task ${id}: check the id, or list the tasks there are with GET /task (finished tasks are pruned after TASK_RETENTION_MS)`,
  });
}

export interface TaskRoutesOptions {
  store: TaskStore;
  /** Task ids we do not know are Clouddriver's, when one is configured. */
  forwarder?: ClouddriverForwarder;
  /** Puts a failed, retryable task back in the queue at its place on its scale sets (TaskRunner#requeue). */
  requeue: (task: StoredTask, entry: HistoryEntry, audit?: NewAuditEntry) => Promise<boolean>;
  /** Called when a cancel was asked of a task that runs (or was claimed): it stops at once if it runs here. */
  onCancelRequested?: (id: string) => void;
  /** A queued task nobody had started ended canceled at once (no runner sees it end). */
  onCanceledBeforeStart?: (task: StoredTask) => void;
  /** Holds ?wait= requests until their task ends. */
  waiter: TaskWaiter;
  /** Answers of GET /task/{id}, each kept until its task's revision changes. */
  bodies: TaskBodies;
  /** Records each cancel and resume with the change it makes (who, from where). */
  audit?: AuditTrail;
}

const TaskId = Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) });

/** The task's answer as it stands: kept while its revision holds, else read, built and kept. */
async function currentBody(
  store: TaskStore,
  bodies: TaskBodies,
  id: string,
  reply: FastifyReply,
): Promise<TaskBody | undefined> {
  // Only a task with an answer kept is asked its revision first: for any other, that would be a second query.
  if (bodies.has(id)) {
    const revision = await store.revision(id);
    if (revision === undefined) return undefined;
    const kept = bodies.get(id, revision);
    if (kept) return kept;
  }
  const task = await store.get(id);
  return task && keptBody(bodies, task, reply);
}

/** The task's answer built from the task as read, and kept. */
function keptBody(bodies: TaskBodies, task: StoredTask, reply: FastifyReply): TaskBody {
  const body = {
    revision: task.revision,
    json: reply.serialize(toClouddriverTask(task)) as string,
    accounts: accountsOfTask(task),
    finished: FINISHED_STATES.has(task.state),
  };
  bodies.set(task.id, body);
  return body;
}

/** Sends an answer already serialized by the route's response schema: fastify sends a JSON string as it is. */
function sendBody(reply: FastifyReply, body: TaskBody) {
  return reply.type("application/json; charset=utf-8").send(body.json);
}

/** GET /task/{id}: what orchestrators poll, held with ?wait= until the task ends. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const getTask: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (app, { store, forwarder, waiter, bodies }) => {
  app.get(
    "/task/:id",
    {
      // Orchestrators poll this route every few seconds per task: a log line per poll would cost about a third of
      // its throughput and bury everything else. Its requests are logged at warn (5xx and internal errors still
      // show); every other route logs each request at LOG_LEVEL as usual.
      logLevel: "warn",
      schema: {
        operationId: "getTask",
        summary: "A task, in Clouddriver's shape",
        description:
          "With CLOUDDRIVER_URL set, an id that is not one of ours is asked of Clouddriver, and its answer relayed as it came.",
        tags: ["tasks"],
        params: TaskId,
        querystring: Type.Object({ wait: Type.Optional(WaitSeconds) }, { additionalProperties: false }),
        response: {
          200: { ...Type.Ref(Task), description: "The task (with ?wait=, once it has ended or the time ran out)" },
          ...errorResponses("ValidationError", "NotFound", ...FORWARDING_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const wait = request.query.wait;
      const deny = (accounts: string[]) => {
        const denied = forbiddenAccount(request.principal, accounts);
        if (denied)
          throw apiError("Forbidden", {
            why: `Access denied to account ${denied}: task ${id} acts on it and ${request.principal.name} may not use it`,
          });
      };
      if (wait && !bodies.has(id)) {
        // A held read of a task with no answer kept (the first read of a task just submitted): the task is read
        // once, and the wait starts from it; a running task's answer is not built, it would be stale when sent.
        const task = await store.get(id);
        if (!task && forwarder) return forwarder.forward(request, reply);
        if (!task) throw noTask(id);
        deny(accountsOfTask(task));
        if (FINISHED_STATES.has(task.state)) return sendBody(reply, keptBody(bodies, task, reply));
        const ended = await heldUntilEnd(waiter, id, wait * 1000, reply, task);
        return toClouddriverTask(ended ?? task);
      }
      const body = await currentBody(store, bodies, id, reply);
      if (!body && forwarder) return forwarder.forward(request, reply);
      if (!body) throw noTask(id);
      deny(body.accounts);
      if (wait && !body.finished) {
        // Read within the request's own deadline; the hold that follows has its own (client-gone.ts).
        const task = await store.get(id);
        const ended = task && (await heldUntilEnd(waiter, id, wait * 1000, reply, task));
        // Pruned while we waited: say what we last saw rather than a 404 for a task that existed.
        if (ended) return toClouddriverTask(ended);
      }
      return sendBody(reply, body);
    },
  );
};

/** Why a task cannot be resumed: it succeeded, or failed in a way that running it again cannot change. */
function notRetryable(task: StoredTask) {
  return apiError("TaskNotRetryable", { id: task.id, state: task.state, failedWith: task.failure?.code });
}

// Clouddriver's route (OperationsController#resumeTask), called by Orca's MonitorKatoTask when a task it polls
// says failed and retryable. Resuming puts the task back in the queue: the operation that failed runs again with
// a fresh attempt budget, from a fresh read; operations that had succeeded are not run again.
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const resumeTask: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (app, { store, forwarder, requeue, audit }) => {
  app.post(
    "/task/:id(^[^:/]+)::resume",
    {
      schema: {
        operationId: "resumeTask",
        summary: "Run a failed, retryable task again (Clouddriver's POST /task/{id}:resume)",
        description:
          "Only a task whose status.retryable is true can be resumed: it is queued again, and the operation that failed runs from a fresh read of the scale set. A task already queued or running answers 200 as well, so a repeated call is harmless.",
        tags: ["tasks"],
        params: TaskId,
        response: {
          200: { ...Type.Ref(TaskRef), description: "The task is queued or running again; poll it" },
          ...errorResponses("NotFound", "TaskNotRetryable", ...FORWARDING_ERRORS),
        },
      },
    },
    async (request, reply) => {
      const { id } = request.params;
      const task = await store.get(id);
      if (!task && forwarder)
        return forwarder.forward(request, reply, Buffer.isBuffer(request.body) ? request.body : undefined);
      if (!task) throw noTask(id);
      // Resuming writes: the caller must be allowed to act on every account the task acts on.
      for (const account of accountsOfTask(task)) requireAccount(request, account, "write");
      const ref = { kind: "taskRef" as const, id, resourceUri: `/task/${id}` };
      if (task.state === "queued" || task.state === "running") return ref;
      const failed = task.failure;
      if (!failed?.retryable) throw notRetryable(task);
      const line = `Resumed on request: running ${failed.operation} again from a fresh read (it had failed: ${failed.message})`;
      const entry = audit?.accepted(request, "resume", targetsOf(task.operations), { taskId: id });
      if (await requeue(task, { phase: phaseOf(failed.operation), status: line, timeMs: Date.now() }, entry)) {
        if (entry) audit!.recorded(request, entry);
        return ref;
      }
      // Someone else resumed it between our read and our write: it is queued or running now.
      const now = await store.get(id);
      if (now && (now.state === "queued" || now.state === "running")) return ref;
      throw notRetryable(task);
    },
  );
};

// Stops a task at its next safe point (between attempts, between writes, between operations), never mid-write:
// a write Azure accepted is followed to its end first. A queued task nobody has started ends at once. The
// request is stored, so the replica that runs the task, or the one that takes it over, sees it.
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const cancelTask: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (app, options) => {
  const { store, onCancelRequested, onCanceledBeforeStart, waiter, audit } = options;
  app.post(
    "/task/:id/cancel",
    {
      schema: {
        operationId: "cancelTask",
        summary: "Stop a task at its next safe point; it ends canceled, saying what was done and what was not",
        description:
          "A queued task that no replica has claimed ends canceled at once (state canceled). One just claimed, about to start its first attempt, answers with state still queued and ends canceled before any read or write. A running one stops at its next safe point: between attempts, during a backoff, before a write, or once a write Azure accepted has ended (it is never cut off mid-write); until then its state stays running. So read state (or status.completed), and poll GET /task/{id}?wait= until the task has ended. A repeated call is harmless. A task that has ended answers 409.",
        tags: ["tasks"],
        params: TaskId,
        response: {
          200: {
            ...Type.Ref(Task),
            description:
              "The task: canceled, or still queued or running until its next safe point, where it ends canceled",
          },
          ...errorResponses("NotFound", "TaskFinished"),
        },
      },
    },
    async (request) => {
      const { id } = request.params;
      const task = await store.get(id);
      if (!task) throw noTask(id);
      // Canceling changes what is written: the caller must be allowed to act on every account the task acts on.
      for (const account of accountsOfTask(task)) requireAccount(request, account, "write");
      const phase = phaseOf(
        task.operations[Math.min(task.operationIndex, task.operations.length - 1)]?.name ?? "orchestration",
      );
      const by = request.principal.name;
      const timeMs = Date.now();
      const entry = audit?.accepted(request, "cancel", targetsOf(task.operations), { taskId: id });
      const outcome = await store.requestCancel(
        id,
        {
          canceled: {
            phase: "ORCHESTRATION",
            status: `Canceled on request of ${by} before it started. Done: nothing. Not done: ${task.operations.map((o) => o.name).join(", ")}`,
            timeMs,
          },
          requested: {
            phase,
            status: `Cancel requested by ${by}: stopping at the next safe point (a write Azure accepted is followed to its end first)`,
            timeMs,
          },
        },
        entry,
      );
      if (outcome.outcome === "missing") throw noTask(id);
      if (outcome.outcome === "finished") throw apiError("TaskFinished", { id, state: outcome.task.state });
      if (entry) audit!.recorded(request, entry);
      if (outcome.outcome === "requested") onCancelRequested?.(id);
      else {
        onCanceledBeforeStart?.(outcome.task);
        waiter.notify(id);
      }
      return toClouddriverTask(outcome.task);
    },
  );
};

/** POST routes on a task that ignore their body (Orca sends none), whatever its content type. */
const taskActions: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (plain, opts) => {
  plain.removeAllContentTypeParsers();
  plain.addContentTypeParser("*", { parseAs: "buffer" }, (_request, body, done) => done(null, body));
  await plain.register(resumeTask, opts);
  await plain.register(cancelTask, opts);
};

/** GET /task: a page of tasks, newest first, only those the caller may see. */
// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const listTasks: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (app, { store }) => {
  app.get(
    "/task",
    {
      schema: {
        operationId: "listTasks",
        description:
          "Only the tasks the caller may see (those on its accounts): a page may hold fewer than limit. nextCursor continues where the page ended, also while new tasks arrive.",
        summary: "Tasks, newest first, a page at a time, filtered by state, operation or server group",
        tags: ["tasks"],
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
            state: Type.Optional(Type.Ref(TaskState)),
            operation: Type.Optional(
              Type.String({ maxLength: 100, description: "tasks that include this operation, e.g. scaleDown" }),
            ),
            serverGroup: Type.Optional(
              Type.String({ maxLength: 100, description: "tasks on this server group (serverGroupName)" }),
            ),
            cursor: Type.Optional(Type.String({ maxLength: 200, description: "nextCursor of the previous page" })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: { ...Type.Ref(TaskList), description: "Tasks, newest first" },
          ...errorResponses("ValidationError", "InvalidCursor"),
        },
      },
    },
    async (request) => {
      const q = request.query;
      if (q.cursor && !isCursor(q.cursor)) throw apiError("InvalidCursor", { cursor: q.cursor });
      const page = await store.list({
        limit: q.limit ?? 50,
        state: q.state,
        operation: q.operation,
        serverGroup: q.serverGroup,
        cursor: q.cursor,
      });
      // Only the caller's tasks: a page may hold fewer than `limit` when others' tasks are left out.
      const visible = page.tasks.filter((task) => !forbiddenTaskAccount(request.principal, task));
      return { tasks: visible.map(toClouddriverTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  );
};

export const taskRoutes: FastifyPluginAsyncTypebox<TaskRoutesOptions> = async (app, opts) => {
  await app.register(getTask, opts);
  await app.register(taskActions, opts);
  await app.register(listTasks, opts);
};
