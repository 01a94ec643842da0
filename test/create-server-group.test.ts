// createServerGroup and cloneServerGroup on the simulator, through the API.
//
// Orca's contract: AzureServerGroupCreator.groovy l.33-51 sends the stage context as one `createServerGroup`
// description (credentials from account, image from the bake stage); CloneServerGroupTask.groovy l.100 sends
// `cloneServerGroup`. After the task succeeds, MonitorKatoTask.groovy l.155-156 and l.287-301 read
// `serverGroupNames` ("region:name") of the result objects into `deploy.server.groups`. clouddriver-azure returns
// `serverGroups` and `serverGroupNames` (CreateAzureServerGroupAtomicOperation.groovy l.293-294) and names the group
// with AzureServerGroupNameResolver (l.155-156), whose rules are clouddriver-core's
// AbstractServerGroupNameResolver.groovy l.52-102.
import t from "tap";
import { clusterName, nextServerGroupName } from "../src/operations/create/server-group-name.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { modelFromDescription } from "../src/operations/create/scale-set-model.ts";
import { createComputeClient, SimulatorCredential } from "../src/azure/client.ts";
import { loadConfig } from "../src/startup-config.ts";
import { refuseZonesNotInRegion } from "../src/operations/create/region-zones.ts";
import { callsFor, startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

// A password reference names a variable of the service's own environment (the service runs in this process).
process.env.TEST_ADMIN_PASSWORD = "s3cret-Passw0rd!";
const env = await startTestEnv({ writeDurationMs: 60 });
t.teardown(() => env.close());

const sub = env.sim.subscriptionId;
const net = `/subscriptions/${sub}/resourceGroups/demo-rg/providers/Microsoft.Network`;
const subnetId = `${net}/virtualNetworks/demo-rg-vnet/subnets/default`;
const poolId = `${net}/loadBalancers/shop-lb/backendAddressPools/shop-pool`;

function shop(extra: Record<string, unknown> = {}) {
  return {
    credentials: "demo",
    region: "eastus",
    application: "shop",
    stack: "prod",
    image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
    sku: { name: "Standard_D2s_v3", tier: "Standard" },
    capacity: { min: 1, max: 5, desired: 2 },
    subnetId,
    loadBalancerBackendPoolId: poolId,
    osConfig: { sshPublicKeys: ["ssh-ed25519 AAAAC3Nza test@example"] },
    ...extra,
  };
}

async function run(op: string, description: unknown, query = "") {
  const res = await env.api("POST", `/azure/ops/${op}${query}`, description);
  if (res.status !== 202) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id as string, task: await env.waitForTask(res.body.id) };
}

const serverGroup = async (name: string) =>
  (await env.api("GET", `/azure/serverGroups/demo/eastus/demo-rg/${name}`)).body;
const simScaleSet = async (name: string) => env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`);

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

t.test("names: clouddriver-core's resolver, sequence after the latest created, wrapping at 999", async (t) => {
  // AbstractServerGroupNameResolver.groovy l.69: no server group yet → sequence 0.
  t.same(nextServerGroupName("shop-prod", []), { ok: true, name: "shop-prod-v000", sequence: 0 });
  // l.55-60 and l.80: after the one created most recently, not the highest.
  t.match(
    nextServerGroupName("shop-prod", [
      { name: "shop-prod-v007", createdTime: 2 },
      { name: "shop-prod-v009", createdTime: 1 },
    ]),
    { name: "shop-prod-v008", ancestor: "shop-prod-v007" },
  );
  // Same creation time: the highest sequence is the latest.
  t.match(nextServerGroupName("shop-prod", [{ name: "shop-prod-v001" }, { name: "shop-prod-v002" }]), {
    name: "shop-prod-v003",
  });
  // l.100-102: 999 wraps to 000; l.83-87: taken ones are skipped.
  t.match(
    nextServerGroupName("shop-prod", [
      { name: "shop-prod-v999", createdTime: 5 },
      { name: "shop-prod-v000", createdTime: 1 },
    ]),
    { name: "shop-prod-v001" },
  );
  // Other clusters of the application do not count (getTakenSlots filters by cluster, AzureServerGroupNameResolver l.56-58).
  t.match(
    nextServerGroupName("shop-prod", [{ name: "shop-prod-canary-v005", createdTime: 9 }, { name: "shop-v004" }]),
    { name: "shop-prod-v000" },
  );
  // l.89-90: every name taken is an error.
  const all = Array.from({ length: 1000 }, (_, i) => ({
    name: `shop-prod-v${String(i).padStart(3, "0")}`,
    createdTime: i,
  }));
  t.match(nextServerGroupName("shop-prod", all), {
    ok: false,
    reason: /all 1000 server group names of cluster shop-prod are taken/,
  });
  // Frigga's AutoScalingGroupNameBuilder: a detail without a stack keeps both hyphens.
  t.equal(clusterName("shop", undefined, "canary"), "shop--canary");
  t.equal(clusterName("shop", "prod", "canary-a"), "shop-prod-canary-a");
});

t.test(
  "model: out of traffic (disabled) keeps the NIC out of every pool; a custom image is referenced by id",
  async (t) => {
    const model = modelFromDescription(
      {
        region: "eastus",
        image: { isCustom: true, uri: "/subscriptions/s/resourceGroups/img/providers/Microsoft.Compute/images/shop-1" },
        sku: { name: "Standard_D2s_v3" },
        capacity: { desired: 2 },
        subnetId,
        loadBalancerBackendPoolId: poolId,
        healthSettings: { protocol: "http", port: 8080, requestPath: "/health" },
      },
      { name: "shop-prod-v000", tags: { a: "b" }, inTraffic: false },
    );
    const ipc = model.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0].ipConfigurations![0];
    t.same(ipc.loadBalancerBackendAddressPools, []);
    t.same(model.virtualMachineProfile!.storageProfile!.imageReference, {
      id: "/subscriptions/s/resourceGroups/img/providers/Microsoft.Compute/images/shop-1",
    });
    t.match(model.virtualMachineProfile!.extensionProfile!.extensions, [
      {
        typePropertiesType: "ApplicationHealthLinux",
        settings: { protocol: "http", port: 8080, requestPath: "/health" },
      },
    ]);
    t.equal(model.virtualMachineProfile!.osProfile!.adminPassword, undefined, "no password unless one was resolved");
  },
);

t.test(
  "create: the next name, one PUT with If-None-Match: *, in traffic once healthy, done when Azure confirms, Orca's result",
  async (t) => {
    const first = await run("createServerGroup", shop());
    t.equal(first.task.state, "succeeded", JSON.stringify(first.task.history));
    const [result] = first.task.resultObjects;
    t.match(result, {
      type: "createdServerGroup",
      serverGroupName: "shop-prod-v000",
      serverGroupNames: ["eastus:shop-prod-v000"],
      serverGroups: { eastus: { name: "shop-prod-v000" } },
      serverGroupNameByRegion: { eastus: "shop-prod-v000" },
      capacity: { min: 1, max: 5, desired: 2 },
      instanceCount: 2,
      provisioningState: "Succeeded",
      // clouddriver-azure enables the new group at the end of its create (CreateAzureServerGroupAtomicOperation.groovy
      // l.225-242): Orca's strategies disable or destroy the older groups next.
      disabled: false,
      loadBalancerPools: [poolId],
    });
    t.notOk("confirmed" in result, "confirmed by Azure: Succeeded with 2 running instances");
    t.ok(
      first.task.history.some((h: Json) => /in traffic: 2\/2 healthy/.test(h.status)),
      "done only once every instance is healthy behind the load balancer",
    );
    const puts = callsFor(await env.calls(), "shop-prod-v000").filter((c) => c.method === "PUT");
    t.equal(puts.length, 1, "one PUT");
    t.equal(puts[0].ifNoneMatch, "*", "conditional: never replaces a scale set");
    t.equal(puts[0].status, 201);
    const created = await serverGroup("shop-prod-v000");
    t.equal(created.disabled, false);
    t.ok(
      created.instances.length === 2 && created.instances.every((i: Json) => i.inTraffic === true),
      JSON.stringify(created.instances),
    );

    // disabled: true keeps it out, as disable leaves a scale set: enable brings exactly the recorded pool in. The next
    // one names its ancestor (AbstractServerGroupNameResolver.groovy l.75-77).
    const second = await run("createServerGroup", shop({ disabled: true }));
    t.match(second.task.resultObjects[0], {
      serverGroupName: "shop-prod-v001",
      ancestorServerGroupNameByRegion: { eastus: "shop-prod-v000" },
      disabled: true,
      loadBalancerPools: [poolId],
    });
    const off = await serverGroup("shop-prod-v001");
    t.equal(off.disabled, true);
    t.ok(
      off.instances.every((i: Json) => i.inTraffic === false),
      "no instance in a pool",
    );
    const enabled = await run("enableServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "shop-prod-v001",
    });
    t.equal(enabled.task.state, "succeeded", JSON.stringify(enabled.task.history));
    const on = await serverGroup("shop-prod-v001");
    t.equal(on.disabled, false);
    t.ok(
      on.instances.length === 2 && on.instances.every((i: Json) => i.inTraffic === true),
      JSON.stringify(on.instances),
    );
  },
);

t.test(
  "the same clientRequestId never creates a second server group; a request without one is a new deploy",
  async (t) => {
    const once = await run("createServerGroup", shop(), "?clientRequestId=deploy-42");
    t.equal(once.task.resultObjects[0].serverGroupName, "shop-prod-v000");
    // Submitted again (Orca retrying its stage): the same task.
    const again = await env.api("POST", "/azure/ops/createServerGroup?clientRequestId=deploy-42", shop());
    t.equal(again.body.id, once.id);
    // A new task carrying the same clientRequestId (the store no longer knows it, e.g. a list body with the same id is
    // refused, so this is a store that lost it): it finds the scale set marked with it and follows it.
    const tagged = await simScaleSet("shop-prod-v000");
    t.equal(
      tagged.body.vmss.tags["vmss-ops.created-by"],
      "request:deploy-42",
      "the scale set records the request that made it",
    );
    const before = (await env.calls()).filter((c) => c.method === "PUT").length;
    const other = await run(
      "createServerGroup",
      shop({ capacity: { min: 1, max: 5, desired: 2 } }),
      "?clientRequestId=deploy-43",
    );
    t.equal(other.task.resultObjects[0].serverGroupName, "shop-prod-v001", "another request is another deploy");
    t.equal((await env.calls()).filter((c) => c.method === "PUT").length, before + 1);
    const plain = await run("createServerGroup", shop());
    t.equal(
      plain.task.resultObjects[0].serverGroupName,
      "shop-prod-v002",
      "without a clientRequestId every submission is a new deploy",
    );
  },
);

t.test("a new task with a clientRequestId whose scale set exists follows it: no second PUT", async (t) => {
  // Made as if by an earlier task with clientRequestId deploy-7 that this store no longer knows.
  await env.simControl("PUT", "/_sim/scaleSets/demo-rg/shop-prod-v004", {
    capacity: 2,
    tags: { "vmss-ops.created-by": "request:deploy-7" },
  });
  const res = await run("createServerGroup", shop(), "?clientRequestId=deploy-7");
  t.equal(res.task.state, "succeeded", JSON.stringify(res.task.history));
  t.match(res.task.resultObjects[0], {
    serverGroupName: "shop-prod-v004",
    serverGroupNames: ["eastus:shop-prod-v004"],
  });
  t.match(
    res.task.history.map((h: Json) => h.status).join("\n"),
    /shop-prod-v004 was created for this request already/,
  );
  t.equal((await env.calls()).filter((c) => c.method === "PUT").length, 0, "no PUT");
});

t.test("a 412 on the create re-reads; a name taken by another writer is chosen again", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "PUT",
    pathContains: "shop-prod-v000",
    status: 412,
    code: "PreconditionFailed",
    count: 1,
  });
  const retried = await run("createServerGroup", shop());
  t.equal(retried.task.state, "succeeded", JSON.stringify(retried.task.history));
  t.same(
    callsFor(await env.calls(), "shop-prod-v000")
      .filter((c) => c.method === "PUT")
      .map((c) => c.status),
    [412, 201],
    "the 412 was followed by a fresh read (404) and one create",
  );

  // Another writer creates shop-prod-v001 between our listing and our write: the first read of it is held up by a
  // throttle long enough for the other writer to get there (a Retry-After is honoured in full: a second).
  await env.simControl("POST", "/_sim/faults", {
    method: "GET",
    pathContains: "shop-prod-v001",
    status: 429,
    code: "TooManyRequests",
    retryAfterSeconds: 1,
    count: 1,
  });
  const submitted = await env.api("POST", "/azure/ops/createServerGroup", shop());
  await waitFor(async () => callsFor(await env.calls(), "shop-prod-v001").some((c) => c.status === 429), {
    what: "the throttled read of shop-prod-v001",
  });
  await env.simControl("PUT", "/_sim/scaleSets/demo-rg/shop-prod-v001", {
    capacity: 1,
    tags: { owner: "someone-else" },
  });
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.equal(task.resultObjects[0].serverGroupName, "shop-prod-v002", "a new name, after the one taken");
  t.match(
    task.history.map((h: Json) => h.status).join("\n"),
    /shop-prod-v001 exists and was not created by this request .*choosing the name again/,
  );
  const foreign = await simScaleSet("shop-prod-v001");
  t.equal(foreign.body.vmss.tags.owner, "someone-else", "the other writer's scale set is untouched");
  t.equal(
    callsFor(await env.calls(), "shop-prod-v001").filter((c) => c.method !== "GET").length,
    0,
    "never written to",
  );
});

t.test("an allocation failure is reported with the instances that did come up", async (t) => {
  // The create gets 1 of 3 VMs, and the region has none left for the harness's re-drives either.
  await env.simControl("POST", "/_sim/faults", {
    action: "allocationFailed",
    method: "PUT",
    pathContains: "shop-prod-v000",
    allocatable: 1,
  });
  await env.simControl("POST", "/_sim/faults", {
    action: "allocationFailed",
    method: "*",
    pathContains: "shop-prod-v000",
    allocatable: 0,
    count: 20,
  });
  const { task } = await run("createServerGroup", shop({ capacity: { min: 1, max: 5, desired: 3 } }));
  t.equal(task.state, "failed", JSON.stringify(task.history));
  t.match(task.resultObjects[0], {
    type: "createdServerGroup",
    serverGroupName: "shop-prod-v000",
    confirmed: false,
    requestedCapacity: 3,
    instanceCount: 1,
    capacity: { desired: 1 },
  });
  t.match(task.resultObjects.at(-1), { type: "EXCEPTION", message: /Failed: 1 instance\(s\) running of capacity 3/ });
  t.match(task.history.map((h: Json) => h.status).join("\n"), /AllocationFailed/, "the history names Azure's error");
  t.equal(
    callsFor(await env.calls(), "shop-prod-v000").filter((c) => c.method === "PUT").length,
    1,
    "not created twice",
  );
});

t.test("clone: the source's model with overrides, into the next name of its cluster", async (t) => {
  const newImage = { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" };
  const { task } = await run("cloneServerGroup", {
    credentials: "demo",
    region: "eastus",
    source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v001" },
    image: newImage,
    instanceTags: { release: "2" },
  });
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.match(task.resultObjects[0], {
    serverGroupName: "web-prod-v003",
    capacity: { desired: 3 },
    instanceCount: 3,
    disabled: false,
    ancestorServerGroupNameByRegion: { eastus: "web-prod-v002" },
  });
  const source = (await simScaleSet("web-prod-v001")).body.vmss;
  const copy = (await simScaleSet("web-prod-v003")).body.vmss;
  t.same(copy.sku, source.sku, "same size and capacity");
  t.same(copy.properties.upgradePolicy, source.properties.upgradePolicy);
  t.same(copy.properties.virtualMachineProfile.storageProfile.imageReference, newImage, "the override");
  t.equal(copy.tags.app, "web", "the source's tags");
  t.equal(copy.tags.release, "2", "and the new ones");
  t.notOk("vmss-ops.created-by" in source.tags);
  const nic = copy.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0];
  t.same(
    nic.properties.ipConfigurations[0].properties.subnet,
    source.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0].properties
      .ipConfigurations[0].properties.subnet,
  );
  t.same(
    task.resultObjects[0].loadBalancerPools,
    [`${net}/loadBalancers/web-prod-v001-lb/backendAddressPools/web-prod-v001-pool`],
    "the source's pool, serving",
  );
});

t.test("bad input: a 400 naming each field; a password only by reference", async (t) => {
  const res = await env.api(
    "POST",
    "/azure/ops/createServerGroup",
    shop({
      image: undefined,
      subnetId: "not-an-id",
      osConfig: { adminPassword: "hunter2" },
      capacity: { min: 3, max: 5, desired: 2 },
    }),
  );
  t.equal(res.status, 400);
  const fields = res.body.details.map((d: Json) => d.field);
  t.ok(
    fields.some((f: string) => f.includes("subnetId")),
    JSON.stringify(res.body),
  );
  const semantic = await env.api(
    "POST",
    "/azure/ops/createServerGroup",
    shop({ image: undefined, osConfig: { adminPassword: "hunter2" }, capacity: { min: 3, max: 5, desired: 2 } }),
  );
  t.equal(semantic.status, 400);
  // No osConfig is needed: the VM admin comes from the account, as clouddriver-azure's from its Key Vault.
  // A password is refused by the schema, before the checks across fields.
  t.equal(semantic.body.details.length, 1, JSON.stringify(semantic.body.details));
  t.match(semantic.body.details, [
    { field: "osConfig.adminPassword", message: /refused, whatever its value.*adminPasswordEnv/ },
  ]);
  t.notMatch(JSON.stringify(semantic.body), /hunter2/, "the password is not echoed");
  const noApp = await env.api("POST", "/azure/ops/createServerGroup", shop({ application: "bad name" }));
  t.equal(noApp.status, 400);
  t.match(noApp.body.details, [{ field: "application" }]);
  const clone = await env.api("POST", "/azure/ops/cloneServerGroup", { credentials: "demo", region: "eastus" });
  t.equal(clone.status, 400);
  t.match(JSON.stringify(clone.body.details), /source/);
});

t.test("a password by environment variable: sent to Azure, held by nothing we store", async (t) => {
  const { task } = await run(
    "createServerGroup",
    shop({ osConfig: { adminUserName: "ops", adminPasswordEnv: "TEST_ADMIN_PASSWORD" } }),
  );
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.notMatch(JSON.stringify(task), /s3cret/, "not in the task");
  const stored = await env.service.store.get(task.id);
  t.notMatch(JSON.stringify(stored), /s3cret/, "not in the store");
  const missing = await run("createServerGroup", shop({ osConfig: { adminPasswordEnv: "NOT_SET_ANYWHERE" } }));
  t.equal(missing.task.state, "failed");
  t.match(missing.task.resultObjects.at(-1), { cause: "AdminPasswordNotSet", message: /NOT_SET_ANYWHERE/ });
});

t.test("a clone of a source that does not exist fails with Azure's 404, creating nothing", async (t) => {
  const { task } = await run("cloneServerGroup", {
    credentials: "demo",
    region: "eastus",
    source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v099" },
  });
  t.equal(task.state, "failed");
  t.equal(task.status.retryable, false, "sending it again cannot help");
  t.match(task.resultObjects.at(-1), { type: "EXCEPTION", cause: "ResourceNotFound" });
  t.equal((await env.calls()).filter((c) => c.method === "PUT").length, 0);
});

t.test(
  "a create Azure accepted and then failed for good: the task fails with what Azure shows of the new group",
  async (t) => {
    await env.simControl("POST", "/_sim/faults", {
      action: "failOperation",
      method: "PUT",
      pathContains: "shop-prod-v000",
      code: "OSProvisioningTimedOut",
      message: "OS provisioning did not finish in time",
    });
    const { task } = await run("createServerGroup", shop());
    t.equal(task.state, "failed", JSON.stringify(task.history));
    t.match(task.resultObjects[0], {
      type: "createdServerGroup",
      serverGroupName: "shop-prod-v000",
      provisioningState: "Failed",
      confirmed: false,
    });
    t.match(task.resultObjects.at(-1), { type: "EXCEPTION", cause: "OSProvisioningTimedOut" });
    t.equal(callsFor(await env.calls(), "shop-prod-v000").filter((c) => c.method === "PUT").length, 1, "one PUT");
  },
);

t.test("zones in a region without any are refused before anything is written, naming the region", async (t) => {
  // The check a zonal create or clone makes before it writes (prepareCreate), with the SDK against the simulator,
  // whose resource SKUs say, as Azure's, that West US has no availability zones.
  const account = loadConfig({ SIMULATOR_URL: env.sim.url, SIMULATOR_TIME_SCALE: "0.001" }).accounts[0];
  account.caPem = env.sim.caPem;
  const client = createComputeClient(account, new SimulatorCredential());
  const lines: string[] = [];
  const ctx = { log: (line: string) => lines.push(line) };
  await env.simControl("DELETE", "/_sim/calls");
  await t.rejects(refuseZonesNotInRegion(["1", "2"], "westus", "Standard_D2s_v3", client, ctx), {
    code: "ZonesNotInRegion",
    message:
      /zones 1, 2 asked for, but region westus has no availability zones for Standard_D2s_v3.*nothing was written/,
  });
  await t.resolves(refuseZonesNotInRegion(["1", "2"], "eastus", "Standard_D2s_v3", client, ctx), "East US has zones");
  await t.resolves(refuseZonesNotInRegion([], "westus", "Standard_D2s_v3", client, ctx), "no zones asked: no read");
  t.same(writesOf(await env.calls()), [], "no write");
  t.same(lines, []);
  // Azure's own answer to such a write, which the check spares the create from (CAPZ met it: kubernetes-sigs/
  // cluster-api-provider-azure#294, "ResourceTypeNotSupportAvailabilityZones").
  await t.rejects(
    client.virtualMachineScaleSets.createOrUpdate("demo-rg", "zonal-westus", {
      location: "westus",
      sku: { name: "Standard_D2s_v3", capacity: 1 },
      zones: ["1"],
    }),
    { code: "ResourceTypeNotSupportAvailabilityZones", message: /availability zones at location 'westus'/ },
  );
});

t.test(
  "create-time settings: Spot, a rolling upgrade policy, automatic repairs, a scale-in policy, zones",
  async (t) => {
    const { task } = await run(
      "createServerGroup",
      shop({
        priority: "Spot",
        evictionPolicy: "Delete",
        maxPrice: 0.2,
        upgradePolicy: "Rolling",
        rollingUpgradePolicy: { maxBatchInstancePercent: 50, pauseTimeBetweenBatches: "PT10S" },
        automaticRepairsPolicy: { enabled: true, gracePeriod: "PT20M", repairAction: "Reimage" },
        scaleInPolicy: { rules: ["NewestVM"] },
        healthSettings: { protocol: "http", port: 8080, requestPath: "/health" },
        zones: ["1", "2", "3"],
        capacity: { min: 1, max: 6, desired: 3 },
      }),
    );
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    const held = (await simScaleSet("shop-prod-v000")).body;
    const p = held.vmss.properties;
    t.match(p.virtualMachineProfile, { priority: "Spot", evictionPolicy: "Delete", billingProfile: { maxPrice: 0.2 } });
    t.same(p.upgradePolicy, {
      mode: "Rolling",
      rollingUpgradePolicy: { maxBatchInstancePercent: 50, pauseTimeBetweenBatches: "PT10S" },
    });
    t.same(p.automaticRepairsPolicy, { enabled: true, gracePeriod: "PT20M", repairAction: "Reimage" });
    t.same(p.scaleInPolicy, { rules: ["NewestVM"] });
    t.same(held.vmss.zones, ["1", "2", "3"]);
    t.same(held.vms.map((vm: Json) => vm.zones[0]).sort(), ["1", "2", "3"], "one VM in each zone");
    // Our read says where each instance is, as Azure placed it (Orca's reads carry the same as each instance's zone).
    const read = await serverGroup("shop-prod-v000");
    t.same(read.zones, ["1", "2", "3"]);
    t.same(
      read.instances.map((i: Json) => i.zone).sort(),
      held.vms.map((vm: Json) => vm.zones[0]).sort(),
      "each instance's zone in our read",
    );

    // The zonal set resizes as any other: scale-in balances across its zones (the simulator's Default rule).
    const resize = await run("resizeServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "shop-prod-v000",
      capacity: { min: 1, max: 6, desired: 5 },
    });
    t.equal(resize.task.state, "succeeded", JSON.stringify(resize.task.history));
    const grown = (await simScaleSet("shop-prod-v000")).body.vms.map((vm: Json) => vm.zones[0]);
    t.equal(grown.length, 5);
    t.ok(new Set(grown).size === 3, `still spread over the three zones: ${grown.join(",")}`);

    const refused = await env.api(
      "POST",
      "/azure/ops/createServerGroup",
      shop({ upgradePolicy: "Rolling", evictionPolicy: "Deallocate", automaticRepairsPolicy: { enabled: true } }),
    );
    t.equal(refused.status, 400);
    t.same(refused.body.details.map((d: Json) => d.field).sort(), [
      "evictionPolicy",
      "healthSettings",
      "healthSettings",
    ]);
  },
);
