// Clouddriver behind this service (CLOUDDRIVER_URL): a stand-in Clouddriver, a real HTTP server, must receive exactly
// the requests that are not ours, byte for byte, and answer through us; its task ids are polled through us.
//
// Why everything must pass through: Orca picks a Clouddriver per stage by cloud provider (kork-web
// ByCloudProviderServiceSelector.java l.52-55, SelectableService.java l.17-24), never per path or operation, and
// polls tasks through its read client (orca KatoService.java l.81-87, KatoRestService.java l.88-93).
import t from "tap";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { request } from "undici";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/config.ts";
import { demo, startTestEnv } from "./helpers/service.ts";

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
}

/** A stand-in Clouddriver: records every request, answers by path. */
async function standInClouddriver() {
  const received: Received[] = [];
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
    const path = req.url!.split("?")[0];
    if (path === "/slow") return; // never answers
    if (path === "/task/cd-task-1") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ id: "cd-task-1", status: { phase: "ORCHESTRATION", status: "Orchestration completed.", complete: true, completed: true, failed: false, retryable: false }, history: [], resultObjects: [] }));
    }
    if (path === "/task/cd-task-1:resume") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ id: "cd-task-1", resourceUri: "/task/cd-task-1" }));
    }
    if (path === "/task/cd-unknown") {
      res.writeHead(404, { "content-type": "application/json" });
      return res.end(JSON.stringify({ error: "Not Found", message: "Task not found (id: cd-unknown)", status: 404 }));
    }
    if (req.method === "POST" && /\/ops/.test(path)) {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ id: "cd-task-1", resourceUri: "/task/cd-task-1" }));
    }
    // Anything else: a streamed answer in three chunks, with a header of its own.
    res.writeHead(203, { "content-type": "application/json", "x-clouddriver": "stand-in" });
    res.write('[{"name":');
    await new Promise((r) => setTimeout(r, 20));
    res.write(`"${path}"`);
    await new Promise((r) => setTimeout(r, 20));
    res.end("}]");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    received,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

const clouddriver = await standInClouddriver();
t.teardown(() => clouddriver.close());
const env = await startTestEnv({ writeDurationMs: 40, env: { CLOUDDRIVER_URL: clouddriver.url, CLOUDDRIVER_TIMEOUT_MS: "400" } });
t.teardown(() => env.close());

async function raw(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await request(`${env.baseUrl}${path}`, { method: method as "GET", headers, body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

const orcaHeaders = { "x-spinnaker-user": "deploy-bot@example.com", "x-spinnaker-accounts": "azure-prod,aws-prod", "x-spinnaker-execution-id": "01HX" };

t.test("what is not ours reaches Clouddriver exactly as sent, and its answer comes back as it was sent", async (t) => {
  const before = clouddriver.received.length;
  // A path we do not serve, with Orca's identity headers and a query.
  const read = await raw("GET", "/applications/app/clusters/aws-prod/app-main/aws/serverGroups/app-main-v002?expand=true&x=%2F", undefined, orcaHeaders);
  t.equal(read.status, 203, "status as Clouddriver answered");
  t.equal(read.headers["x-clouddriver"], "stand-in", "headers as Clouddriver answered");
  t.equal(read.text, '[{"name":"/applications/app/clusters/aws-prod/app-main/aws/serverGroups/app-main-v002"}]', "the streamed body, whole");

  // Another cloud's operations: odd spacing and non-ASCII survive, byte for byte.
  const awsBody = '[ {"resizeServerGroup" : {"credentials":"aws-prod", "asgName":"app-v001", "capacity":{"min":0,"max":0,"desired":0}, "note":"café ☕"}} ]';
  const aws = await raw("POST", "/aws/ops?clientRequestId=3f2a", awsBody, { "content-type": "application/json", ...orcaHeaders });
  t.equal(aws.status, 200);
  t.same(JSON.parse(aws.text), { id: "cd-task-1", resourceUri: "/task/cd-task-1" });

  // A list body mixing our operation with one we do not have: all of it goes to Clouddriver.
  const mixed = '[{"resizeServerGroup":{"credentials":"demo","region":"eastus","serverGroupName":"web-prod-v001","capacity":{"min":1,"max":3,"desired":2}}},\n {"upsertLoadBalancer":{"credentials":"demo","region":"eastus","loadBalancerName":"web-lb"}}]';
  const m = await raw("POST", "/azure/ops?clientRequestId=mixed-1", mixed, { "content-type": "application/json" });
  t.equal(m.status, 200);
  t.equal(JSON.parse(m.text).id, "cd-task-1", "Clouddriver's task id");

  // An operation name we do not have, with a body that is not even JSON: forwarded before it is parsed.
  const unknownOp = "name: upsertLoadBalancer\n";
  const u = await raw("POST", "/azure/ops/upsertLoadBalancer", unknownOp, { "content-type": "application/x-yaml" });
  t.equal(u.status, 200);

  const got = clouddriver.received.slice(before);
  t.same(
    got.map((r) => [r.method, r.url, r.body.toString("utf8")]),
    [
      ["GET", "/applications/app/clusters/aws-prod/app-main/aws/serverGroups/app-main-v002?expand=true&x=%2F", ""],
      ["POST", "/aws/ops?clientRequestId=3f2a", awsBody],
      ["POST", "/azure/ops?clientRequestId=mixed-1", mixed],
      ["POST", "/azure/ops/upsertLoadBalancer", unknownOp],
    ],
    "exactly these requests, paths, queries and bodies as sent",
  );
  t.ok(Buffer.from(awsBody, "utf8").equals(got[1].body), "byte for byte");
  for (const i of [0, 1]) {
    t.equal(got[i].headers["x-spinnaker-user"], "deploy-bot@example.com", "Orca's identity headers are kept");
    t.equal(got[i].headers["x-spinnaker-accounts"], "azure-prod,aws-prod");
    t.equal(got[i].headers["x-spinnaker-execution-id"], "01HX");
  }
  t.equal(got[3].headers["content-type"], "application/x-yaml");
  t.equal(got[1].headers["content-length"], String(Buffer.byteLength(awsBody)));

  const local = await env.api("GET", "/task?limit=10");
  t.same(local.body.tasks, [], "none of it became a task here");
  t.same((await env.calls()).filter((c) => c.method !== "GET" || c.path.includes("web-prod")), [], "and none of it touched Azure");
});

t.test("Clouddriver's task ids are polled (and resumed) through us", async (t) => {
  const before = clouddriver.received.length;
  const task = await env.api("GET", "/task/cd-task-1");
  t.equal(task.status, 200);
  t.equal(task.body.id, "cd-task-1");
  t.equal(task.body.status.completed, true);
  const resumed = await raw("POST", "/task/cd-task-1:resume");
  t.equal(resumed.status, 200);
  t.same(JSON.parse(resumed.text), { id: "cd-task-1", resourceUri: "/task/cd-task-1" });
  const unknown = await env.api("GET", "/task/cd-unknown");
  t.equal(unknown.status, 404, "a task neither of us knows: Clouddriver's 404");
  t.match(unknown.body.message, /Task not found \(id: cd-unknown\)/);
  t.same(
    clouddriver.received.slice(before).map((r) => [r.method, r.url]),
    [["GET", "/task/cd-task-1"], ["POST", "/task/cd-task-1:resume"], ["GET", "/task/cd-unknown"]],
  );
});

t.test("what is ours stays here: Clouddriver sees none of it", async (t) => {
  const before = clouddriver.received.length;
  const res = await env.api("POST", "/azure/ops?clientRequestId=ours-1", [{ resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 4, desired: 2 } }) }]);
  t.equal(res.status, 202);
  const done = await env.waitForTask(res.body.id);
  t.equal(done.state, "succeeded");
  t.equal((await env.api("GET", "/health")).status, 200);
  t.equal((await env.api("POST", "/azure/ops/resizeServerGroup", { region: "eastus" })).status, 400, "bad input for our operation is our 400");
  t.equal(clouddriver.received.length, before, "no request reached Clouddriver");
});

t.test("Clouddriver down: a clear JSON 502; too slow: 504", async (t) => {
  const slow = await env.api("GET", "/slow");
  t.equal(slow.status, 504);
  t.equal(slow.body.error, "ClouddriverTimeout");
  t.match(slow.body.message, /did not answer in time \(UND_ERR_HEADERS_TIMEOUT\) for GET \/slow/);

  // A service whose Clouddriver is not there at all (a port nothing listens on).
  const dead = await standInClouddriver();
  await dead.close();
  const service = await buildApp({
    config: loadConfig({ SIMULATOR: "off", TASK_STORE: "memory", ACCOUNTS: '[{"name":"x","subscriptionId":"11111111-2222-3333-4444-555555555555"}]', TRUSTED_NETWORK: "true", CLOUDDRIVER_URL: dead.url }),
    logger: false,
  });
  t.teardown(() => service.close());
  // (GET /applications/{app} itself is served here when Azure has server groups for the app: not a forwarding case.)
  const res = await service.app.inject({ method: "GET", url: "/applications/app/serverGroups" });
  t.equal(res.statusCode, 502);
  t.match(res.headers["content-type"], /application\/json/);
  t.match(res.json(), { statusCode: 502, error: "ClouddriverUnavailable", message: /could not be reached \(ECONNREFUSED\) for GET \/applications\/app\/serverGroups/ });
  const task = await service.app.inject({ method: "GET", url: "/task/not-ours" });
  t.equal(task.statusCode, 502, "an unknown task id while Clouddriver is down: 502, not a misleading 404");
});
