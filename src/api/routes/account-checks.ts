// GET /accounts/{account}/checks: `vmss-ops doctor`'s checks of one account, run now against Azure (the credential,
// the subscription and its providers, effective permissions, quota, named networking and secrets). Reads only.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../../azure/accounts.ts";
import { runAccountChecks } from "../../checks/account-checks.ts";
import { AccountName, ResourceGroupName } from "../../operations/description.ts";
import { requireAccount } from "../access-control.ts";
import { apiError } from "../error-catalogue.ts";
import { errorResponses } from "../error-responses.ts";

const Status = Type.Union([Type.Literal("OK"), Type.Literal("WARN"), Type.Literal("FAIL")]);

export const AccountChecks = Type.Object(
  {
    account: Type.String(),
    status: { ...Status, description: "the worst of the checks" },
    checkedAt: Type.String({ format: "date-time" }),
    checks: Type.Array(
      Type.Object(
        {
          check: Type.String({ description: "what is checked, e.g. `permissions on demo-rg`" }),
          status: Status,
          found: Type.String({ description: "what was found" }),
          fix: Type.Optional(Type.String({ description: "for WARN and FAIL: what to do, exactly" })),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "AccountChecks", additionalProperties: false },
);

// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
export const accountCheckRoutes: FastifyPluginAsyncTypebox<{ accounts: AccountRegistry }> = async (app, options) => {
  const { accounts } = options;
  app.get(
    "/accounts/:account/checks",
    {
      schema: {
        operationId: "checkAccount",
        summary:
          "Checks an account against Azure now: credential, subscription, providers, permissions, quota, named resources",
        tags: ["serverGroups"],
        params: Type.Object({ account: AccountName }),
        querystring: Type.Object(
          {
            resourceGroup: Type.Optional({
              ...ResourceGroupName,
              description: "check this resource group only (default: the account's, and each holding its scale sets)",
            }),
          },
          { additionalProperties: false },
        ),
        response: {
          200: {
            ...Type.Ref(AccountChecks),
            description: "Each check OK, WARN or FAIL, with what was found and the fix",
          },
          ...errorResponses("ValidationError", "NotFound"),
        },
      },
    },
    async (request) => {
      const { account } = request.params;
      requireAccount(request, account, "read");
      if (!accounts.get(account))
        throw apiError("NotFound", {
          what: `no account ${account}: the accounts are ${accounts.names().join(", ") || "none"}`,
        });
      return runAccountChecks(accounts, account, { resourceGroup: request.query.resourceGroup });
    },
  );
};
