// Deck's one-instance reboot and terminate name no server group: the scale set is read from the VM's name (Deck sends
// Clouddriver's instance id, the VM's name) and confirmed on Azure before the task is created; judged by what the
// simulator holds afterwards. Sources (spinnaker/deck at 3f2418e, spinnaker/orca at 2fdb327, spinnaker/clouddriver at
// 2f5e98f):
// - deck packages/core/src/instance/instance.write.service.ts l.31-46 (terminateInstance: type, instanceIds, region,
//   zone, credentials) and l.77-90 (rebootInstance: type, instanceIds, region, zone, credentials, cloudProvider,
//   application); TaskExecutor adds `user` (packages/core/src/task/taskExecutor.ts l.39);
// - orca RebootInstancesTask.groovy l.45 (`[[rebootInstances: stage.context]]`) and TerminateInstancesTask.groovy
//   l.76-77 (`stage.context + [instanceIds: instanceIds]` under terminateInstances);
// - the instance id Deck shows and sends: clouddriver-azure AzureInstance.groovy l.44 (`instance.name = vm.name()`),
//   `{scale set}_{instance id}` on a Uniform set; a Flexible set's VMs are `{scale set}_{8 characters}`.
import t from "tap";
import { newStage, Orca } from "../testkit/orca.ts";
import { startResettingTestEnv, writesOf, type SimCall } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const { env, control } = await startResettingTestEnv(t, { writeDurationMs: 50 });
const orca = new Orca(env.api, { pollMs: 20 });

/** Each VM of a scale set, by its name, with its ProvisioningState time and power state, as the simulator holds it. */
async function vms(name: string): Promise<Map<string, { time: string; power: string }>> {
  const snapshot = await control.getScaleSet(RG, name);
  return new Map(
    snapshot.vms.map((vm: Json) => {
      const statuses = (vm.properties.instanceView?.statuses ?? []) as Json[];
      return [
        vm.name as string,
        {
          time: statuses.find((s) => s.code.startsWith("ProvisioningState/"))?.time,
          power: statuses.find((s) => s.code.startsWith("PowerState/"))?.code,
        },
      ];
    }),
  );
}

async function capacity(name: string): Promise<number> {
  const { vmss } = await control.getScaleSet(RG, name);
  return (vmss as Json).sku.capacity as number;
}

const restarts = (calls: SimCall[]) => calls.filter((c) => c.method === "POST" && /\/restart$/i.test(c.path));

/** Deck's one-instance reboot (instance.write.service.ts l.77-90) with TaskExecutor's user (taskExecutor.ts l.39). */
function deckReboot(vmName: string) {
  return {
    type: "rebootInstances",
    instanceIds: [vmName],
    region: "eastus",
    zone: "eastus",
    credentials: "demo",
    cloudProvider: "azure",
    application: "li",
    user: "anonymous",
  };
}

/** Deck's one-instance terminate (instance.write.service.ts l.31-46) with TaskExecutor's user (taskExecutor.ts l.39). */
function deckTerminate(vmName: string) {
  return {
    type: "terminateInstances",
    instanceIds: [vmName],
    region: "eastus",
    zone: "eastus",
    credentials: "demo",
    user: "anonymous",
  };
}

async function orcaReboot(vmName: string): Promise<Json> {
  const stage = newStage(deckReboot(vmName));
  return orca.monitorKato(stage, await orca.requestOperations(stage, [{ rebootInstances: stage.context }]));
}

async function orcaTerminate(vmName: string): Promise<Json> {
  const stage = newStage(deckTerminate(vmName));
  const ids = stage.context.instanceIds as string[];
  return orca.monitorKato(
    stage,
    await orca.requestOperations(stage, [{ terminateInstances: { ...stage.context, instanceIds: ids } }]),
  );
}

const historyOf = (task: Json) => task.history.map((h: Json) => h.status as string).join("\n");

for (const orchestrationMode of ["Uniform", "Flexible"] as const) {
  t.test(
    `${orchestrationMode}: Deck's one-instance reboot restarts that VM of the scale set its name names`,
    async (t) => {
      await control.putScaleSet(RG, "li-v001", { capacity: 3, orchestrationMode });
      // Another scale set whose VMs carry the same instance ids: the VM's name, not its id, says which is meant.
      await control.putScaleSet(RG, "li-v002", { capacity: 2, orchestrationMode });
      const before = await vms("li-v001");
      const other = await vms("li-v002");
      const [first, target, third] = [...before.keys()].sort();
      await env.simControl("DELETE", "/_sim/calls");

      const task = await orcaReboot(target);
      t.equal(task.status.failed, false, JSON.stringify(task.history));
      const after = await vms("li-v001");
      t.equal(after.get(target)!.power, "PowerState/running", `${target} runs`);
      t.ok(after.get(target)!.time > before.get(target)!.time, `${target} booted again`);
      t.equal(after.get(first)!.time, before.get(first)!.time, `${first} was not restarted`);
      t.equal(after.get(third)!.time, before.get(third)!.time, `${third} was not restarted`);
      t.same(await vms("li-v002"), other, "the other scale set untouched");
      const calls = restarts(await env.calls());
      t.ok(calls.length > 0 && calls.every((c) => /li-v001/.test(c.path)), "restarts only on li-v001");
      t.match(historyOf(task), /serverGroupName not given: li-v001, read from the VM name\(s\) and confirmed on Azure/);
      t.match(historyOf(task), /reboot instance\(s\) .* of li-v001/);
      // Stored with the scale set located: the task is found by it.
      const listed = await env.api("GET", "/task?serverGroup=li-v001&operation=rebootInstances");
      t.ok(
        listed.body.tasks.some((x: Json) => x.id === task.id),
        "listed under li-v001",
      );
    },
  );

  t.test(`${orchestrationMode}: Deck's one-instance terminate replaces that VM and the capacity stays`, async (t) => {
    await control.putScaleSet(RG, "li-v003", { capacity: 3, orchestrationMode });
    const names = [...(await vms("li-v003")).keys()].sort();
    const task = await orcaTerminate(names[1]);
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    const after = [...(await vms("li-v003")).keys()].sort();
    t.same(
      after.filter((n) => names.includes(n)),
      [names[0], names[2]],
      "what Azure holds afterwards: that VM gone",
    );
    t.equal(after.length, 3, "a new VM in its place");
    t.equal(await capacity("li-v003"), 3);
    t.equal(task.resultObjects[0].capacity.desired, 3, "the capacity read after the replacement");
    t.match(historyOf(task), /terminate instance\(s\) .* of li-v003/);
  });
}

t.test("Orca's repeat of a one-instance terminate, the VM gone since, finds the task the first one made", async (t) => {
  // KatoService.requestOperations sends a clientRequestId made from the stage and the operations (testkit/orca.ts
  // requestId): a repeat after a lost answer is the same request, and must not become a 404 now that the VM is gone.
  await control.putScaleSet(RG, "li-v005", { capacity: 2 });
  const stage = newStage(deckTerminate("li-v005_0"));
  const ops = [{ terminateInstances: { ...stage.context } }];
  const first = await orca.monitorKato(stage, await orca.requestOperations(stage, ops));
  t.equal(first.status.failed, false, JSON.stringify(first.history));
  t.notOk((await vms("li-v005")).has("li-v005_0"), "li-v005_0 is gone");
  t.equal(await orca.requestOperations(stage, ops), first.id, "the same task");
  const other = await env.api("POST", "/azure/ops?clientRequestId=another-request", ops);
  t.equal(other.status, 404, "another request for the gone VM is told so");
});

t.test("a VM name whose VM Azure does not list under that scale set: 404 naming it, nothing written", async (t) => {
  await control.putScaleSet(RG, "li-v004", { capacity: 2 });
  await env.simControl("DELETE", "/_sim/calls");
  const res = await env.api("POST", "/azure/ops", [{ terminateInstances: deckTerminate("li-v004_7") }]);
  t.equal(res.status, 404);
  t.match(
    res.body.message,
    /no VM named li-v004_7 in scale set li-v004 \(account demo, region eastus, resource group demo-rg/,
  );
  t.match(res.body.message, /its VMs: li-v004_0, li-v004_1/);
  t.same(writesOf(await env.calls()), [], "nothing deleted");
  t.equal(await capacity("li-v004"), 2);
  t.same((await env.api("GET", "/task?serverGroup=li-v004")).body.tasks, [], "no task created");
});

t.test("a VM name naming a scale set Azure does not have: 404 naming the scale set looked for", async (t) => {
  const res = await env.api("POST", "/azure/ops/rebootInstances", deckReboot("gone-v009_0"));
  t.equal(res.status, 404);
  t.match(
    res.body.message,
    /scale set gone-v009 \(account demo, region eastus, resource group demo-rg; located from the VM's name/,
  );
  t.same(restarts(await env.calls()), []);
});

t.test("an instance id that is not a VM name, without serverGroupName: 400 saying what to send", async (t) => {
  const res = await env.api("POST", "/azure/ops", [{ rebootInstances: deckReboot("0") }]);
  t.equal(res.status, 400);
  const fields = (res.body.details as Json[]).map((d) => d.field).sort();
  t.same(fields, ["[0].rebootInstances.instanceIds", "[0].rebootInstances.serverGroupName"]);
  t.match(JSON.stringify(res.body.details), /0 is an instance id, not a VM name.*web-prod-v001_3/);
});

t.test("VM names of two scale sets in one description: 400, one description acts on one scale set", async (t) => {
  const res = await env.api("POST", "/azure/ops/terminateInstances", {
    ...deckTerminate("web-prod-v001_0"),
    instanceIds: ["web-prod-v001_0", "web-prod-v002_0"],
  });
  t.equal(res.status, 400);
  t.match(res.body.details, [
    { field: "instanceIds", message: /VMs of 2 scale sets \(web-prod-v001, web-prod-v002\)/ },
  ]);
});

t.test("Azure unreachable while confirming: 503 with Retry-After, nothing created", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    action: "respond",
    method: "GET",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    status: 503,
    code: "ServiceUnavailable",
    message: "Azure is down.",
    count: 50,
  });
  const res = await fetch(`${env.baseUrl}/azure/ops/terminateInstances`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(deckTerminate("web-prod-v001_0")),
  });
  const body = (await res.json()) as Json;
  t.equal(res.status, 503, JSON.stringify(body));
  t.equal(body.error, "AzureUnavailable");
  t.match(body.message, /scale set web-prod-v001 .*located from the VM's name/);
  t.ok(Number(res.headers.get("retry-after")) >= 1, "Retry-After says when to ask again");
  t.same((await env.api("GET", "/task?serverGroup=web-prod-v001")).body.tasks, [], "no task created");
});
