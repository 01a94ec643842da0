// What the service tells a caller it does not know, and how clearly it says what went wrong: /health says "up" and
// nothing else without credentials, /metrics (labels naming accounts and scale sets) needs a token once principals
// exist, cluster regions must be Azure region names, and a failed VM listing names its scale set.
import t from "tap";
import { request } from "undici";
import { startTestEnv } from "./helpers/service.ts";

const TOKEN = "disclosure-token-0123456789";
const PRINCIPALS = JSON.stringify([{ name: "pipeline-a", token: TOKEN, accounts: ["demo"] }]);

async function get(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  const res = await request(`${baseUrl}${path}`, { headers });
  const text = await res.body.text();
  return { status: res.statusCode, text, body: text.startsWith("{") ? JSON.parse(text) : undefined };
}

t.test("with principals: /health is up and nothing more without a token; /metrics needs one", async (t) => {
  const env = await startTestEnv({ env: { AUTH_TOKENS: PRINCIPALS } });
  t.teardown(() => env.close());
  const anonymous = await get(env.baseUrl, "/health");
  t.equal(anonymous.status, 200);
  t.same(anonymous.body, { status: "ok" }, "no account names, operations or task counts");
  const known = await get(env.baseUrl, "/health", { authorization: `Bearer ${TOKEN}` });
  t.match(known.body, { status: "ok", accounts: ["demo"], activeTasks: 0 });
  const wrong = await get(env.baseUrl, "/health", { authorization: "Bearer not-a-token-0123456789" });
  t.same(wrong.body, { status: "ok" }, "a wrong token is no token");
  const metrics = await get(env.baseUrl, "/metrics");
  t.equal(metrics.status, 401);
  t.notMatch(metrics.text, /demo|web-prod/, "the 401 names no account or scale set");
  t.equal((await get(env.baseUrl, "/metrics", { authorization: `Bearer ${TOKEN}` })).status, 200);
});

t.test("without access control (the simulator quickstart) /health shows its details", async (t) => {
  const env = await startTestEnv();
  t.teardown(() => env.close());
  t.match((await get(env.baseUrl, "/health")).body, { status: "ok", accounts: ["demo"] });
  t.equal((await get(env.baseUrl, "/metrics")).status, 200);
});

t.test("cluster regions must be Azure region names; a failed VM listing names its scale set", async (t) => {
  const env = await startTestEnv({ writeDurationMs: 40 });
  t.teardown(() => env.close());
  for (const regions of [["East US"], ["eastus", "../westus"], ["eastus\u0000"], [""]]) {
    const res = await env.api("POST", "/azure/ops/scaleDownCluster", {
      credentials: "demo",
      cluster: "web-prod",
      regions,
    });
    t.equal(res.status, 400, JSON.stringify(regions));
    t.match(res.body.message, /regions\[\d\]: must be an Azure region name such as eastus/, JSON.stringify(regions));
  }
  const region = await env.api("POST", "/azure/ops/disableCluster", {
    credentials: "demo",
    cluster: "web-prod",
    region: "EastUS!",
  });
  t.equal(region.status, 400);
  t.match(region.body.message, /^region: must be an Azure region name/);

  // A final error on the VM listing (Azure's text alone would not say which scale set).
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "web-prod-v001/virtualMachines",
    status: 400,
    code: "BadRequest",
    message: "Bad page",
    count: 100,
  });
  const read = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  t.ok(read.status >= 400 && read.status < 600, `the read failed (${read.status})`);
  t.match(
    read.body.message,
    /listing the VMs of scale set demo-rg\/web-prod-v001 \(after 0 VM\(s\)\)/,
    JSON.stringify(read.body),
  );
  await env.simControl("DELETE", "/_sim/faults");
});
