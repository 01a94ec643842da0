// GET /task/{id} and GET /task: what orchestrators poll.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { TaskStore } from "../../tasks/task-store.ts";
import { toClouddriverTask } from "../../tasks/task.ts";
import { ApiError } from "../errors.ts";
import { ErrorResponse, Task, TaskList, TaskState } from "../schemas.ts";

export const taskRoutes: FastifyPluginAsyncTypebox<{ store: TaskStore }> = async (app, { store }) => {
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
      return { tasks: page.tasks.map(toClouddriverTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  );
};
