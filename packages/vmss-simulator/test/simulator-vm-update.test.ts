// A Uniform instance's own network configuration: the scale-set VM's PUT (VirtualMachineScaleSetVMs_Update) with
// properties.networkProfileConfiguration, through Microsoft's @azure/arm-compute. The load balancer's pool follows
// the instance's NICs; the instance is off the model until an upgrade to the model gives it the model's NICs back.
import t from "tap";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { computeClient } from "./helpers/compute-client.ts";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import type { Json } from "./helpers/json.ts";

const sim = await startSimulator({ seed: true, writeDurationMs: 0, timeScale: 0.001, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const client = computeClient(sim);
const vms = client.virtualMachineScaleSetVMs;
const fast = { updateIntervalInMs: 20 };
const RG = "demo-rg";
const WEB = "web-prod-v001";
const LB = `${WEB}-lb`;
const AUTH = { authorization: "Bearer test-token" };
const VM_PATH = (id: string) =>
  `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}/virtualMachines/${id}?api-version=2024-11-01`;

t.beforeEach(async () => {
  await control.reset();
  await control.setConfig({ writeDurationMs: 0, timeScale: 0.001 });
});

/** The instance ids in the scale set's load-balancer pool, as the simulator's traffic view shows them. */
async function inPool(): Promise<string[]> {
  const view = await control.traffic("loadBalancers", RG, LB);
  return view.pools.flatMap((p) => p.members.map((m) => m.instanceId)).sort();
}

/** The VM as read, its first IP configuration's backend pools removed (what `az vmss update --instance-id --remove` sends). */
function withoutPools(vm: VirtualMachineScaleSetVM): VirtualMachineScaleSetVM {
  const nics = structuredClone(vm.networkProfileConfiguration!.networkInterfaceConfigurations!);
  for (const nic of nics) for (const ipc of nic.ipConfigurations ?? []) ipc.loadBalancerBackendAddressPools = [];
  return { location: vm.location, networkProfileConfiguration: { networkInterfaceConfigurations: nics } };
}

t.test("an instance's PUT without the pools takes it out of the pool alone; manualUpgrade puts it back", async (t) => {
  t.same(await inPool(), ["0", "1", "2"]);
  const vm = await vms.get(RG, WEB, "1");
  t.equal(vm.latestModelApplied, true);
  t.match(vm.etag, /^"\d+"$/, "a VM has its own ETag");
  const updated = await vms.update(RG, WEB, "1", withoutPools(vm), { ...fast, ifMatch: vm.etag });
  t.same(
    updated.networkProfileConfiguration?.networkInterfaceConfigurations?.[0].ipConfigurations?.[0]
      ?.loadBalancerBackendAddressPools,
    [],
  );
  t.same(await inPool(), ["0", "2"], "instance 1 left the pool, the others stay");
  const after = await vms.get(RG, WEB, "1");
  t.equal(after.latestModelApplied, false, "the instance no longer has the model");
  t.not(after.etag, vm.etag, "its ETag changed");
  t.equal((await vms.get(RG, WEB, "0")).latestModelApplied, true, "another instance is untouched");
  const ss = await client.virtualMachineScaleSets.get(RG, WEB);
  t.ok(
    ss.virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations?.[0]?.ipConfigurations?.[0]
      ?.loadBalancerBackendAddressPools?.length,
    "the model keeps its pool",
  );

  await client.virtualMachineScaleSets.updateInstances(RG, WEB, { instanceIds: ["1"] }, fast);
  t.same(await inPool(), ["0", "1", "2"], "the upgrade to the model put it back in the pool");
  t.equal((await vms.get(RG, WEB, "1")).latestModelApplied, true);
});

t.test("a scale-set write that does not change the model keeps the instance's own configuration", async (t) => {
  await control.request(
    "PATCH",
    `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}?api-version=2024-11-01`,
    {
      headers: AUTH,
      body: { properties: { upgradePolicy: { mode: "Automatic" } } },
    },
  );
  const vm = await vms.get(RG, WEB, "2");
  await vms.update(RG, WEB, "2", withoutPools(vm), fast);
  await client.virtualMachineScaleSets.update(RG, WEB, { tags: { moved: "yes" } }, fast);
  t.same(await inPool(), ["0", "1"], "a tag change upgrades nothing");
  await client.virtualMachineScaleSets.update(
    RG,
    WEB,
    { virtualMachineProfile: { userData: Buffer.from("new model").toString("base64") } },
    fast,
  );
  t.same(await inPool(), ["0", "1", "2"], "an automatic upgrade to a new model gives it the model's pools");
});

/** The VM's wire body as read, its first IP configuration's pools set to `pools`. */
async function wireWithPools(id: string, pools: { id: string }[]): Promise<{ body: Json; etag: string }> {
  const read = await control.request("GET", VM_PATH(id), { headers: AUTH });
  const body = read.body as Json;
  body.properties.networkProfileConfiguration.networkInterfaceConfigurations[0].properties.ipConfigurations[0].properties.loadBalancerBackendAddressPools =
    pools;
  return { body, etag: String(read.headers.etag) };
}

t.test("the PUT is a long-running write under If-Match on the VM's ETag", async (t) => {
  const vm = await wireWithPools("0", []);
  const stale = await control.request("PUT", VM_PATH("0"), {
    headers: { ...AUTH, "if-match": '"999"' },
    body: vm.body,
  });
  t.equal(stale.status, 412);
  t.same(await inPool(), ["0", "1", "2"], "a stale ETag changes nothing");
  const accepted = await control.request("PUT", VM_PATH("0"), {
    headers: { ...AUTH, "if-match": vm.etag },
    body: vm.body,
  });
  t.equal(accepted.status, 200);
  t.ok(accepted.headers["azure-asyncoperation"], "answered as a long-running operation");
  t.equal(accepted.headers.etag, (accepted.body as { etag: string }).etag);
  const again = await control.request("PUT", VM_PATH("0"), {
    headers: { ...AUTH, "if-match": vm.etag },
    body: vm.body,
  });
  t.same(await inPool(), ["1", "2"], "the write took instance 0 out");
  t.equal(again.status, 412, "the ETag read before the write is stale after it");
});

t.test("a pool that does not exist is refused; a property other than the network is not simulated", async (t) => {
  const missing = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Network/loadBalancers/${LB}/backendAddressPools/nope`;
  const { body } = await wireWithPools("0", [{ id: missing }]);
  const res = await control.request("PUT", VM_PATH("0"), { headers: AUTH, body });
  t.equal(res.status, 400);
  t.match(res.body, { error: { code: "InvalidResourceReference" } });
  const disk = await control.request("PUT", VM_PATH("0"), {
    headers: AUTH,
    body: { location: "eastus", properties: { hardwareProfile: { vmSize: "Standard_D64s_v5" } } },
  });
  t.equal(disk.status, 501);
  t.same(await inPool(), ["0", "1", "2"]);
});
