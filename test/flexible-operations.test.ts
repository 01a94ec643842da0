// Every operation on a Flexible scale set, end to end (HTTP API → task → real SDK → simulator): each test asserts what
// Azure (the simulator) shows afterwards — the VMs listed for the set, the load balancer's pool members as the NICs
// name them, the calls Azure received — not only what the task says.
import t from "tap";
import { demo, startResettingTestEnv, type SimCall } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const { env, control } = await startResettingTestEnv(t, { writeDurationMs: 50 });

const ARM = () => `/subscriptions/${env.sim.subscriptionId}/resourceGroups/${RG}/providers`;

async function run(operation: string, description: unknown) {
  const submitted = await env.api("POST", `/azure/ops/${operation}`, description);
  if (submitted.status !== 202) throw new Error(`${operation}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return env.waitForTask(submitted.body.id);
}

/** A Flexible set made at once by the simulator: VMs running, each NIC in `<name>-lb`'s pool. */
async function flexible(name: string, capacity: number): Promise<void> {
  await control.putScaleSet(RG, name, { capacity, orchestrationMode: "Flexible" });
}

/** Azure's own view: the set's VMs (names, provisioning and power state) and its capacity. */
async function azureView(name: string) {
  const snapshot = await control.getScaleSet(RG, name);
  const vms = snapshot.vms.map((vm: Json) => ({
    name: vm.name as string,
    state: vm.properties.provisioningState as string,
    power: (vm.properties.instanceView?.statuses ?? []).find((s: Json) => s.code.startsWith("PowerState/"))?.code as
      string | undefined,
  }));
  return { vms, names: vms.map((v) => v.name).sort(), capacity: (snapshot.vmss as Json).sku.capacity as number };
}

/**
 * The VMs the load balancer sends to: the members of its pools, as the NICs name them. The control API's scale sets
 * name `<name>-lb` without storing it, so when no NIC names one of its pools the simulator knows no such load
 * balancer (404): no members.
 */
async function poolMembers(name: string, lb = `${name}-lb`): Promise<string[]> {
  const res = await env.simControl("GET", `/_sim/network/loadBalancers/${RG}/${lb}/traffic`);
  if (res.status === 404) return [];
  if (res.status !== 200) throw new Error(`traffic of ${lb}: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body.pools as { members: { instanceId: string }[] }[])
    .flatMap((p) => p.members.map((m) => m.instanceId))
    .sort();
}

const nonGets = (calls: SimCall[]) => calls.filter((c) => c.method !== "GET");

t.test(
  "reads: our server group and Orca's list the set's VMs by name, with their power state and traffic; capacity from the VMs that run",
  async (t) => {
    await flexible("flex-v001", 3);
    const { names } = await azureView("flex-v001");
    const ours = await env.api("GET", `/azure/serverGroups/demo/eastus/${RG}/flex-v001`);
    t.equal(ours.status, 200, JSON.stringify(ours.body));
    t.same(ours.body.instances.map((i: Json) => i.instanceId).sort(), names, "the VM names are the instance ids");
    t.ok(
      ours.body.instances.every((i: Json) => i.inTraffic === true),
      "each NIC in the pool",
    );
    t.equal(ours.body.instanceCount, 3);

    // Azure deallocates one: it is listed, and it does not count.
    const [stopped] = names;
    const res = await control.request(
      "POST",
      `${ARM()}/Microsoft.Compute/virtualMachines/${stopped}/deallocate?api-version=2026-04-01`,
      { headers: { authorization: "Bearer test" } },
    );
    t.equal(res.status, 202);
    await waitFor(
      async () =>
        (await azureView("flex-v001")).vms.find((v) => v.name === stopped)?.power === "PowerState/deallocated",
      { what: `${stopped} deallocated` },
    );
    const after = (await env.api("GET", `/azure/serverGroups/demo/eastus/${RG}/flex-v001`)).body;
    t.equal(after.instanceCount, 2, "capacity confirmed only from the VMs Azure reports running");
    t.match(after.disagreement, new RegExp(`not running: instance\\(s\\) ${stopped} \\(deallocated\\)`));

    const orca = await env.api("GET", "/serverGroups/demo/eastus/flex-v001");
    t.equal(orca.status, 200, JSON.stringify(orca.body));
    t.same(orca.body.instances.map((i: Json) => i.name).sort(), names);
    t.equal(
      orca.body.instances.find((i: Json) => i.name === stopped).healthState,
      "Down",
      "Orca sees the deallocated VM down",
    );
    const running = orca.body.instances.find((i: Json) => i.name !== stopped);
    t.match(
      running,
      {
        healthState: "Up",
        health: [
          { type: "Azure" },
          { type: "LoadBalancer", state: "Up", description: /Azure reports no health for it/ },
        ],
      },
      "no extension: Up means running in the pool, and says so",
    );
    t.equal(orca.body.instanceCounts.up, 2);
  },
);

t.test("resize 2 → 4 and scaleDown to 1: the capacity Azure confirms, from the VMs it lists for the set", async (t) => {
  await flexible("flex-v002", 2);
  const up = await run("resizeServerGroup", demo("flex-v002", { capacity: { min: 1, max: 4, desired: 4 } }));
  t.equal(up.state, "succeeded", JSON.stringify(up.history));
  t.match(up.resultObjects[0], { capacity: { desired: 4 }, instanceCount: 4 });
  const view = await azureView("flex-v002");
  t.equal(view.capacity, 4);
  t.equal(
    view.vms.filter((v) => v.state === "Succeeded" && v.power === "PowerState/running").length,
    4,
    "four VMs run",
  );
  t.same(await poolMembers("flex-v002"), view.names, "the new VMs' NICs are in the pool (made from the model)");

  const down = await run("scaleDown", demo("flex-v002", { capacity: { min: 1, max: 1, desired: 1 } }));
  t.equal(down.state, "succeeded", JSON.stringify(down.history));
  t.match(down.resultObjects[0], { capacity: { desired: 1 }, instanceCount: 1 });
  t.equal((await azureView("flex-v002")).names.length, 1);
});

t.test(
  "terminateInstances by VM name: Azure's batch delete removes exactly those, then the capacity is restored; a name not of the set is refused before anything is deleted",
  async (t) => {
    await flexible("flex-v003", 3);
    const { names } = await azureView("flex-v003");
    await env.simControl("DELETE", "/_sim/calls");
    const refused = await run(
      "terminateInstances",
      demo("flex-v003", { instanceIds: [names[0], "flex-v009_0a1b2c3d"] }),
    );
    t.equal(refused.state, "failed");
    t.equal(refused.status.retryable, false);
    t.match(
      refused.status.status,
      /flex-v009_0a1b2c3d is not a VM of the Flexible scale set flex-v003.*nothing was deleted/,
    );
    t.same(nonGets(await env.calls()), [], "not one write reached Azure");
    t.same((await azureView("flex-v003")).names, names, "every VM still there");

    const done = await run("terminateInstances", demo("flex-v003", { instanceIds: [names[0]] }));
    t.equal(done.state, "succeeded", JSON.stringify(done.history));
    const deletes = nonGets(await env.calls()).filter((c) => /\/delete$/.test(c.path));
    t.equal(deletes.length, 1, "one batch delete");
    t.match(deletes[0].path, /virtualMachineScaleSets\/flex-v003\/delete$/);
    const after = await azureView("flex-v003");
    t.notOk(after.names.includes(names[0]), "the VM named is gone");
    t.same(
      after.names.filter((n: string) => names.includes(n)),
      names.slice(1),
      "the others kept; a new VM in its place",
    );
    t.equal(after.capacity, 3, "the capacity kept");
    t.match(done.resultObjects[0], { capacity: { desired: 3 }, instanceCount: 3 });
  },
);

t.test(
  "a VM under a management lock (on it, or on its resource group) is refused by terminateInstances and scaleDown before anything is deleted, naming the lock",
  async (t) => {
    await flexible("flex-v010", 3);
    const { names } = await azureView("flex-v010");
    const LOCKS = "providers/Microsoft.Authorization/locks";
    const lockAt = (scope: string, level: string) =>
      control.request("PUT", `${scope}?api-version=2020-05-01`, {
        headers: { authorization: "Bearer test-token" },
        body: { properties: { level, notes: "under investigation" } },
      });
    const unlock = (scope: string) =>
      control.request("DELETE", `${scope}?api-version=2020-05-01`, { headers: { authorization: "Bearer test-token" } });
    const vmLock = `${ARM()}/Microsoft.Compute/virtualMachines/${names[1]}/${LOCKS}/keep`;
    t.equal((await lockAt(vmLock, "CanNotDelete")).status, 201);
    await env.simControl("DELETE", "/_sim/calls");

    const refused = await run("terminateInstances", demo("flex-v010", { instanceIds: [names[0], names[1]] }));
    t.equal(refused.state, "failed");
    t.equal(refused.status.retryable, false);
    t.match(
      refused.status.status,
      new RegExp(
        `${names[1]} \\(lock keep \\(CanNotDelete, on .*virtualMachines/${names[1]}: under investigation\\)\\).*nothing was deleted`,
      ),
    );
    t.notMatch(refused.status.status, new RegExp(`${names[0]} \\(lock`), "the unlocked VM is not named as locked");
    t.same(nonGets(await env.calls()), [], "not one write reached Azure");
    t.same((await azureView("flex-v010")).names, names, "every VM still there, the unlocked one too");

    // A resource group's lock holds each VM in it.
    t.equal((await unlock(vmLock)).status, 200);
    const groupLock = `/subscriptions/${env.sim.subscriptionId}/resourceGroups/${RG}/${LOCKS}/freeze`;
    t.equal((await lockAt(groupLock, "CanNotDelete")).status, 201);
    await env.simControl("DELETE", "/_sim/calls");
    const down = await run("scaleDown", demo("flex-v010", { instanceIds: [names[2]] }));
    t.equal(down.state, "failed");
    t.match(
      down.status.status,
      new RegExp(`${names[2]} \\(lock freeze \\(CanNotDelete, on /subscriptions/[^/]+/resourceGroups/${RG}`),
    );
    t.same(nonGets(await env.calls()), [], "still not one write");
    t.same((await azureView("flex-v010")).names, names);

    t.equal((await unlock(groupLock)).status, 200);
    // A lock placed after our read: Azure answers the batch delete 409 ScopeLocked, which is not another writer's
    // lock to wait out: the task ends at once, nothing deleted.
    const lockedMeanwhile = await env.simControl("POST", "/_sim/faults", {
      action: "respond",
      method: "POST",
      pathContains: "flex-v010/delete",
      status: 409,
      code: "ScopeLocked",
      count: 1,
      message: `The scope '${ARM()}/Microsoft.Compute/virtualMachines/${names[1]}' cannot perform delete operation because following scope(s) are locked: '${ARM()}/Microsoft.Compute/virtualMachines/${names[1]}'. Please remove the lock and try again.`,
    });
    t.equal(lockedMeanwhile.status, 201, JSON.stringify(lockedMeanwhile.body));
    await env.simControl("DELETE", "/_sim/calls");
    const raced = await run("terminateInstances", demo("flex-v010", { instanceIds: [names[1]] }));
    t.equal(raced.state, "failed");
    t.equal(raced.status.retryable, false);
    t.match(raced.status.status, /ScopeLocked/);
    t.equal(
      nonGets(await env.calls()).filter((c) => /\/delete$/.test(c.path)).length,
      1,
      "one delete sent, not retried",
    );
    t.same((await azureView("flex-v010")).names, names, "nothing deleted");

    const done = await run("terminateInstances", demo("flex-v010", { instanceIds: [names[1]] }));
    t.equal(done.state, "succeeded", JSON.stringify(done.history));
    const left = (await azureView("flex-v010")).names;
    t.same(
      left.filter((n: string) => names.includes(n)),
      [names[0], names[2]],
      "unlocked, exactly that VM is gone (and replaced)",
    );
  },
);

t.test(
  "disable takes every VM's NIC out of the pool (If-Match each), and the model; enable puts them back; the load balancer shows it",
  async (t) => {
    await flexible("flex-v004", 3);
    const { names } = await azureView("flex-v004");
    t.same(await poolMembers("flex-v004"), names, "in traffic before");
    await env.simControl("DELETE", "/_sim/calls");
    const disabled = await run("disableServerGroup", demo("flex-v004"));
    t.equal(disabled.state, "succeeded", JSON.stringify(disabled.history));
    t.same(await poolMembers("flex-v004"), [], "no VM is a member of any pool of the load balancer");
    const nicPuts = nonGets(await env.calls()).filter((c) => c.method === "PUT" && /networkInterfaces/i.test(c.path));
    t.equal(nicPuts.length, 3, "one PUT per NIC");
    t.ok(
      nicPuts.every((c) => c.ifMatch !== null && c.ifMatch !== "*"),
      "each NIC written with If-Match on the ETag it was read with",
    );
    const model = (await control.getScaleSet(RG, "flex-v004")).vmss as Json;
    const modelPools =
      model.properties.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0].properties
        .ipConfigurations[0].properties.loadBalancerBackendAddressPools ?? [];
    t.same(modelPools, [], "the model has no pools: a VM Azure makes now stays out");
    t.match(disabled.resultObjects[0], { disabled: true, instanceCount: 3 });

    // A VM made while disabled follows the model: out of traffic too.
    await run("resizeServerGroup", demo("flex-v004", { targetSize: 4 }));
    t.same(await poolMembers("flex-v004"), [], "the new VM is out of traffic");

    const enabled = await run("enableServerGroup", demo("flex-v004"));
    t.equal(enabled.state, "succeeded", JSON.stringify(enabled.history));
    t.same(
      await poolMembers("flex-v004"),
      (await azureView("flex-v004")).names,
      "every VM, the new one too, back in the pool",
    );
    t.match(enabled.resultObjects[0], { disabled: false, instanceCount: 4 });
  },
);

t.test(
  "a NIC changed by someone else between our read and our write: 412, re-read, re-planned, and the disable still ends out of traffic",
  async (t) => {
    await flexible("flex-v005", 2);
    const fault = await env.simControl("POST", "/_sim/faults", {
      method: "PUT",
      pathContains: "networkInterfaces",
      status: 412,
      code: "PreconditionFailed",
      count: 1,
    });
    t.equal(fault.status, 201, JSON.stringify(fault.body));
    const disabled = await run("disableServerGroup", demo("flex-v005"));
    t.equal(disabled.state, "succeeded", JSON.stringify(disabled.history));
    t.ok(
      disabled.history.some((h: Json) => /PreconditionFailed, retrying/.test(h.status)),
      "the 412 is in the history, and retried",
    );
    t.same(await poolMembers("flex-v005"), []);
  },
);

t.test(
  "a partial disable (desiredPercentage, Orca's rolling red/black) takes its share of VMs out, each NIC with If-Match, the model and the rest untouched; a retry after a 412 takes out no more; enable puts them all back",
  async (t) => {
    await flexible("flex-v011", 4);
    const { names } = await azureView("flex-v011");
    const modelBefore = (await control.getScaleSet(RG, "flex-v011")).vmss as Json;
    await env.simControl("DELETE", "/_sim/calls");
    // RollingRedBlackStrategy.groovy l.208-211: the disable stage's context, sent as the operation.
    const rrb = (desiredPercentage: number) => ({
      ...demo("flex-v011"),
      cluster: "flex",
      moniker: { app: "flex", cluster: "flex" },
      cloudProvider: "azure",
      desiredPercentage,
    });
    const quarter = await run("disableServerGroup", rrb(25));
    t.equal(quarter.state, "succeeded", JSON.stringify(quarter.history));
    t.same(await poolMembers("flex-v011"), names.slice(1), "25 % of 4: the first VM by name left the pool");
    t.same(
      quarter.resultObjects[0].instanceIdsToDisable,
      [names[0]],
      "named for Orca's WaitForRequiredInstancesDownTask",
    );
    t.match(quarter.resultObjects[0], { disabled: false, instanceCount: 4 }, "the group stays enabled");
    const nicPuts = nonGets(await env.calls());
    t.equal(nicPuts.length, 1, "one write: that VM's NIC");
    t.match(nicPuts[0], { method: "PUT", path: /networkInterfaces/ });
    t.ok(nicPuts[0].ifMatch !== null && nicPuts[0].ifMatch !== "*", "with If-Match on the ETag read");
    t.same((await control.getScaleSet(RG, "flex-v011")).vmss, modelBefore, "the scale set's model is not written");

    // Someone changes a NIC between our read and our write: 412, re-read, re-planned, and the share is still 2.
    const fault = await env.simControl("POST", "/_sim/faults", {
      method: "PUT",
      pathContains: "networkInterfaces",
      status: 412,
      code: "PreconditionFailed",
      count: 1,
    });
    t.equal(fault.status, 201, JSON.stringify(fault.body));
    const half = await run("disableServerGroup", rrb(50));
    t.equal(half.state, "succeeded", JSON.stringify(half.history));
    t.ok(
      half.history.some((h: Json) => /PreconditionFailed, retrying/.test(h.status)),
      "the 412 retried",
    );
    t.same(await poolMembers("flex-v011"), names.slice(2), "50 %: one more out, not two");
    t.same(half.resultObjects[0].instanceIdsToDisable, names.slice(0, 2));
    const again = await run("disableServerGroup", rrb(50));
    t.ok(
      again.history.some((h: Json) =>
        /attempt 1\/\d+: 2 of 4 instance\(s\) out of traffic \(50 % asked: 2\)/.test(h.status),
      ),
      `asked again: done on the first read: ${JSON.stringify(again.history)}`,
    );
    t.same(await poolMembers("flex-v011"), names.slice(2), "asked again: nothing more");

    const orcaView = (await env.api("GET", `/serverGroups/demo/eastus/flex-v011`)).body;
    t.same(
      orcaView.instances.map((i: Json) => [i.name, i.healthState]).sort(),
      names.map((n, i) => [n, i < 2 ? "OutOfService" : "Up"]),
      "Orca reads the share OutOfService, the rest Up",
    );
    t.equal(orcaView.disabled, false);

    const enabled = await run("enableServerGroup", demo("flex-v011"));
    t.equal(enabled.state, "succeeded", JSON.stringify(enabled.history));
    t.same(await poolMembers("flex-v011"), names, "every VM back in the pool");
  },
);

t.test(
  "a partial disable of a Uniform set (upgrade policy Manual): each chosen instance's own network configuration without its pools, If-Match its ETag; a 412 re-planned; enable's upgrade to the model puts them all back",
  async (t) => {
    await control.putScaleSet(RG, "uni-v001", { capacity: 4, loadBalanced: true, upgradePolicy: "Manual" });
    const modelBefore = (await control.getScaleSet(RG, "uni-v001")).vmss as Json;
    await env.simControl("DELETE", "/_sim/calls");
    // Someone changes an instance between our read and our write: 412, re-read, re-planned, and the share is still 2.
    const fault = await env.simControl("POST", "/_sim/faults", {
      method: "PUT",
      pathContains: "uni-v001/virtualMachines/",
      status: 412,
      code: "PreconditionFailed",
      count: 1,
    });
    t.equal(fault.status, 201, JSON.stringify(fault.body));
    const half = await run("disableServerGroup", demo("uni-v001", { desiredPercentage: 50 }));
    t.equal(half.state, "succeeded", JSON.stringify(half.history));
    t.ok(
      half.history.some((h: Json) => /PreconditionFailed, retrying/.test(h.status)),
      "the 412 retried",
    );
    t.same(await poolMembers("uni-v001"), ["2", "3"], "50 % of 4: two instances out, not more");
    t.match(half.resultObjects[0], { disabled: false, instanceCount: 4 }, "the group stays enabled");
    const puts = nonGets(await env.calls()).filter((c) => c.method === "PUT");
    t.ok(puts.length >= 2 && puts.every((c) => /\/virtualMachines\/\d+/.test(c.path)), "each instance's own PUT");
    t.ok(
      puts.every((c) => c.ifMatch !== null && c.ifMatch !== "*"),
      "with If-Match on the instance's ETag as read",
    );
    t.same((await control.getScaleSet(RG, "uni-v001")).vmss, modelBefore, "the scale set's model is not written");
    const vms = (await control.getScaleSet(RG, "uni-v001")).vms as Json[];
    t.same(
      vms.map((vm) => [vm.instanceId, vm.properties.latestModelApplied]),
      [
        ["0", false],
        ["1", false],
        ["2", true],
        ["3", true],
      ],
      "the instances taken out are off the model",
    );

    const enabled = await run("enableServerGroup", demo("uni-v001"));
    t.equal(enabled.state, "succeeded", JSON.stringify(enabled.history));
    t.same(await poolMembers("uni-v001"), ["0", "1", "2", "3"], "every instance back in the pool");
  },
);

t.test(
  "a partial disable of a Uniform set under upgrade policy Automatic is refused before any write, saying why",
  async (t) => {
    await control.putScaleSet(RG, "uni-v002", { capacity: 2, loadBalanced: true, upgradePolicy: "Automatic" });
    await env.simControl("DELETE", "/_sim/calls");
    const refused = await run("disableServerGroup", demo("uni-v002", { desiredPercentage: 50 }));
    t.equal(refused.state, "failed");
    t.equal(refused.status.retryable, false);
    t.match(refused.resultObjects[0], { cause: "PartialDisableUniform" });
    t.match(refused.status.status, /upgrade policy Automatic.*nothing was written/);
    t.same(nonGets(await env.calls()), [], "not one write reached Azure");
    t.equal((await poolMembers("uni-v002")).length, 2, "both instances still in the pool");
  },
);

t.test("destroyServerGroup: the scale set is gone and Azure took its VMs with it", async (t) => {
  await flexible("flex-v006", 2);
  const task = await run("destroyServerGroup", demo("flex-v006"));
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.match(task.resultObjects[0], { type: "destroyedServerGroup", deletedByThisTask: true });
  const filter = encodeURIComponent(
    `'virtualMachineScaleSet/id' eq '${ARM()}/Microsoft.Compute/virtualMachineScaleSets/flex-v006'`,
  );
  const listed = await control.request(
    "GET",
    `${ARM()}/Microsoft.Compute/virtualMachines?$filter=${filter}&api-version=2026-04-01`,
    { headers: { authorization: "Bearer test" } },
  );
  t.same((listed.body as Json).value ?? [], [], "no VM of it is left");
});

t.test(
  "rollingUpgrade on a Flexible set: every VM replaced by one from the new model, by surge, never below the desired count ready",
  async (t) => {
    await flexible("flex-v007", 3);
    const before = (await azureView("flex-v007")).names;
    const task = await run(
      "rollingUpgrade",
      demo("flex-v007", {
        image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "minimal", version: "latest" },
        maxSurge: 1,
        maxUnavailable: 0,
      }),
    );
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    const snapshot = await control.getScaleSet(RG, "flex-v007");
    const after = snapshot.vms.map((vm) => vm.name as string).sort();
    t.equal(after.length, 3, "the desired count");
    t.same(
      after.filter((n) => before.includes(n)),
      [],
      "none of the VMs on the old model is left",
    );
    t.ok(
      snapshot.vms.every((vm: Json) => vm.properties.storageProfile.imageReference.sku === "minimal"),
      "every VM boots the new image",
    );
    t.same(await poolMembers("flex-v007"), after, "the new VMs serve from the pool");
    const tags = ((snapshot.vmss as Json).tags ?? {}) as Record<string, string>;
    t.notOk(
      Object.keys(tags).some((k) => k.startsWith("vmss-ops.upgrade-old.") || k === "vmss-ops.upgrade-desired"),
      "the under-way records removed",
    );
    for (const line of task.history.map((h: Json) => h.status as string)) {
      const healthy = /healthy (\d+)\/3/.exec(line);
      if (healthy && /delete/.test(line)) t.ok(Number(healthy[1]) >= 3, `never below 3 ready: ${line}`);
    }
  },
);

/** APP's load balancer APP-lb with its pool APP-pool, made as a team makes it before its first deploy. */
async function loadBalancerFor(app: string): Promise<void> {
  const res = await control.request(
    "PUT",
    `${ARM()}/Microsoft.Network/loadBalancers/${app}-lb?api-version=2024-05-01`,
    {
      headers: { authorization: "Bearer test" },
      body: {
        location: "eastus",
        properties: {
          frontendIPConfigurations: [{ name: "frontend", properties: {} }],
          backendAddressPools: [{ name: `${app}-pool` }],
        },
      },
    },
  );
  if (res.status !== 201 && res.status !== 200) throw new Error(`${app}-lb: ${res.status} ${JSON.stringify(res.body)}`);
}

/** A create of a Flexible scale set for APP, two VMs behind its own load balancer APP-lb (loadBalancerFor). */
function flexibleCreate(app: string) {
  const net = `${ARM()}/Microsoft.Network`;
  return {
    credentials: "demo",
    region: "eastus",
    application: app,
    stack: "prod",
    orchestrationMode: "Flexible",
    image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
    sku: { name: "Standard_D2s_v3", tier: "Standard" },
    capacity: { min: 1, max: 4, desired: 2 },
    subnetId: `${net}/virtualNetworks/demo-rg-vnet/subnets/default`,
    loadBalancerBackendPoolId: `${net}/loadBalancers/${app}-lb/backendAddressPools/${app}-pool`,
    osConfig: { sshPublicKeys: ["ssh-ed25519 AAAAC3Nza test@example"] },
  };
}

t.test(
  "createServerGroup with orchestrationMode Flexible: a Flexible set whose VMs' NICs are in its pool, as the load balancer shows; a clone keeps the mode",
  async (t) => {
    await loadBalancerFor("flexapp");
    const description = flexibleCreate("flexapp");
    const created = await run("createServerGroup", description);
    t.equal(created.state, "succeeded", JSON.stringify(created.history));
    const name = created.resultObjects[0].serverGroupName as string;
    const snapshot = await control.getScaleSet(RG, name);
    t.equal((snapshot.vmss as Json).properties.orchestrationMode, "Flexible");
    t.equal(snapshot.vms.length, 2);
    t.same(
      await poolMembers(name, "flexapp-lb"),
      snapshot.vms.map((vm) => vm.name).sort(),
      "each VM's NIC in the pool, each VM running",
    );
    t.ok(
      snapshot.vms.every((vm: Json) =>
        vm.properties.instanceView.statuses.some((s: Json) => s.code === "PowerState/running"),
      ),
      "every VM runs",
    );
    // Azure reports no probe health on a Flexible VM (only the Application Health extension's, and this model has
    // none), so the create cannot wait for the probe's verdict, and its history says what its success means: the load
    // balancer serves them once its probe has seen them.
    t.ok(
      created.history.some((h: Json) =>
        /2\/2 running in the pools; Azure reports no health for them \(a Flexible VM reports health only from the Application Health extension/.test(
          h.status,
        ),
      ),
      "the history says the VMs run in the pools, not that they answer",
    );
    await waitFor(
      async () => {
        const view = await control.traffic("loadBalancers", RG, "flexapp-lb");
        return view.pools.every((p) => p.members.length === 2 && p.members.every((m) => m.serving));
      },
      { what: "the load balancer serving both VMs" },
    );

    const clone = await run("cloneServerGroup", {
      credentials: "demo",
      region: "eastus",
      source: { account: "demo", region: "eastus", serverGroupName: name },
    });
    t.equal(clone.state, "succeeded", JSON.stringify(clone.history));
    const cloned = await control.getScaleSet(RG, clone.resultObjects[0].serverGroupName);
    t.equal((cloned.vmss as Json).properties.orchestrationMode, "Flexible", "the clone keeps its source's mode");
  },
);

t.test(
  "createServerGroup Flexible with healthSettings: Azure's VMs carry the Application Health extension and report its health; the create and its clone end when every VM is healthy",
  async (t) => {
    await loadBalancerFor("flexh");
    const created = await run("createServerGroup", {
      ...flexibleCreate("flexh"),
      healthSettings: { protocol: "http", port: 8080, requestPath: "/health" },
    });
    t.equal(created.state, "succeeded", JSON.stringify(created.history));
    const name = created.resultObjects[0].serverGroupName as string;
    const snapshot = await control.getScaleSet(RG, name);
    t.match(
      (snapshot.vmss as Json).properties.virtualMachineProfile.extensionProfile.extensions,
      [{ properties: { publisher: "Microsoft.ManagedServices", type: "ApplicationHealthLinux" } }],
      "the extension reached Azure with its type",
    );
    t.same(
      snapshot.vms.map((vm: Json) => vm.properties.instanceView.vmHealth?.status?.code),
      ["HealthState/healthy", "HealthState/healthy"],
      "Azure reports each VM's health from the extension",
    );
    t.same(
      await poolMembers(name, "flexh-lb"),
      snapshot.vms.map((vm) => vm.name).sort(),
      "both VMs in the load balancer's pool",
    );
    t.ok(
      created.history.some((h: Json) => /in traffic: 2\/2 healthy/.test(h.status)),
      "done on the health Azure reports",
    );
    const orca = async () =>
      ((await env.api("GET", `/serverGroups/demo/eastus/${name}`)).body.instances as Json[]).map((i) => [
        i.healthState,
        i.health.find((h: Json) => h.type === "LoadBalancer")?.description,
      ]);
    t.same(
      await orca(),
      [
        ["Up", "in a backend pool, healthy"],
        ["Up", "in a backend pool, healthy"],
      ],
      "Orca reads the health Azure reports",
    );
    t.equal((await control.request("PUT", `/_sim/network/probeFailures/${RG}/${name}`)).status, 200);
    // Our reads may answer from a short cache: wait for the read made after the switch.
    await waitFor(async () => (await orca()).every(([state]) => state === "Down"), {
      what: "Orca's read showing the VMs down",
    });
    t.same(
      await orca(),
      [
        ["Down", "in a backend pool, failing the health probe"],
        ["Down", "in a backend pool, failing the health probe"],
      ],
      "and sees them down when their application stops answering",
    );
    await control.request("DELETE", `/_sim/network/probeFailures/${RG}/${name}`);

    const clone = await run("cloneServerGroup", {
      credentials: "demo",
      region: "eastus",
      source: { account: "demo", region: "eastus", serverGroupName: name },
    });
    t.equal(clone.state, "succeeded", JSON.stringify(clone.history));
    const cloned = await control.getScaleSet(RG, clone.resultObjects[0].serverGroupName);
    t.same(
      cloned.vms.map((vm: Json) => vm.properties.instanceView.vmHealth?.status?.code),
      ["HealthState/healthy", "HealthState/healthy"],
      "the clone's VMs carry the extension too",
    );
    t.ok(clone.history.some((h: Json) => /in traffic: 2\/2 healthy/.test(h.status)));
  },
);

t.test(
  "disable of a Flexible set with automatic repairs refuses before writing: their state cannot be read on Flexible",
  async (t) => {
    await flexible("flex-v008", 2);
    const kind = await env.simControl("PUT", `/_sim/scaleSets/${RG}/flex-v008/kind`, { automaticRepairs: true });
    t.equal(kind.status, 200, JSON.stringify(kind.body));
    const before = await poolMembers("flex-v008");
    await env.simControl("DELETE", "/_sim/calls");
    const task = await run("disableServerGroup", demo("flex-v008"));
    t.equal(task.state, "failed");
    t.equal(task.status.retryable, false);
    t.match(
      task.status.status,
      /disableServerGroup refused on flex-v008: it uses Flexible orchestration with automatic repairs enabled.*nothing was written/,
    );
    t.same(nonGets(await env.calls()), [], "not one write reached Azure");
    t.same(await poolMembers("flex-v008"), before, "every VM still in the pool");
  },
);
