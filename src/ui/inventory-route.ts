// GET /ui/api/inventory: the scale sets of the accounts the caller may read, by account and cluster, from the read
// cache, each with the last task that acted on it.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { ScaleSetReads } from "../azure/read-cache.ts";
import { mayUseAccount } from "../auth/principal.ts";
import { accountInventory, UiInventory } from "./inventory.ts";
import { accountOfOperation } from "../tasks/operation-account.ts";
import type { Task } from "../tasks/task.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import { filterText, str } from "./task-view.ts";

export interface InventoryRouteOptions {
  store: TaskStore;
  accounts: AccountRegistry;
  reads: ScaleSetReads;
}

export const inventoryRoute: FastifyPluginAsyncTypebox<InventoryRouteOptions> = async (
  app,
  { store, accounts, reads },
  // eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
) => {
  app.addSchema(UiInventory);
  app.get(
    "/ui/api/inventory",
    {
      schema: {
        operationId: "uiInventory",
        summary: "The scale sets of the accounts the caller may read, by account and cluster, from the read cache",
        description:
          "Capacity, instances in traffic and the last task of each. An account that cannot be listed says why, beside the others.",
        tags: ["clouddriver"],
        querystring: Type.Object(
          {
            account: filterText("part of an account's name"),
            serverGroup: filterText("part of a server group's name"),
          },
          { additionalProperties: false },
        ),
        response: { 200: { ...Type.Ref(UiInventory), description: "Accounts, their clusters and server groups" } },
      },
    },
    async (request) => {
      const account = request.query.account?.toLowerCase() ?? "";
      const serverGroup = request.query.serverGroup?.toLowerCase() ?? "";
      const names = accounts
        .names()
        .filter((n) => mayUseAccount(request.principal, n) && n.toLowerCase().includes(account));
      // The last task of each scale set, among the recent ones (newest first: the first seen is the last).
      const lastTasks = new Map<string, { id: string; state: Task["state"]; operation: string; atMs: number }>();
      for (const t of (await store.list({ limit: 500 })).tasks) {
        for (const op of t.operations) {
          const key = `${accountOfOperation(op) ?? ""}/${str(op.description.serverGroupName) ?? ""}`.toLowerCase();
          if (!lastTasks.has(key))
            lastTasks.set(key, { id: t.id, state: t.state, operation: op.name, atMs: t.updatedAtMs });
        }
      }
      return {
        accounts: await Promise.all(
          names.map((n) => accountInventory(reads, accounts.get(n)!, lastTasks, serverGroup)),
        ),
      };
    },
  );
};
