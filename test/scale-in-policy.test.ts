// A scale-in leaves the choice of VMs to Azure's scale-in policy: under each rule (Default, NewestVM, OldestVM), on
// Uniform and Flexible sets, a resize or scaleDown to a lower capacity reports the VMs Azure lists afterwards, and
// the test compares them with those the simulator kept. The service never predicts which VMs go.
import t from "tap";
import { demo, startResettingTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const { env, control } = await startResettingTestEnv(t, { writeDurationMs: 50 });

const VMSS = () =>
  `/subscriptions/${env.sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;

async function run(operation: string, description: unknown) {
  const submitted = await env.api("POST", `/azure/ops/${operation}`, description);
  if (submitted.status !== 202) throw new Error(`${operation}: ${submitted.status} ${JSON.stringify(submitted.body)}`);
  return env.waitForTask(submitted.body.id);
}

/** The scale-in policy set on the scale set by someone else (a PATCH straight to Azure), settled. */
async function setPolicy(name: string, rule: string): Promise<void> {
  const res = await control.request("PATCH", `${VMSS()}/${name}?api-version=2026-04-01`, {
    headers: { authorization: "Bearer test" },
    body: { properties: { scaleInPolicy: { rules: [rule] } } },
  });
  if (res.status !== 200) throw new Error(`PATCH ${name}: ${res.status} ${JSON.stringify(res.body)}`);
}

/** The VMs Azure lists for the set that are not being deleted, by instance id (a Flexible VM's: its name). */
async function kept(name: string): Promise<string[]> {
  const snapshot = await control.getScaleSet(RG, name);
  return snapshot.vms
    .filter((vm: Json) => vm.properties.provisioningState !== "Deleting")
    .map((vm) => String(vm.instanceId ?? vm.name))
    .sort();
}

for (const mode of ["Uniform", "Flexible"] as const) {
  for (const rule of ["Default", "NewestVM", "OldestVM"]) {
    t.test(`${mode}, scaleInPolicy ${rule}: resize 5 → 3 and scaleDown to 1 report the VMs Azure kept`, async (t) => {
      const name = `si${mode[0].toLowerCase()}${rule.toLowerCase().slice(0, 3)}-v001`;
      await control.putScaleSet(RG, name, { capacity: 5, orchestrationMode: mode });
      await setPolicy(name, rule);
      const before = await kept(name);

      const resized = await run("resizeServerGroup", demo(name, { capacity: { min: 1, max: 5, desired: 3 } }));
      t.equal(resized.state, "succeeded", JSON.stringify(resized.history));
      const afterResize = await kept(name);
      t.equal(afterResize.length, 3);
      t.same([...resized.resultObjects[0].instanceIds].sort(), afterResize, "the task names the VMs Azure kept");
      const ours = await env.api("GET", `/azure/serverGroups/demo/eastus/${RG}/${name}`);
      t.same(ours.body.instances.map((i: Json) => i.instanceId).sort(), afterResize, "and so does our read");
      t.ok(afterResize.every((id) => before.includes(id)));
      if (mode === "Uniform")
        t.same(
          afterResize,
          rule === "OldestVM" ? ["2", "3", "4"] : ["0", "1", "2"],
          "the rule decided (so the rules are really apart)",
        );

      const down = await run("scaleDown", demo(name, { capacity: { min: 0, max: 1, desired: 1 } }));
      t.equal(down.state, "succeeded", JSON.stringify(down.history));
      const afterDown = await kept(name);
      t.equal(afterDown.length, 1);
      t.same(down.resultObjects[0].instanceIds, afterDown);
    });
  }
}
