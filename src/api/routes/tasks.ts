// GET /task/{id} and GET /task: what orchestrators poll.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { TaskStore } from "../../tasks/task-store.ts";
import { toClouddriverTask } from "../../tasks/task.ts";
import { forbiddenTaskAccount } from "../../auth/task-access.ts";
import { ApiError } from "../errors.ts";
import { ErrorResponse, Task, TaskList, TaskState } from "../schemas.ts";

export const taskRoutes: FastifyPluginAsyncTypebox<{ store: TaskStore }> = async (app, { store }) => {
  app.get(
    "/task/:id",
    {
      schema: {
        operationId: "getTask",
        summary: "A task, in Clouddriver's shape",
        tags: ["tasks"],
        params: Type.Object({ id: Type.String({ minLength: 1, maxLength: 128 }) }),
        response: {
          200: { ...Type.Ref(Task), description: "The task" },
          404: { ...Type.Ref(ErrorResponse), description: "No task with that id" },
        },
      },
    },
    async (request) => {
      const task = await store.get(request.params.id);
      if (!task) throw new ApiError(404, "NotFound", `no task ${request.params.id}`);
      const denied = forbiddenTaskAccount(request.principal, task);
      if (denied) throw new ApiError(403, "Forbidden", `Access denied to account ${denied}: task ${task.id} acts on it and ${request.principal.name} may not use it`);
      return toClouddriverTask(task);
    },
  );

  app.get(
    "/task",
    {
      schema: {
        operationId: "listTasks",
        summary: "Tasks, newest first, a page at a time, filtered by state, operation or server group",
        tags: ["tasks"],
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
            state: Type.Optional(Type.Ref(TaskState)),
            operation: Type.Optional(Type.String({ maxLength: 100, description: "tasks that include this operation, e.g. scaleDown" })),
            serverGroup: Type.Optional(Type.String({ maxLength: 100, description: "tasks on this server group (serverGroupName)" })),
            cursor: Type.Optional(Type.String({ maxLength: 200, description: "nextCursor of the previous page" })),
          },
          { additionalProperties: false },
        ),
        response: {
          200: { ...Type.Ref(TaskList), description: "Tasks, newest first" },
          400: { ...Type.Ref(ErrorResponse), description: "A query parameter is wrong" },
        },
      },
    },
    async (request) => {
      const q = request.query;
      const page = await store.list({ limit: q.limit ?? 50, state: q.state, operation: q.operation, serverGroup: q.serverGroup, cursor: q.cursor });
      // Only the caller's tasks: a page may hold fewer than `limit` when others' tasks are left out.
      const visible = page.tasks.filter((task) => !forbiddenTaskAccount(request.principal, task));
      return { tasks: visible.map(toClouddriverTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  );
};
