// Flexible scale sets, table-driven without a simulator: the one rule for an instance we may act on, a Flexible VM
// and its NIC read as an instance, and the plans of disable, enable and terminate on what such a read shows.
import t from "tap";
import type { VirtualMachine, VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import {
  flexibleInstance,
  flexibleVmFilter,
  nicConfigName,
  nicIdsOf,
  type FlexibleNic,
} from "../src/azure/flexible-vms.ts";
import { instanceLife, isActionableInstance, isRunningInstance, confirmation } from "../src/azure/scale-set-state.ts";
import { guardLabel, guardOf, storedStep, type ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";
import { disableServerGroup } from "../src/operations/disable-server-group.ts";
import { enableServerGroup } from "../src/operations/enable-server-group.ts";
import { nicWithPools, nicWritesToPools } from "../src/operations/flexible-nics.ts";
import { terminateInstances } from "../src/operations/terminate-instances.ts";
import { supportFor } from "../src/operations/scale-set-kinds.ts";
import { rollingUpgrade } from "../src/operations/rolling-upgrade.ts";
import { readOldVmsRecord, TAG_UPGRADE_OLD, upgradeInstances } from "../src/operations/rolling-upgrade-model.ts";
import { scaleDown } from "../src/operations/scale-down.ts";
import { resizeServerGroup } from "../src/operations/resize-server-group.ts";
import {
  FLEXIBLE_NETWORK_API_VERSION,
  modelFromDescription,
  modelFromSource,
} from "../src/operations/create/scale-set-model.ts";
import { TAG_DISABLED } from "../src/operations/server-group-state.ts";
import { vmTrafficPools, servesTraffic } from "../src/operations/server-group-state.ts";
import type { Json } from "../testkit/json.ts";
import { stepOfKind } from "./helpers/steps.ts";

const REF = { account: "demo", subscriptionId: "sub", resourceGroup: "rg", name: "web-v001", region: "eastus" };
const SS_ID = "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-v001";
const POOL =
  "/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/web";
const DESCRIPTION = { credentials: "demo", region: "eastus", serverGroupName: "web-v001" };

function scaleSet(pools: string[] = [POOL], extra: Partial<VirtualMachineScaleSet> = {}): VirtualMachineScaleSet {
  return {
    id: SS_ID,
    location: "eastus",
    orchestrationMode: "Flexible",
    sku: { name: "Standard_D2s_v3", capacity: 2 },
    provisioningState: "Succeeded",
    virtualMachineProfile: {
      networkProfile: {
        networkInterfaceConfigurations: [
          {
            name: "nic",
            ipConfigurations: [{ name: "ipconfig", loadBalancerBackendAddressPools: pools.map((id) => ({ id })) }],
          },
        ],
      },
    },
    ...extra,
  };
}

const nicId = (vm: string) =>
  `/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Network/networkInterfaces/${vm}-nic`;

function virtualMachine(name: string, power = "running", provisioningState = "Succeeded"): VirtualMachine {
  return {
    id: `/subscriptions/sub/resourceGroups/rg/providers/Microsoft.Compute/virtualMachines/${name}`,
    name,
    location: "eastus",
    provisioningState,
    virtualMachineScaleSet: { id: SS_ID },
    networkProfile: { networkInterfaces: [{ id: nicId(name), primary: true }] },
    instanceView: {
      statuses: [{ code: `ProvisioningState/${provisioningState.toLowerCase()}` }, { code: `PowerState/${power}` }],
    },
  };
}

function nic(vm: string, pools: string[], etag = '"1"'): FlexibleNic {
  return {
    vm,
    id: nicId(vm),
    etag,
    configName: "nic",
    resource: {
      id: nicId(vm),
      name: `${vm}-nic`,
      etag,
      location: "eastus",
      properties: {
        provisioningState: "Succeeded",
        ipConfigurations: [
          {
            name: "ipconfig",
            properties: { subnet: { id: "subnet" }, loadBalancerBackendAddressPools: pools.map((id) => ({ id })) },
          },
        ],
      },
    },
  };
}

/** A read of the Flexible set: its VMs and their NICs, as the gateway makes it. */
function read(vmss: VirtualMachineScaleSet, vms: [VirtualMachine, FlexibleNic][]): ScaleSetSnapshot {
  return { vmss, etag: '"7"', vms: vms.map(([vm, n]) => flexibleInstance(vm, [n])), nics: vms.map(([, n]) => n) };
}

t.test("the one rule: where an instance is in its life, and which we may act on", async (t) => {
  const cases: [Partial<VirtualMachineScaleSetVM>, string, boolean, boolean][] = [
    [
      { provisioningState: "Succeeded", instanceView: { statuses: [{ code: "PowerState/running" }] } },
      "running",
      true,
      true,
    ],
    [
      { provisioningState: "Succeeded", instanceView: { statuses: [{ code: "PowerState/deallocated" }] } },
      "stopped",
      false,
      true,
    ],
    [
      { provisioningState: "Succeeded", instanceView: { statuses: [{ code: "PowerState/starting" }] } },
      "stopped",
      false,
      true,
    ],
    [{ provisioningState: "Succeeded" }, "running", true, true],
    [
      { provisioningState: "Succeeded", instanceView: { statuses: [{ code: "ProvisioningState/succeeded" }] } },
      "running",
      true,
      true,
    ],
    [
      { provisioningState: "Creating", instanceView: { statuses: [{ code: "PowerState/running" }] } },
      "creating",
      false,
      true,
    ],
    [
      { provisioningState: "Deleting", instanceView: { statuses: [{ code: "PowerState/running" }] } },
      "deleting",
      false,
      false,
    ],
    [{ provisioningState: "Failed" }, "failed", false, true],
  ];
  for (const [vm, life, running, actionable] of cases) {
    const instance = { location: "eastus", instanceId: "0", ...vm } as VirtualMachineScaleSetVM;
    t.equal(instanceLife(instance), life, JSON.stringify(vm));
    t.equal(isRunningInstance(instance), running, `running: ${JSON.stringify(vm)}`);
    t.equal(isActionableInstance(instance), actionable, `actionable: ${JSON.stringify(vm)}`);
  }
  t.equal(
    isActionableInstance({ location: "eastus", provisioningState: "Succeeded" }),
    false,
    "no id: nothing to name it by",
  );
});

t.test(
  "a Flexible VM and its NIC read as an instance: its name is its id, its power state and its NIC's pools as Azure reports them",
  async (t) => {
    t.equal(flexibleVmFilter(SS_ID), `'virtualMachineScaleSet/id' eq '${SS_ID}'`);
    const vm = virtualMachine("web-v001_0a1b2c3d");
    t.same(nicIdsOf(vm), [nicId("web-v001_0a1b2c3d")]);
    t.equal(nicConfigName(vm, scaleSet(), 0, undefined), "nic", "the model's NIC configuration it was made from");
    const instance = flexibleInstance(vm, [nic("web-v001_0a1b2c3d", [POOL])]);
    t.match(instance, { instanceId: "web-v001_0a1b2c3d", name: "web-v001_0a1b2c3d", provisioningState: "Succeeded" });
    t.equal(isRunningInstance(instance), true);
    t.same(vmTrafficPools(instance), [{ nic: "nic", ipConfig: "ipconfig", kind: "lb", id: POOL }]);
    t.equal(servesTraffic(vmTrafficPools(instance)!), true);
    t.equal(
      servesTraffic(vmTrafficPools(flexibleInstance(vm, [nic("web-v001_0a1b2c3d", [])]))!),
      false,
      "a NIC in no pool is out of traffic",
    );
    t.equal(vmTrafficPools(flexibleInstance(vm, [])), undefined, "no NIC read: no network configuration claimed");
    t.equal(isRunningInstance(flexibleInstance(virtualMachine("x", "deallocated"), [])), false);

    const snapshot = read(scaleSet(), [
      [virtualMachine("a"), nic("a", [POOL])],
      [virtualMachine("b", "deallocated"), nic("b", [POOL])],
    ]);
    t.match(
      confirmation(snapshot),
      {
        confirmed: false,
        instances: 1,
        reason: /capacity 2, but Azure lists 1 running instance\(s\); not running: instance\(s\) b \(deallocated\)/,
      },
      "capacity is confirmed from the VMs that run",
    );
  },
);

t.test("NIC writes: exactly the model's pools, only where they differ, the body as read otherwise", async (t) => {
  t.equal(
    nicWithPools(nic("a", [POOL]), [{ nic: "nic", ipConfig: "ipconfig", kind: "lb", id: POOL.toUpperCase() }]),
    undefined,
    "already there (ids compared as Azure does, case-insensitive)",
  );
  const out = nicWithPools(nic("a", [POOL], '"4"'), []);
  t.match(out, { vm: "a", id: nicId("a"), etag: '"4"' });
  t.same(
    out!.body.properties!.ipConfigurations![0].properties,
    { subnet: { id: "subnet" }, loadBalancerBackendAddressPools: [], applicationGatewayBackendAddressPools: [] },
    "the subnet kept, the pools emptied",
  );
  const back = nicWithPools(nic("a", []), [{ nic: "nic", ipConfig: "ipconfig", kind: "lb", id: POOL }]);
  t.same(back!.body.properties!.ipConfigurations![0].properties!.loadBalancerBackendAddressPools, [{ id: POOL }]);

  const deleting = virtualMachine("c", "running", "Deleting");
  const snapshot = read(scaleSet(), [
    [virtualMachine("a"), nic("a", [POOL])],
    [virtualMachine("b"), nic("b", [])],
    [deleting, nic("c", [POOL])],
  ]);
  t.same(
    nicWritesToPools(snapshot, []).map((w) => w.vm),
    ["a"],
    "a VM being deleted is left to Azure",
  );

  t.same(guardOf("nicPools", '"7"'), { eachIfMatch: true });
  t.equal(guardLabel(guardOf("nicPools", '"7"')), " (each NIC or instance If-Match its ETag)");
  t.same(
    storedStep({ kind: "nicPools", summary: "s", nics: [out!] }),
    { kind: "nicPools", summary: "s" },
    "a checkpoint keeps no NIC bodies",
  );
});

t.test(
  "disable on Flexible: the model's pools removed and recorded, then every VM's NIC taken out, done only when none is in a pool",
  async (t) => {
    const planner = disableServerGroup.planner(DESCRIPTION, REF);
    const first = planner.plan(
      read(scaleSet(), [
        [virtualMachine("a"), nic("a", [POOL])],
        [virtualMachine("b"), nic("b", [POOL])],
      ]),
    );
    t.match(first, { kind: "update", patch: { tags: { [TAG_DISABLED]: "pools" } } });
    const patch: Json = stepOfKind(first, "update").patch;
    t.same(
      patch.virtualMachineProfile.networkProfile.networkInterfaceConfigurations[0].ipConfigurations[0]
        .loadBalancerBackendAddressPools,
      [],
    );

    const disabledModel = scaleSet([], { tags: patch.tags });
    const second = planner.plan(
      read(disabledModel, [
        [virtualMachine("a"), nic("a", [POOL])],
        [virtualMachine("b"), nic("b", [POOL], '"9"')],
      ]),
    );
    t.match(second, { kind: "nicPools", summary: /take the NIC\(s\) of VM\(s\) a, b out of their backend pools/ });
    t.same(
      stepOfKind(second, "nicPools").nics.map((n) => [n.vm, n.etag]),
      [
        ["a", '"1"'],
        ["b", '"9"'],
      ],
      "each NIC with the ETag it was read with",
    );

    const half = planner.plan(
      read(disabledModel, [
        [virtualMachine("a"), nic("a", [])],
        [virtualMachine("b"), nic("b", [POOL])],
      ]),
    );
    t.match(half, { kind: "nicPools", summary: /VM\(s\) b out/ }, "re-planned on the read: only what is left");
    t.match(
      planner.plan(
        read(disabledModel, [
          [virtualMachine("a"), nic("a", [])],
          [virtualMachine("b"), nic("b", [])],
        ]),
      ),
      { kind: "done", summary: /no backend pools on the model or on any VM's NIC/ },
    );
    t.match(
      planner.plan(
        read(disabledModel, [
          [virtualMachine("a"), nic("a", [])],
          [virtualMachine("b", "deallocated"), nic("b", [POOL])],
        ]),
      ),
      { kind: "nicPools", summary: /VM\(s\) b out/ },
      "a deallocated VM's NIC is taken out too: it would serve again when started",
    );
  },
);

t.test(
  "partial disable on Flexible (desiredPercentage): only the share's NICs, healthy serving VMs first-by-name; the unhealthy and stopped count as out; Uniform under Automatic refused before any write",
  async (t) => {
    const partial = (p: number) => disableServerGroup.planner({ ...DESCRIPTION, desiredPercentage: p }, REF);
    const four = (extra: Partial<Record<string, VirtualMachine>> = {}) =>
      read(
        scaleSet(),
        ["a", "b", "c", "d"].map((n): [VirtualMachine, FlexibleNic] => [extra[n] ?? virtualMachine(n), nic(n, [POOL])]),
      );
    const half = partial(50).plan(four());
    t.match(half, { kind: "nicPools", summary: /VM\(s\) a, b out of the backend pools for 50 %/ });
    t.same(
      stepOfKind(half, "nicPools").nics.map((n) => [n.vm, n.etag]),
      [
        ["a", '"1"'],
        ["b", '"1"'],
      ],
      "each NIC with the ETag it was read with; the model is not written",
    );

    const unhealthy: VirtualMachine = {
      ...virtualMachine("a"),
      instanceView: { ...virtualMachine("a").instanceView, vmHealth: { status: { code: "HealthState/unhealthy" } } },
    };
    t.match(
      partial(50).plan(four({ a: unhealthy, c: virtualMachine("c", "deallocated") })),
      { kind: "done", summary: "2 of 4 instance(s) out of traffic (50 % asked: 2)" },
      "health-gated: a VM failing its probe and a stopped one serve nothing already, and count",
    );
    t.match(partial(75).plan(four({ a: unhealthy })), { kind: "nicPools", summary: /VM\(s\) b, c out/ });
    t.match(partial(0).plan(four()), { kind: "done", summary: /0 of 4 .* \(0 % asked: 0\)/ });

    const disabledWhole = read(scaleSet([], { tags: { [TAG_DISABLED]: "pools" } }), [
      [virtualMachine("a"), nic("a", [])],
    ]);
    t.match(partial(50).plan(disabledWhole), { kind: "done", summary: /out of traffic already, whole/ });

    const automatic = {
      ...four(),
      vmss: scaleSet([POOL], { orchestrationMode: "Uniform", upgradePolicy: { mode: "Automatic" } }),
    };
    t.throws(
      () => partial(50).plan(automatic),
      { code: "PartialDisableUniform" },
      "Uniform under Automatic: refused on the read",
    );
    t.throws(() => partial(50).plan({ ...four(), vmss: scaleSet([]) }), { code: "PartialDisableNoPools" });

    t.same(
      partial(50).result(
        read(scaleSet(), [
          [virtualMachine("a"), nic("a", [])],
          [virtualMachine("b"), nic("b", [POOL])],
        ]),
      ).instanceIdsToDisable,
      ["a"],
      "the result names the VMs serving nothing, for Orca",
    );
    t.equal(disableServerGroup.planner(DESCRIPTION, REF).result(four()).instanceIdsToDisable, undefined);
  },
);

t.test("enable on Flexible: the recorded pools restored on the model, then every VM's NIC put back", async (t) => {
  const disable = disableServerGroup.planner(DESCRIPTION, REF);
  const { patch } = stepOfKind(disable.plan(read(scaleSet(), [[virtualMachine("a"), nic("a", [POOL])]])), "update");
  const planner = enableServerGroup.planner(DESCRIPTION, REF);
  const disabledModel = scaleSet([], { tags: patch.tags });
  const first = planner.plan(read(disabledModel, [[virtualMachine("a"), nic("a", [])]]));
  t.match(first, { kind: "update", summary: /restore 1 backend pool/ });
  const restored = scaleSet([POOL], { tags: stepOfKind(first, "update").patch.tags });
  t.notOk(restored.tags?.[TAG_DISABLED], "the record removed");
  t.match(planner.plan(read(restored, [[virtualMachine("a"), nic("a", [])]])), {
    kind: "nicPools",
    summary: /put the NIC\(s\) of VM\(s\) a into the model's 1 backend pool/,
  });
  t.match(planner.plan(read(restored, [[virtualMachine("a"), nic("a", [POOL])]])), {
    kind: "done",
    summary: /every VM's NIC in the model's 1 backend pool/,
  });
  t.match(
    planner.plan(read(scaleSet([]), [[virtualMachine("a"), nic("a", [POOL])]])),
    { kind: "done" },
    "a model without pools takes no NIC out of its own",
  );
});

t.test(
  "terminate on Flexible: by VM name; a name that is not one of its VMs is refused before anything is deleted",
  async (t) => {
    const snapshot = read(scaleSet(), [
      [virtualMachine("a"), nic("a", [POOL])],
      [virtualMachine("b"), nic("b", [POOL])],
    ]);
    t.match(terminateInstances.planner({ ...DESCRIPTION, instanceIds: ["a"] }, REF).plan(snapshot), {
      kind: "deleteInstances",
      instanceIds: ["a"],
    });
    t.throws(
      () => terminateInstances.planner({ ...DESCRIPTION, instanceIds: ["a", "web-v002_0a1b2c3d"] }, REF).plan(snapshot),
      {
        code: "NotAnInstance",
        message:
          /web-v002_0a1b2c3d is not a VM of the Flexible scale set web-v001 \(its VMs: a, b\); nothing was deleted/,
      },
    );
    t.throws(
      () => scaleDown.planner({ ...DESCRIPTION, instanceIds: ["0"] }, REF).plan(snapshot),
      { code: "NotAnInstance" },
      "scaleDown by instanceIds too",
    );

    // Once every name was seen, a name gone is one deleted; then the capacity read before the delete is written back,
    // also in a run that resumes from the checkpoint; done once Azure holds it again.
    const planner = terminateInstances.planner({ ...DESCRIPTION, instanceIds: ["a"] }, REF);
    planner.plan(snapshot);
    const memory = planner.memory?.();
    t.same(memory, { namesSeen: true, restoreTo: 2 });
    const after = read(scaleSet([POOL], { sku: { name: "Standard_D2s_v3", capacity: 1 } }), [
      [virtualMachine("b"), nic("b", [POOL])],
    ]);
    const restore = { kind: "update", patch: { sku: { capacity: 2 } } };
    t.match(planner.plan(after), restore);
    t.match(
      terminateInstances
        .planner({ ...DESCRIPTION, instanceIds: ["a"] }, REF, { origin: { taskId: "t" }, memory })
        .plan(after),
      restore,
    );
    const replaced = read(scaleSet(), [
      [virtualMachine("b"), nic("b", [POOL])],
      [virtualMachine("c"), nic("c", [POOL])],
    ]);
    t.match(planner.plan(replaced), { kind: "done", summary: /deleted and replaced; capacity 2 kept/ });
    // scaleDown's form shrinks: a name gone is done, nothing written back.
    const shrink = scaleDown.planner({ ...DESCRIPTION, instanceIds: ["a"] }, REF);
    shrink.plan(snapshot);
    t.match(shrink.plan(after), { kind: "done" });
  },
);

t.test(
  "resize of a Flexible set past 100: no placement-group limit (Azure spreads its VMs by fault domain, up to 1,000)",
  async (t) => {
    const snapshot = read(scaleSet(), [[virtualMachine("a"), nic("a", [POOL])]]);
    t.match(resizeServerGroup.planner({ ...DESCRIPTION, targetSize: 300 }, REF).plan(snapshot), {
      kind: "update",
      patch: { sku: { capacity: 300 } },
    });
  },
);

t.test("a Flexible model: created when the description asks, kept by a clone of a Flexible source", async (t) => {
  const context = { name: "web-v002", tags: {}, inTraffic: true };
  const spec = {
    region: "eastus",
    sku: { name: "Standard_D2s_v3" },
    capacity: { desired: 2, max: 150 },
    subnetId: "subnet",
    loadBalancerBackendPoolId: POOL,
    loadBalancerInboundNatPoolId: "nat",
  };
  const uniform = modelFromDescription(spec, context);
  t.equal(uniform.orchestrationMode, undefined, "absent: Uniform, the REST API's default");
  t.equal(uniform.overprovision, false);
  const flexible = modelFromDescription({ ...spec, orchestrationMode: "Flexible" }, context);
  t.match(flexible, {
    orchestrationMode: "Flexible",
    platformFaultDomainCount: 1,
    virtualMachineProfile: { networkProfile: { networkApiVersion: FLEXIBLE_NETWORK_API_VERSION } },
  });
  t.notOk("overprovision" in flexible, "Flexible takes no overprovision");
  t.notOk("singlePlacementGroup" in flexible, "nor placement groups");
  const ipc = flexible.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0].ipConfigurations![0];
  t.same(ipc.loadBalancerBackendAddressPools, [{ id: POOL }], "its VMs' NICs are made in the pools");
  t.notOk(ipc.loadBalancerInboundNatPools, "no inbound NAT pool");

  const clone = modelFromSource(flexible, { region: "eastus" }, [], { ...context, name: "web-v003" });
  t.match(clone, { orchestrationMode: "Flexible", platformFaultDomainCount: 1 }, "a clone keeps its source's mode");
  t.equal(modelFromSource(uniform, { region: "eastus" }, [], context).orchestrationMode, undefined);
});

t.test(
  "the table on Flexible: with automatic repairs, disable and rollingUpgrade refused (their state is unreadable there)",
  async (t) => {
    const flexible = { orchestration: "Flexible" as const, upgrade: "Manual" as const, repairs: false, spot: false };
    t.equal(supportFor("rollingUpgrade", flexible), undefined);
    t.match(supportFor("rollingUpgrade", { ...flexible, repairs: true }), {
      supported: false,
      code: "FlexibleRepairsUnreadable",
    });
    t.equal(supportFor("disableServerGroup", flexible), undefined);
    t.match(supportFor("disableServerGroup", { ...flexible, repairs: true }), {
      supported: false,
      code: "FlexibleRepairsUnreadable",
    });
    t.equal(supportFor("enableServerGroup", { ...flexible, repairs: true }), undefined, "enable suspends nothing");
    t.equal(
      supportFor("disableServerGroup", { ...flexible, orchestration: "Uniform", repairs: true }),
      undefined,
      "on Uniform repairs are suspended",
    );
  },
);

t.test(
  "rollingUpgrade on Flexible: the VMs there when the model changes are recorded as old, replaced by surge, removed by name",
  async (t) => {
    const [a, b, c, d] = ["web-v001_aaaa1111", "web-v001_bbbb2222", "web-v001_cccc3333", "web-v001_dddd4444"];
    const planner = rollingUpgrade.planner({ ...DESCRIPTION, tags: { release: "2" }, maxSurge: 1 }, REF);
    const set = (tags: Record<string, string> | undefined, capacity: number) =>
      scaleSet([POOL], { name: "web-v001", tags, sku: { name: "Standard_D2s_v3", capacity } });
    const vmsOf = (...names: string[]): [VirtualMachine, FlexibleNic][] =>
      names.map((n) => [virtualMachine(n), nic(n, [POOL])]);

    const first = stepOfKind(planner.plan(read(set(undefined, 2), vmsOf(a, b))), "update");
    t.equal(first.kind, "update");
    t.equal(
      first.patch.tags?.[`${TAG_UPGRADE_OLD}0`],
      "~aaaa1111,~bbbb2222",
      "the VMs on the old model, by their suffix",
    );
    const tags = first.patch.tags as Record<string, string>;
    t.same([...readOldVmsRecord(set(tags, 2))!].sort(), [a, b]);

    t.match(
      planner.plan(read(set(tags, 2), vmsOf(a, b))),
      { kind: "update", patch: { sku: { capacity: 3 } } },
      "surge by one",
    );
    t.match(
      planner.plan(read(set(tags, 3), vmsOf(a, b, c))),
      { kind: "deleteInstances", instanceIds: [a] },
      "the new VM is up: the oldest old one goes, by name",
    );
    t.match(planner.plan(read(set(tags, 2), vmsOf(b, c))), { kind: "update", patch: { sku: { capacity: 3 } } });
    t.match(planner.plan(read(set(tags, 3), vmsOf(b, c, d))), { kind: "deleteInstances", instanceIds: [b] });
    const end = stepOfKind(planner.plan(read(set(tags, 2), vmsOf(c, d))), "update");
    t.match(end, { kind: "update", summary: /every instance runs the new model/ });
    t.notOk(
      Object.keys(end.patch.tags ?? {}).some((k) => k.startsWith(TAG_UPGRADE_OLD)),
      "the record goes when the upgrade ends",
    );
    t.equal(upgradeInstances([], false, undefined).length, 0);
  },
);
