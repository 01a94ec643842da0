// GET /azure/rateLimits: the throttling budget Azure reported most recently, per scale set and policy.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { RateLimitBudget } from "../../azure/rate-limit-budget.ts";

export const RateLimits = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          scope: Type.String({ description: "subscriptions/{sub}/resourceGroups/{rg}/virtualMachineScaleSets/{name}, or subscriptions/{sub}" }),
          policy: Type.String({ description: "Azure's throttling policy, as named in x-ms-ratelimit-remaining-resource" }),
          remaining: Type.Integer(),
          atMs: Type.Integer({ description: "when Azure reported it" }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "RateLimits", additionalProperties: false },
);

export const rateLimitRoutes: FastifyPluginAsyncTypebox<{ budget: RateLimitBudget }> = async (app, { budget }) => {
  app.get(
    "/azure/rateLimits",
    {
      schema: {
        operationId: "getRateLimits",
        summary: "Azure's remaining throttling budget, as its last responses reported it (newest first)",
        tags: ["serverGroups"],
        response: { 200: { ...Type.Ref(RateLimits), description: "One entry per scope and policy" } },
      },
    },
    async () => ({ entries: budget.snapshot() }),
  );
};
