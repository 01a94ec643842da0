// GET /ui/api/tasks/{id}: one task for the status page, its whole history included.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import { forbiddenTaskAccount } from "../auth/task-access.ts";
import { apiError } from "../api/errors.ts";
import { ErrorResponse } from "../api/schemas.ts";
import type { UiTaskRoutesOptions } from "./task-list-route.ts";
import { UiTask, view } from "./task-view.ts";

export const taskRoute: FastifyPluginAsyncTypebox<UiTaskRoutesOptions> = async (
  app,
  { store, progress, accounts, maxAttempts },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
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
};
