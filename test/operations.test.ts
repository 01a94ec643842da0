// Each operation end to end: HTTP API → task → executeOp → real SDK → simulator; repeating it is a no-op.
import t from "tap";
import { callsFor, demo, startTestEnv, writesOf } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 100 });
t.teardown(() => env.close());

async function run(operation: string, description: unknown) {
  const submitted = await env.api("POST", `/azure/ops/${operation}`, description);
  if (submitted.status !== 202) throw new Error(`${operation}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return env.waitForTask(submitted.body.id);
}

async function serverGroup(name: string) {
  const res = await env.api("GET", `/azure/serverGroups/demo/eastus/demo-rg/${name}`);
  if (res.status !== 200) throw new Error(`GET ${name}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

t.test("resizeServerGroup sets capacity, records min/max, and a repeat writes nothing", async (t) => {
  const task = await run("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 5 } }));
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.same(task.resultObjects[0].capacity, { min: 1, max: 10, desired: 5 });
  const sg = await serverGroup("web-prod-v001");
  t.equal(sg.instances.length, 5, "Azure created the VMs");
  t.same(sg.capacity, { min: 1, max: 10, desired: 5 });

  const writes = writesOf(await env.calls());
  t.equal(writes.length, 1, "one write");
  t.equal(writes[0].method, "PATCH");
  t.match(writes[0].ifMatch, /^"?\d+"?$/, "the write carried If-Match");

  await env.simControl("DELETE", "/_sim/calls");
  const again = await run("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 5 } }));
  t.equal(again.status.failed, false);
  t.same(writesOf(await env.calls()), [], "repeat is a no-op");
  t.same(again.resultObjects[0].capacity, { min: 1, max: 10, desired: 5 });
});

t.test("an uncontended resize costs one read and one write, plus polls", async (t) => {
  await env.simControl("DELETE", "/_sim/calls");
  const task = await run("resizeServerGroup", demo("web-prod-v002", { targetSize: 4 }));
  t.equal(task.status.failed, false);
  const mine = callsFor(await env.calls(), "web-prod-v002");
  const gets = mine.filter((c) => c.method === "GET" && !c.path.endsWith("/virtualMachines"));
  const lists = mine.filter((c) => c.method === "GET" && c.path.endsWith("/virtualMachines"));
  t.equal(writesOf(mine).length, 1, "one write");
  // One read to plan, and the long-running operation's final GET of the resource; then the VM list, which must
  // agree with it (Succeeded, as many running instances as the capacity) before the result counts as confirmed.
  t.equal(gets.length, 2, `reads: ${JSON.stringify(mine)}`);
  t.equal(lists.length, 1, "one VM list, after the write");
  t.ok(mine.indexOf(lists[0]) > mine.indexOf(writesOf(mine)[0]), "the VMs are listed after the write, to confirm it");
  t.equal(task.armCalls, (await env.calls()).length, "the task counts the ARM calls it caused");
  t.same(task.resultObjects[0].capacity, { min: 3, max: 4, desired: 4 }, "targetSize widens max to include it");
});

t.test("disable removes the backend pools, rolls them out, and enable restores exactly those", async (t) => {
  const before = await serverGroup("web-prod-v002");
  t.ok(before.backendPools.length > 0, "starts behind a load balancer");
  t.ok(before.instances.every((i: Json) => i.inTraffic === true));

  const disabled = await run("disableServerGroup", demo("web-prod-v002"));
  t.equal(disabled.status.failed, false, JSON.stringify(disabled.history));
  t.equal(disabled.resultObjects[0].disabled, true);
  const off = await serverGroup("web-prod-v002");
  t.same(off.backendPools, []);
  t.equal(off.disabled, true);
  t.equal(off.disabledBy, "pools");
  t.ok(
    off.instances.length === 3 && off.instances.every((i: Json) => i.inTraffic === false),
    "every instance left the pools",
  );
  t.equal(off.capacity.desired, 3, "capacity untouched");
  const writes = writesOf(await env.calls());
  t.same(
    writes.map((w) => w.method),
    ["PATCH", "POST"],
    "network change, then manual upgrade of the instances",
  );

  await env.simControl("DELETE", "/_sim/calls");
  const again = await run("disableServerGroup", demo("web-prod-v002"));
  t.equal(again.status.failed, false);
  t.same(writesOf(await env.calls()), [], "disable twice is a no-op");

  const enabled = await run("enableServerGroup", demo("web-prod-v002"));
  t.equal(enabled.status.failed, false, JSON.stringify(enabled.history));
  const on = await serverGroup("web-prod-v002");
  t.same(on.backendPools, before.backendPools, "the same pools are back");
  t.equal(on.disabled, false);
  t.ok(on.instances.every((i: Json) => i.inTraffic === true));

  await env.simControl("DELETE", "/_sim/calls");
  const again2 = await run("enableServerGroup", demo("web-prod-v002"));
  t.equal(again2.status.failed, false);
  t.same(writesOf(await env.calls()), [], "enable twice is a no-op");
});

t.test("a scale set without pools is disabled by scaling to 0 and enabled back to its capacity", async (t) => {
  const disabled = await run("disableServerGroup", demo("batch-v001"));
  t.equal(disabled.status.failed, false, JSON.stringify(disabled.history));
  t.same(disabled.resultObjects[0].capacity.desired, 0);
  const off = await serverGroup("batch-v001");
  t.equal(off.disabledBy, "capacity");
  t.equal(off.instances.length, 0);

  const enabled = await run("enableServerGroup", demo("batch-v001"));
  t.equal(enabled.status.failed, false);
  const on = await serverGroup("batch-v001");
  t.equal(on.capacity.desired, 2);
  t.equal(on.instances.length, 2);
  t.equal(on.disabled, false);
});

t.test("scaleDown goes to 0 by default, never raises, and repeats as a no-op", async (t) => {
  const up = await run("scaleDown", demo("web-prod-v001", { capacity: { min: 0, max: 10, desired: 8 } }));
  t.equal(up.status.failed, false);
  t.equal(up.resultObjects[0].capacity.desired, 3, "asked for 8 with 3 running: stays 3");

  const down = await run("scaleDown", demo("web-prod-v001"));
  t.equal(down.status.failed, false);
  t.same(down.resultObjects[0].capacity, { min: 0, max: 0, desired: 0 });
  t.equal((await serverGroup("web-prod-v001")).instances.length, 0);

  await env.simControl("DELETE", "/_sim/calls");
  const again = await run("scaleDown", demo("web-prod-v001"));
  t.equal(again.status.failed, false);
  t.same(writesOf(await env.calls()), []);
});

t.test("Clouddriver's list body runs operations in order as one task", async (t) => {
  const res = await env.api("POST", "/azure/ops", [
    { resizeServerGroup: demo("web-prod-v001", { capacity: { min: 2, max: 6, desired: 4 }, cloudProvider: "azure" }) },
    { disableServerGroup: demo("web-prod-v001") },
  ]);
  t.equal(res.status, 202);
  t.equal(res.body.resourceUri, `/task/${res.body.id}`);
  const task = await env.waitForTask(res.body.id);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.same(task.operations, ["resizeServerGroup", "disableServerGroup"]);
  t.equal(task.resultObjects.length, 2);
  t.equal(task.resultObjects[1].disabled, true);
  t.equal(task.resultObjects[1].capacity.desired, 4);
  const phases = task.history.map((h: Json) => h.phase);
  t.ok(phases.indexOf("RESIZE_SERVER_GROUP") < phases.indexOf("DISABLE_SERVER_GROUP"), "in order");
});

t.test("clientRequestId returns the same task; reusing it for another request is a 409", async (t) => {
  const body = demo("web-prod-v002", { targetSize: 3 });
  const a = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=deploy-42", body);
  const b = await env.api("POST", "/azure/ops/resizeServerGroup?clientRequestId=deploy-42", body);
  t.equal(a.status, 202);
  t.equal(b.status, 202);
  t.equal(b.body.id, a.body.id);
  const c = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup?clientRequestId=deploy-42",
    demo("web-prod-v002", { targetSize: 4 }),
  );
  t.equal(c.status, 409);
  t.equal(c.body.error, "ClientRequestIdReused");
  await env.waitForTask(a.body.id);
  const list = await env.api("GET", "/task?limit=500");
  t.equal(list.body.tasks.filter((x: Json) => x.clientRequestId === "deploy-42").length, 1, "one task for the id");
});

t.test("the task reads as Clouddriver's, and history speaks to a person", async (t) => {
  const task = await run("resizeServerGroup", demo("web-prod-v001", { targetSize: 2 }));
  t.match(task, {
    id: String,
    startTimeMs: Number,
    status: {
      phase: "ORCHESTRATION",
      status: "Orchestration completed.",
      complete: true,
      completed: true,
      failed: false,
      retryable: false,
    },
  });
  t.match(task.history[0], { phase: "INIT" });
  t.ok(
    task.history.some((h: Json) => /^attempt 1\/\d+: set capacity 3 → 2/.test(h.status)),
    JSON.stringify(task.history),
  );
  t.ok(task.history.some((h: Json) => /as Azure confirmed/.test(h.status)));
  const unknown = await env.api("GET", "/task/does-not-exist");
  t.equal(unknown.status, 404);
});

t.test(
  "the server-group read mid-write: the model Azure already shows, the VMs as it lists them, and that they disagree",
  async (t) => {
    // Long enough that the read below lands mid-write even on a loaded machine, where a request can take seconds.
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 6000 });
    t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 100 }));
    const submitted = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 5 } }),
    );
    await waitFor(
      async () => Boolean((await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v001")).body.inFlight),
      { what: "the resize in flight", intervalMs: 5 },
    );
    const during = await serverGroup("web-prod-v001");
    t.equal(during.provisioningState, "Updating");
    t.equal(during.capacity.desired, 5, "Azure applies a write at acceptance: the model says 5 at once");
    t.same(during.instances.map((i: Json) => i.provisioningState).sort(), [
      "Creating",
      "Creating",
      "Succeeded",
      "Succeeded",
      "Succeeded",
    ]);
    t.equal(during.instanceCount, 3, "three run");
    t.match(during.disagreement, /Updating, with 3 of capacity 5 instance\(s\) running/);
    const task = await env.waitForTask(submitted.body.id);
    t.equal(task.status.failed, false);
    const after = await serverGroup("web-prod-v001");
    t.equal(after.instanceCount, 5);
    t.equal(after.disagreement, undefined, "once Azure confirmed, nothing to say");
  },
);
