// The status page at /ui (and / leads there): a static page (open: it holds no data) that reads the API with the
// caller's token, and JSON routes made for it (protected like every API route): tasks with their progress (attempt
// k/n, step k of n, what they wait for and until when, a timeline) and the actions the caller may take on them,
// filtered by substrings and paged; one task with its whole history; and the inventory of scale sets. One plugin
// per route, as in src/api/routes/.
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { ScaleSetReads } from "../azure/read-cache.ts";
import { inventoryRoute } from "./inventory-route.ts";
import { pageRoutes } from "./page-routes.ts";
import { taskListRoute, type UiTaskRoutesOptions } from "./task-list-route.ts";
import { taskRoute } from "./task-route.ts";
import { UiTask, UiTaskList } from "./task-view.ts";

export interface UiRoutesOptions extends UiTaskRoutesOptions {
  reads: ScaleSetReads;
}

export const uiRoutes: FastifyPluginAsyncTypebox<UiRoutesOptions> = async (app, options) => {
  // The task views, shared by the task routes below.
  app.addSchema(UiTask);
  app.addSchema(UiTaskList);
  await app.register(pageRoutes);
  await app.register(taskListRoute, options);
  await app.register(taskRoute, options);
  await app.register(inventoryRoute, options);
};
