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
        summary: "Recent tasks, newest first",
        tags: ["tasks"],
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 50 })),
            state: Type.Optional(Type.Ref(TaskState)),
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
      const tasks = await store.list({ limit: request.query.limit ?? 50, state: request.query.state });
      return { tasks: tasks.map(toClouddriverTask) };
    },
  );
};
