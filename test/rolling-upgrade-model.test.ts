// The rolling upgrade's model change and its reading of Azure's VM list, pure: the PATCH it sends, the hash that
// tells a retried upgrade it applied its change (customData is never read back), and when an instance counts as ready.
import t from "tap";
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import {
  changeHash,
  finishedTags,
  isReady,
  modelPatch,
  recordedDesired,
  scaleSetInTraffic,
  TAG_UPGRADE_DESIRED,
  TAG_UPGRADE_MODEL,
} from "../src/operations/rolling-upgrade-model.ts";

const POOL =
  "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/web-lb/backendAddressPools/web-pool";
const nics = (pools: string[]) => [
  { name: "nic", ipConfigurations: [{ name: "ipc", loadBalancerBackendAddressPools: pools.map((id) => ({ id })) }] },
];
const vmss = (pools: string[], tags: Record<string, string> = { app: "web" }): VirtualMachineScaleSet => ({
  location: "eastus",
  sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 3 },
  tags,
  virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nics(pools) } },
});

function vm(
  state: string,
  power: string | undefined,
  health: string | undefined,
  pools: string[] = [POOL],
): VirtualMachineScaleSetVM {
  return {
    instanceId: "0",
    provisioningState: state,
    networkProfileConfiguration: { networkInterfaceConfigurations: nics(pools) },
    instanceView: {
      statuses: power ? [{ code: `PowerState/${power}` }] : [],
      ...(health ? { vmHealth: { status: { code: health } } } : {}),
    },
  } as VirtualMachineScaleSetVM;
}

t.test(
  "the PATCH: the image, size and custom data of new instances, the tags merged, the upgrade recorded",
  async (t) => {
    const change = {
      image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server" },
      sku: { name: "Standard_D4s_v3" },
      customData: "IyEvYmluL3NoCg==",
      tags: { release: "42" },
    };
    const patch = modelPatch(vmss([POOL]), change, 3);
    t.same(patch.virtualMachineProfile, {
      storageProfile: {
        imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
      },
      osProfile: { customData: "IyEvYmluL3NoCg==" },
    });
    t.same(
      patch.sku,
      { name: "Standard_D4s_v3", tier: "Standard", capacity: 3 },
      "the size changes, the capacity does not",
    );
    t.same(patch.tags, {
      app: "web",
      release: "42",
      [TAG_UPGRADE_MODEL]: changeHash(change),
      [TAG_UPGRADE_DESIRED]: "3",
    });
    t.same(
      modelPatch(
        vmss([POOL]),
        { image: { id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/images/web-2" } },
        3,
      ).virtualMachineProfile,
      {
        storageProfile: {
          imageReference: { id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/images/web-2" },
        },
      },
    );
    t.notOk(
      "virtualMachineProfile" in modelPatch(vmss([POOL]), { tags: { a: "b" } }, 3),
      "a tags-only change leaves the VM profile alone",
    );
  },
);

t.test("the hash: the same change in any key order, a different one differs", async (t) => {
  const a = changeHash({ image: { publisher: "p", offer: "o", sku: "s" }, tags: { x: "1", y: "2" } });
  t.equal(changeHash({ tags: { y: "2", x: "1" }, image: { sku: "s", offer: "o", publisher: "p" } }), a);
  t.not(changeHash({ image: { publisher: "p", offer: "o", sku: "s" }, tags: { x: "1", y: "3" } }), a);
  t.not(
    changeHash({ image: { publisher: "p", offer: "o", sku: "s" }, customData: "" }),
    changeHash({ image: { publisher: "p", offer: "o", sku: "s" } }),
    "empty custom data is a change",
  );
  t.match(a, /^[0-9a-f]{16}$/);
});

t.test("the record: desired while under way, removed at the end; the model hash stays", async (t) => {
  const tags = { app: "web", [TAG_UPGRADE_MODEL]: "abc", [TAG_UPGRADE_DESIRED]: "10" };
  t.equal(recordedDesired(vmss([POOL], tags)), 10);
  t.same(finishedTags(tags), { app: "web", [TAG_UPGRADE_MODEL]: "abc" });
  t.equal(
    recordedDesired(vmss([POOL], { [TAG_UPGRADE_DESIRED]: "ten" })),
    undefined,
    "an unreadable record is no record",
  );
});

t.test("ready: Succeeded, running, and in traffic healthy in its pool", async (t) => {
  t.ok(isReady(vm("Succeeded", "running", "HealthState/healthy"), true));
  t.notOk(isReady(vm("Succeeded", "running", "HealthState/initializing"), true), "the probe has not seen it yet");
  t.ok(
    isReady(vm("Succeeded", "running", "HealthState/initializing"), false),
    "out of traffic, the probe does not matter",
  );
  t.ok(isReady(vm("Succeeded", "running", undefined), true), "no probe reported: running is all Azure tells");
  t.notOk(
    isReady(vm("Succeeded", "running", "HealthState/healthy", []), true),
    "in traffic, a VM in no pool is not serving",
  );
  t.notOk(isReady(vm("Succeeded", "deallocated", undefined), false));
  t.notOk(isReady(vm("Creating", undefined, undefined), false));
  t.ok(scaleSetInTraffic(vmss([POOL])));
  t.notOk(scaleSetInTraffic(vmss([])));
  t.notOk(scaleSetInTraffic(vmss([POOL], { "vmss-ops.disabled": "capacity" })), "disabled by vmss-ops");
});
