// Access control, generated from the route table: every route that is not explicitly open answers 401 without
// valid credentials, and every account-scoped route answers 403 for a principal of another team. A new route
// without a sample here fails the test, so it cannot be forgotten.
import t from "tap";
import { createHash } from "node:crypto";
import { request } from "undici";
import { loadConfig } from "../src/startup-config.ts";
import { ConfigError } from "../src/config.ts";
import { SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import { demo, startTestEnv, type TestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";
import { readFile } from "node:fs/promises";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";
import { waitFor } from "../testkit/wait-for.ts";

const TEAM_A = "team-a-token-0123456789abcdef";
const TEAM_B = "team-b-token-0123456789abcdef";
const READER = "reader-token-0123456789abcdef";
const ORCA = "orca-service-token-0123456789";

/** team-b is a second account on the same simulator: another team's scale sets. */
const ACCOUNTS = JSON.stringify([
  {
    name: "team-b",
    subscriptionId: SIMULATOR_SUBSCRIPTION_ID,
    defaultResourceGroup: "demo-rg",
    serverGroupResourceGroup: "account",
    regions: ["eastus"],
    credential: "simulator",
  },
]);
const PRINCIPALS = `
principals:
  - name: team-a
    tokenSha256: ${createHash("sha256").update(TEAM_A).digest("hex")}
    accounts: [demo]
  - name: team-b
    tokenEnv: TEAM_B_TOKEN
    accounts: [team-b]
  - name: oncall
    token: ${READER}
    accounts: "*"
    readOnly: true
  - name: orca
    token: ${ORCA}
    accounts: "*"
`;

async function call(env: TestEnv, method: string, path: string, headers: Record<string, string> = {}, body?: unknown) {
  const res = await request(`${env.baseUrl}${path}`, {
    method: method as "GET",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  let parsed: Json;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  return { status: res.statusCode, body: parsed, headers: res.headers };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function waitForTask(env: TestEnv, id: string, headers: Record<string, string>) {
  return waitFor(
    async () => {
      const res = await call(env, "GET", `/task/${id}`, headers);
      if (res.status !== 200) throw new Error(`GET /task/${id}: ${res.status} ${JSON.stringify(res.body)}`);
      return res.body.status.completed === true && res.body;
    },
    { what: `task ${id} to complete`, timeoutMs: 30_000, intervalMs: 25 },
  );
}

t.test("routes need credentials, and a team cannot touch another team's accounts", async (t) => {
  const env = await startTestEnv({ env: { ACCOUNTS, AUTH_TOKENS: PRINCIPALS, TEAM_B_TOKEN: TEAM_B } });
  t.teardown(() => env.close());

  // A task of team A, to try to read as team B.
  const submitted = await call(
    env,
    "POST",
    "/azure/ops/resizeServerGroup",
    bearer(TEAM_A),
    demo("web-prod-v001", { capacity: { min: 1, max: 4, desired: 2 } }),
  );
  t.equal(submitted.status, 202, JSON.stringify(submitted.body));
  const taskId = submitted.body.id as string;
  // Another, for the cancel route: its owner's call (below) does cancel it, and the task above must run to its end.
  const toCancel = await call(
    env,
    "POST",
    "/azure/ops/resizeServerGroup",
    bearer(TEAM_A),
    demo("web-prod-v002", { capacity: { min: 1, max: 4, desired: 2 } }),
  );
  t.equal(toCancel.status, 202, JSON.stringify(toCancel.body));

  type Sample = { path: string; body?: unknown } | { none: string };
  const opBody = demo("web-prod-v001", { capacity: { min: 1, max: 3, desired: 2 } });
  /** For each account-scoped route: a request on team A's account; for the others, why there is no 403. */
  function forbiddenSample(method: string, url: string): Sample | undefined {
    if (method === "POST" && url === "/azure/ops/:operation")
      return { none: "an unknown operation is a 404 for everyone" };
    if (method === "POST" && url.startsWith("/azure/ops/")) return { path: url, body: opBody };
    if (method === "POST" && url === "/azure/ops")
      return { path: url, body: [{ [url.split("/")[3] ?? "resizeServerGroup"]: opBody }] };
    if (method === "GET" && url === "/azure/serverGroups/:account/:region/:resourceGroup/:name")
      return { path: "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001" };
    if (method === "GET" && url === "/task/:id") return { path: `/task/${taskId}` };
    if (method === "GET" && url === "/task") return { none: "lists only the caller's tasks (checked below)" };
    if (method === "GET" && url === "/audit")
      return { none: "lists only entries of the caller's accounts (test/audit.test.ts)" };
    if (method === "GET" && url === "/azure/rateLimits") return { none: "lists only the caller's subscriptions" };
    if (method === "GET" && url === "/accounts/:account/checks") return { path: "/accounts/demo/checks" };
    if (method === "GET" && url === "/accounts/:account/resource-groups/:resourceGroup/contents")
      return { path: "/accounts/demo/resource-groups/demo-rg/contents" };
    if (method === "GET" && url === "/accounts/:account/regions/:region/vm-sizes")
      return { path: "/accounts/demo/regions/eastus/vm-sizes" };
    if (method === "GET" && url === "/checks/latest")
      return { none: "lists only the caller's accounts (checked below)" };
    if (method === "GET" && url === "/ui/api/tasks/:id") return { path: `/ui/api/tasks/${taskId}` };
    if (method === "GET" && url === "/ui/api/tasks") return { none: "lists only the caller's tasks (checked below)" };
    if (method === "GET" && url === "/ui/api/inventory")
      return { none: "lists only the caller's accounts (checked below)" };
    if (method === "POST" && url === "/task/:id(^[^:/]+)::resume") return { path: `/task/${taskId}:resume` };
    if (method === "POST" && url === "/task/:id/cancel") return { path: `/task/${toCancel.body.id}/cancel` };
    // Clouddriver's reads, as Orca makes them (test/orca-contract.test.ts follows each to Orca's source).
    if (method === "GET" && url === "/applications/:app")
      return { none: "lists only the caller's accounts (checked below)" };
    if (method === "GET" && url === "/applications/:app/clusters/:account/:cluster/azure")
      return { path: "/applications/web/clusters/demo/web-prod/azure" };
    if (method === "GET" && url === "/applications/:app/clusters/:account/:cluster/azure/serverGroups/:serverGroup")
      return { path: "/applications/web/clusters/demo/web-prod/azure/serverGroups/web-prod-v001" };
    if (
      method === "GET" &&
      url === "/applications/:app/clusters/:account/:cluster/azure/:scope/serverGroups/target/:target"
    )
      return { path: "/applications/web/clusters/demo/web-prod/azure/eastus/serverGroups/target/current_asg_dynamic" };
    if (method === "GET" && url === "/serverGroups/:account/:region/:serverGroup")
      return { path: "/serverGroups/demo/eastus/web-prod-v001" };
    if (method === "GET" && url === "/instances/:account/:region/:id")
      return { path: "/instances/demo/eastus/web-prod-v001_0" };
    if (method === "GET" && url === "/search") return { none: "finds only in the caller's accounts (checked below)" };
    if (method === "GET" && url === "/cache/azure/ServerGroup")
      return { none: "always an empty list: it names no account" };
    if (method === "GET" && url === "/features/stages")
      return { none: "the same operation list for everyone: it names no account" };
    if (method === "POST" && url === "/cache/azure/ServerGroup")
      return { path: url, body: { account: "demo", region: "eastus", serverGroupName: "web-prod-v001" } };
    return undefined;
  }

  const apiRoutes = env.service.routes.filter((r) => r.access === "api" && r.method !== "HEAD");
  t.ok(apiRoutes.length >= 8, `the route table has the API routes (${apiRoutes.length})`);
  for (const route of apiRoutes) {
    const path = route.url.replace(/:(\w+)/g, "x");
    for (const [label, headers] of [
      ["no credentials", {}],
      ["a wrong token", bearer("not-a-valid-token-at-all-0000")],
      ["a malformed header", { authorization: "Basic dXNlcjpwYXNz" }],
    ] as const) {
      const res = await call(env, route.method, path, headers);
      t.equal(res.status, 401, `${route.method} ${route.url} with ${label}`);
      t.equal(res.body?.error, "Unauthorized");
      t.type(res.body?.message, "string");
      t.match(res.headers["www-authenticate"], /^Bearer/);
    }
    const sample = forbiddenSample(route.method, route.url);
    if (!sample) {
      t.fail(`${route.method} ${route.url}: no 403 sample; add one to forbiddenSample (or say why there is none)`);
      continue;
    }
    if ("none" in sample) continue;
    const res = await call(env, route.method, sample.path, bearer(TEAM_B), sample.body);
    t.equal(res.status, 403, `${route.method} ${route.url} as team B on team A's account: ${JSON.stringify(res.body)}`);
    t.equal(res.body?.error, "Forbidden");
    t.match(res.body?.message, /Access denied to account demo/);
    // The owner gets through (whatever the answer: not 401/403).
    const owner = await call(env, route.method, sample.path, bearer(TEAM_A), sample.body);
    t.notOk([401, 403].includes(owner.status), `${route.method} ${route.url} as team A: ${owner.status}`);
  }

  // The document says how to call every route: a route added without a security requirement, or with one that
  // is not what access control enforces, fails here.
  const document = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
  const requirement = { public: [], metrics: [{ bearer: [] }, {}], api: [{ bearer: [] }] };
  t.same(document.components.securitySchemes.bearer, {
    ...document.components.securitySchemes.bearer,
    type: "http",
    scheme: "bearer",
  });
  for (const route of env.service.routes) {
    t.same(
      route.security,
      requirement[route.access],
      `${route.method} ${route.url}: security as its access (${route.access})`,
    );
    if (!route.documented || route.method === "HEAD") continue;
    const path = route.url
      .replaceAll("::", "\u0000")
      .replace(/:(\w+)(\([^)]*\))?/g, "{$1}")
      .replaceAll("\u0000", ":");
    const operation = document.paths[path]?.[route.method.toLowerCase()];
    t.ok(operation, `${route.method} ${route.url} is in the document as ${path}`);
    t.same(
      operation?.security,
      requirement[route.access],
      `${route.method} ${path}: the document declares its security`,
    );
  }

  const open = env.service.routes.filter(
    (r) => r.access === "public" && r.method === "GET" && !r.url.includes(":") && !r.url.includes("*"),
  );
  t.ok(
    open.some((r) => r.url === "/health"),
    "/health is open",
  );
  for (const route of open) {
    const res = await call(env, "GET", route.url);
    t.notOk([401, 403].includes(res.status), `${route.url} is open (${res.status})`);
  }

  await t.test("task lists show only the caller's tasks", async (t) => {
    const b = await call(env, "GET", "/task", bearer(TEAM_B));
    t.equal(b.status, 200);
    t.notOk(
      b.body.tasks.some((task: { id: string }) => task.id === taskId),
      "team B does not see team A's task",
    );
    const a = await call(env, "GET", "/task", bearer(TEAM_A));
    t.ok(
      a.body.tasks.some((task: { id: string }) => task.id === taskId),
      "team A sees it",
    );
    const uiB = await call(env, "GET", "/ui/api/tasks", bearer(TEAM_B));
    t.equal(uiB.status, 200);
    t.notOk(
      [...uiB.body.inFlight, ...uiB.body.recent].some((task: { id: string }) => task.id === taskId),
      "nor on the status page",
    );
    const uiA = await call(env, "GET", "/ui/api/tasks", bearer(TEAM_A));
    t.ok([...uiA.body.inFlight, ...uiA.body.recent].some((task: { id: string }) => task.id === taskId));
  });

  await t.test("an instance search finds only in the caller's accounts", async (t) => {
    t.ok((await env.simControl("PUT", "/_sim/scaleSets/demo-rg/acs-web-v001", { capacity: 1 })).status < 300);
    const path = "/search?q=acs-web-v001_0&type=instances&cloudProvider=azure";
    const a = await call(env, "GET", path, bearer(TEAM_A));
    t.equal(a.status, 200);
    t.same(
      a.body[0].results.map((r: { account: string; serverGroup: string }) => `${r.account}/${r.serverGroup}`),
      ["demo/acs-web-v001"],
    );
    const b = await call(env, "GET", path, bearer(TEAM_B));
    t.equal(b.status, 200);
    // team-b's account lists the same resource group: team B finds the VM there, never in demo.
    t.same(
      b.body[0].results.map((r: { account: string }) => r.account),
      ["team-b"],
      "team B does not see it in demo",
    );
  });

  await t.test("an application's view shows only the caller's accounts", async (t) => {
    const a = await call(env, "GET", "/applications/web", bearer(TEAM_A));
    t.equal(a.status, 200);
    t.ok(a.body.clusters.demo, "team A sees the demo account's clusters");
    const b = await call(env, "GET", "/applications/web", bearer(TEAM_B));
    t.notOk(b.body?.clusters?.demo, `team B does not (${b.status})`);
    const inventoryA = await call(env, "GET", "/ui/api/inventory", bearer(TEAM_A));
    t.ok(
      inventoryA.body.accounts.some((a: { name: string }) => a.name === "demo"),
      "the status page's inventory shows team A the demo account",
    );
    const inventoryB = await call(env, "GET", "/ui/api/inventory", bearer(TEAM_B));
    t.equal(inventoryB.status, 200);
    t.notOk(
      inventoryB.body.accounts.some((a: { name: string }) => a.name === "demo"),
      "and not team B",
    );
    // The last check results the status page shows: only the caller's accounts.
    t.equal((await call(env, "GET", "/accounts/demo/checks", bearer(TEAM_A))).status, 200);
    const latest = (token: string) =>
      call(env, "GET", "/checks/latest", bearer(token)).then((r) =>
        (r.body.accounts as { account: string }[]).map((a) => a.account),
      );
    t.same(await latest(TEAM_A), ["demo"], "team A sees the demo account's last checks");
    t.same(await latest(TEAM_B), [], "and not team B");
  });

  await t.test("a read-only principal reads everything and writes nothing", async (t) => {
    t.equal((await call(env, "GET", `/task/${taskId}`, bearer(READER))).status, 200);
    t.equal(
      (await call(env, "GET", "/azure/serverGroups/team-b/eastus/demo-rg/web-prod-v002", bearer(READER))).status,
      200,
    );
    const write = await call(env, "POST", "/azure/ops/resizeServerGroup", bearer(READER), opBody);
    t.equal(write.status, 403);
    t.match(write.body.message, /may only read/);
  });

  await t.test("Orca's identity headers are ignored unless trusted", async (t) => {
    const res = await call(
      env,
      "POST",
      "/azure/ops/resizeServerGroup",
      { "x-spinnaker-user": "alice@example.com", "x-spinnaker-accounts": "demo" },
      opBody,
    );
    t.equal(res.status, 401);
  });

  t.equal((await waitForTask(env, taskId, bearer(TEAM_A))).state, "succeeded");
});

t.test(
  "Orca's identity headers, when trusted: a description for an account not in X-SPINNAKER-ACCOUNTS is a 403",
  async (t) => {
    // kork-core .../kork/common/Header.java:27-28 names the headers; kork-security .../AuthenticatedRequest.java:72
    // joins the accounts with commas; clouddriver-security .../DefaultAllowedAccountsValidator.groovy:87 matches them
    // case-insensitively, and clouddriver-core .../DescriptionAuthorizerService.java:117 says "Access denied to account".
    const env = await startTestEnv({
      env: { ACCOUNTS, AUTH_TOKENS: PRINCIPALS, TEAM_B_TOKEN: TEAM_B, AUTH_TRUST_SPINNAKER_HEADERS: "true" },
    });
    t.teardown(() => env.close());
    const body = [{ resizeServerGroup: demo("web-prod-v002", { capacity: { min: 1, max: 3, desired: 1 } }) }];

    const allowed = await call(
      env,
      "POST",
      "/azure/ops",
      { "x-spinnaker-user": "alice@example.com", "x-spinnaker-accounts": "team-b, DEMO" },
      body,
    );
    t.equal(allowed.status, 202, JSON.stringify(allowed.body));
    const other = await call(
      env,
      "POST",
      "/azure/ops",
      { "x-spinnaker-user": "bob@example.com", "x-spinnaker-accounts": "team-b" },
      body,
    );
    t.equal(other.status, 403);
    t.match(other.body.message, /Access denied to account demo/);
    t.match(other.body.message, /bob@example\.com/);
    const none = await call(env, "POST", "/azure/ops", { "x-spinnaker-user": "carol@example.com" }, body);
    t.equal(none.status, 403, "no X-SPINNAKER-ACCOUNTS: no account");
    t.equal(
      (
        await call(env, "GET", `/task/${allowed.body.id}`, {
          "x-spinnaker-user": "bob@example.com",
          "x-spinnaker-accounts": "team-b",
        })
      ).status,
      403,
      "nor can bob read alice's task",
    );
    t.equal(
      (
        await call(env, "GET", `/task/${allowed.body.id}`, {
          "x-spinnaker-user": "alice@example.com",
          "x-spinnaker-accounts": "demo",
        })
      ).status,
      200,
    );
    t.equal(
      (
        await call(env, "GET", `/task/${allowed.body.id}`, {
          "x-spinnaker-user": "bob@example.com",
          "x-spinnaker-accounts": "team-b",
        })
      ).status,
      403,
      "an answer already built for alice is not bob's either",
    );

    // A token and the headers: the token's service acts for the user, within both.
    const narrowed = await call(
      env,
      "POST",
      "/azure/ops",
      { ...bearer(TEAM_B), "x-spinnaker-user": "alice@example.com", "x-spinnaker-accounts": "demo,team-b" },
      body,
    );
    t.equal(narrowed.status, 403, "team B's token cannot be widened by headers");
    const orca = await call(
      env,
      "POST",
      "/azure/ops",
      { ...bearer(ORCA), "x-spinnaker-user": "alice@example.com", "x-spinnaker-accounts": "demo" },
      body,
    );
    t.equal(orca.status, 202);
    t.equal(
      (
        await waitForTask(env, allowed.body.id, {
          "x-spinnaker-user": "alice@example.com",
          "x-spinnaker-accounts": "demo",
        })
      ).state,
      "succeeded",
    );
    t.equal((await waitForTask(env, orca.body.id, bearer(ORCA))).state, "succeeded");
  },
);

t.test("Orca's headers bound to source networks: a forged Orca call from elsewhere is refused", async (t) => {
  // Every call here comes from 127.0.0.1: trusting only 10.0.0.0/8 makes each of them "elsewhere".
  const body = [{ resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 3, desired: 1 } }) }];
  const orcaHeaders = { "x-spinnaker-user": "alice@example.com", "x-spinnaker-accounts": "demo" };
  const elsewhere = await startTestEnv({
    env: {
      ACCOUNTS,
      AUTH_TOKENS: PRINCIPALS,
      TEAM_B_TOKEN: TEAM_B,
      AUTH_TRUST_SPINNAKER_HEADERS: "true",
      AUTH_SPINNAKER_HEADERS_FROM: "10.0.0.0/8, fd00::/8",
    },
  });
  t.teardown(() => elsewhere.close());
  const forged = await call(elsewhere, "POST", "/azure/ops", orcaHeaders, body);
  t.equal(forged.status, 401, JSON.stringify(forged.body));
  t.match(
    forged.body.message,
    /X-SPINNAKER-USER is trusted only from 10\.0\.0\.0\/8, fd00::\/8; this request comes from 127\.0\.0\.1/,
  );
  t.match(forged.headers["www-authenticate"], /error="invalid_request"/);
  const withToken = await call(elsewhere, "POST", "/azure/ops", { ...bearer(ORCA), ...orcaHeaders }, body);
  t.equal(withToken.status, 401, "a token does not make forged headers acceptable");
  t.equal((await call(elsewhere, "POST", "/azure/ops", bearer(TEAM_A), body)).status, 202, "a token alone still works");

  const local = await startTestEnv({
    env: { ACCOUNTS, AUTH_TRUST_SPINNAKER_HEADERS: "true", AUTH_SPINNAKER_HEADERS_FROM: "127.0.0.0/8" },
  });
  t.teardown(() => local.close());
  const fromOrca = await call(local, "POST", "/azure/ops", orcaHeaders, body);
  t.equal(fromOrca.status, 202, "from a trusted network the same headers are Orca's");

  t.throws(
    () => loadConfig({ AUTH_TRUST_SPINNAKER_HEADERS: "true", AUTH_SPINNAKER_HEADERS_FROM: "10.0.0.0/33" }),
    /AUTH_SPINNAKER_HEADERS_FROM: "10\.0\.0\.0\/33" is not a network/,
  );
  t.throws(() => loadConfig({ AUTH_SPINNAKER_HEADERS_FROM: "10.0.0.0/8" }), /needs AUTH_TRUST_SPINNAKER_HEADERS=true/);
});

t.test("/metrics can be protected; /health and /ready stay open", async (t) => {
  const env = await startTestEnv({
    env: { ACCOUNTS, AUTH_TOKENS: PRINCIPALS, TEAM_B_TOKEN: TEAM_B, METRICS_REQUIRE_TOKEN: "true" },
  });
  t.teardown(() => env.close());
  const anonymous = await call(env, "GET", "/metrics");
  t.equal(anonymous.status, 401);
  t.equal(anonymous.body.error, "Unauthorized");
  const withToken = await call(env, "GET", "/metrics", bearer(READER));
  t.equal(withToken.status, 200);
  t.match(withToken.body, /vmssops_tasks_total/);
  t.equal((await call(env, "GET", "/health")).status, 200);
  t.not((await call(env, "GET", "/ready")).status, 401);
  t.throws(() => loadConfig({ METRICS_REQUIRE_TOKEN: "true" }), /METRICS_REQUIRE_TOKEN needs principals/);

  // Its labels name accounts and scale sets: with principals configured it needs a token unless opened on purpose.
  const byDefault = await startTestEnv({ env: { ACCOUNTS, AUTH_TOKENS: PRINCIPALS, TEAM_B_TOKEN: TEAM_B } });
  t.teardown(() => byDefault.close());
  t.equal(
    (await call(byDefault, "GET", "/metrics")).status,
    401,
    "protected by default when principals are configured",
  );
  const open = await startTestEnv({
    env: { ACCOUNTS, AUTH_TOKENS: PRINCIPALS, TEAM_B_TOKEN: TEAM_B, METRICS_REQUIRE_TOKEN: "false" },
  });
  t.teardown(() => open.close());
  t.equal((await call(open, "GET", "/metrics")).status, 200, "opened on purpose");
});

t.test("open by default with only the simulator; real accounts need access control or TRUSTED_NETWORK", async (t) => {
  const env = await startTestEnv();
  t.teardown(() => env.close());
  t.equal(
    (await call(env, "GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v001")).status,
    200,
    "the quickstart needs no token",
  );

  const real = JSON.stringify([
    { name: "prod", subscriptionId: "11111111-2222-3333-4444-555555555555", credential: "default" },
  ]);
  t.throws(
    () => loadConfig({ ACCOUNTS: real }),
    /account\(s\) prod reach real Azure, but no access control is configured/,
  );
  t.throws(() => loadConfig({ ACCOUNTS: real }), ConfigError);
  t.ok(loadConfig({ ACCOUNTS: real, TRUSTED_NETWORK: "true" }));
  t.ok(loadConfig({ ACCOUNTS: real, AUTH_TRUST_SPINNAKER_HEADERS: "true" }));
  t.ok(
    loadConfig({
      ACCOUNTS: real,
      AUTH_TOKENS: PRINCIPALS.replace("tokenEnv: TEAM_B_TOKEN", `token: ${TEAM_B}`).replace("[team-b]", "[prod]"),
    }),
  );
});

t.test("the token configuration is checked, and never quotes a token", async (t) => {
  const cases: [string, RegExp][] = [
    ["principals: [{ name: a, accounts: '*' }]", /principal "a": give exactly one of tokenSha256, tokenEnv, token/],
    ["principals: [{ name: a, accounts: '*', token: short }]", /at least 16 characters/],
    ["principals: [{ name: a, accounts: [nope], token: aaaaaaaaaaaaaaaaaaaa }]", /names unknown account\(s\) nope/],
    ["principals: [{ name: a, accounts: '*', tokenSha256: xyz }]", /64 hex digits/],
    ["principals: [{ name: a, accounts: '*', tokenEnv: MISSING_TOKEN_VAR }]", /MISSING_TOKEN_VAR is not set/],
    ["principals: [{ name: a, accounts: '*', token: aaaaaaaaaaaaaaaaaaaa, role: admin }]", /unknown key "role"/],
    [
      "principals: [{ name: a, accounts: '*', token: aaaaaaaaaaaaaaaaaaaa }, { name: b, accounts: '*', token: aaaaaaaaaaaaaaaaaaaa }]",
      /same token/,
    ],
    ["{", /AUTH_TOKENS is not valid YAML or JSON/],
    // OpenID Connect: the issuer section and each principal's match.
    [
      "{ oidc: { issuer: 'https://issuer/v2.0', audience: app }, principals: [{ name: a, accounts: '*', oidc: { roles: [r] }, token: aaaaaaaaaaaaaaaaaaaa }] }",
      /give either oidc or one of tokenSha256, tokenEnv, token/,
    ],
    ["{ principals: [{ name: a, accounts: '*', oidc: { roles: [r] } }] }", /no oidc section names the issuer/],
    [
      "{ oidc: { issuer: 'https://issuer/v2.0', audience: app }, principals: [{ name: a, accounts: '*', token: aaaaaaaaaaaaaaaaaaaa }] }",
      /no principal says which tokens it is/,
    ],
    [
      "{ oidc: { issuer: 'https://issuer/v2.0', audience: app }, principals: [{ name: a, accounts: '*', oidc: { scopes: [x] } }] }",
      /oidc has an unknown key "scopes"; known: roles, groups, applications, objectIds/,
    ],
    [
      "{ oidc: { issuer: 'http://issuer/v2.0', audience: app }, principals: [{ name: a, accounts: '*', oidc: { roles: [r] } }] }",
      /oidc.issuer must be the issuer's https:\/\/ URL/,
    ],
    [
      "{ oidc: { issuer: 'https://issuer/v2.0' }, principals: [{ name: a, accounts: '*', oidc: { roles: [r] } }] }",
      /oidc.audience must be/,
    ],
    [
      "{ oidc: { issuer: 'https://issuer/v2.0', audience: app, algorithms: [HS256] }, principals: [{ name: a, accounts: '*', oidc: { roles: [r] } }] }",
      /never none or HS\*/,
    ],
    [
      "{ oidc: { issuer: 'https://issuer/v2.0', audience: app, algorithms: [none] }, principals: [{ name: a, accounts: '*', oidc: { roles: [r] } }] }",
      /never none or HS\*/,
    ],
  ];
  for (const [text, message] of cases) {
    const err = t.throws(() => loadConfig({ AUTH_TOKENS: text }), message, text) as Error;
    t.notMatch(err?.message ?? "", /aaaaaaaaaaaaaaaaaaaa/, "the token is not in the message");
  }
});
