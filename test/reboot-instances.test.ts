// rebootInstances as Orca sends it and Deck builds it, judged by what Azure (the simulator) holds afterwards: which
// restart calls it received (none with If-Match: Azure's restart takes none), and each instance's ProvisioningState
// time and power state. Sources (spinnaker/orca at 2fdb327, spinnaker/deck at 3f2418e):
// - orca-clouddriver/src/main/groovy/com/netflix/spinnaker/orca/clouddriver/tasks/instance/RebootInstancesTask.groovy
//   l.34 (the name) and l.45 (`kato.requestOperations(cloudProvider, [[rebootInstances: stage.context]])`);
// - deck packages/core/src/instance/instance.write.service.ts l.73-75 and l.299-312 (the multi-instance job:
//   type, cloudProvider, instanceIds, credentials, region, serverGroupName, asgName) and l.77-90 (one instance:
//   type, instanceIds, region, zone, credentials, cloudProvider, application; no serverGroupName: the scale set is read
//   from the VM's name, test/instance-actions-located.test.ts), called by
//   packages/azure/src/instance/details/instance.details.controller.js l.240-249; TaskExecutor adds `user`
//   (packages/core/src/task/taskExecutor.ts l.39).
import t from "tap";
import { newStage, Orca } from "../testkit/orca.ts";
import { startResettingTestEnv, type SimCall } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const { env, control } = await startResettingTestEnv(t, { writeDurationMs: 50 });
const orca = new Orca(env.api, { pollMs: 20 });

/** Each VM's ProvisioningState time and power state, as the simulator holds them. */
async function vmStates(name: string): Promise<Record<string, { time: string; power: string }>> {
  const snapshot = await control.getScaleSet(RG, name);
  return Object.fromEntries(
    snapshot.vms.map((vm: Json) => {
      const statuses = (vm.properties.instanceView?.statuses ?? []) as Json[];
      return [
        vm.instanceId ?? vm.name,
        {
          time: statuses.find((s) => s.code.startsWith("ProvisioningState/"))?.time,
          power: statuses.find((s) => s.code.startsWith("PowerState/"))?.code,
        },
      ];
    }),
  );
}

const restarts = (calls: SimCall[]) => calls.filter((c) => c.method === "POST" && /\/restart$/i.test(c.path));

/** Deck's multi-instance job (instance.write.service.ts l.304-312), with TaskExecutor's user (l.39). */
function deckRebootJob(serverGroupName: string, instanceIds: string[]) {
  return {
    type: "rebootInstances",
    cloudProvider: "azure",
    instanceIds,
    credentials: "demo",
    region: "eastus",
    serverGroupName,
    asgName: serverGroupName,
    user: "anonymous",
  };
}

t.test(
  "Uniform: the scale set's restart with the instance ids, confirmed from each instance's reported time",
  async (t) => {
    await control.putScaleSet(RG, "rb-v001", { capacity: 3 });
    const before = await vmStates("rb-v001");
    await env.simControl("DELETE", "/_sim/calls");
    // Deck's instance ids are Clouddriver's, the VM names (clouddriver-web ServerGroupController.groovy l.405-406:
    // `id = instance.name`; clouddriver-azure AzureInstance.groovy l.44: `name = vm.name()`, <scale set>_<id>).
    const stage = newStage(deckRebootJob("rb-v001", ["rb-v001_0", "rb-v001_2"]));
    const taskId = await orca.requestOperations(stage, [{ rebootInstances: stage.context }]);
    const task = await orca.monitorKato(stage, taskId);
    t.equal(task.status.failed, false, JSON.stringify(task.history));

    const calls = restarts(await env.calls());
    t.equal(calls.length, 1, "one restart of the scale set");
    t.match(calls[0].path, /\/virtualMachineScaleSets\/rb-v001\/restart$/i);
    t.equal(calls[0].ifMatch, null, "Azure's restart takes no If-Match");
    const after = await vmStates("rb-v001");
    for (const id of ["0", "2"]) {
      t.equal(after[id].power, "PowerState/running", `${id} runs`);
      t.ok(after[id].time > before[id].time, `${id} booted again (${before[id].time} → ${after[id].time})`);
    }
    t.equal(after["1"].time, before["1"].time, "1 was not restarted");
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.match(history, /restart instance\(s\) 0, 2/);
    t.match(history, /Azure reports instance\(s\) 0, 2 running again after the restart/);
  },
);

t.test("Flexible: each VM's own restart, one after the other", async (t) => {
  await control.putScaleSet(RG, "rbf-v001", { capacity: 2, orchestrationMode: "Flexible" });
  const names = Object.keys(await vmStates("rbf-v001")).sort();
  const before = await vmStates("rbf-v001");
  await env.simControl("DELETE", "/_sim/calls");
  const stage = newStage(deckRebootJob("rbf-v001", names));
  const task = await orca.monitorKato(stage, await orca.requestOperations(stage, [{ rebootInstances: stage.context }]));
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  const calls = restarts(await env.calls());
  t.same(
    calls.map((c) => c.path.replace(/^.*\/virtualMachines\//i, "")),
    names.map((n) => `${n}/restart`),
    "a restart of each VM",
  );
  t.ok(
    calls.every((c) => c.ifMatch === null),
    "no If-Match",
  );
  const after = await vmStates("rbf-v001");
  for (const n of names) t.ok(after[n].time > before[n].time, `${n} booted again`);
});

t.test("a restart Azure failed is sent again on a fresh read, for the instances that show no restart", async (t) => {
  await control.putScaleSet(RG, "rb-v002", { capacity: 2 });
  await env.simControl("POST", "/_sim/faults", {
    action: "failOperation",
    method: "POST",
    pathContains: "rb-v002/restart",
    code: "InternalExecutionError",
    message: "Restart failed.",
    count: 1,
  });
  const before = await vmStates("rb-v002");
  await env.simControl("DELETE", "/_sim/calls");
  const stage = newStage(deckRebootJob("rb-v002", ["1"]));
  const task = await orca.monitorKato(stage, await orca.requestOperations(stage, [{ rebootInstances: stage.context }]));
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.equal(restarts(await env.calls()).length, 2, "sent once more after Azure failed it");
  const after = await vmStates("rb-v002");
  t.ok(after["1"].time > before["1"].time, "1 booted again");
  t.equal(after["0"].time, before["0"].time);
});

t.test("an instance that is not the set's, or does not run, is refused before anything is restarted", async (t) => {
  await control.putScaleSet(RG, "rb-v003", { capacity: 2 });
  await env.simControl("DELETE", "/_sim/calls");
  const submitted = await env.api("POST", "/azure/ops/rebootInstances", deckRebootJob("rb-v003", ["0", "7"]));
  t.equal(submitted.status, 202);
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.status.failed, true);
  t.match(task.resultObjects.at(-1), { cause: "NotAnInstance", message: /7 is not an instance of scale set rb-v003/ });
  t.same(restarts(await env.calls()), [], "nothing restarted");
});

t.test(
  "an instance id that is not a VM name, with no serverGroupName: a 400 that says which field to send",
  async (t) => {
    // instance.write.service.ts l.77-90: no serverGroupName, no asgName; Deck sends the VM's name, which says its scale
    // set (test/instance-actions-located.test.ts). An instance id such as "0" is not unique across a region's scale
    // sets, so the service does not guess the group from it.
    const body = {
      type: "rebootInstances",
      instanceIds: ["0"],
      region: "eastus",
      zone: "eastus",
      credentials: "demo",
      cloudProvider: "azure",
      application: "rb",
      user: "anonymous",
    };
    const res = await env.api("POST", "/azure/ops", [{ rebootInstances: body }]);
    t.equal(res.status, 400);
    t.match(JSON.stringify(res.body), /serverGroupName/);
  },
);

t.test("an instance protected from scale-set actions is refused: Azure would skip it", async (t) => {
  // Microsoft Learn, "Instance Protection for Azure Virtual Machine Scale Set instances": protectFromScaleSetActions
  // protects the instance from actions started on the scale set (upgrade, reimage, deallocate, …).
  await control.putScaleSet(RG, "rb-v004", { capacity: 2 });
  const protect = await env.simControl("PUT", `/_sim/scaleSets/${RG}/rb-v004/virtualMachines/1/protection`, {
    protectFromScaleSetActions: true,
  });
  t.equal(protect.status, 200);
  await env.simControl("DELETE", "/_sim/calls");
  const submitted = await env.api("POST", "/azure/ops/rebootInstances", deckRebootJob("rb-v004", ["rb-v004_0", "1"]));
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.status.failed, true);
  t.match(task.resultObjects.at(-1), {
    cause: "InstanceProtected",
    message: /instance\(s\) 1 of rb-v004 are protected/,
  });
  t.same(restarts(await env.calls()), [], "nothing restarted");
});
