// ?dryRun=true on both submission routes: read, plan against the state just read, answer with the plan. Nothing is
// written (the simulator's call log proves it) and no task is stored; the plan is the one the first attempt of the
// same request makes when it runs for real right after (its history's first planned write and If-Match).
import t from "tap";
import { callsFor, demo, startTestEnv, writesOf, demoCreate } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 60 });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
  await env.simControl("DELETE", "/_sim/calls");
});

const taskCount = async () => (await env.api("GET", "/task?limit=500")).body.tasks.length;

t.test("a resize: the plan, no write, no task; then the real run's first attempt plans the same write", async (t) => {
  const before = await taskCount();
  const description = demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } });
  const dry = await env.api("POST", "/azure/ops/resizeServerGroup?dryRun=true", description);
  t.equal(dry.status, 200, JSON.stringify(dry.body));
  t.equal(dry.body.dryRun, true);
  const [plan] = dry.body.operations;
  t.match(plan, {
    operation: "resizeServerGroup",
    account: "demo",
    region: "eastus",
    resourceGroup: "demo-rg",
    serverGroupName: "web-prod-v001",
    read: { capacity: 3, provisioningState: "Succeeded" },
  });
  t.match(plan.write, { kind: "update", summary: /3 → 6/ });
  t.equal(plan.write.ifMatch, plan.read.etag, "the If-Match is the ETag of the read it was planned on");
  const calls = callsFor(await env.calls(), "web-prod-v001");
  t.same(writesOf(calls), [], "nothing was written");
  t.ok(
    calls.some((c) => c.method === "GET"),
    "it read",
  );
  t.equal(await taskCount(), before, "no task was stored");

  const run = await env.api("POST", "/azure/ops/resizeServerGroup?wait=30", description);
  t.equal(run.body.state, "succeeded", JSON.stringify(run.body.history));
  const firstPlanned = run.body.history.find((h: Json) => /^attempt 1\/\d+: /.test(h.status)).status;
  t.match(firstPlanned, /^attempt 1\/\d+: /);
  t.equal(
    firstPlanned.replace(/^attempt 1\/\d+: /, ""),
    `${plan.write.summary} (If-Match ${plan.write.ifMatch})`,
    "the dry run's plan is the first attempt's",
  );
});

t.test("nothing to change: the plan says what it found, and would write nothing", async (t) => {
  const description = demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 3 } });
  t.equal((await env.api("POST", "/azure/ops/resizeServerGroup?wait=30", description)).body.state, "succeeded");
  await env.simControl("DELETE", "/_sim/calls");
  const dry = await env.api("POST", "/azure/ops/resizeServerGroup?dryRun=true", description);
  t.equal(dry.status, 200);
  const [plan] = dry.body.operations;
  t.notOk("write" in plan, JSON.stringify(plan));
  t.type(plan.unchanged, "string");
  const run = await env.api("POST", "/azure/ops/resizeServerGroup?wait=30", description);
  t.equal(run.body.state, "succeeded");
  t.same(writesOf(callsFor(await env.calls(), "web-prod-v002")), [], "the real run wrote nothing either");
});

t.test(
  "the list body: every operation planned, none written; a dry run ignores clientRequestId and wait",
  async (t) => {
    const before = await taskCount();
    const dry = await env.api("POST", "/azure/ops?dryRun=true&wait=30&clientRequestId=dry-1", [
      { disableServerGroup: demo("web-prod-v002") },
      { destroyServerGroup: demo("batch-v001") },
    ]);
    t.equal(dry.status, 200, JSON.stringify(dry.body));
    t.same(
      dry.body.operations.map((o: Json) => [o.operation, o.write?.kind]),
      [
        ["disableServerGroup", "update"],
        ["destroyServerGroup", "delete"],
      ],
    );
    t.equal(dry.body.operations[1].write.ifMatch, dry.body.operations[1].read.etag, "a delete is conditional too");
    t.same(writesOf(await env.calls()), [], "nothing was written");
    t.equal(await taskCount(), before, "no task was stored");
    const real = await env.api("POST", "/azure/ops?clientRequestId=dry-1", [
      { disableServerGroup: demo("web-prod-v002") },
    ]);
    t.equal(real.status, 202, "the clientRequestId was not taken by the dry run");
    await env.waitForTask(real.body.id);
  },
);

t.test("a scale set that does not exist: the plan names the problem, still nothing written", async (t) => {
  const dry = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup?dryRun=true",
    demo("web-prod-v404", { capacity: { min: 1, max: 9, desired: 2 } }),
  );
  t.equal(dry.status, 200);
  t.match(dry.body.operations[0].problem, { type: "EXCEPTION", cause: /NotFound/ });
  t.same(writesOf(await env.calls()), []);
});

t.test(
  "a read met by a transient failure (a dropped keep-alive connection, a 503) is read again, as a run's would be",
  async (t) => {
    const description = demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 5 } });
    await env.simControl("POST", "/_sim/faults", {
      action: "dropConnection",
      method: "GET",
      pathContains: "virtualMachineScaleSets/web-prod-v001",
      count: 1,
    });
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: "virtualMachineScaleSets/web-prod-v001",
      status: 503,
      code: "ServiceUnavailable",
      count: 1,
    });
    const dry = await env.api("POST", "/azure/ops/resizeServerGroup?dryRun=true", description);
    t.equal(dry.status, 200, JSON.stringify(dry.body));
    const [plan] = dry.body.operations;
    t.notOk("problem" in plan, JSON.stringify(plan));
    t.match(plan.write, { kind: "update", summary: /3 → 5/ });
    const gets = callsFor(await env.calls(), "web-prod-v001").filter(
      (c) => c.method === "GET" && /virtualMachineScaleSets\/[^/]+$/i.test(c.path),
    );
    t.same(
      gets.map((c) => c.status),
      [null, 503, 200],
      "dropped, unavailable, then read",
    );
  },
);

t.test("a read Azure refuses for good (501) is not read again: the plan names the problem", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    status: 501,
    code: "NotImplemented",
    count: 10,
  });
  const dry = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup?dryRun=true",
    demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 5 } }),
  );
  t.equal(dry.status, 200);
  t.match(dry.body.operations[0].problem, { type: "EXCEPTION", cause: "NotImplemented" });
  t.equal(callsFor(await env.calls(), "web-prod-v001").filter((c) => c.method === "GET").length, 1);
});

t.test("a clone: the plan names the scale set it would create, with what prepare found; nothing written", async (t) => {
  const before = await taskCount();
  const clone = {
    credentials: "demo",
    region: "eastus",
    application: "web",
    stack: "prod",
    source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v002" },
  };
  const dry = await env.api("POST", "/azure/ops/cloneServerGroup?dryRun=true", clone);
  t.equal(dry.status, 200, JSON.stringify(dry.body));
  const [plan] = dry.body.operations;
  t.match(plan, {
    operation: "cloneServerGroup",
    serverGroupName: "web-prod-v003",
    read: {},
    write: { kind: "create", summary: /create web-prod-v003/ },
  });
  t.match(plan.preparation.join("\n"), /the next name is web-prod-v003/);
  t.same(writesOf(await env.calls()), [], "nothing was written");
  t.equal(await taskCount(), before, "no task was stored");
});

t.test("a create, alone and in a list body: planned, not a 500", async (t) => {
  const create = demoCreate(env.sim.subscriptionId);
  const alone = await env.api("POST", "/azure/ops/createServerGroup?dryRun=true", create);
  t.equal(alone.status, 200, JSON.stringify(alone.body));
  t.match(alone.body.operations[0], { serverGroupName: "shop-prod-v000", write: { kind: "create" } });
  const listed = await env.api("POST", "/azure/ops?dryRun=true", [{ createServerGroup: create }]);
  t.equal(listed.status, 200, JSON.stringify(listed.body));
  t.same(listed.body.operations, alone.body.operations, "the same plan through the list route");
  t.same(writesOf(await env.calls()), [], "nothing was written");
});
