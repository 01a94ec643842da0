// Clouddriver behind this service (CLOUDDRIVER_URL): a stand-in Clouddriver, a real HTTP server, must receive exactly
// the requests that are not ours, byte for byte, and answer through us; its task ids are polled through us.
//
// Why everything must pass through: Orca picks a Clouddriver per stage by cloud provider (kork-web
// ByCloudProviderServiceSelector.java l.52-55, SelectableService.java l.17-24), never per path or operation, and
// polls tasks through its read client (orca KatoService.java l.81-87, KatoRestService.java l.88-93).
import t from "tap";
import { createHash } from "node:crypto";
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { request } from "undici";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { waitFor } from "../testkit/wait-for.ts";
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
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
    const path = req.url!.split("?")[0];
    if (path === "/slow") return; // never answers
    if (path === "/task/cd-task-1") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(
        JSON.stringify({
          id: "cd-task-1",
          status: {
            phase: "ORCHESTRATION",
            status: "Orchestration completed.",
            complete: true,
            completed: true,
            failed: false,
            retryable: false,
          },
          history: [],
          resultObjects: [],
        }),
      );
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
    // Each chunk is handed to the socket before the next is written: three writes on the wire, not one.
    await new Promise((r) => res.write('[{"name":', r));
    await new Promise((r) => res.write(`"${path}"`, r));
    res.end("}]");
  };
  // A stand-in that fails ends the connection, which fails the test's request.
  const server: Server = createServer((req, res) => {
    answer(req, res).catch((err: unknown) => res.destroy(err instanceof Error ? err : new Error(String(err))));
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const clouddriver = await standInClouddriver();
t.teardown(() => clouddriver.close());
const env = await startTestEnv({
  writeDurationMs: 40,
  env: { CLOUDDRIVER_URL: clouddriver.url, CLOUDDRIVER_TIMEOUT_MS: "400" },
});
t.teardown(() => env.close());

async function raw(method: string, path: string, body?: string, headers: Record<string, string> = {}) {
  const res = await request(`${env.baseUrl}${path}`, { method: method as "GET", headers, body });
  return { status: res.statusCode, headers: res.headers, text: await res.body.text() };
}

const orcaHeaders = {
  "x-spinnaker-user": "deploy-bot@example.com",
  "x-spinnaker-accounts": "azure-prod,aws-prod",
  "x-spinnaker-execution-id": "01HX",
};

t.test("what is not ours reaches Clouddriver exactly as sent, and its answer comes back as it was sent", async (t) => {
  const before = clouddriver.received.length;
  // A path we do not serve, with Orca's identity headers and a query.
  const read = await raw(
    "GET",
    "/applications/app/clusters/aws-prod/app-main/aws/serverGroups/app-main-v002?expand=true&x=%2F",
    undefined,
    orcaHeaders,
  );
  t.equal(read.status, 203, "status as Clouddriver answered");
  t.equal(read.headers["x-clouddriver"], "stand-in", "headers as Clouddriver answered");
  t.equal(
    read.text,
    '[{"name":"/applications/app/clusters/aws-prod/app-main/aws/serverGroups/app-main-v002"}]',
    "the streamed body, whole",
  );

  // Another cloud's operations: odd spacing and non-ASCII survive, byte for byte.
  const awsBody =
    '[ {"resizeServerGroup" : {"credentials":"aws-prod", "asgName":"app-v001", "capacity":{"min":0,"max":0,"desired":0}, "note":"café ☕"}} ]';
  const aws = await raw("POST", "/aws/ops?clientRequestId=3f2a", awsBody, {
    "content-type": "application/json",
    ...orcaHeaders,
  });
  t.equal(aws.status, 200);
  t.same(JSON.parse(aws.text), { id: "cd-task-1", resourceUri: "/task/cd-task-1" });

  // A list body mixing our operation with one we do not have: all of it goes to Clouddriver.
  const mixed =
    '[{"resizeServerGroup":{"credentials":"demo","region":"eastus","serverGroupName":"web-prod-v001","capacity":{"min":1,"max":3,"desired":2}}},\n {"upsertLoadBalancer":{"credentials":"demo","region":"eastus","loadBalancerName":"web-lb"}}]';
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
    // No access control here, so nobody is identified: Clouddriver is told "anonymous", whatever the caller claims.
    t.equal(got[i].headers["x-spinnaker-user"], "anonymous", "the caller's identity headers are not ours to pass on");
    t.equal(got[i].headers["x-spinnaker-accounts"], undefined);
    t.equal(got[i].headers["x-spinnaker-execution-id"], "01HX", "other X-SPINNAKER-* headers are kept");
  }
  t.equal(got[3].headers["content-type"], "application/x-yaml");
  t.equal(got[1].headers["content-length"], String(Buffer.byteLength(awsBody)));

  const local = await env.api("GET", "/task?limit=10");
  t.same(local.body.tasks, [], "none of it became a task here");
  t.same(
    (await env.calls()).filter((c) => c.method !== "GET" || c.path.includes("web-prod")),
    [],
    "and none of it touched Azure",
  );
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
    [
      ["GET", "/task/cd-task-1"],
      ["POST", "/task/cd-task-1:resume"],
      ["GET", "/task/cd-unknown"],
    ],
  );
});

t.test("what is ours stays here: Clouddriver sees none of it", async (t) => {
  const before = clouddriver.received.length;
  const res = await env.api("POST", "/azure/ops?clientRequestId=ours-1", [
    { resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 4, desired: 2 } }) },
  ]);
  t.equal(res.status, 202);
  const done = await env.waitForTask(res.body.id);
  t.equal(done.state, "succeeded");
  t.equal((await env.api("GET", "/health")).status, 200);
  t.equal(
    (await env.api("POST", "/azure/ops/resizeServerGroup", { region: "eastus" })).status,
    400,
    "bad input for our operation is our 400",
  );
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
    config: loadConfig({
      SIMULATOR: "off",
      TASK_STORE: "memory",
      ACCOUNTS: '[{"name":"x","subscriptionId":"11111111-2222-3333-4444-555555555555"}]',
      TRUSTED_NETWORK: "true",
      CLOUDDRIVER_URL: dead.url,
    }),
    logger: false,
  });
  t.teardown(() => service.close());
  // (GET /applications/{app} itself is served here when Azure has server groups for the app: not a forwarding case.)
  const res = await service.app.inject({ method: "GET", url: "/applications/app/serverGroups" });
  t.equal(res.statusCode, 502);
  t.match(res.headers["content-type"], /application\/json/);
  t.match(res.json(), {
    statusCode: 502,
    error: "ClouddriverUnavailable",
    message: /could not be reached \(ECONNREFUSED\) for GET \/applications\/app\/serverGroups/,
  });
  const task = await service.app.inject({ method: "GET", url: "/task/not-ours" });
  t.equal(task.statusCode, 502, "an unknown task id while Clouddriver is down: 502, not a misleading 404");
});

// Identity as Gate passes it on: the authenticated principal's name and accounts win over anything the caller sends
// (kork-web .../filters/AuthenticatedRequestFilter.groovy l.84-96), and the outgoing client sets them from that
// (kork-web .../okhttp/SpinnakerRequestHeaderInterceptor.java l.55-62). Only an Orca we trust keeps its own headers.
const TEAM = "team-token-0123456789abcdef";
const READER = "reader-token-0123456789abcdef";
const ORCA = "orca-token-0123456789abcdef";
const PRINCIPALS = `
principals:
  - name: team-a
    tokenSha256: ${createHash("sha256").update(TEAM).digest("hex")}
    accounts: [azure-dev]
  - name: oncall
    token: ${READER}
    accounts: "*"
    readOnly: true
  - name: orca
    token: ${ORCA}
    accounts: "*"
`;
const AZURE_ACCOUNTS = JSON.stringify([
  { name: "azure-prod", subscriptionId: "11111111-2222-3333-4444-555555555555" },
  { name: "azure-dev", subscriptionId: "11111111-2222-3333-4444-666666666666" },
]);

async function identityService(t: { teardown(fn: () => unknown): void }, env: Record<string, string>) {
  const service = await buildApp({
    config: loadConfig({
      SIMULATOR: "off",
      TASK_STORE: "memory",
      ACCOUNTS: AZURE_ACCOUNTS,
      AUTH_TOKENS: PRINCIPALS,
      CLOUDDRIVER_URL: clouddriver.url,
      ...env,
    }),
    logger: false,
  });
  t.teardown(() => service.close());
  await service.app.listen({ host: "127.0.0.1", port: 0 });
  const port = (service.app.server.address() as { port: number }).port;
  // node:http sends the path as given: URL parsers (inject's, undici's) would resolve the dot segments first.
  return async (method: string, path: string, headers: Record<string, string>, payload?: string) => {
    const before = clouddriver.received.length;
    const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(
        {
          host: "127.0.0.1",
          port,
          method,
          path,
          headers: { ...(payload ? { "content-type": "application/json" } : {}), ...headers },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on("data", (c: Buffer) => chunks.push(c));
          res.on("end", () => resolve({ status: res.statusCode!, text: Buffer.concat(chunks).toString("utf8") }));
          res.on("error", reject);
        },
      );
      req.on("error", reject);
      req.end(payload);
    });
    return {
      status: res.status,
      body: res.text ? JSON.parse(res.text) : undefined,
      received: clouddriver.received.slice(before),
    };
  };
}

const awsResize =
  '[{"resizeServerGroup":{"credentials":"aws-prod","asgName":"app-v001","capacity":{"min":0,"max":0,"desired":0}}}]';
const claims = { "x-spinnaker-user": "mallory@example.com", "x-spinnaker-accounts": "aws-prod,azure-prod" };

t.test("forwarded requests carry our principal's identity, never the caller's headers or token", async (t) => {
  const call = await identityService(t, { CLOUDDRIVER_AUTHORIZATION: "Bearer clouddriver-credential" });
  const cases: Array<[string, Record<string, string>, string, string | undefined]> = [
    ["a token's principal of one account", { authorization: `Bearer ${TEAM}` }, "team-a", "azure-dev"],
    [
      "a token's principal claiming another user in headers we do not trust",
      { authorization: `Bearer ${TEAM}`, ...claims },
      "team-a",
      "azure-dev",
    ],
    ["a principal of every account", { authorization: `Bearer ${ORCA}`, ...claims }, "orca", undefined],
  ];
  for (const [what, headers, user, accounts] of cases) {
    const res = await call("GET", "/applications/app/serverGroups", { ...headers, cookie: "SESSION=caller" });
    t.equal(res.status, 203, what);
    t.equal(res.received.length, 1, `${what}: forwarded once`);
    const h = res.received[0].headers;
    t.equal(h["x-spinnaker-user"], user, `${what}: X-SPINNAKER-USER`);
    t.equal(h["x-spinnaker-accounts"], accounts, `${what}: X-SPINNAKER-ACCOUNTS`);
    t.equal(
      h.authorization,
      "Bearer clouddriver-credential",
      `${what}: Clouddriver's own credential, not the caller's token`,
    );
    t.equal(h.cookie, undefined, `${what}: no caller cookie`);
  }
  const anonymous = await call("GET", "/applications/app/serverGroups", claims);
  t.equal(anonymous.status, 401, "no token, headers not trusted: nobody, and nothing forwarded");
  t.equal(anonymous.received.length, 0);
});

t.test("without a credential for Clouddriver, no Authorization header goes at all", async (t) => {
  const call = await identityService(t, {});
  const res = await call("POST", "/aws/ops", { authorization: `Bearer ${ORCA}` }, awsResize);
  t.equal(res.status, 200);
  t.equal(res.received[0].headers.authorization, undefined, "the caller's bearer token stays here");
  t.equal(res.received[0].body.toString("utf8"), awsResize);
});

t.test("a trusted Orca keeps its user; its token narrows the accounts", async (t) => {
  const call = await identityService(t, { AUTH_TRUST_SPINNAKER_HEADERS: "true" });
  const orca = await call("POST", "/aws/ops", claims, awsResize);
  t.equal(orca.status, 200);
  t.equal(orca.received[0].headers["x-spinnaker-user"], "mallory@example.com", "Orca's headers are trusted: its user");
  t.equal(orca.received[0].headers["x-spinnaker-accounts"], "aws-prod,azure-prod", "and its accounts");
  const viaOrcaToken = await call("POST", "/aws/ops", { authorization: `Bearer ${ORCA}`, ...claims }, awsResize);
  t.equal(viaOrcaToken.received[0].headers["x-spinnaker-user"], "mallory@example.com", "the user Orca acts for");
  t.equal(
    viaOrcaToken.received[0].headers["x-spinnaker-accounts"],
    "aws-prod,azure-prod",
    "a token of every account narrows nothing",
  );
  t.equal(viaOrcaToken.received[0].headers.authorization, undefined);
  const viaTeamToken = await call("GET", "/aws/images", { authorization: `Bearer ${TEAM}`, ...claims });
  t.equal(viaTeamToken.received[0].headers["x-spinnaker-user"], "mallory@example.com");
  t.equal(
    viaTeamToken.received[0].headers["x-spinnaker-accounts"],
    "",
    "team-a's token allows none of the accounts claimed",
  );
});

t.test("a read-only principal's forwarded writes get 403 here; its reads go through", async (t) => {
  const call = await identityService(t, {});
  const reader = { authorization: `Bearer ${READER}` };
  for (const [method, url] of [
    ["POST", "/aws/ops"],
    ["POST", "/azure/ops/upsertLoadBalancer"],
    ["DELETE", "/applications/app"],
    ["POST", "/task/cd-task-1:resume"],
  ]) {
    const res = await call(method, url, reader, method === "POST" ? awsResize : undefined);
    t.equal(res.status, 403, `${method} ${url}`);
    t.match(res.body, { error: "Forbidden", message: /oncall may only read/ });
    t.equal(res.received.length, 0, `${method} ${url} never reached Clouddriver`);
  }
  const read = await call("GET", "/aws/images", reader);
  t.equal(read.status, 203);
  t.equal(read.received[0].headers["x-spinnaker-user"], "oncall");
});

t.test(
  "a forwarded write naming an account the principal may not write is refused here, in each shape Orca sends",
  async (t) => {
    // Clouddriver reads a description's account from `credentials` (clouddriver-security .../resources/
    // CredentialsNameable.java l.31; a list too, DefaultAllowedAccountsValidator.groovy l.58-63), `account` or
    // `accountName` (AccountNameable.java l.24; clouddriver-cloudrun .../DeleteCloudrunLoadBalancerDescription.java l.25).
    const call = await identityService(t, {});
    const team = { authorization: `Bearer ${TEAM}` };
    const op = (description: Record<string, unknown>) => JSON.stringify([{ resizeServerGroup: description }]);
    const cases: Array<[string, string, string, string | undefined]> = [
      // orca KatoRestService.java l.25-28: POST /ops, a list of { operationName: description } (deprecated).
      ["POST /ops, credentials", "POST", "/ops", op({ credentials: "aws-prod", asgName: "app-v001" })],
      // l.30-34: POST /{cloudProvider}/ops, the same list.
      ["POST /{cloud}/ops, credentials", "POST", "/aws/ops", op({ credentials: "aws-prod" })],
      ["POST /{cloud}/ops, account", "POST", "/aws/ops", op({ account: "aws-prod" })],
      ["POST /{cloud}/ops, accountName", "POST", "/aws/ops", op({ accountName: "aws-prod" })],
      ["POST /{cloud}/ops, a list of credentials", "POST", "/aws/ops", op({ credentials: ["azure-dev", "aws-prod"] })],
      [
        "POST /{cloud}/ops, one operation of two for another account",
        "POST",
        "/aws/ops",
        JSON.stringify([
          { resizeServerGroup: { credentials: "azure-dev" } },
          { destroyServerGroup: { credentials: "aws-prod" } },
        ]),
      ],
      // l.36-41: POST /{cloudProvider}/ops/{operationName}, the description alone.
      ["POST /{cloud}/ops/{name}", "POST", "/aws/ops/resizeServerGroup", JSON.stringify({ credentials: "aws-prod" })],
      // Our own POST /azure/ops with an operation we do not have: forwarded after parsing, the same rule.
      [
        "POST /azure/ops naming an operation of Clouddriver's",
        "POST",
        "/azure/ops",
        JSON.stringify([{ upsertLoadBalancer: { credentials: "azure-prod" } }]),
      ],
      // l.47-52: POST /{cloudProvider}/task/{id}/restart, the operations again.
      ["POST /{cloud}/task/{id}/restart", "POST", "/aws/task/cd-task-1/restart", op({ credentials: "aws-prod" })],
      // l.61-66: DELETE /applications/{app}/jobs/{account}/{location}/{id}: the account is in the path.
      ["DELETE a job of another account", "DELETE", "/applications/app/jobs/aws-prod/us-east-1/job-1", undefined],
      // A reference nested in the description: a clone's source (read), a wrapped description.
      [
        "POST /{cloud}/ops, a clone whose source is another account's",
        "POST",
        "/aws/ops",
        JSON.stringify([{ cloneServerGroup: { credentials: "azure-dev", source: { account: "aws-prod" } } }]),
      ],
      [
        "POST /{cloud}/ops/{name}, a description nested in the body",
        "POST",
        "/aws/ops/resizeServerGroup",
        JSON.stringify({ description: { credentials: "aws-prod" } }),
      ],
    ];
    for (const [what, method, url, body] of cases) {
      const res = await call(method, url, team, body);
      t.equal(res.status, 403, `${what}: ${JSON.stringify(res.body)}`);
      t.match(
        res.body,
        {
          error: "Forbidden",
          message: /Access denied to account (aws-prod|azure-prod): team-a may use only: azure-dev/,
        },
        what,
      );
      t.equal(res.received.length, 0, `${what}: never reached Clouddriver`);
    }

    // The refusals are on the audit trail, under the account each names: that account's readers see them.
    const refused = await waitFor(
      async () => {
        const audit = await call("GET", "/audit?limit=100", { authorization: `Bearer ${ORCA}` });
        const entries = (audit.body?.entries ?? []) as { decision: string; targets: { account?: string }[] }[];
        const named = entries.filter(
          (e) => e.decision === "refused" && e.targets.some((target) => target.account === "aws-prod"),
        );
        return named.length >= cases.length - 1 ? named : undefined;
      },
      { what: "the refused forwarded writes on the audit trail, naming aws-prod" },
    );
    t.ok(refused.length >= cases.length - 1, "each refusal naming aws-prod is recorded under it");

    const own = op({ credentials: "AZURE-DEV", asgName: "app-v001" });
    const allowed = await call("POST", "/aws/ops", team, own);
    t.equal(allowed.status, 200, "its own account (compared case-insensitively, as Clouddriver does) goes");
    t.equal(allowed.received[0].body.toString("utf8"), own, "byte for byte");
    const ownJob = await call("DELETE", "/applications/app/jobs/azure-dev/us-east-1/job-1", team);
    t.equal(ownJob.received.length, 1, "a job of its own account is canceled through");
    const details = await call("PATCH", "/aws/task/cd-task-1", team, JSON.stringify({ status: "x" }));
    t.equal(details.received.length, 1, "a write that names no account goes: Clouddriver decides on what it holds");

    const notJson = "credentials=aws-prod";
    const unreadable = await call("POST", "/aws/ops", { ...team, "content-type": "text/plain" }, notJson);
    t.equal(unreadable.status, 403, "a body that is not JSON: its account cannot be read");
    t.match(unreadable.body.message, /not JSON.*only a principal of every account may forward it/);
    t.equal(unreadable.received.length, 0);
    const byOrca = await call(
      "POST",
      "/aws/ops",
      { authorization: `Bearer ${ORCA}`, "content-type": "text/plain" },
      notJson,
    );
    t.equal(byOrca.status, 200, "a principal of every account forwards it");
    t.equal(byOrca.received[0].body.toString("utf8"), notJson);
  },
);

t.test("dot segments, plain or encoded, cannot climb out of CLOUDDRIVER_URL's prefix", async (t) => {
  const call = await identityService(t, { CLOUDDRIVER_URL: `${clouddriver.url}/clouddriver` });
  const ok = await call("GET", "/aws/images?q=..%2F", { authorization: `Bearer ${ORCA}` });
  t.equal(ok.status, 203);
  t.equal(ok.received[0].url, "/clouddriver/aws/images?q=..%2F", "the prefix is kept; a query is not a path");
  for (const path of [
    "/aws/../../admin",
    "/aws/%2e%2e/%2E%2e/admin",
    "/aws/.%2E/admin",
    "/./admin",
    "/aws/..%2fadmin",
    "/aws/%2e%2e%5cadmin",
  ]) {
    const res = await call("GET", path, { authorization: `Bearer ${ORCA}` });
    t.equal(res.status, 400, path);
    t.match(
      res.body,
      { error: "InvalidPath", message: /must stay under http:\/\/127\.0\.0\.1:\d+\/clouddriver/ },
      path,
    );
    t.equal(res.received.length, 0, `${path} never reached Clouddriver`);
  }
});

t.test("an instance search: a VM found here is answered here; one not found here is Clouddriver's", async (t) => {
  const sg = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  const vm = sg.body.instances[0].name as string;
  const before = clouddriver.received.length;
  const ours = await env.api("GET", `/search?q=${vm}&type=instances&cloudProvider=azure`);
  t.equal(ours.status, 200);
  t.match(ours.body, [{ totalMatches: 1, results: [{ account: "demo", serverGroup: "web-prod-v001" }] }]);
  const instance = await env.api("GET", `/instances/demo/eastus/${vm}`);
  t.equal(instance.status, 200);
  t.equal(instance.body.name, vm);
  t.equal(clouddriver.received.length, before, "Clouddriver was not asked");
  const theirs = await raw("GET", "/search?q=i-0abc123&type=instances&cloudProvider=aws");
  t.equal(theirs.status, 203, "Clouddriver's answer");
  t.equal(clouddriver.received.at(-1)?.url, "/search?q=i-0abc123&type=instances&cloudProvider=aws", "as sent");
  const elsewhere = await raw("GET", "/instances/aws-prod/us-east-1/i-0abc123");
  t.equal(elsewhere.status, 203, "an account not served here is Clouddriver's");
});
