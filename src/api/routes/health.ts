import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { TaskRunner } from "../../tasks/task-runner.ts";
import { Health } from "../schemas.ts";

export interface HealthRoutesOptions {
  runner: TaskRunner;
  accounts: string[];
  operations: string[];
  /** Access control is on: the details (account names, tasks in flight) only for a caller with credentials. */
  detailsNeedCredentials: boolean;
}

// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
export const healthRoutes: FastifyPluginAsyncTypebox<HealthRoutesOptions> = async (app, opts) => {
  app.get(
    "/health",
    {
      config: { access: "public" },
      schema: {
        operationId: "getHealth",
        description:
          "For liveness probes: answers 200 while the process serves requests, whatever Azure or the task store do (GET /ready says whether it can work). Open to all; the details need credentials when access control is on.",
        summary: "Liveness; with credentials (or without access control), the tasks in flight, accounts and operations",
        tags: ["service"],
        response: { 200: { ...Type.Ref(Health), description: "The service is up" } },
      },
      // The first probe after start-up should not wait for the schema serializers to load (fast-json-stringify and
      // Ajv, some 70 ms): the body below has exactly Health's fields, which JSON.stringify writes alike.
      serializerCompiler: () => (data) => JSON.stringify(data),
    },
    // Open, for probes: up, and nothing more to a caller we do not know (account names are for those who may use them).
    (request) =>
      opts.detailsNeedCredentials && request.principal.via === "open"
        ? { status: "ok" as const }
        : {
            status: "ok" as const,
            activeTasks: opts.runner.active,
            accounts: opts.accounts,
            operations: opts.operations,
          },
  );
};
