// terminateInstances replaces the named instances and keeps the capacity, as Orca's TerminateInstances stage does on
// every other provider (terminateInstanceAndDecrementServerGroup is the one that shrinks); scaleDown with instanceIds
// deletes exactly those and respects the recorded min. Both skip those gone and report only what Azure confirmed —
// also when deletes keep failing.
import t from "tap";
import { newStage, Orca } from "../testkit/orca.ts";
import { demo, startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 60 });
t.teardown(() => env.close());
t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

async function run(operation: string, description: unknown) {
  const res = await env.api("POST", `/azure/ops/${operation}`, description);
  if (res.status !== 202) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return env.waitForTask(res.body.id);
}

async function vmIds(name: string): Promise<string[]> {
  return (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.vms.map((v: Json) => v.instanceId);
}

t.test("replaces the named instances: the capacity Azure holds afterwards is the one before", async (t) => {
  const task = await run("terminateInstances", demo("web-prod-v001", { instanceIds: ["0", "2"] }));
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.same(await vmIds("web-prod-v001"), ["1", "3", "4"], "0 and 2 gone, two new instances in their place");
  t.equal(task.resultObjects[0].capacity.desired, 3, "the capacity kept");
  t.equal(task.resultObjects[0].instanceCount, 3, "from the VM list read once Azure reported them running");
  const writes = writesOf(await env.calls());
  t.equal(writes.length, 2, JSON.stringify(writes));
  t.match(writes[0], { method: "POST", path: /\/delete$/ }, "one batch delete");
  t.match(writes[1], { method: "PATCH", ifMatch: /^"\d+"$/ }, "then the capacity written back, If-Match the read");
  t.match(
    task.history.map((h: Json) => h.status).join("\n"),
    /delete instance\(s\) 0, 2 \(capacity 3 → 1, then back to 3\)[\s\S]*restore capacity 1 → 3/,
  );

  await env.simControl("DELETE", "/_sim/calls");
  const again = await run("terminateInstances", demo("web-prod-v001", { instanceIds: ["0", "2"] }));
  t.equal(again.status.failed, false);
  t.same(writesOf(await env.calls()), [], "already gone: nothing to delete, nothing to restore");
  t.match(
    again.history.map((h: Json) => h.status).join("\n"),
    /none of 0, 2 exists \(deleted already, or never created\)/,
  );
});

t.test("skips instances already gone, deletes the rest", async (t) => {
  const task = await run("scaleDown", demo("web-prod-v002", { instanceIds: ["1", "7"] }));
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.same(await vmIds("web-prod-v002"), ["0", "2"]);
  t.match(
    task.history.map((h: Json) => h.status).join("\n"),
    /delete instance\(s\) 1 \(capacity 3 → 2\); 1 already gone or deleting/,
  );
});

t.test(
  "scaleDown refuses a batch that would go below the recorded min; terminateInstances never goes below it",
  async (t) => {
    await run("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 2, max: 5, desired: 3 } }));
    await env.simControl("DELETE", "/_sim/calls");
    const task = await run("scaleDown", demo("web-prod-v001", { instanceIds: ["0", "1"] }));
    t.equal(task.status.failed, true);
    t.equal(task.status.retryable, false);
    t.match(task.resultObjects.at(-1), { type: "EXCEPTION", cause: "BelowMinimum" });
    t.same(writesOf(await env.calls()), []);
    t.same(await vmIds("web-prod-v001"), ["0", "1", "2"]);

    const replaced = await run("terminateInstances", demo("web-prod-v001", { instanceIds: ["0", "1"] }));
    t.equal(replaced.status.failed, false, JSON.stringify(replaced.history));
    t.same(await vmIds("web-prod-v001"), ["2", "3", "4"]);
    t.same(replaced.resultObjects[0].capacity, { min: 2, max: 5, desired: 3 });
  },
);

t.test("deletes that fail repeatedly never change the reported capacity", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    action: "failOperation",
    method: "POST",
    pathContains: "web-prod-v002/delete",
    code: "InternalExecutionError",
    message: "Delete failed.",
    count: 100,
  });
  const task = await run("terminateInstances", demo("web-prod-v002", { instanceIds: ["0"] }));
  t.equal(task.status.failed, true, "gave up after its attempts");
  t.equal(task.status.retryable, true);
  t.same(
    task.resultObjects.filter((r: Json) => r.type === "serverGroup"),
    [],
    "no capacity reported for a delete that never completed",
  );
  // Azure does not roll a failed delete back: the model lost the instance, the VM stays listed as Failed, the scale
  // set is Failed. The server-group read reports the VMs as Azure lists them and says the two disagree.
  const sg = (await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/web-prod-v002")).body;
  t.equal(sg.provisioningState, "Failed");
  t.same(
    sg.instances.map((i: Json) => [i.instanceId, i.provisioningState]),
    [
      ["0", "Failed"],
      ["1", "Succeeded"],
      ["2", "Succeeded"],
    ],
  );
  t.equal(sg.instanceCount, 2, "two instances run");
  t.match(sg.disagreement, /Failed, with 2 of capacity \d+ instance\(s\) running/);
  const deletes = (await env.calls()).filter((c) => /\/delete$/.test(c.path));
  t.equal(deletes.length, env.config.retry.maxAttempts, "one delete per attempt, each planned on a fresh read");
  await env.simControl("DELETE", "/_sim/faults");
});

t.test("an instance removed by another writer between our read and our delete: re-read and re-plan", async (t) => {
  // Just before our delete lands, an autoscaler scales in to 2 (instance 2 goes); the POST cannot carry If-Match.
  await env.simControl("POST", "/_sim/faults", {
    action: "outOfBandChange",
    method: "POST",
    pathContains: "web-prod-v001/delete",
    change: { capacity: 2 },
    count: 1,
  });
  const task = await run("terminateInstances", demo("web-prod-v001", { instanceIds: ["1", "2"] }));
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  const history = task.history.map((h: Json) => h.status).join("\n");
  t.match(history, /InstancesChanged, retrying/);
  // The capacity written back is the one read when the terminate first planned its delete.
  t.match(
    history,
    /attempt 2\/\d+: delete instance\(s\) 1 \(capacity 2 → 1, then back to 3\); 1 already gone or deleting/,
  );
  t.same(await vmIds("web-prod-v001"), ["0", "3", "4"]);
});

t.test("bad instance ids are a 400", async (t) => {
  for (const instanceIds of [[], ["a/b"], ["1", "1"]]) {
    const res = await env.api("POST", "/azure/ops/terminateInstances", demo("web-prod-v001", { instanceIds }));
    t.equal(res.status, 400, JSON.stringify(instanceIds));
    t.match(res.body.details[0].field, /^instanceIds/);
  }
  const both = await env.api(
    "POST",
    "/azure/ops/scaleDown",
    demo("web-prod-v001", { instanceIds: ["1"], capacity: { min: 0, max: 0, desired: 0 } }),
  );
  t.equal(both.status, 400);
});

// Deck's "Terminate and shrink", as InstanceWriter.terminateInstanceAndShrinkServerGroup builds it
// (deck packages/core/src/instance/instance.write.service.ts l.247-270) and Orca sends it on whole
// (TerminateInstanceAndDecrementServerGroupTask.groovy l.38 and l.78: `[[terminateInstanceAndDecrementServerGroup:
// stage.context]]`).
const shrink = (instance: string, extra: Record<string, unknown> = {}) => ({
  type: "terminateInstanceAndDecrementServerGroup",
  instance,
  serverGroupName: "web-prod-v001",
  asgName: "web-prod-v001",
  region: "eastus",
  credentials: "demo",
  cloudProvider: "azure",
  adjustMinIfNecessary: true,
  setMaxToNewDesired: false,
  ...extra,
});

t.test(
  "terminateInstanceAndDecrementServerGroup: the instance deleted, the size one less, min lowered with it",
  async (t) => {
    const resize = await run("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 3, max: 5, desired: 3 } }));
    t.equal(resize.status.failed, false, JSON.stringify(resize.history));
    // Deck's `instance` is Clouddriver's instance id, the VM's name: web-prod-v001_1 is instance 1.
    const task = await run("terminateInstanceAndDecrementServerGroup", shrink("web-prod-v001_1"));
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    t.same(await vmIds("web-prod-v001"), ["0", "2"]);
    t.same(task.resultObjects[0].capacity, { min: 2, max: 5, desired: 2 }, "as Azure reports it after the delete");
    const writes = writesOf(await env.calls());
    t.match(writes.at(-2), { method: "PATCH", ifMatch: /^"\d+"$/ }, "the bounds first, If-Match the read");
    t.match(writes.at(-1), { method: "POST", path: /\/delete$/ });

    const refused = await run(
      "terminateInstanceAndDecrementServerGroup",
      shrink("0", { adjustMinIfNecessary: false, setMaxToNewDesired: true }),
    );
    t.equal(refused.status.failed, true, "without adjustMinIfNecessary, not below the recorded min");
    t.match(JSON.stringify(refused.history), /BelowMinimum/);
    t.same(await vmIds("web-prod-v001"), ["0", "2"], "nothing deleted");
    const tags = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v001")).body.vmss.tags;
    t.match(tags, { "vmss-ops.min": "2", "vmss-ops.max": "5" }, "nor the bounds written");
  },
);

// What terminateInstances means here, read against its sources. clouddriver-azure has no such operation: its
// converters are create, destroy, enable, disable and resize of server groups and the network resources, and no
// TerminateAzureInstancesAtomicOperation exists in its history (spinnaker/clouddriver at 2f5e98f, clouddriver-azure/);
// the name is clouddriver-core's (AtomicOperations.java l.45). Orca's TerminateInstancesTask.groovy sends the stage
// context with the remaining instanceIds (l.55-56, l.76-77), naming the group by serverGroupName or asgName (l.66),
// and its WaitForTerminatedInstancesTask then waits until they are gone or relaunched (TerminateInstancesStage.groovy
// l.34-36, TerminatingInstanceSupport.groovy l.81-124), the group keeping its capacity as on AWS and GCE: here the
// instances are deleted, then replaced, and both are confirmed on a read.
t.test(
  "an instance id that is not a VM name, with no serverGroupName: a 400 that says which fields to send",
  async (t) => {
    // Deck's one-instance terminate (deck packages/core/src/instance/instance.write.service.ts l.31-46) names no server
    // group and sends the VM's name, which says its scale set (test/instance-actions-located.test.ts). An Azure
    // instance id ("0") is not unique among a region's scale sets, so the group is not guessed from it.
    await env.simControl("DELETE", "/_sim/calls");
    const body = {
      type: "terminateInstances",
      instanceIds: ["0"],
      region: "eastus",
      zone: "eastus",
      credentials: "demo",
      user: "anonymous",
    };
    const res = await env.api("POST", "/azure/ops", [{ terminateInstances: body }]);
    t.equal(res.status, 400);
    t.same(res.body.details.map((d: Json) => d.field).sort(), [
      "[0].terminateInstances.instanceIds",
      "[0].terminateInstances.serverGroupName",
    ]);
    t.same(writesOf(await env.calls()), [], "nothing deleted");
  },
);

t.test("Deck's multi-instance terminate through Orca's TerminateInstancesStage replaces exactly those", async (t) => {
  // deck instance.write.service.ts l.49-54 and l.299-312 (type, cloudProvider, instanceIds, credentials, region,
  // serverGroupName, asgName), TaskExecutor's user (taskExecutor.ts l.39); Orca: the stage context with the
  // remaining instance ids (TerminateInstancesTask.groovy l.76-77), POST /azure/ops (KatoService).
  const orca = new Orca(env.api, { pollMs: 20 });
  await env.simControl("DELETE", "/_sim/calls");
  // Deck's instance ids are Clouddriver's, the VM names (clouddriver-web ServerGroupController.groovy l.405-406:
  // `id = instance.name`; clouddriver-azure AzureInstance.groovy l.44: `name = vm.name()`, <scale set>_<id>).
  const ids = ["web-prod-v001_0", "web-prod-v001_1"];
  const stage = newStage({
    type: "terminateInstances",
    cloudProvider: "azure",
    instanceIds: ids,
    credentials: "demo",
    region: "eastus",
    serverGroupName: "web-prod-v001",
    asgName: "web-prod-v001",
    user: "anonymous",
  });
  const { task, waitPolls } = await orca.terminateInstancesStage(stage);
  t.equal(task?.status.failed, false, JSON.stringify(task?.history));
  t.same(await vmIds("web-prod-v001"), ["2", "3", "4"], "what Azure holds afterwards: two replaced");
  t.equal(task?.resultObjects[0].capacity.desired, 3, "the capacity kept, as TerminateInstancesStage does elsewhere");
  t.equal(waitPolls, 1, "WaitForTerminatedInstancesTask: the server group no longer lists them");
  const deletes = writesOf(await env.calls()).filter((c) => /\/delete$/.test(c.path));
  t.equal(deletes.length, 1, "one batch delete");
});
