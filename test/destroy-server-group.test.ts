// destroyServerGroup through the harness, on the simulator (DELETE as a long-running operation, as the recorded
// Azure delete answers it: test/fixtures/azure-recordings/vmss-delete-2024-11-01.json).
//
// Orca sends it from DestroyServerGroupStage (orca-clouddriver .../DestroyServerGroupStage.groovy l.74-78:
// destroyServerGroup, then MonitorKatoTask, then WaitForDestroyedServerGroupTask), with the stage context as the
// description and `region` set per target (TargetServerGroupLinearStageSupport.groovy l.200-216). clouddriver-azure's
// DestroyAzureServerGroupAtomicOperation.groovy l.64-66 fails when the server group is not found; here a scale set
// that is gone already is the goal reached.
import t from "tap";
import { callsFor, demo, startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 60 });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

async function destroy(name: string, extra: Record<string, unknown> = {}) {
  const res = await env.api("POST", "/azure/ops/destroyServerGroup", demo(name, extra));
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return env.waitForTask(res.body.id);
}

async function fault(f: Record<string, unknown>) {
  const res = await env.simControl("POST", "/_sim/faults", f);
  if (res.status >= 300) throw new Error(`fault rejected: ${JSON.stringify(res.body)}`);
}

async function exists(name: string): Promise<boolean> {
  return (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).status === 200;
}

t.test(
  "destroys the scale set with one DELETE guarded by the read's ETag, and reports Azure's 404 afterwards",
  async (t) => {
    const task = await destroy("web-prod-v001", {
      cloudProvider: "azure",
      moniker: { app: "web" },
      desiredPercentage: null,
    });
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    t.same(task.resultObjects, [
      {
        type: "destroyedServerGroup",
        account: "demo",
        region: "eastus",
        resourceGroup: "demo-rg",
        serverGroupName: "web-prod-v001",
        deletedByThisTask: true,
        confirmedBy: "GET 404 ResourceNotFound",
      },
    ]);
    t.notOk(await exists("web-prod-v001"), "gone from Azure");
    t.ok(await exists("web-prod-v002"), "its neighbour is not");
    const calls = callsFor(await env.calls(), "web-prod-v001");
    const deletes = calls.filter((c) => c.method === "DELETE");
    t.equal(deletes.length, 1, "one DELETE");
    t.equal(deletes[0].status, 202);
    t.equal(deletes[0].ifMatch, '"1"', "If-Match: the ETag of the read it was planned on");
    t.equal(calls.at(-1)!.method, "GET", "the last word is a read");
    t.equal(calls.at(-1)!.status, 404, "that answered 404");
    t.ok(
      task.history.some(
        (h: Json) => h.status === "Done: web-prod-v001 is deleted, as Azure confirmed (GET 404 ResourceNotFound)",
      ),
      JSON.stringify(task.history),
    );
    t.ok(
      task.history.some(
        (h: Json) => h.status === 'attempt 1/8: delete web-prod-v001 (capacity 3, Succeeded) (If-Match "1")',
      ),
      "the history names the ETag it was planned on",
    );
  },
);

t.test("a scale set that is gone already is done: success, no DELETE", async (t) => {
  await destroy("batch-v001");
  const before = (await env.calls()).length;
  const again = await destroy("batch-v001");
  t.equal(again.state, "succeeded");
  t.equal(again.status.failed, false);
  t.match(again.resultObjects, [
    { type: "destroyedServerGroup", deletedByThisTask: false, confirmedBy: "GET 404 ResourceNotFound" },
  ]);
  const calls = (await env.calls()).slice(before);
  t.same(
    calls.map((c) => c.method),
    ["GET"],
    "one read, nothing else",
  );
  const never = await destroy("never-existed-v000");
  t.equal(never.state, "succeeded", "never created: nothing to delete either");
});

t.test("a 409 on the DELETE is retried from a fresh read", async (t) => {
  await fault({
    method: "DELETE",
    pathContains: "web-prod-v002",
    status: 409,
    code: "ConflictingConcurrentWriteNotAllowed",
    count: 2,
  });
  const task = await destroy("web-prod-v002");
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  const calls = callsFor(await env.calls(), "web-prod-v002").filter((c) => !/\/virtualMachines(\/|$|\?)/i.test(c.path));
  t.same(
    calls.map((c) => `${c.method} ${c.status}`),
    ["GET 200", "DELETE 409", "GET 200", "DELETE 409", "GET 200", "DELETE 202", "GET 404"],
    "each DELETE follows its own read",
  );
});

t.test("another writer's write in flight is waited out, not deleted into", async (t) => {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 400 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 60 }));
  const resize = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 1, max: 5, desired: 4 } }),
  );
  const destroyed = await env.api("POST", "/azure/ops/destroyServerGroup", demo("web-prod-v001"));
  const [r, d] = [await env.waitForTask(resize.body.id), await env.waitForTask(destroyed.body.id)];
  t.equal(r.state, "succeeded");
  t.equal(d.state, "succeeded", JSON.stringify(d.history));
  const writes = callsFor(await env.calls(), "web-prod-v001").filter(
    (c) => c.method === "PATCH" || c.method === "DELETE",
  );
  t.same(
    writes.map((c) => `${c.method} ${c.status}`),
    ["PATCH 200", "DELETE 202"],
    "no write was refused",
  );
});

t.test(
  "a delete that Azure fails for good is a terminal failure, not retryable, and the scale set stays",
  async (t) => {
    await fault({
      action: "failOperation",
      method: "DELETE",
      pathContains: "web-prod-v001",
      code: "OperationNotAllowed",
      message: "The scale set is locked.",
    });
    const locked = await destroy("web-prod-v001");
    t.equal(locked.state, "failed");
    t.equal(locked.status.retryable, false);
    t.match(locked.resultObjects.at(-1), {
      type: "EXCEPTION",
      operation: "destroyServerGroup",
      cause: "OperationNotAllowed",
    });
    t.ok(await exists("web-prod-v001"), "still there");
  },
);
