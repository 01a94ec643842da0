// GET /accounts/{account}/checks: `vmss-ops doctor`'s checks of one account, run now against Azure (the credential,
// the subscription and its providers, the ARM budget, effective permissions, quota, named networking and secrets);
// GET /checks/latest: the last result per account, for the status page; GET /accounts/{account}/resource-groups/
// {resourceGroup}/contents: what a resource group holds, and GET /accounts/{account}/regions/{region}/vm-sizes: the
// sizes a region offers the subscription, smallest first, with their quota headroom, both for `vmss-ops conformance`.
// Reads only.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../../azure/accounts.ts";
import type { ArmBudget } from "../../azure/arm-budget/budget.ts";
import { mayUseAccount } from "../../auth/principal.ts";
import { runAccountChecks, type CheckReport } from "../../checks/account-checks.ts";
import type { SimulatorPace } from "../../checks/judge.ts";
import { ContentsUnreadable, readResourceGroupContents } from "../../checks/resource-group-contents.ts";
import { readRegionSizes, RegionSizesUnreadable } from "../../checks/region-sizes.ts";
import { AccountName, RegionName, ResourceGroupName } from "../../operations/description.ts";
import { requireAccount } from "../access-control.ts";
import { apiError } from "../error-catalogue.ts";
import { errorResponses } from "../error-responses.ts";
import { readFailureAnswer } from "../failure-answers.ts";

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

export const LatestChecks = Type.Object(
  {
    accounts: Type.Array(
      Type.Object(
        {
          account: Type.String(),
          status: Status,
          checkedAt: Type.String({ format: "date-time" }),
          failing: Type.Array(Type.String(), { description: "the checks that FAILed" }),
          warning: Type.Array(Type.String(), { description: "the checks that WARNed" }),
        },
        { additionalProperties: false },
      ),
      { description: "one per account checked since this replica started, that the caller may read" },
    ),
  },
  { $id: "LatestChecks", additionalProperties: false },
);

export const ResourceGroupContents = Type.Object(
  {
    account: Type.String(),
    resourceGroup: Type.String(),
    exists: Type.Boolean({ description: "false when Azure answered ResourceGroupNotFound" }),
    resources: Type.Array(
      Type.Object(
        {
          id: Type.String(),
          name: Type.String(),
          type: Type.String({ description: "e.g. Microsoft.Compute/virtualMachineScaleSets" }),
          tags: Type.Record(Type.String(), Type.String()),
        },
        { additionalProperties: false },
      ),
      { description: "every resource Azure lists in the group (Resources_ListByResourceGroup)" },
    ),
  },
  { $id: "ResourceGroupContents", additionalProperties: false },
);

export const RegionVmSizes = Type.Object(
  {
    account: Type.String(),
    region: Type.String(),
    regionalFreeVCPUs: Type.Integer({ description: "vCPUs free in the region (Total Regional vCPUs: limit − used)" }),
    sizes: Type.Array(
      Type.Object(
        {
          name: Type.String({ description: "e.g. Standard_B1s" }),
          vCPUs: Type.Integer(),
          memoryGB: Type.Number(),
          family: Type.String({ description: "the quota family it counts against, e.g. standardBSFamily" }),
          restriction: Type.Optional(
            Type.String({
              description:
                "why the subscription may not use it in the region (Azure's reasonCode, e.g. NotAvailableForSubscription); absent when it may",
            }),
          ),
          freeVCPUs: Type.Integer({ description: "vCPUs free for it: the smaller of its family's and the region's" }),
        },
        { additionalProperties: false },
      ),
      {
        description:
          "every virtual-machine size Azure's resource SKUs list in the region, smallest first (vCPUs, memory, name)",
      },
    ),
  },
  { $id: "RegionVmSizes", additionalProperties: false },
);

/** The schemas these routes refer to, for the app to add. */
export const accountCheckSchemas = [AccountChecks, LatestChecks, ResourceGroupContents, RegionVmSizes];

type App = Parameters<FastifyPluginAsyncTypebox>[0];

/** GET /accounts/{account}/checks, each report kept as the account's latest. */
function checkRoute(
  app: App,
  accounts: AccountRegistry,
  armBudget: ArmBudget | undefined,
  latest: Map<string, CheckReport>,
  simulatorPace: (() => SimulatorPace | undefined) | undefined,
) {
  app.get(
    "/accounts/:account/checks",
    {
      schema: {
        operationId: "checkAccount",
        summary:
          "Checks an account against Azure now: credential, subscription, providers, permissions, quota, named resources",
        description:
          "What `vmss-ops doctor` shows: each check OK, WARN or FAIL, with what was found and, for WARN and FAIL, the exact fix (the role to assign and where, the provider to register, the quota to request). Only reads; readable by principals that may read the account.",
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
      const report = await runAccountChecks(accounts, account, {
        resourceGroup: request.query.resourceGroup,
        armBudget,
        simulatorPace: simulatorPace?.(),
      });
      latest.set(account, report);
      return report;
    },
  );
}

/** GET /checks/latest: the latest report of each account the caller may read, in short. */
function latestRoute(app: App, latest: Map<string, CheckReport>) {
  app.get(
    "/checks/latest",
    {
      schema: {
        operationId: "latestAccountChecks",
        summary: "The last result of the account checks, per account the caller may read (the status page)",
        description:
          "What GET /accounts/{account}/checks answered last on this replica, in short: the worst status, when, and the checks that FAILed or WARNed. Nothing is read from Azure.",
        tags: ["serverGroups"],
        response: { 200: { ...Type.Ref(LatestChecks), description: "One entry per account checked" } },
      },
    },
    (request) => ({
      accounts: [...latest.values()]
        .filter((r) => mayUseAccount(request.principal, r.account))
        .sort((a, b) => a.account.localeCompare(b.account))
        .map((r) => ({
          account: r.account,
          status: r.status,
          checkedAt: r.checkedAt,
          failing: r.checks.filter((c) => c.status === "FAIL").map((c) => c.check),
          warning: r.checks.filter((c) => c.status === "WARN").map((c) => c.check),
        })),
    }),
  );
}

/** GET /accounts/{account}/resource-groups/{resourceGroup}/contents. */
function contentsRoute(app: App, accounts: AccountRegistry) {
  app.get(
    "/accounts/:account/resource-groups/:resourceGroup/contents",
    {
      schema: {
        operationId: "resourceGroupContents",
        summary: "What a resource group holds, as Azure lists it: each resource's id, type and tags",
        description:
          "What `vmss-ops conformance` reads before it starts (it refuses a group holding anything it did not tag) and after it cleans up. Reads only; readable by principals that may read the account.",
        tags: ["serverGroups"],
        params: Type.Object({ account: AccountName, resourceGroup: ResourceGroupName }),
        response: {
          200: { ...Type.Ref(ResourceGroupContents), description: "Every resource of the group, or exists: false" },
          ...errorResponses("ValidationError", "NotFound", "AzureError", "AzureUnavailable"),
        },
      },
    },
    async (request) => {
      const { account, resourceGroup } = request.params;
      requireAccount(request, account, "read");
      if (!accounts.get(account))
        throw apiError("NotFound", {
          what: `no account ${account}: the accounts are ${accounts.names().join(", ") || "none"}`,
        });
      try {
        return await readResourceGroupContents(accounts, account, resourceGroup);
      } catch (err) {
        if (!(err instanceof ContentsUnreadable)) throw readFailureAnswer(err, `resource group ${resourceGroup}`);
        const what = `the resources of ${resourceGroup} in account ${account}`;
        if (err.status === 429 || err.status >= 500)
          throw apiError("AzureUnavailable", { what, said: err.message, retryAfterSeconds: 5 });
        throw apiError("AzureError", { what, said: err.message });
      }
    },
  );
}

/** GET /accounts/{account}/regions/{region}/vm-sizes. */
function vmSizesRoute(app: App, accounts: AccountRegistry) {
  app.get(
    "/accounts/:account/regions/:region/vm-sizes",
    {
      schema: {
        operationId: "regionVmSizes",
        summary: "The VM sizes a region offers the account's subscription, smallest first, with their quota headroom",
        description:
          "Azure's resource SKUs of the region (vCPUs, memory, quota family, and the restrictions that keep a size from the subscription) with the Compute usages' headroom per size: what `vmss-ops conformance` reads to make its scale sets of the smallest size it may use. Reads only; readable by principals that may read the account.",
        tags: ["serverGroups"],
        params: Type.Object({ account: AccountName, region: RegionName }),
        response: {
          200: { ...Type.Ref(RegionVmSizes), description: "The region's sizes, smallest first" },
          ...errorResponses("ValidationError", "NotFound", "AzureError", "AzureUnavailable"),
        },
      },
    },
    async (request) => {
      const { account, region } = request.params;
      requireAccount(request, account, "read");
      if (!accounts.get(account))
        throw apiError("NotFound", {
          what: `no account ${account}: the accounts are ${accounts.names().join(", ") || "none"}`,
        });
      try {
        return await readRegionSizes(accounts, account, region);
      } catch (err) {
        if (!(err instanceof RegionSizesUnreadable)) throw readFailureAnswer(err, `the VM sizes of ${region}`);
        const what = `the VM sizes of ${region} in account ${account}`;
        if (err.status === 429 || err.status >= 500)
          throw apiError("AzureUnavailable", { what, said: err.message, retryAfterSeconds: 5 });
        throw apiError("AzureError", { what, said: err.message });
      }
    },
  );
}

export const accountCheckRoutes: FastifyPluginAsyncTypebox<{
  accounts: AccountRegistry;
  /** The service's ARM budget, when it counts its calls: the ARM budget check compares it with Azure's. */
  armBudget?: ArmBudget;
  /** The simulator's clock the service paces itself by now, when it talks to the simulator alone. */
  simulatorPace?: () => SimulatorPace | undefined;
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
}> = async (app, { accounts, armBudget, simulatorPace }) => {
  /** The last report of each account, by account name (this replica's). */
  const latest = new Map<string, CheckReport>();
  checkRoute(app, accounts, armBudget, latest, simulatorPace);
  latestRoute(app, latest);
  contentsRoute(app, accounts);
  vmSizesRoute(app, accounts);
};
