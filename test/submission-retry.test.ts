// A retry is always safe and honest: a submission whose clientRequestId names a task that exists is answered that
// task before anything that could refuse it (the backlog limit, the caller's rate limit, Azure's reads), so a
// client that repeats a request never concludes that nothing was created when its task sits queued.
// Real HTTP, the real simulator, real PostgreSQL.
import t, { type Test } from "tap";
import { startTestEnv, demo, type TestEnv } from "./helpers/service.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";

t.setTimeout(240_000);

async function envOn(t: Test, env: Record<string, string>): Promise<TestEnv> {
  const db = await linkedDatabase(t, "vmss_ops_retry");
  const test = await startTestEnv({
    // The store's speed is not what is tested here: a busy machine's statements get all the time they take.
    env: {
      TASK_STORE: "postgres",
      DATABASE_URL: db.directUrl,
      TASK_STORE_REQUEST_DEADLINE_MS: "60000",
      TASK_STORE_CALL_TIMEOUT_MS: "60000",
      ...env,
    },
    configuredStore: true,
  });
  t.teardown(() => test.close());
  // Nothing runs: every task created stays queued, in the backlog.
  await test.service.runner.stop(1000);
  return test;
}

const resize = (name: string) => demo(name, { capacity: { min: 0, max: 5, desired: 2 } });

t.test("past the backlog limit, a retry of a queued task gets that task, a new submission 429", async (t) => {
  const env = await envOn(t, { TASK_BACKLOG_LIMIT: "1", RATE_LIMIT_SUBMISSIONS: "0" });
  const first = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=retry-a", resize("web-prod-v001"));
  t.equal(first.status, 202, JSON.stringify(first.body));
  const other = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=retry-b", resize("web-prod-v002"));
  t.equal(other.status, 429, "a new submission is refused: the backlog is full");
  if (other.status === 429) t.equal(other.body.error, "BacklogFull");
  const again = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=retry-a", resize("web-prod-v001"));
  t.equal(again.status, 202, `the retry is answered its task: ${JSON.stringify(again.body)}`);
  if (again.status === 202 && first.status === 202) t.equal(again.body.id, first.body.id);
  const list = await env.api("POST", "/azure/ops?clientRequestId=retry-a", [
    { resizeServerGroup: resize("web-prod-v001") },
  ]);
  t.equal(list.status, 202, `the list body too: ${JSON.stringify(list.body)}`);
  const reused = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=retry-a", resize("web-prod-v002"));
  t.equal(reused.status, 409, "another request under the same clientRequestId is still refused as such");
  if (reused.status === 409) t.equal(reused.body.error, "ClientRequestIdReused");
});

t.test("past the caller's rate limit, a retry of a task that exists gets that task", async (t) => {
  const env = await envOn(t, { RATE_LIMIT_SUBMISSIONS: "1", TASK_BACKLOG_LIMIT: "0" });
  const first = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=rate-a", resize("web-prod-v001"));
  t.equal(first.status, 202, JSON.stringify(first.body));
  const other = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=rate-b", resize("web-prod-v002"));
  t.equal(other.status, 429, "a new submission is refused: over the limit");
  if (other.status === 429) t.equal(other.body.error, "TooManyRequests");
  const again = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=rate-a", resize("web-prod-v001"));
  t.equal(again.status, 202, `the retry is answered its task: ${JSON.stringify(again.body)}`);
  if (again.status === 202 && first.status === 202) t.equal(again.body.id, first.body.id);
  const unknown = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=rate-c", resize("web-prod-v002"));
  t.equal(unknown.status, 429, "a clientRequestId no task has is no way past the limit");
});

t.test(
  "while Azure cannot answer a cluster's read, a retry of the cluster operation gets its task, not a 503",
  async (t) => {
    const env = await envOn(t, { RATE_LIMIT_SUBMISSIONS: "0", TASK_BACKLOG_LIMIT: "0" });
    const body = { credentials: "demo", regions: ["eastus"], cluster: "web-prod" };
    const first = await env.api("POST", "/azure/ops/disableCluster?clientRequestId=cluster-a", body);
    t.equal(first.status, 202, JSON.stringify(first.body));
    // Azure throttles the cluster's listing for an hour: a new request cannot be read, and says so.
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: "/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets",
      status: 429,
      code: "TooManyRequests",
      retryAfterSeconds: 3600,
      count: 1000,
    });
    const other = await env.api("POST", "/azure/ops/disableCluster?clientRequestId=cluster-b", body);
    t.equal(other.status, 503, "a new one cannot be planned without Azure");
    const again = await env.api("POST", "/azure/ops/disableCluster?clientRequestId=cluster-a", body);
    t.equal(again.status, 202, `the retry is answered its task: ${JSON.stringify(again.body)}`);
    if (again.status === 202 && first.status === 202) t.equal(again.body.id, first.body.id);
  },
);
