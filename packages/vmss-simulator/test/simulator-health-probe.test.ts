// The simulator's load-balancer health probe on a hand-moved clock: a VM a scale-out creates is running when the write
// completes, reported HealthState/initializing by the probe for healthProbeSeconds (scaled), then healthy; VMs out of
// every load-balancer pool, or with the probe switched off, report no vmHealth. Read through the real SDK with
// $expand=instanceView, as the service reads them.
import t from "tap";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { computeClient } from "./helpers/compute-client.ts";
import { HAND_CLOCK_START as START, startHandClockSimulator } from "./helpers/hand-clock-simulator.ts";
import type { Json } from "./helpers/json.ts";

let clock = START;
const { sim, control } = await startHandClockSimulator(t, () => clock);
const client = computeClient(sim);
const RG = "demo-rg";

async function list(name: string): Promise<VirtualMachineScaleSetVM[]> {
  const out: VirtualMachineScaleSetVM[] = [];
  for await (const vm of client.virtualMachineScaleSetVMs.list(RG, name, { expand: "instanceView" })) out.push(vm);
  return out;
}
const health = (vm: VirtualMachineScaleSetVM) => vm.instanceView?.vmHealth?.status?.code;

t.beforeEach(async () => {
  clock = START;
  await control.reset();
  await control.setConfig({ timeScale: 1, writeDurationMs: 30_000, healthProbeSeconds: 30 });
});

t.test("a scale-out's VMs run when the write completes and turn healthy healthProbeSeconds later", async (t) => {
  const before = await list("web-prod-v001");
  t.same(
    before.map(health),
    ["HealthState/healthy", "HealthState/healthy", "HealthState/healthy"],
    "seeded VMs passed their probe long ago",
  );
  t.ok(
    before.every((vm) => vm.instanceView?.statuses?.some((s) => s.code === "PowerState/running")),
    "and are running",
  );

  const scaleSet = await client.virtualMachineScaleSets.get(RG, "web-prod-v001");
  const poller = await client.virtualMachineScaleSets.beginUpdate(RG, "web-prod-v001", {
    sku: { ...scaleSet.sku, capacity: 4 },
  });
  let vms = await list("web-prod-v001");
  t.equal(vms[3].provisioningState, "Creating");
  t.equal(health(vms[3]), "HealthState/unknown", "not running yet: the probe knows nothing");

  clock += 30_000; // the write completes
  await poller.pollUntilDone();
  vms = await list("web-prod-v001");
  t.equal(vms[3].provisioningState, "Succeeded");
  t.equal(health(vms[3]), "HealthState/initializing", "running, not yet seen by the probe");
  clock += 29_999;
  t.equal(health((await list("web-prod-v001"))[3]), "HealthState/initializing");
  clock += 1;
  t.equal(health((await list("web-prod-v001"))[3]), "HealthState/healthy", "30 s after it started running");
});

t.test("no vmHealth without a load-balancer pool, with the probe off, or without $expand", async (t) => {
  t.ok(
    (await list("batch-v001")).every((vm) => health(vm) === undefined),
    "batch-v001 is in no pool",
  );
  const plain: VirtualMachineScaleSetVM[] = [];
  for await (const vm of client.virtualMachineScaleSetVMs.list(RG, "web-prod-v001")) plain.push(vm);
  t.ok(
    plain.every((vm) => vm.instanceView === undefined),
    "the instance view only when expanded",
  );
  await control.setConfig({ healthProbeSeconds: null });
  t.ok(
    (await list("web-prod-v001")).every((vm) => health(vm) === undefined && vm.instanceView?.statuses?.length === 2),
    "probe off: statuses only",
  );
  await t.rejects(control.setConfig({ healthProbeSeconds: -1 }), /healthProbeSeconds/);
});

t.test("the control API's snapshot carries each VM's instance view", async (t) => {
  const snap = await control.getScaleSet(RG, "web-prod-v001");
  t.same(
    snap.vms.map((vm: Json) => vm.properties.instanceView.vmHealth.status.code),
    ["HealthState/healthy", "HealthState/healthy", "HealthState/healthy"],
  );
});
