// Flexible orchestration in the ARM simulator, driven by the real @azure/arm-compute client: a Flexible set's VMs are
// standalone Microsoft.Compute/virtualMachines with their own NICs, listed by scale set, scaled with sku.capacity,
// deleted by name (the scale set's batch delete, or the VM's DELETE) and powered one by one; what a NIC's IP
// configurations name is what the load balancer counts; the Uniform-only APIs answer as Azure does.
import t from "tap";
import type { VirtualMachine, VirtualMachineScaleSet } from "@azure/arm-compute";
import { computeClient } from "./helpers/compute-client.ts";
import { SimulatorControl, type RawResponse, startSimulator } from "vmss-simulator";
import type { Json } from "./helpers/json.ts";

const sim = await startSimulator({ seed: true, writeDurationMs: 0, timeScale: 0.001, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const client = computeClient(sim);
const fast = { updateIntervalInMs: 20 };
const RG = "demo-rg";
const SUB = sim.subscriptionId;
const ARM = `/subscriptions/${SUB}/resourceGroups/${RG}/providers`;
const AUTH = { authorization: "Bearer test-token" };
const LB = "demo-lb";
const POOL_ID = `${ARM}/Microsoft.Network/loadBalancers/${LB}/backendAddressPools/flex-pool`;

t.beforeEach(async () => {
  await control.reset();
  await control.setConfig({ writeDurationMs: 0, timeScale: 0.001, vmPageSize: 50 });
  // The pool the sets name, added to the load balancer first as a deploy adds it (a scale set names only what exists).
  const lb = (await arm("GET", `${ARM}/Microsoft.Network/loadBalancers/${LB}`, { apiVersion: "2024-05-01" }))
    .body as Json;
  lb.properties.backendAddressPools = [...lb.properties.backendAddressPools, { name: "flex-pool" }];
  const put = await arm("PUT", `${ARM}/Microsoft.Network/loadBalancers/${LB}`, { apiVersion: "2024-05-01", body: lb });
  if (put.status !== 200) throw new Error(`the load balancer's pool: ${put.status}`);
});

function arm(
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; apiVersion?: string } = {},
): Promise<RawResponse> {
  const sep = path.includes("?") ? "&" : "?";
  return control.request(method, `${path}${sep}api-version=${options.apiVersion ?? "2026-04-01"}`, {
    headers: { ...AUTH, ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
  });
}

/** A Flexible scale set's create body, as Azure requires it: fault domain count, networkApiVersion, one NIC in the pool. */
function flexibleCreate(capacity: number): Json {
  return {
    location: "eastus",
    sku: { name: "Standard_D2s_v3", tier: "Standard", capacity },
    properties: {
      orchestrationMode: "Flexible",
      platformFaultDomainCount: 1,
      virtualMachineProfile: {
        osProfile: {
          computerNamePrefix: "flex",
          adminUsername: "azureuser",
          linuxConfiguration: { disablePasswordAuthentication: true },
        },
        storageProfile: {
          imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
          osDisk: { createOption: "FromImage", managedDisk: { storageAccountType: "Premium_LRS" } },
        },
        networkProfile: {
          networkApiVersion: "2020-11-01",
          networkInterfaceConfigurations: [
            {
              name: "flex-nic",
              properties: {
                primary: true,
                deleteOption: "Delete",
                ipConfigurations: [
                  {
                    name: "flex-ipconfig",
                    properties: {
                      subnet: { id: `${ARM}/Microsoft.Network/virtualNetworks/demo-rg-vnet/subnets/default` },
                      loadBalancerBackendAddressPools: [{ id: POOL_ID }],
                    },
                  },
                ],
              },
            },
          ],
        },
      },
    },
  };
}

/** The same create as the SDK takes it: its models flatten `properties`. */
function sdkFlexibleCreate(capacity: number): VirtualMachineScaleSet {
  const wire = flexibleCreate(capacity);
  const { networkProfile, ...profile } = wire.properties.virtualMachineProfile;
  return {
    location: wire.location,
    sku: wire.sku,
    orchestrationMode: "Flexible",
    platformFaultDomainCount: 1,
    virtualMachineProfile: {
      ...profile,
      networkProfile: {
        networkApiVersion: networkProfile.networkApiVersion,
        networkInterfaceConfigurations: networkProfile.networkInterfaceConfigurations.map((nic: Json) => ({
          name: nic.name,
          ...nic.properties,
          ipConfigurations: nic.properties.ipConfigurations.map((ipc: Json) => ({ name: ipc.name, ...ipc.properties })),
        })),
      },
    },
  };
}

async function createFlexible(name: string, capacity: number) {
  const poller = client.virtualMachineScaleSets.createOrUpdate(RG, name, sdkFlexibleCreate(capacity), fast);
  await poller.submitted();
  return poller.pollUntilDone();
}

function scaleSetIdOf(name: string): string {
  return `${ARM}/Microsoft.Compute/virtualMachineScaleSets/${name}`;
}

async function flexibleVms(name: string, expand = false): Promise<VirtualMachine[]> {
  const out: VirtualMachine[] = [];
  const filter = `'virtualMachineScaleSet/id' eq '${scaleSetIdOf(name)}'`;
  for await (const vm of client.virtualMachines.list(RG, { filter, ...(expand ? { expand: "instanceView" } : {}) }))
    out.push(vm);
  return out;
}

async function poolMembers(): Promise<string[]> {
  const view = await control.traffic("loadBalancers", RG, LB);
  return (view.pools.find((p) => p.name === "flex-pool")?.members ?? []).map((m) => m.instanceId).sort();
}

async function capacityOf(name: string): Promise<number | undefined> {
  return (await client.virtualMachineScaleSets.get(RG, name)).sku?.capacity;
}

t.test(
  "a Flexible set of 3: three VMs named {set}_{8 hex}, listed by the filtered VM list, each with its NIC in the model's pool",
  async (t) => {
    const created = await createFlexible("flex-v001", 3);
    t.equal(created.orchestrationMode, "Flexible");
    t.equal(created.provisioningState, "Succeeded");
    t.equal(created.singlePlacementGroup, false, "no single placement group for Flexible");
    t.equal(created.overprovision, undefined, "no overprovisioning default for Flexible");

    const vms = await flexibleVms("flex-v001");
    t.equal(vms.length, 3);
    for (const vm of vms) {
      t.match(vm.name, /^flex-v001_[0-9a-f]{8}$/, "Azure's {scale-set-name}_{8-char-guid}");
      t.equal(vm.type, "Microsoft.Compute/virtualMachines");
      t.equal(vm.id, `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}`);
      t.equal(vm.virtualMachineScaleSet?.id, scaleSetIdOf("flex-v001"));
      t.equal(vm.provisioningState, "Succeeded");
      t.equal(vm.hardwareProfile?.vmSize, "Standard_D2s_v3");
      t.equal(vm.instanceView, undefined, "no instance view unless asked");
      const nicIds = vm.networkProfile?.networkInterfaces?.map((n) => n.id) ?? [];
      t.same(nicIds, [`${ARM}/Microsoft.Network/networkInterfaces/${vm.name}-flex-nic`]);
      const nic = await arm("GET", nicIds[0]!);
      t.equal(nic.status, 200);
      t.match(nic.body, {
        name: `${vm.name}-flex-nic`,
        properties: {
          virtualMachine: { id: vm.id },
          ipConfigurations: [
            {
              properties: {
                loadBalancerBackendAddressPools: [{ id: POOL_ID }],
                privateIPAddress: /^10\.\d+\.\d+\.\d+$/,
              },
            },
          ],
        },
      });
    }
    t.same(
      await poolMembers(),
      vms.map((vm) => vm.name).sort(),
      "the load balancer counts the three NICs as its pool's members",
    );

    const one = await client.virtualMachines.get(RG, vms[0].name!, { expand: "instanceView" });
    t.equal(one.name, vms[0].name);
    t.match(
      one.instanceView?.statuses?.map((s) => s.code),
      ["ProvisioningState/succeeded", "PowerState/running"],
    );
    const view = await client.virtualMachines.instanceView(RG, vms[0].name!);
    t.match(
      view.statuses?.map((s) => s.code),
      ["ProvisioningState/succeeded", "PowerState/running"],
    );
    t.equal(view.platformFaultDomain, 0);
    const expanded = await flexibleVms("flex-v001", true);
    t.ok(
      expanded.every((vm) => vm.instanceView?.statuses?.some((s) => s.code === "PowerState/running")),
      "$expand=instanceView with the filter",
    );

    t.equal(
      (await flexibleVms("web-prod-v001")).length,
      0,
      "a Uniform set's VMs are not Microsoft.Compute/virtualMachines",
    );

    await control.setConfig({ vmPageSize: 2 });
    const paged = await arm(
      "GET",
      `${ARM}/Microsoft.Compute/virtualMachines?$filter=${encodeURIComponent(`'virtualMachineScaleSet/id' eq '${scaleSetIdOf("flex-v001")}'`)}`,
    );
    t.equal((paged.body as Json).value.length, 2, "a page of vmPageSize");
    t.equal(new URL((paged.body as Json).nextLink).searchParams.get("$skiptoken"), "2");
    t.same(
      (await flexibleVms("flex-v001", true)).map((vm) => vm.name),
      vms.map((vm) => vm.name),
      "the SDK follows nextLink, filter and expand kept",
    );
  },
);

t.test("scaling a Flexible set to 5 and to 2 creates and removes VMs and their NICs; the pool follows", async (t) => {
  await createFlexible("flex-v002", 3);
  const first = (await flexibleVms("flex-v002")).map((vm) => vm.name!);
  const up = client.virtualMachineScaleSets.update(RG, "flex-v002", { sku: { capacity: 5 } }, fast);
  await up.submitted();
  await up.pollUntilDone();
  const five = (await flexibleVms("flex-v002")).map((vm) => vm.name!);
  t.equal(five.length, 5);
  t.same(five.slice(0, 3), first, "the first three stay");
  t.equal((await poolMembers()).length, 5);

  const down = client.virtualMachineScaleSets.update(RG, "flex-v002", { sku: { capacity: 2 } }, fast);
  await down.submitted();
  await down.pollUntilDone();
  const two = (await flexibleVms("flex-v002")).map((vm) => vm.name!);
  t.same(two, first.slice(0, 2), "scale-in removes the newest VMs");
  t.same(await poolMembers(), [...two].sort());
  for (const gone of five.slice(2)) {
    t.equal(
      (await arm("GET", `${ARM}/Microsoft.Network/networkInterfaces/${gone}-flex-nic`)).status,
      404,
      `${gone}'s NIC went with it (deleteOption Delete)`,
    );
  }
  t.equal(await capacityOf("flex-v002"), 2);
});

t.test(
  "deleting by name: the batch delete takes VM names, a VM's DELETE removes it; both lower the capacity",
  async (t) => {
    await createFlexible("flex-v003", 4);
    const names = (await flexibleVms("flex-v003")).map((vm) => vm.name!);

    const batch = client.virtualMachineScaleSets.deleteInstances(RG, "flex-v003", { instanceIds: [names[1]] }, fast);
    await batch.submitted();
    await batch.pollUntilDone();
    t.same(
      (await flexibleVms("flex-v003")).map((vm) => vm.name),
      [names[0], names[2], names[3]],
    );
    t.equal(await capacityOf("flex-v003"), 3);

    const del = client.virtualMachines.delete(RG, names[2], fast);
    await del.submitted();
    await del.pollUntilDone();
    t.same(
      (await flexibleVms("flex-v003")).map((vm) => vm.name),
      [names[0], names[3]],
    );
    t.equal(await capacityOf("flex-v003"), 2, "Azure lowers a Flexible set's capacity when one of its VMs is deleted");
    t.same(await poolMembers(), [names[0], names[3]].sort());
    const again = await arm("DELETE", `${ARM}/Microsoft.Compute/virtualMachines/${names[2]}`);
    t.equal(again.status, 204, "a VM already gone: 204");
    t.equal((await arm("GET", `${ARM}/Microsoft.Compute/virtualMachines/${names[2]}`)).status, 404);

    const unknown = await arm("POST", `${ARM}/Microsoft.Compute/virtualMachineScaleSets/flex-v003/delete`, {
      body: { instanceIds: ["flex-v003_00000000"] },
    });
    t.equal(unknown.status, 400);
    t.match(unknown.body, { error: { code: "InvalidParameter", target: "instanceIds" } });
  },
);

t.test("deallocate and start a Flexible VM: long-running, the power state in its instance view", async (t) => {
  await createFlexible("flex-v004", 2);
  const [vm] = await flexibleVms("flex-v004");
  const dealloc = client.virtualMachines.deallocate(RG, vm.name!, fast);
  await dealloc.submitted();
  await dealloc.pollUntilDone();
  t.match(
    (await client.virtualMachines.instanceView(RG, vm.name!)).statuses?.map((s) => s.code),
    ["ProvisioningState/succeeded", "PowerState/deallocated"],
  );
  t.equal(await capacityOf("flex-v004"), 2, "a deallocated VM still counts");

  const start = client.virtualMachines.start(RG, vm.name!, fast);
  await start.submitted();
  await start.pollUntilDone();
  t.match(
    (await client.virtualMachines.instanceView(RG, vm.name!)).statuses?.map((s) => s.code),
    ["ProvisioningState/succeeded", "PowerState/running"],
  );

  const raw = await arm("POST", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}/powerOff`);
  t.equal(raw.status, 202);
  t.match(raw.headers["azure-asyncoperation"], /\/providers\/Microsoft\.Compute\/locations\/eastus\/operations\//);
  t.match(raw.headers.location, /monitor=true/);
});

t.test("a NIC's PUT: If-Match with its ETag, 412 when stale; the pool counts what the NIC names now", async (t) => {
  await createFlexible("flex-v005", 2);
  const [vm, other] = await flexibleVms("flex-v005");
  const nicPath = `${ARM}/Microsoft.Network/networkInterfaces/${vm.name}-flex-nic`;
  const read = await arm("GET", nicPath, { apiVersion: "2024-05-01" });
  const etag = String(read.headers.etag);
  t.equal((read.body as Json).etag, etag);
  const body = structuredClone(read.body as Json);
  body.properties.ipConfigurations[0].properties.loadBalancerBackendAddressPools = [];
  const put = await arm("PUT", nicPath, { body, headers: { "if-match": etag }, apiVersion: "2024-05-01" });
  t.equal(put.status, 200);
  t.not(put.headers.etag, etag, "a new ETag");
  t.match(put.headers["azure-asyncoperation"], /\/providers\/Microsoft\.Network\/locations\/eastus\/operations\//);
  const status = await control.request(
    "GET",
    new URL(String(put.headers["azure-asyncoperation"])).pathname +
      new URL(String(put.headers["azure-asyncoperation"])).search,
    { headers: AUTH },
  );
  t.match(status.body, { status: "Succeeded" });
  t.same(await poolMembers(), [other.name], "out of the pool: the load balancer no longer counts it");

  const stale = await arm("PUT", nicPath, { body: read.body, headers: { "if-match": etag }, apiVersion: "2024-05-01" });
  t.equal(stale.status, 412);
  t.match(stale.body, { error: { code: "PreconditionFailed" } });
  t.same(await poolMembers(), [other.name], "nothing changed");
});

t.test(
  "Uniform-only APIs on a Flexible set answer as Azure does; what is not modelled is 501, never 404",
  async (t) => {
    await createFlexible("flex-v006", 1);
    const [vm] = await flexibleVms("flex-v006");
    const VMSS = `${ARM}/Microsoft.Compute/virtualMachineScaleSets/flex-v006`;
    const list = await arm("GET", `${VMSS}/virtualMachines`);
    t.equal(list.status, 400);
    t.same(list.body, {
      error: {
        code: "BadRequest",
        message:
          "Operation 'VirtualMachineScaleSets.virtualMachines.GET' is not allowed on Virtual Machine Scale Set 'flex-v006'.",
      },
    });
    const view = await arm("GET", `${VMSS}/instanceView`);
    t.equal(view.status, 400);
    t.match(view.body, {
      error: { code: "BadRequest", message: /VirtualMachineScaleSets\.instanceView\.GET' is not allowed/ },
    });
    const byName = await arm("GET", `${VMSS}/virtualMachines/${vm.name}/instanceView`);
    t.equal(byName.status, 400);
    t.same(byName.body, {
      error: {
        code: "InvalidParameter",
        message: "Virtual Machine Scale Set VM instanceId must be a number.",
        target: "instanceId",
      },
    });
    const upgrade = await arm("POST", `${VMSS}/manualupgrade`, { body: { instanceIds: [vm.name] } });
    t.equal(upgrade.status, 400);
    t.match(upgrade.body, { error: { code: "BadRequest" } });
    await t.rejects(
      (async () => {
        for await (const _ of client.virtualMachineScaleSetVMs.list(RG, "flex-v006")) void _;
      })(),
      { statusCode: 400, code: "BadRequest" },
      "the SDK's VMSS VM list",
    );

    const putVm = await arm("PUT", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}`, {
      body: { location: "eastus" },
    });
    t.equal(putVm.status, 501);
    t.match(putVm.body, { error: { code: "NotImplemented" } });
    const capture = await arm("POST", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}/capture`, { body: {} });
    t.equal(capture.status, 501, "an unmodelled VM action");
    t.equal(
      (await arm("GET", `${ARM}/Microsoft.Compute/virtualMachines?$filter=name eq 'x'`)).status,
      400,
      "only the scale-set filter",
    );
    t.equal(
      (await arm("GET", `${ARM}/Microsoft.Compute/virtualMachines?$expand=instanceView`)).status,
      400,
      "$expand only with a valid $filter",
    );
  },
);

t.test("a Flexible create is checked as Azure checks it", async (t) => {
  const VMSS = `${ARM}/Microsoft.Compute/virtualMachineScaleSets`;
  const noFd = flexibleCreate(1);
  delete noFd.properties.platformFaultDomainCount;
  t.match(await arm("PUT", `${VMSS}/bad-v001`, { body: noFd }), {
    status: 400,
    body: { error: { code: "InvalidParameter", target: "platformFaultDomainCount" } },
  });
  const noNetworkApi = flexibleCreate(1);
  delete noNetworkApi.properties.virtualMachineProfile.networkProfile.networkApiVersion;
  t.match(await arm("PUT", `${VMSS}/bad-v002`, { body: noNetworkApi }), {
    status: 400,
    body: { error: { code: "InvalidParameter", target: /networkApiVersion/ } },
  });
  const spg = flexibleCreate(1);
  spg.properties.singlePlacementGroup = true;
  t.match(await arm("PUT", `${VMSS}/bad-v003`, { body: spg }), {
    status: 400,
    body: { error: { target: "singlePlacementGroup" } },
  });
  t.equal((await arm("GET", `${VMSS}/bad-v001`)).status, 404, "nothing was created");
  await createFlexible("flex-v007", 1);
  const mode = await arm("PATCH", `${VMSS}/flex-v007`, { body: { properties: { orchestrationMode: "Uniform" } } });
  t.match(mode, { status: 400, body: { error: { target: "orchestrationMode" } } }, "the mode cannot change");
});

t.test("ARM locks on a Flexible VM: CanNotDelete refuses its DELETE with ScopeLocked until removed", async (t) => {
  await createFlexible("flex-v008", 2);
  const [vm] = await flexibleVms("flex-v008");
  const lock = `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}/providers/Microsoft.Authorization/locks/keep`;
  const put = await arm("PUT", lock, { body: { properties: { level: "CanNotDelete" } }, apiVersion: "2020-05-01" });
  t.equal(put.status, 201);
  const refused = await arm("DELETE", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}`);
  t.equal(refused.status, 409);
  t.match(refused.body, {
    error: { code: "ScopeLocked", message: /cannot perform delete operation because following scope\(s\) are locked/ },
  });
  t.equal((await flexibleVms("flex-v008")).length, 2, "still there");
  const start = await arm("POST", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}/restart`);
  t.equal(start.status, 202, "CanNotDelete does not stop a restart");
  t.equal((await arm("DELETE", lock, { apiVersion: "2020-05-01" })).status, 200);
  t.equal((await arm("DELETE", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}`)).status, 202);
});

t.test(
  "ARM locks at a resource group, a scale set and a VM: listed at each scope as ARM lists them; a locked VM is kept from the batch delete and from its scale set's DELETE",
  async (t) => {
    await createFlexible("flex-v009", 3);
    const [a, b] = (await flexibleVms("flex-v009")).map((vm) => vm.name!).sort();
    const LOCKS = "providers/Microsoft.Authorization/locks";
    const vmScope = `${ARM}/Microsoft.Compute/virtualMachines/${a}`;
    const setScope = scaleSetIdOf("flex-v009");
    const groupScope = `/subscriptions/${SUB}/resourceGroups/${RG}`;
    const lock = (scope: string, name: string, level: string) =>
      arm("PUT", `${scope}/${LOCKS}/${name}`, {
        body: { properties: { level, notes: "kept" } },
        apiVersion: "2020-05-01",
      });
    const list = async (scope: string) =>
      ((await arm("GET", `${scope}/${LOCKS}`, { apiVersion: "2020-05-01" })).body as Json).value
        .map((l: Json) => l.id)
        .sort();
    t.equal((await lock(vmScope, "keep-vm", "CanNotDelete")).status, 201);
    t.equal((await lock(setScope, "keep-set", "CanNotDelete")).status, 201);
    t.same(
      await list(groupScope),
      [`${setScope}/${LOCKS}/keep-set`, `${vmScope}/${LOCKS}/keep-vm`],
      "the group lists the locks of every resource in it",
    );
    t.same(await list(vmScope), [`${vmScope}/${LOCKS}/keep-vm`], "a VM lists its own");
    t.same(
      await list(setScope),
      [`${setScope}/${LOCKS}/keep-set`],
      "a Flexible VM is not a child of its scale set: the set does not list the VM's lock",
    );

    const batch = await arm("POST", `${setScope}/delete`, { body: { instanceIds: [a, b] } });
    t.equal(batch.status, 409);
    t.match(batch.body, {
      error: { code: "ScopeLocked", message: new RegExp(`following scope\\(s\\) are locked: '${vmScope}'`) },
    });
    t.equal((await flexibleVms("flex-v009")).length, 3, "nothing of the batch was deleted");
    t.equal(
      (await arm("POST", `${setScope}/delete`, { body: { instanceIds: [b] } })).status,
      202,
      "the set's CanNotDelete lock does not hold a VM that is not locked",
    );
    t.equal((await arm("DELETE", setScope)).status, 409, "the set's own lock keeps it");

    // A resource group's lock holds every resource in it, and each of them lists it.
    t.equal((await arm("DELETE", `${setScope}/${LOCKS}/keep-set`, { apiVersion: "2020-05-01" })).status, 200);
    t.equal((await arm("DELETE", `${vmScope}/${LOCKS}/keep-vm`, { apiVersion: "2020-05-01" })).status, 200);
    t.equal((await lock(groupScope, "freeze", "ReadOnly")).status, 201);
    t.same(await list(vmScope), [`${groupScope}/${LOCKS}/freeze`], "a VM lists its group's lock");
    t.same(await list(setScope), [`${groupScope}/${LOCKS}/freeze`]);
    const vmDelete = await arm("DELETE", vmScope);
    t.match(vmDelete, {
      status: 409,
      body: { error: { code: "ScopeLocked", message: new RegExp(`locked: '${groupScope}'`) } },
    });
    const resize = await arm("PATCH", setScope, { body: { sku: { capacity: 4 } } });
    t.match(
      resize,
      { status: 409, body: { error: { code: "ScopeLocked", message: /cannot perform write operation/ } } },
      "ReadOnly refuses a write",
    );
    t.equal((await arm("DELETE", `${groupScope}/${LOCKS}/freeze`, { apiVersion: "2020-05-01" })).status, 200);
    t.equal((await arm("DELETE", vmScope)).status, 202, "unlocked, it goes");
  },
);

t.test("the control API makes a Flexible set at once: VMs running, NICs in <name>-lb's pool", async (t) => {
  await control.putScaleSet(RG, "flexctl-v001", { capacity: 3, orchestrationMode: "Flexible" });
  const snapshot = await control.getScaleSet(RG, "flexctl-v001");
  t.equal(snapshot.vms.length, 3);
  t.match(snapshot.vms[0], { type: "Microsoft.Compute/virtualMachines", name: /^flexctl-v001_[0-9a-f]{8}$/ });
  const view = await control.traffic("loadBalancers", RG, "flexctl-v001-lb");
  t.same(view.pools[0].members.map((m) => m.instanceId).sort(), snapshot.vms.map((vm) => vm.name).sort());
  t.equal((await flexibleVms("flexctl-v001")).length, 3);
});

t.test(
  "a Flexible VM's write is a long-running operation of its scale set: 409 for another write meanwhile",
  async (t) => {
    await createFlexible("flex-v009", 2);
    const [a, b] = await flexibleVms("flex-v009");
    // No timers: a write of ten minutes stays in flight for the whole test.
    await control.setConfig({ writeDurationMs: 600_000 });
    const dealloc = await arm("POST", `${ARM}/Microsoft.Compute/virtualMachines/${a.name}/deallocate`);
    t.equal(dealloc.status, 202);
    t.match(
      (await client.virtualMachines.instanceView(RG, a.name!)).statuses?.map((s) => s.code),
      ["ProvisioningState/succeeded", "PowerState/deallocating"],
    );
    t.equal((await client.virtualMachineScaleSets.get(RG, "flex-v009")).provisioningState, "Updating");
    const other = await arm("DELETE", `${ARM}/Microsoft.Compute/virtualMachines/${b.name}`);
    t.equal(other.status, 409);
    t.match(other.body, { error: { code: "ConflictingConcurrentWriteNotAllowed" } });
    const poll = await control.request(
      "GET",
      new URL(String(dealloc.headers["azure-asyncoperation"])).pathname +
        new URL(String(dealloc.headers["azure-asyncoperation"])).search,
      { headers: AUTH },
    );
    t.match(poll.body, { status: "InProgress" });
  },
);

t.test(
  "batch power actions take VM names on a Flexible set; reimage and the Uniform per-instance actions are refused",
  async (t) => {
    await createFlexible("flex-v010", 2);
    const [a, b] = await flexibleVms("flex-v010");
    const VMSS = `${ARM}/Microsoft.Compute/virtualMachineScaleSets/flex-v010`;
    const stop = client.virtualMachineScaleSets.powerOff(RG, "flex-v010", {
      vmInstanceIDs: { instanceIds: [a.name!] },
      ...fast,
    });
    await stop.submitted();
    await stop.pollUntilDone();
    t.match(
      (await client.virtualMachines.instanceView(RG, a.name!)).statuses?.map((s) => s.code),
      ["ProvisioningState/succeeded", "PowerState/stopped"],
    );
    t.match(
      (await client.virtualMachines.instanceView(RG, b.name!)).statuses?.map((s) => s.code),
      ["ProvisioningState/succeeded", "PowerState/running"],
      "only the VM named",
    );
    t.match(await arm("POST", `${VMSS}/reimage`, { body: { instanceIds: [a.name] } }), {
      status: 400,
      body: { error: { code: "BadRequest" } },
    });
    t.match(await arm("POST", `${VMSS}/virtualMachines/${a.name}/start`), {
      status: 400,
      body: { error: { code: "InvalidParameter", target: "instanceId" } },
    });
    t.match(await arm("GET", `${VMSS}/virtualMachines/0`), {
      status: 400,
      body: { error: { code: "BadRequest", message: /virtualMachines\.GET' is not allowed/ } },
    });
  },
);

t.test(
  "Spot on a Flexible set: each VM carries its priority; an eviction deallocates it, and it still counts",
  async (t) => {
    const spot = sdkFlexibleCreate(2);
    spot.virtualMachineProfile = {
      ...spot.virtualMachineProfile,
      priority: "Spot",
      evictionPolicy: "Deallocate",
      billingProfile: { maxPrice: -1 },
    };
    const poller = client.virtualMachineScaleSets.createOrUpdate(RG, "flexspot-v001", spot, fast);
    await poller.submitted();
    await poller.pollUntilDone();
    const vms = await flexibleVms("flexspot-v001");
    t.ok(
      vms.every(
        (vm) => vm.priority === "Spot" && vm.evictionPolicy === "Deallocate" && vm.billingProfile?.maxPrice === -1,
      ),
    );
    const evicted = await control.request("POST", `/_sim/scaleSets/${RG}/flexspot-v001/evict`, { body: { count: 1 } });
    t.same(evicted.body, { evicted: [vms[0].name] });
    t.match(
      (await client.virtualMachines.instanceView(RG, vms[0].name!)).statuses?.map((s) => s.code),
      ["ProvisioningState/succeeded", "PowerState/deallocated"],
    );
    t.equal(await capacityOf("flexspot-v001"), 2);

    // The evictSpot fault reaches a Flexible set through the VM list that names it: Azure evicts just before the answer.
    await control.addFault({
      action: "evictSpot",
      method: "GET",
      pathContains: "/providers/Microsoft.Compute/virtualMachines",
    });
    const listed = await flexibleVms("flexspot-v001", true);
    t.same(
      listed.map((vm) => vm.instanceView?.statuses?.find((s) => s.code?.startsWith("PowerState/"))?.code),
      ["PowerState/deallocated", "PowerState/deallocated"],
      "the other VM was evicted as the list was asked for",
    );
    t.equal((await control.calls()).filter((c) => c.fault === "evictSpot").length, 1);
  },
);

t.test("throttling: a Flexible VM's reads and writes are charged, with the rate-limit headers", async (t) => {
  await createFlexible("flex-v011", 1);
  const [vm] = await flexibleVms("flex-v011");
  await control.setThrottling({ enabled: true });
  t.teardown(() => control.setThrottling({ enabled: false }));
  const read = await arm("GET", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}`);
  t.match(
    read.headers["x-ms-ratelimit-remaining-resource"],
    /Microsoft\.Compute\/GetVMScaleSetVMSubscriptionMaximum;\d+,Microsoft\.Compute\/GetVMScaleSetVMResource;35/,
  );
  const write = await arm("POST", `${ARM}/Microsoft.Compute/virtualMachines/${vm.name}/restart`);
  t.equal(write.status, 202);
  t.match(write.headers["x-ms-ratelimit-remaining-resource"], /VMScaleSetActionsSubscriptionMaximum;\d+/);
  t.equal(write.headers["x-ms-request-charge"], "1");
});

t.test("deleting a Flexible set removes its VMs and their NICs", async (t) => {
  await createFlexible("flex-v012", 2);
  const names = (await flexibleVms("flex-v012")).map((vm) => vm.name!);
  const del = client.virtualMachineScaleSets.delete(RG, "flex-v012", fast);
  await del.submitted();
  await del.pollUntilDone();
  t.equal((await arm("GET", `${ARM}/Microsoft.Compute/virtualMachineScaleSets/flex-v012`)).status, 404);
  for (const name of names) {
    t.equal((await arm("GET", `${ARM}/Microsoft.Compute/virtualMachines/${name}`)).status, 404, `${name} gone`);
    t.equal(
      (await arm("GET", `${ARM}/Microsoft.Network/networkInterfaces/${name}-flex-nic`)).status,
      404,
      `${name}'s NIC gone`,
    );
  }
});

t.test(
  "the kind control route turns a seeded Uniform set Flexible: its VMs made again as standalone VMs, as many",
  async (t) => {
    const res = await control.request("PUT", `/_sim/scaleSets/${RG}/web-prod-v001/kind`, {
      body: { orchestrationMode: "Flexible" },
    });
    t.equal(res.status, 200);
    const vms = await flexibleVms("web-prod-v001");
    t.equal(vms.length, 3);
    t.ok(vms.every((vm) => /^web-prod-v001_[0-9a-f]{8}$/.test(vm.name!)));
    const got = await client.virtualMachineScaleSets.get(RG, "web-prod-v001");
    t.match(got, { orchestrationMode: "Flexible", singlePlacementGroup: false, platformFaultDomainCount: 1 });
    t.equal(
      got.virtualMachineProfile?.networkProfile?.networkApiVersion,
      "2020-11-01",
      "the model meets Flexible's rules",
    );
    const view = await control.traffic("loadBalancers", RG, "web-prod-v001-lb");
    t.same(
      view.pools[0].members.map((m) => m.instanceId).sort(),
      vms.map((vm) => vm.name).sort(),
      "still in the set's pool",
    );
    const patch = client.virtualMachineScaleSets.update(RG, "web-prod-v001", { sku: { capacity: 4 } }, fast);
    await patch.submitted();
    await patch.pollUntilDone();
    t.equal((await flexibleVms("web-prod-v001")).length, 4, "and it scales as a Flexible set");
  },
);

t.test(
  "the probe-failure switch reaches a Flexible set's VMs in the pool; their instance view reports no vmHealth",
  async (t) => {
    await control.putScaleSet(RG, "flexprobe-v001", { capacity: 2, orchestrationMode: "Flexible" });
    const healthy = await control.traffic("loadBalancers", RG, "flexprobe-v001-lb");
    t.same(
      healthy.pools[0].members.map((m) => [m.health, m.serving]),
      [
        ["HealthState/healthy", true],
        ["HealthState/healthy", true],
      ],
    );
    t.equal((await control.request("PUT", `/_sim/network/probeFailures/${RG}/flexprobe-v001`)).status, 200);
    const failing = await control.traffic("loadBalancers", RG, "flexprobe-v001-lb");
    t.same(
      failing.pools[0].members.map((m) => [m.health, m.serving]),
      [
        ["HealthState/unhealthy", false],
        ["HealthState/unhealthy", false],
      ],
    );
    const [vm] = await flexibleVms("flexprobe-v001");
    t.equal(
      (await client.virtualMachines.instanceView(RG, vm.name!)).vmHealth,
      undefined,
      "Flexible reports health through the Application Health extension, not the probe",
    );
  },
);

t.test(
  "a Flexible VM whose model carries the Application Health extension reports vmHealth from its probe; without it, none",
  async (t) => {
    const body = sdkFlexibleCreate(2);
    body.virtualMachineProfile!.extensionProfile = {
      extensions: [
        {
          name: "HealthExtension",
          publisher: "Microsoft.ManagedServices",
          typePropertiesType: "ApplicationHealthLinux",
          typeHandlerVersion: "1.0",
          settings: { protocol: "http", port: 8080, requestPath: "/health" },
        },
      ],
    };
    const create = client.virtualMachineScaleSets.createOrUpdate(RG, "flexhealth-v001", body, fast);
    await create.submitted();
    await create.pollUntilDone();
    await createFlexible("flexplain-v001", 1);
    const codes = async (name: string) =>
      (await flexibleVms(name, true)).map((vm) => vm.instanceView?.vmHealth?.status?.code);
    for (let i = 0; i < 200 && (await codes("flexhealth-v001")).some((c) => c !== "HealthState/healthy"); i++);
    t.same(
      await codes("flexhealth-v001"),
      ["HealthState/healthy", "HealthState/healthy"],
      "the extension reports them healthy once the probe has seen them answer",
    );
    const [vm] = await flexibleVms("flexhealth-v001");
    t.equal(
      (await client.virtualMachines.instanceView(RG, vm.name!)).vmHealth?.status?.code,
      "HealthState/healthy",
      "the VM's own instance view says the same",
    );
    t.same(await codes("flexplain-v001"), [undefined], "no extension: Azure reports no health");
    t.equal((await control.request("PUT", `/_sim/network/probeFailures/${RG}/flexhealth-v001`)).status, 200);
    const untyped = flexibleCreate(1);
    untyped.properties.virtualMachineProfile.extensionProfile = {
      extensions: [
        { name: "HealthExtension", properties: { publisher: "Microsoft.ManagedServices", typeHandlerVersion: "1.0" } },
      ],
    };
    t.match(
      await arm("PUT", `${ARM}/Microsoft.Compute/virtualMachineScaleSets/flexuntyped-v001`, { body: untyped }),
      {
        status: 400,
        body: {
          error: {
            code: "InvalidParameter",
            target: "virtualMachineProfile.extensionProfile.extensions[0].properties.type",
          },
        },
      },
      "an extension must name its type",
    );
    t.same(
      await codes("flexhealth-v001"),
      ["HealthState/unhealthy", "HealthState/unhealthy"],
      "an application that stops answering is reported unhealthy",
    );
  },
);

t.test(
  "a model change reaches a Flexible set's VMs as its upgrade policy says: Automatic at completion, Manual never",
  async (t) => {
    for (const [name, mode, expected] of [
      ["flexauto-v001", "Automatic", "Standard_D4s_v3"],
      ["flexmanual-v001", "Manual", "Standard_D2s_v3"],
    ] as const) {
      const body = sdkFlexibleCreate(2);
      body.upgradePolicy = { mode };
      const create = client.virtualMachineScaleSets.createOrUpdate(RG, name, body, fast);
      await create.submitted();
      await create.pollUntilDone();
      const resize = client.virtualMachineScaleSets.update(
        RG,
        name,
        { sku: { name: "Standard_D4s_v3", tier: "Standard", capacity: 2 } },
        fast,
      );
      await resize.submitted();
      await resize.pollUntilDone();
      t.same(
        (await flexibleVms(name)).map((vm) => vm.hardwareProfile?.vmSize),
        [expected, expected],
        `${mode}: the VMs are ${expected}`,
      );
    }
  },
);
