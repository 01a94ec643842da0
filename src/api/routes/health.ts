import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { TaskRunner } from "../../tasks/task-runner.ts";
import { Health } from "../schemas.ts";

export const healthRoutes: FastifyPluginAsyncTypebox<{ runner: TaskRunner; accounts: string[]; operations: string[] }> = async (app, opts) => {
  app.get(
    "/health",
    {
      config: { access: "public" },
      schema: { operationId: "getHealth", summary: "Liveness, with the tasks in flight", tags: ["service"], response: { 200: { ...Type.Ref(Health), description: "The service is up" } } },
      // The first probe after start-up should not wait for the schema serializers to load (fast-json-stringify and
      // Ajv, some 70 ms): the body below has exactly Health's fields, which JSON.stringify writes alike.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    async () => ({ status: "ok" as const, activeTasks: opts.runner.active, accounts: opts.accounts, operations: opts.operations }),
  );
};
