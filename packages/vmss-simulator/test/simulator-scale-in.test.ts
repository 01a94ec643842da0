// Which VMs the simulator's scale-in removes: the scale set's scaleInPolicy rule (Default, NewestVM, OldestVM) as
// Microsoft Learn's "Use custom scale-in policies" describes it, never a VM protected from scale-in; Uniform and Flexible.
import t from "tap";
import { SimulatorControl, type RawResponse, startSimulator } from "vmss-simulator";
import type { Json } from "./helpers/json.ts";

const sim = await startSimulator({ seed: true, writeDurationMs: 0, timeScale: 0.001, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const RG = "demo-rg";
const VMSS = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;

t.beforeEach(async () => {
  await control.reset();
});

function arm(method: string, path: string, body?: unknown): Promise<RawResponse> {
  return control.request(method, `${path}?api-version=2026-04-01`, {
    headers: { authorization: "Bearer test" },
    ...(body !== undefined ? { body } : {}),
  });
}

/** The VMs Azure lists for the set, in its order, leaving out those being deleted. */
async function kept(name: string): Promise<string[]> {
  const snapshot = await control.getScaleSet(RG, name);
  return snapshot.vms
    .filter((vm: Json) => vm.properties.provisioningState !== "Deleting")
    .map((vm) => String(vm.instanceId ?? vm.name));
}

async function scaleIn(name: string, capacity: number, rules?: string[]): Promise<void> {
  const body = { sku: { capacity }, ...(rules ? { properties: { scaleInPolicy: { rules } } } : {}) };
  const res = await arm("PATCH", `${VMSS}/${name}`, body);
  if (res.status !== 200) throw new Error(`PATCH ${name}: ${res.status} ${JSON.stringify(res.body)}`);
}

/**
 * A Uniform set of 10 VMs over 5 fault domains (instance id modulo 5), then VM 4 deleted: fault domain 4 holds only
 * VM 9, every other domain two, so the highest instance id and the fullest fault domain disagree.
 */
async function unbalanced(name: string): Promise<void> {
  await control.putScaleSet(RG, "template-v000", { capacity: 0 });
  const model = (await arm("GET", `${VMSS}/template-v000`)).body as Json;
  model.sku.capacity = 10;
  model.properties.platformFaultDomainCount = 5;
  const created = await arm("PUT", `${VMSS}/${name}`, {
    location: model.location,
    sku: model.sku,
    properties: model.properties,
  });
  if (created.status !== 201) throw new Error(`PUT ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  const vmList = async () => ((await arm("GET", `${VMSS}/${name}/virtualMachines`)).body as Json).value;
  for (let i = 0; i < 100 && (await vmList()).some((vm: Json) => vm.properties.provisioningState !== "Succeeded"); i++);
  const deleted = await arm("POST", `${VMSS}/${name}/delete`, { instanceIds: ["4"] });
  if (deleted.status !== 202) throw new Error(`delete 4: ${deleted.status}`);
  for (let i = 0; i < 100 && (await kept(name)).includes("4"); i++);
}

t.test("Default balances across fault domains, then removes the highest instance id", async (t) => {
  await unbalanced("fd-v001");
  t.same(await kept("fd-v001"), ["0", "1", "2", "3", "5", "6", "7", "8", "9"]);
  await scaleIn("fd-v001", 7);
  t.same(
    await kept("fd-v001"),
    ["0", "1", "2", "3", "5", "6", "9"],
    "8 and 7 go (fullest domains), 9 stays alone in its domain",
  );
});

t.test("NewestVM removes the most recently created VMs; OldestVM the oldest", async (t) => {
  await unbalanced("fd-v002");
  await scaleIn("fd-v002", 7, ["NewestVM"]);
  t.same(await kept("fd-v002"), ["0", "1", "2", "3", "5", "6", "7"]);
  await unbalanced("fd-v003");
  await scaleIn("fd-v003", 7, ["OldestVM"]);
  t.same(await kept("fd-v003"), ["2", "3", "5", "6", "7", "8", "9"]);
});

t.test("a VM protected from scale-in is never chosen: the next one goes instead", async (t) => {
  await control.putScaleSet(RG, "prot-v001", { capacity: 4 });
  const res = await control.request("PUT", `/_sim/scaleSets/${RG}/prot-v001/virtualMachines/3/protection`, {
    body: { protectFromScaleIn: true },
  });
  t.equal(res.status, 200);
  await scaleIn("prot-v001", 2);
  t.same(await kept("prot-v001"), ["0", "3"], "3 is protected: 2 and 1 go");
});

t.test(
  "Flexible: OldestVM removes the VMs made first, Default the newest (the highest instance id stands for the newest)",
  async (t) => {
    await control.putScaleSet(RG, "flex-v001", { capacity: 4, orchestrationMode: "Flexible" });
    const made = await kept("flex-v001");
    await scaleIn("flex-v001", 2, ["OldestVM"]);
    t.same(await kept("flex-v001"), made.slice(2), "the first two made are gone");
    await control.putScaleSet(RG, "flex-v002", { capacity: 4, orchestrationMode: "Flexible" });
    const made2 = await kept("flex-v002");
    await scaleIn("flex-v002", 3);
    t.same(await kept("flex-v002"), made2.slice(0, 3));
  },
);
