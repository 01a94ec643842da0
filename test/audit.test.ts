// The audit trail through the API: every accepted change (a submission, a cancel, a resume, a write forwarded to
// Clouddriver) and every refusal of an identified caller (403, 409) has its entry, with who and how proven, from
// where, what and the outcome; GET /audit shows a caller the entries of its accounts only; a task's answer says who
// submitted, canceled and resumed it; each entry is one JSON log line with `audit: true`.
import t from "tap";
import type { Json } from "../testkit/json.ts";
import { createHash } from "node:crypto";
import { createServer, type Server } from "node:http";
import { request } from "undici";
import { SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import { demo, startTestEnv, type TestEnv } from "./helpers/service.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import { waitFor } from "../testkit/wait-for.ts";

const TEAM_A = "team-a-token-0123456789abcdef";
const TEAM_B = "team-b-token-0123456789abcdef";
const READER = "reader-token-0123456789abcdef";
const ORCA = "orca-service-token-0123456789";

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
    token: ${TEAM_B}
    accounts: [team-b]
  - name: oncall
    token: ${READER}
    accounts: "*"
    readOnly: true
  - name: orca
    token: ${ORCA}
    accounts: "*"
`;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

async function call(env: TestEnv, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const res = await request(`${env.baseUrl}${path}`, {
    method: method as "GET",
    headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

/** Every entry the caller may read that matches the query, newest first. */
async function audit(env: TestEnv, headers: Record<string, string>, query = ""): Promise<Json[]> {
  const entries: Json[] = [];
  let cursor = "";
  for (;;) {
    const res = await call(env, "GET", `/audit?limit=2${query}${cursor}`, headers);
    if (res.status !== 200) throw new Error(`GET /audit: ${res.status} ${JSON.stringify(res.body)}`);
    entries.push(...res.body.entries);
    if (!res.body.nextCursor) return entries;
    cursor = `&cursor=${res.body.nextCursor}`;
  }
}

async function waitForTask(env: TestEnv, id: string, headers: Record<string, string>) {
  let task: Json;
  await waitFor(
    async () => {
      task = (await call(env, "GET", `/task/${id}`, headers)).body;
      return task.status.completed;
    },
    { what: `task ${id} to end` },
  );
  return task;
}

const logs = jsonLogLines<Record<string, Json>>();
const env = await startTestEnv({
  writeDurationMs: 60,
  env: {
    ACCOUNTS,
    AUTH_TOKENS: PRINCIPALS,
    AUTH_TRUST_SPINNAKER_HEADERS: "true",
    TRUSTED_PROXIES: "127.0.0.1,::1",
    RETRY_MAX_ATTEMPTS: "2",
  },
  logger: { stream: logs.stream, level: "info" },
});
t.teardown(() => env.close());

t.test(
  "a submission: who, how proven, from where (through a trusted proxy), what, the task, and its outcome",
  async (t) => {
    const description = demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 4 } });
    const dry = await call(env, "POST", "/azure/ops/resizeServerGroup?dryRun=true", bearer(TEAM_A), description);
    t.equal(dry.status, 200);
    const submitted = await call(
      env,
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=audit-submit-1",
      { ...bearer(TEAM_A), "x-forwarded-for": "203.0.113.7" },
      description,
    );
    t.equal(submitted.status, 202);
    const id = submitted.body.id;
    const task = await waitForTask(env, id, bearer(TEAM_A));
    t.match(task.submittedBy, { name: "team-a", via: "token" });
    t.type(task.submittedBy.timeMs, "number");
    t.notOk("canceledBy" in task || "resumedBy" in task, "nobody canceled or resumed it");

    const entries = await audit(env, bearer(TEAM_A), `&taskId=${id}`);
    t.equal(entries.length, 1, "one entry: the dry run changed nothing and has none");
    t.match(entries[0], {
      action: "submit",
      decision: "accepted",
      actor: { name: "team-a", via: "token" },
      remoteAddress: "203.0.113.7",
      targets: [{ operation: "resizeServerGroup", account: "demo", region: "eastus", serverGroup: "web-prod-v001" }],
      clientRequestId: "audit-submit-1",
      taskId: id,
      outcome: "succeeded",
    });
    t.match(entries[0].peerAddress, /127\.0\.0\.1|::1/, "the proxy's own address beside it");
    const line = logs.lines.find((l) => l.audit === true && l.taskId === id);
    t.match(line, { audit: true, action: "submit", decision: "accepted", actor: { name: "team-a" } }, "one JSON line");

    const again = await call(
      env,
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=audit-submit-1",
      bearer(TEAM_A),
      description,
    );
    t.equal(again.status, 202, "the same request again finds the task");
    t.equal((await audit(env, bearer(TEAM_A), `&taskId=${id}`)).length, 1, "and records nothing new");
  },
);

t.test("an address from an untrusted peer is the peer's, whatever X-Forwarded-For says", async (t) => {
  const res = await env.service.app.inject({
    method: "POST",
    url: "/azure/ops/resizeServerGroup?clientRequestId=audit-untrusted-peer",
    remoteAddress: "198.51.100.9",
    headers: { ...bearer(TEAM_A), "x-forwarded-for": "203.0.113.66", "content-type": "application/json" },
    payload: demo("web-prod-v002", { capacity: { min: 1, max: 10, desired: 3 } }),
  });
  t.equal(res.statusCode, 202);
  const [entry] = await audit(env, bearer(TEAM_A), `&taskId=${res.json().id}`);
  t.equal(entry.remoteAddress, "198.51.100.9");
  t.notOk("peerAddress" in entry);
  await waitForTask(env, res.json().id, bearer(TEAM_A));
});

t.test("Orca's user under a token is recorded as such", async (t) => {
  const res = await call(
    env,
    "POST",
    "/azure/ops/resizeServerGroup",
    { ...bearer(ORCA), "x-spinnaker-user": "alice@example.com", "x-spinnaker-accounts": "demo" },
    demo("web-prod-v002", { capacity: { min: 1, max: 10, desired: 2 } }),
  );
  t.equal(res.status, 202);
  const task = await waitForTask(env, res.body.id, bearer(TEAM_A));
  t.match(task.submittedBy, {
    name: "alice@example.com (via orca)",
    via: "token+spinnakerHeaders",
    spinnakerUser: "alice@example.com",
  });
  const [entry] = await audit(env, bearer(TEAM_A), `&taskId=${res.body.id}`);
  t.match(entry.actor, { via: "token+spinnakerHeaders", spinnakerUser: "alice@example.com" });
});

t.test(
  "refusals of an identified caller: 403 for another team's account, 409 for a reused clientRequestId",
  async (t) => {
    const forbidden = await call(
      env,
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=audit-forbidden",
      bearer(TEAM_B),
      demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 9 } }),
    );
    t.equal(forbidden.status, 403);
    const first = await call(
      env,
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=audit-reused",
      bearer(TEAM_A),
      demo("batch-v001", { capacity: { min: 1, max: 10, desired: 2 } }),
    );
    const reused = await call(
      env,
      "POST",
      "/azure/ops/resizeServerGroup?clientRequestId=audit-reused",
      bearer(TEAM_A),
      demo("batch-v001", { capacity: { min: 1, max: 10, desired: 3 } }),
    );
    t.equal(reused.status, 409);
    const unauthenticated = await call(env, "POST", "/azure/ops/resizeServerGroup", {}, demo("web-prod-v001"));
    t.equal(unauthenticated.status, 401);
    let refused: Json[] = [];
    await waitFor(
      async () => (refused = (await audit(env, bearer(READER))).filter((e) => e.decision === "refused")).length >= 2,
      { what: "the refusals' entries (recorded once answered)" },
    );
    t.match(
      refused.find((e) => e.clientRequestId === "audit-forbidden"),
      {
        action: "submit",
        status: 403,
        actor: { name: "team-b", via: "token" },
        targets: [{ account: "demo", serverGroup: "web-prod-v001" }],
        reason: /Access denied to account demo/,
        request: "POST /azure/ops/resizeServerGroup",
      },
    );
    t.match(
      refused.find((e) => e.clientRequestId === "audit-reused"),
      { status: 409, actor: { name: "team-a" } },
    );
    t.equal(refused.length, 2, "a caller nobody identified (401) has no entry");
    t.equal(
      (await audit(env, bearer(TEAM_A), `&taskId=${first.body.id}`)).length,
      1,
      "the refused reuse added nothing to the first request's task",
    );
    await waitForTask(env, first.body.id, bearer(TEAM_A));
  },
);

t.test("a cancel and a resume: who, on which task; a cancel of an ended task is a refusal", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "PATCH",
    pathContains: "web-prod-v002",
    status: 409,
    code: "ConflictingConcurrentWriteNotAllowed",
    count: 2,
  });
  const desc = demo("web-prod-v002", { capacity: { min: 1, max: 10, desired: 5 } });
  const failed = await call(env, "POST", "/azure/ops/resizeServerGroup", bearer(TEAM_A), desc);
  const id = failed.body.id;
  t.equal((await waitForTask(env, id, bearer(TEAM_A))).status.retryable, true);
  const resumed = await call(env, "POST", `/task/${id}:resume`, {
    ...bearer(ORCA),
    "x-spinnaker-user": "bob",
    "x-spinnaker-accounts": "demo",
  });
  t.equal(resumed.status, 200);
  const task = await waitForTask(env, id, bearer(TEAM_A));
  t.equal(task.state, "succeeded");
  t.match(task, { submittedBy: { name: "team-a" }, resumedBy: { name: "bob (via orca)", spinnakerUser: "bob" } });
  t.same(
    (await audit(env, bearer(TEAM_A), `&taskId=${id}`)).map((e) => [e.action, e.actor.name, e.outcome]),
    [
      ["resume", "bob (via orca)", "succeeded"],
      ["submit", "team-a", "failed"],
    ],
    "each run's entry has that run's end",
  );

  // A task that waits behind another on its scale set is canceled before it starts.
  const slow = await call(env, "POST", "/azure/ops/resizeServerGroup", bearer(TEAM_A), {
    ...desc,
    capacity: { min: 1, max: 10, desired: 6 },
  });
  const waiting = await call(env, "POST", "/azure/ops/resizeServerGroup", bearer(TEAM_A), {
    ...desc,
    capacity: { min: 1, max: 10, desired: 7 },
  });
  const canceled = await call(env, "POST", `/task/${waiting.body.id}/cancel`, bearer(TEAM_A));
  t.equal(canceled.status, 200);
  t.match(canceled.body.canceledBy, { name: "team-a", via: "token" }, "the answer says who canceled it");
  const ended = await waitForTask(env, waiting.body.id, bearer(TEAM_A));
  // Canceled at once while it waits; on a machine slow enough that it started, stopped at its next safe point.
  t.match(ended, { canceledBy: { name: "team-a" } });
  const page = await call(env, "GET", `/ui/api/tasks/${waiting.body.id}`, bearer(TEAM_A));
  t.equal(page.body.who, "submitted by team-a, canceled by team-a", "the status page says who, beside the task");
  const listed = await call(env, "GET", `/ui/api/tasks?id=${id}`, bearer(TEAM_A));
  t.match(JSON.stringify(listed.body), "submitted by team-a, resumed by bob (via orca)", "and in its list of tasks");
  const [cancelEntry] = await audit(env, bearer(TEAM_A), `&taskId=${waiting.body.id}&operation=cancel`);
  t.match(cancelEntry, { decision: "accepted", actor: { name: "team-a" }, outcome: ended.state }, "its end");
  const again = await call(env, "POST", `/task/${waiting.body.id}/cancel`, bearer(TEAM_A));
  t.equal(again.status, 409, "an ended task cannot be canceled");
  const forbidden = await call(env, "POST", `/task/${slow.body.id}/cancel`, bearer(TEAM_B));
  t.equal(forbidden.status, 403);
  await waitFor(
    async () =>
      (await audit(env, bearer(READER), "&operation=cancel")).filter((e) => e.decision === "refused").length >= 2,
    { what: "the refused cancels' entries" },
  );
  const refused = (await audit(env, bearer(READER), "&operation=cancel")).filter((e) => e.decision === "refused");
  t.match(refused, [
    { status: 403, actor: { name: "team-b" }, taskId: slow.body.id, targets: [{ account: "demo" }] },
    { status: 409, actor: { name: "team-a" }, taskId: waiting.body.id },
  ]);
  await waitForTask(env, slow.body.id, bearer(TEAM_A));
});

t.test("GET /audit: a caller reads its accounts' entries only, filtered, a page at a time", async (t) => {
  const teamB = await call(env, "POST", "/azure/ops/resizeServerGroup", bearer(TEAM_B), {
    credentials: "team-b",
    region: "eastus",
    serverGroupName: "batch-v001",
    capacity: { min: 1, max: 10, desired: 1 },
  });
  t.equal(teamB.status, 202);
  await waitForTask(env, teamB.body.id, bearer(TEAM_B));
  const ofB = await audit(env, bearer(TEAM_B));
  t.ok(ofB.length >= 1);
  t.ok(
    ofB.every((e) => e.targets.every((x: Json) => x.account === "team-b")),
    "team-b sees entries of team-b only (others are left out, not an error)",
  );
  const ofA = await audit(env, bearer(TEAM_A));
  t.notOk(
    ofA.some((e) => e.taskId === teamB.body.id),
    "and team-a none of team-b's",
  );
  const all = await audit(env, bearer(READER));
  t.ok(
    all.some((e) => e.taskId === teamB.body.id),
    "a reader of every account sees all",
  );
  t.ok(
    all.every((e, i) => i === 0 || all[i - 1].timeMs >= e.timeMs - 1000),
    "newest first",
  );
  t.same(
    (await audit(env, bearer(READER), "&account=TEAM-B")).map((e) => e.id),
    all.filter((e) => e.targets.some((x: Json) => x.account === "team-b")).map((e) => e.id),
    "by account, any case",
  );
  t.same(
    (await audit(env, bearer(READER), `&principal=team-b&serverGroup=batch-v001&operation=resizeServerGroup`)).map(
      (e) => e.taskId,
    ),
    [teamB.body.id],
  );
  const since = all[0].timeMs;
  t.ok(
    (await audit(env, bearer(READER), `&sinceMs=${since}`)).every((e) => e.timeMs >= since),
    "a time range",
  );
  t.equal((await call(env, "GET", "/audit?cursor=abc", bearer(READER))).status, 400);
  t.equal((await call(env, "GET", "/audit", {})).status, 401);
  for (const method of ["DELETE", "PUT", "PATCH", "POST"]) {
    const res = await call(env, method, "/audit", bearer(ORCA));
    t.ok(res.status === 404 || res.status === 405, `${method} /audit: no route (${res.status})`);
  }
});

t.test(
  "a write forwarded to Clouddriver is recorded before it leaves, and Clouddriver's answer is its outcome",
  async (t) => {
    const server: Server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        res.writeHead(req.url?.includes("refuse") ? 400 : 200, { "content-type": "application/json" });
        res.end(JSON.stringify({ id: "cd-task-9", resourceUri: "/task/cd-task-9" }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    t.teardown(() => new Promise<void>((r) => server.close(() => r())));
    const address = server.address() as { port: number };
    const fwd = await startTestEnv({
      env: {
        CLOUDDRIVER_URL: `http://127.0.0.1:${address.port}`,
        AUTH_TOKENS: PRINCIPALS,
        ACCOUNTS,
      },
    });
    t.teardown(() => fwd.close());
    const one = await call(fwd, "POST", "/azure/ops/upsertLoadBalancer", bearer(ORCA), { credentials: "demo" });
    t.equal(one.status, 200);
    const list = await call(fwd, "POST", "/azure/ops", bearer(ORCA), [
      { upsertLoadBalancer: { credentials: "team-b", region: "eastus", loadBalancerName: "lb" } },
    ]);
    t.equal(list.status, 200);
    const read = await call(fwd, "GET", "/applications", bearer(ORCA));
    t.ok(read.status < 500);
    const readOnly = await call(fwd, "POST", "/azure/ops/upsertLoadBalancer", bearer(READER), { credentials: "demo" });
    t.equal(readOnly.status, 403);
    let entries: Json[] = [];
    await waitFor(
      async () =>
        (entries = await audit(fwd, bearer(ORCA), "&operation=forward")).filter((e) => e.outcome).length >= 2 &&
        entries.length >= 3,
      { what: "the forwarded writes' entries and outcomes" },
    );
    t.equal(entries.length, 3, "the two writes and the refused one; a read is not recorded");
    t.match(entries, [
      { decision: "refused", status: 403, actor: { name: "oncall" }, request: "POST /azure/ops/upsertLoadBalancer" },
      {
        decision: "accepted",
        request: "POST /azure/ops",
        targets: [{ operation: "upsertLoadBalancer", account: "team-b", region: "eastus" }],
        outcome: "clouddriver 200",
      },
      {
        decision: "accepted",
        actor: { name: "orca", via: "token" },
        request: "POST /azure/ops/upsertLoadBalancer",
        targets: [{ operation: "upsertLoadBalancer" }],
        outcome: "clouddriver 200",
      },
    ]);
    t.equal(
      (await audit(fwd, bearer(TEAM_B), "&operation=forward")).length,
      1,
      "team-b sees the write on team-b; an entry naming no account (a body streamed through unread) only callers of every account see",
    );
  },
);
