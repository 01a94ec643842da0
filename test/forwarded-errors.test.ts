// A route that may hand its request to Clouddriver (CLOUDDRIVER_URL) declares, in the OpenAPI document, what it
// answers when Clouddriver cannot be reached (502 ClouddriverUnavailable) or does not answer in time (504
// ClouddriverTimeout), not only through `default`: a generated client then has those answers typed. Each such
// route is sent, here, a request that is Clouddriver's while Clouddriver is down, and answers the 502 it declares;
// and the routes that declare it are exactly these.
import t from "tap";
import { createServer } from "node:net";
import { readFile } from "node:fs/promises";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

/** A URL nothing listens on: a port the system gave and that was closed again. */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

const env = await startTestEnv({ env: { CLOUDDRIVER_URL: await deadUrl() } });
t.teardown(() => env.close());

const OTHER = { account: "aws-prod", region: "us-east-1" };
/** For each route that may forward, by operationId, a request that is Clouddriver's, not this service's. */
const CLOUDDRIVERS: Record<string, { method: "GET" | "POST"; path: string; body?: unknown }> = {
  getTask: { method: "GET", path: "/task/not-ours" },
  resumeTask: { method: "POST", path: "/task/not-ours:resume" },
  unknownOperation: { method: "POST", path: "/azure/ops/upsertLoadBalancer", body: {} },
  submitOperations: { method: "POST", path: "/azure/ops", body: [{ upsertLoadBalancer: { credentials: "aws-prod" } }] },
  clouddriverGetApplication: { method: "GET", path: "/applications/noazure" },
  clouddriverGetCluster: { method: "GET", path: `/applications/web/clusters/${OTHER.account}/web-prod/azure` },
  clouddriverGetServerGroupFromCluster: {
    method: "GET",
    path: `/applications/web/clusters/${OTHER.account}/web-prod/azure/serverGroups/web-prod-v001`,
  },
  clouddriverGetTargetServerGroup: {
    method: "GET",
    path: `/applications/web/clusters/${OTHER.account}/web-prod/azure/${OTHER.region}/serverGroups/target/current_asg_dynamic`,
  },
  clouddriverGetServerGroup: { method: "GET", path: `/serverGroups/${OTHER.account}/${OTHER.region}/web-prod-v001` },
  // Another provider's instances, and an account this service does not serve: both are Clouddriver's.
  clouddriverSearch: { method: "GET", path: "/search?q=i-0123456789abcdef0&type=instances&cloudProvider=aws" },
  clouddriverGetInstance: { method: "GET", path: `/instances/${OTHER.account}/${OTHER.region}/i-0123456789abcdef0` },
  clouddriverForceCacheRefresh: {
    method: "POST",
    path: "/cache/azure/ServerGroup",
    body: { ...OTHER, serverGroupName: "web-prod-v001" },
  },
};

interface Declared {
  operationId: string;
  responses: Record<string, { description?: string }>;
}

const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
const operations: Declared[] = Object.values<Json>(document.paths).flatMap((item) =>
  ["get", "post", "put", "delete", "patch"].flatMap((m) => (item[m] ? [item[m] as Declared] : [])),
);

void t.test("the routes that declare Clouddriver's 502 and 504 are those that forward", (t) => {
  const declaring = operations.filter((op) => op.responses["502"]?.description?.includes("ClouddriverUnavailable:"));
  t.same(declaring.map((op) => op.operationId).sort(), Object.keys(CLOUDDRIVERS).sort());
  for (const op of declaring)
    t.match(op.responses["504"]?.description, /ClouddriverTimeout:/, `${op.operationId} declares 504 as well`);
  t.end();
});

for (const [operationId, request] of Object.entries(CLOUDDRIVERS)) {
  void t.test(`${operationId}: Clouddriver down is the 502 it declares`, async (t) => {
    const res = await env.api(request.method, request.path, request.body);
    t.equal(res.status, 502, JSON.stringify(res.body));
    t.match(res.body, { statusCode: 502, error: "ClouddriverUnavailable", message: /could not be reached/ });
  });
}
