// GET /ui/api/tasks: the status page's list of tasks, in flight first, then recent ones (paged), each with its
// progress and the actions the caller may take, filtered by substrings.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { TaskProgress } from "../observability/task-progress.ts";
import { forbiddenTaskAccount } from "../auth/task-access.ts";
import { CLAIMABLE_STATES, FINISHED_STATES } from "../tasks/task-state.ts";
import type { Task } from "../tasks/task.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import { filterText, taskMatchesFilter, UiTaskList, view } from "./task-view.ts";

/** How many stored tasks one request may look through for a page of matches (the rest comes with nextCursor). */
const MAX_SCANNED = 2000;

export interface UiTaskRoutesOptions {
  store: TaskStore;
  progress: TaskProgress;
  accounts: AccountRegistry;
  /** RETRY_MAX_ATTEMPTS: the n of "attempt k/n" before a task's first attempt. */
  maxAttempts: number;
}

export const taskListRoute: FastifyPluginAsyncTypebox<UiTaskRoutesOptions> = async (
  app,
  { store, progress, accounts, maxAttempts },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
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
      const wanted = (t: Task) => !forbiddenTaskAccount(request.principal, t) && taskMatchesFilter(t, filter);
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
};
