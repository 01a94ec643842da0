// GET /azure/rateLimits: the throttling budget Azure reported most recently, per scale set and policy.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../../azure/accounts.ts";
import type { RateLimitBudget } from "../../azure/rate-limit-budget.ts";
import { mayUseAccount } from "../../auth/principal.ts";

export const RateLimits = Type.Object(
  {
    entries: Type.Array(
      Type.Object(
        {
          scope: Type.String({
            description:
              "subscriptions/{sub}/resourceGroups/{rg}/virtualMachineScaleSets/{name}, or subscriptions/{sub}",
          }),
          policy: Type.String({
            description: "Azure's throttling policy, as named in x-ms-ratelimit-remaining-resource",
          }),
          remaining: Type.Integer(),
          atMs: Type.Integer({ description: "when Azure reported it" }),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "RateLimits", additionalProperties: false },
);

export const rateLimitRoutes: FastifyPluginAsyncTypebox<{
  budget: RateLimitBudget;
  accounts: AccountRegistry;
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
}> = async (app, { budget, accounts }) => {
  app.get(
    "/azure/rateLimits",
    {
      schema: {
        operationId: "getRateLimits",
        description:
          "Azure's x-ms-ratelimit-remaining-* headers from this replica's latest ARM responses, per subscription and policy: how close the service is to throttling. Only the subscriptions of the accounts the caller may use.",
        summary: "Azure's remaining throttling budget, as its last responses reported it (newest first)",
        tags: ["serverGroups"],
        response: { 200: { ...Type.Ref(RateLimits), description: "One entry per scope and policy" } },
      },
    },
    (request) => {
      // Only the subscriptions of the accounts the caller may use.
      const subscriptions = new Set(
        accounts
          .names()
          .filter((n) => mayUseAccount(request.principal, n))
          .map((n) => accounts.get(n)!.subscriptionId.toLowerCase()),
      );
      return {
        entries: budget.snapshot().filter((e) => subscriptions.has(e.scope.split("/")[1]?.toLowerCase() ?? "")),
      };
    },
  );
};
