// Descriptions exactly as Orca builds them (spinnaker/orca 2fdb327): its stage context goes out as the description,
// with null wherever nothing was set, and with fields of its own; null means absent.
import t from "tap";
import { createHash } from "node:crypto";
import { demo, startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 40 });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

/** Orca's KatoService.requestId (KatoService.java l.110-130): sha256 of stage id, start time and payload. */
function orcaRequestId(payload: unknown): string {
  return createHash("sha256")
    .update(`stage-1-${Date.now()}-${JSON.stringify(payload)}`)
    .digest("hex");
}

async function submitList(body: unknown) {
  const res = await env.api("POST", `/azure/ops?clientRequestId=${orcaRequestId(body)}`, body);
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  // Orca's own fields are known: none of its exact bodies leaves an ignored field.
  if (res.body.ignoredFields.length > 0) throw new Error(`ignored: ${res.body.ignoredFields}`);
  return env.waitForTask(res.body.id);
}

async function simCapacity(name: string): Promise<number> {
  return (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.vmss.sku.capacity;
}

/** TargetServerGroup.toClouddriverOperationPayload (TargetServerGroup.java l.136-160) for an Azure region. */
function targetPayload(name: string) {
  return {
    credentials: "demo",
    accountName: "demo",
    serverGroupName: name,
    asgName: name,
    cloudProvider: "azure",
    region: "eastus",
  };
}

t.test("scale-down-cluster's resizeServerGroup {0,0,0} goes through exactly", async (t) => {
  // ScaleDownClusterTask.groovy l.45 and l.55: the target payload plus capacity {min 0, max 0, desired 0}; sent as a
  // list by AbstractClusterWideClouddriverTask.groovy l.121 and l.140.
  const body = [{ resizeServerGroup: { ...targetPayload("web-prod-v001"), capacity: { min: 0, max: 0, desired: 0 } } }];
  const task = await submitList(body);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.match(task.resultObjects, [
    { type: "serverGroup", serverGroupName: "web-prod-v001", capacity: { min: 0, max: 0, desired: 0 } },
  ]);
  t.equal(await simCapacity("web-prod-v001"), 0, "Azure has capacity 0");
  const writes = writesOf(await env.calls()).filter((c) => c.path.includes("web-prod-v001"));
  t.equal(writes.length, 1, "one write");
  t.ok(writes[0].ifMatch, "with If-Match");
});

t.test("disable-cluster's disableServerGroup with desiredPercentage: null is a whole disable", async (t) => {
  // DisableClusterTask.groovy l.46: the target payload plus [desiredPercentage: disableOperation.desiredPercentage],
  // null when the stage has none.
  const task = await submitList([
    { disableServerGroup: { ...targetPayload("web-prod-v002"), desiredPercentage: null } },
  ]);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.match(task.resultObjects, [{ disabled: true }]);
});

t.test("the resize stage's whole context, nulls and all, is accepted; null optional fields are absent", async (t) => {
  // ResizeServerGroupTask.groovy l.63-84 sends the stage context with capacity and originalCapacity added
  // (AbstractServerGroupTask.groovy l.105-123 copies the context).
  const context = {
    ...targetPayload("web-prod-v001"),
    type: "resizeServerGroup",
    action: "scale_exact",
    resizeType: null,
    scalePct: null,
    scaleNum: null,
    target: "current_asg_dynamic",
    targetLocation: { type: "REGION", value: "eastus" },
    regions: ["eastus"],
    moniker: { app: "web", stack: "prod", cluster: "web-prod", sequence: 1 },
    interestingHealthProviderNames: null,
    cloudProviderType: "azure",
    user: "deploy-bot@example.com",
    resourceGroup: null,
    account: null,
    targetSize: null,
    capacity: { min: 1, max: 6, desired: 4 },
    originalCapacity: { min: 3, max: 3, desired: 3 },
  };
  const res = await env.api("POST", "/azure/ops/resizeServerGroup", context);
  t.equal(res.status, 202, JSON.stringify(res.body));
  t.same(res.body.ignoredFields, [], "every field Orca sends is read or known as Orca's");
  const task = await env.waitForTask(res.body.id);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.match(
    task.resultObjects,
    [{ resourceGroup: "demo-rg", capacity: { min: 1, max: 6, desired: 4 } }],
    "resourceGroup: null took the account's default",
  );

  const down = await env.api("POST", "/azure/ops/scaleDown", demo("batch-v001", { capacity: null, instanceIds: null }));
  t.equal(down.status, 202, "capacity: null and instanceIds: null are absent, not contradictory");
  t.same(down.body.ignoredFields, []);
  const done = await env.waitForTask(down.body.id);
  t.match(done.resultObjects, [{ capacity: { desired: 0 } }], "absent capacity: scale down to 0");
});

t.test("a null required field is reported as missing, by name, never a 500", async (t) => {
  const res = await env.api("POST", "/azure/ops/resizeServerGroup", {
    ...demo("web-prod-v001"),
    region: null,
    capacity: { min: null, max: 3, desired: 2 },
  });
  t.equal(res.status, 400);
  t.same(res.body.details.map((d: Json) => `${d.field}: ${d.message}`).sort(), [
    "capacity.min: is required",
    "region: is required",
  ]);
  const list = await env.api("POST", "/azure/ops", [
    { disableServerGroup: { ...demo("web-prod-v001"), serverGroupName: null } },
  ]);
  t.equal(list.status, 400);
  t.same(
    list.body.details.map((d: Json) => d.field),
    ["[0].disableServerGroup.serverGroupName"],
  );
  const element = await env.api(
    "POST",
    "/azure/ops/terminateInstances",
    demo("web-prod-v001", { instanceIds: [null] }),
  );
  t.equal(element.status, 400, "a null inside a list is a wrong value, not an absent one");
  t.match(element.body.details, [{ field: "instanceIds[0]" }]);
});
