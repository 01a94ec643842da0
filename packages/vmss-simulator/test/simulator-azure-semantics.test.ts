// What clients other than ours see from the simulator, checked against Azure's documented and recorded answers on a
// hand-moved clock: PUT with PATCH semantics on an existing scale set, a create's defaults, the 100-VM limit of a
// single placement group, instance views, power actions, the subscription / resource group / provider reads,
// /metadata/endpoints, api-version checks, a 501 for what is not simulated, and outcomes that do not depend on when a
// client polls. Nothing sleeps.
import t from "tap";
import type { RawResponse } from "vmss-simulator";
import { HAND_CLOCK_START as START, startHandClockSimulator } from "./helpers/hand-clock-simulator.ts";
import type { Json } from "./helpers/json.ts";

let clock = START;
const { sim, control } = await startHandClockSimulator(t, () => clock);

const RG = "demo-rg";
const WEB = "web-prod-v001";
const SUB = sim.subscriptionId;
const ARM_VMSS = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test-token" };
const WRITE_MS = 30_000;

t.beforeEach(async () => {
  clock = START;
  await control.reset();
  await control.setConfig({
    timeScale: 1,
    writeDurationMs: WRITE_MS,
    writeDurationsMs: {},
    concurrentWrites: "conflict",
  });
});

function arm(method: string, path: string, body?: unknown, apiVersion = "2026-04-01"): Promise<RawResponse> {
  return control.request(method, `${path}${path.includes("?") ? "&" : "?"}api-version=${apiVersion}`, {
    headers: AUTH,
    ...(body !== undefined ? { body } : {}),
  });
}

function poll(
  res: RawResponse,
  which: "azure-asyncoperation" | "location" = "azure-asyncoperation",
): Promise<RawResponse> {
  const url = new URL(String(res.headers[which]));
  return control.request("GET", `${url.pathname}${url.search}`, { headers: AUTH });
}

async function powerStates(name = WEB): Promise<string[]> {
  const res = await arm("GET", `${ARM_VMSS}/${name}/virtualMachines?$expand=instanceView`);
  return (res.body as { value: { properties: { instanceView: { statuses: { code: string }[] } } }[] }).value.map(
    (vm) => vm.properties.instanceView.statuses.find((s) => s.code.startsWith("PowerState/"))?.code ?? "none",
  );
}

const MINIMAL_CREATE = { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 2 } };

// ---- PUT, defaults, placement groups, Flexible ----

t.test("PUT on an existing scale set merges like PATCH: omitted tags, profile and upgrade policy stay", async (t) => {
  // "PUT calls for creation or updates on compute resources" (Microsoft Learn): properties omitted from a PUT on an
  // existing resource keep their values; what `az vmss scale` and the "scale an existing VMSS" template send.
  await control.patchScaleSet(RG, WEB, { tags: { owner: "ops" } });
  const auto = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { properties: { upgradePolicy: { mode: "Automatic" } } });
  t.equal(auto.status, 200);
  clock += WRITE_MS;
  const before = (await arm("GET", `${ARM_VMSS}/${WEB}`)).body as Json;

  const put = await arm("PUT", `${ARM_VMSS}/${WEB}`, {
    location: "eastus",
    sku: { name: "Standard_D2s_v3", capacity: 4 },
  });
  t.equal(put.status, 200);
  const after = put.body as Json;
  t.same(after.tags, before.tags, "tags kept");
  t.equal(after.sku.capacity, 4);
  t.equal(after.properties.upgradePolicy.mode, "Automatic", "an update applies no defaults: Automatic stays Automatic");
  t.same(after.properties.virtualMachineProfile, before.properties.virtualMachineProfile, "the VM profile stays");
  t.equal(after.properties.singlePlacementGroup, before.properties.singlePlacementGroup);

  const tagged = await (async () => {
    clock += WRITE_MS;
    return arm("PUT", `${ARM_VMSS}/${WEB}`, { location: "eastus", tags: { only: "this" } });
  })();
  t.same((tagged.body as Json).tags, { only: "this" }, "tags given replace the tags as a whole, as a PATCH does");
  t.equal((tagged.body as Json).sku.capacity, 4, "sku omitted: kept");
});

t.test("a create fills Azure's recorded defaults; values given are kept", async (t) => {
  const created = await arm("PUT", `${ARM_VMSS}/defaults-v001`, MINIMAL_CREATE);
  t.equal(created.status, 201);
  // poweroff[0], update[0]: a create without them comes back with these
  t.match((created.body as Json).properties, {
    orchestrationMode: "Uniform",
    overprovision: true,
    doNotRunExtensionsOnOverprovisionedVMs: false,
    singlePlacementGroup: true,
    platformFaultDomainCount: 5,
    upgradePolicy: { mode: "Manual" },
  });
  const given = await arm("PUT", `${ARM_VMSS}/defaults-v002`, {
    ...MINIMAL_CREATE,
    properties: { overprovision: false, singlePlacementGroup: false, platformFaultDomainCount: 1 },
  });
  t.match((given.body as Json).properties, {
    overprovision: false,
    singlePlacementGroup: false,
    platformFaultDomainCount: 1,
    orchestrationMode: "Uniform",
  });
});

t.test(
  "a single placement group holds at most 100 VMs: create, PUT and PATCH past it are refused, nothing applied",
  async (t) => {
    const big = await arm("PUT", `${ARM_VMSS}/big-v001`, {
      ...MINIMAL_CREATE,
      sku: { name: "Standard_D2s_v3", capacity: 101 },
    });
    t.equal(big.status, 409);
    t.match(big.body, {
      error: {
        code: "OperationNotAllowed",
        message: /exceeds the total limit of '100' Virtual Machine instances.*singlePlacementGroup/s,
      },
    });
    t.equal((await arm("GET", `${ARM_VMSS}/big-v001`)).status, 404, "nothing created");

    const large = await arm("PUT", `${ARM_VMSS}/big-v002`, {
      ...MINIMAL_CREATE,
      sku: { name: "Standard_D2s_v3", capacity: 101 },
      properties: { singlePlacementGroup: false },
    });
    t.equal(large.status, 201, "several placement groups: up to 1,000");

    const small = await arm("PUT", `${ARM_VMSS}/small-v001`, MINIMAL_CREATE);
    t.equal(small.status, 201);
    clock += WRITE_MS;
    const put = await arm("PUT", `${ARM_VMSS}/small-v001`, {
      location: "eastus",
      sku: { name: "Standard_D2s_v3", capacity: 150 },
    });
    t.equal(put.status, 409);
    const patch = await arm("PATCH", `${ARM_VMSS}/small-v001`, { sku: { capacity: 101 } });
    t.equal(patch.status, 409);
    t.match(patch.body, { error: { code: "OperationNotAllowed" } });
    t.equal(((await arm("GET", `${ARM_VMSS}/small-v001`)).body as Json).sku.capacity, 2, "nothing applied");

    const both = await arm("PATCH", `${ARM_VMSS}/small-v001`, {
      sku: { capacity: 101 },
      properties: { singlePlacementGroup: false },
    });
    t.equal(both.status, 200, "turning the single placement group off and growing past 100 in one write is allowed");
    clock += WRITE_MS;
    const back = await arm("PATCH", `${ARM_VMSS}/small-v001`, {
      sku: { capacity: 2 },
      properties: { singlePlacementGroup: true },
    });
    t.equal(back.status, 400, "singlePlacementGroup may go from true to false, never back");
    t.match(back.body, { error: { code: "InvalidParameter", target: "singlePlacementGroup" } });
  },
);

t.test(
  "Flexible orchestration has its own rules, never Uniform's: VMs need a VM profile; the mode cannot change",
  async (t) => {
    const res = await arm("PUT", `${ARM_VMSS}/flex-v001`, {
      ...MINIMAL_CREATE,
      properties: { orchestrationMode: "Flexible", platformFaultDomainCount: 1 },
    });
    t.equal(res.status, 400, "a Flexible set with VMs and no VM profile to make them from");
    t.match(res.body, { error: { code: "InvalidParameter", target: "virtualMachineProfile" } });
    t.equal((await arm("GET", `${ARM_VMSS}/flex-v001`)).status, 404);
    const patch = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { properties: { orchestrationMode: "Flexible" } });
    t.equal(patch.status, 400, "the orchestration mode of a scale set cannot change");
  },
);

// ---- instance views and power actions ----

t.test("instance views: the scale set's (statuses and a VM summary) and one VM's", async (t) => {
  const view = await arm("GET", `${ARM_VMSS}/${WEB}/instanceView`);
  t.equal(view.status, 200);
  t.match(view.body, {
    virtualMachine: { statusesSummary: [{ code: "ProvisioningState/succeeded", count: 3 }] },
    statuses: [{ code: "ProvisioningState/succeeded", level: "Info", displayStatus: "Provisioning succeeded" }],
  });
  const vm = await arm("GET", `${ARM_VMSS}/${WEB}/virtualMachines/1/instanceView`);
  t.equal(vm.status, 200);
  t.match(vm.body, {
    platformUpdateDomain: Number,
    platformFaultDomain: Number,
    statuses: [{ code: "ProvisioningState/succeeded" }, { code: "PowerState/running" }],
  });
  t.equal((await arm("GET", `${ARM_VMSS}/${WEB}/virtualMachines/9/instanceView`)).status, 404);
  t.equal((await arm("GET", `${ARM_VMSS}/nope/instanceView`)).status, 404);
});

t.test("deallocate then start (scale set, some instances): long-running, VMs change power state", async (t) => {
  const dealloc = await arm("POST", `${ARM_VMSS}/${WEB}/deallocate`, { instanceIds: ["0", "2"] });
  t.equal(dealloc.status, 202);
  t.ok(dealloc.headers["azure-asyncoperation"]);
  t.ok(dealloc.headers.location);
  t.equal(dealloc.headers["retry-after"], undefined, "poweroff[4]: no Retry-After on a power action");
  t.same(await powerStates(), ["PowerState/deallocating", "PowerState/running", "PowerState/deallocating"]);
  t.match((await poll(dealloc)).body, { status: "InProgress" });
  t.equal(
    (await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { a: "b" } })).status,
    409,
    "a power action holds the scale set like any write",
  );
  clock += WRITE_MS;
  t.match((await poll(dealloc)).body, { status: "Succeeded", endTime: new Date(START + WRITE_MS).toISOString() });
  t.equal((await poll(dealloc, "location")).status, 200);
  t.same(await powerStates(), ["PowerState/deallocated", "PowerState/running", "PowerState/deallocated"]);
  t.equal(
    ((await arm("GET", `${ARM_VMSS}/${WEB}`)).body as Json).sku.capacity,
    3,
    "deallocated VMs still count in the capacity",
  );

  const start = await arm("POST", `${ARM_VMSS}/${WEB}/start`);
  t.equal(start.status, 202, "no body: every VM");
  t.same(await powerStates(), ["PowerState/starting", "PowerState/running", "PowerState/starting"]);
  clock += WRITE_MS;
  t.match((await poll(start)).body, { status: "Succeeded" });
  t.same(await powerStates(), ["PowerState/running", "PowerState/running", "PowerState/running"]);
});

t.test("power actions on one VM: poweroff, restart, reimage, deallocate; an unknown instance is 404", async (t) => {
  const off = await arm("POST", `${ARM_VMSS}/${WEB}/virtualMachines/1/poweroff?skipShutdown=false`);
  t.equal(off.status, 202);
  t.same(await powerStates(), ["PowerState/running", "PowerState/stopping", "PowerState/running"]);
  clock += WRITE_MS;
  t.match((await poll(off)).body, { status: "Succeeded" });
  const vmView = await arm("GET", `${ARM_VMSS}/${WEB}/virtualMachines/1/instanceView`);
  t.match(vmView.body, { statuses: [{ code: "ProvisioningState/succeeded" }, { code: "PowerState/stopped" }] });

  for (const action of ["restart", "reimage", "deallocate", "start"]) {
    const res = await arm("POST", `${ARM_VMSS}/${WEB}/virtualMachines/2/${action}`);
    t.equal(res.status, 202, action);
    clock += WRITE_MS;
    t.match((await poll(res)).body, { status: "Succeeded" }, action);
  }
  t.same(await powerStates(), ["PowerState/running", "PowerState/stopped", "PowerState/running"]);
  const missing = await arm("POST", `${ARM_VMSS}/${WEB}/virtualMachines/9/restart`);
  t.equal(missing.status, 404);
  const scaleSetWide = await arm("POST", `${ARM_VMSS}/${WEB}/restart`, { instanceIds: ["7"] });
  t.equal(scaleSetWide.status, 400);
  t.match(scaleSetWide.body, { error: { code: "InvalidParameter", target: "instanceIds" } });
});

// ---- subscription, resource group, provider, metadata ----

t.test(
  "GET of the subscription, the subscription list, a resource group and the Microsoft.Compute provider",
  async (t) => {
    const sub = await arm("GET", `/subscriptions/${SUB}`, undefined, "2022-12-01");
    t.equal(sub.status, 200);
    t.match(sub.body, {
      id: `/subscriptions/${SUB}`,
      subscriptionId: SUB,
      displayName: String,
      state: "Enabled",
      tenantId: String,
    });
    const list = await arm("GET", "/subscriptions", undefined, "2022-12-01");
    t.match(list.body, { value: [{ subscriptionId: SUB, state: "Enabled" }] });
    t.equal(
      (await arm("GET", "/subscriptions/00000000-0000-0000-0000-00000000dead", undefined, "2022-12-01")).status,
      404,
    );

    const rg = await arm("GET", `/subscriptions/${SUB}/resourcegroups/DEMO-RG`, undefined, "2022-09-01");
    t.equal(rg.status, 200);
    t.match(rg.body, {
      id: `/subscriptions/${SUB}/resourceGroups/${RG}`,
      name: RG,
      type: "Microsoft.Resources/resourceGroups",
      location: "eastus",
      properties: { provisioningState: "Succeeded" },
    });
    const rgs = await arm("GET", `/subscriptions/${SUB}/resourcegroups`, undefined, "2022-09-01");
    t.match(rgs.body, { value: [{ name: RG }] });
    const missing = await arm("GET", `/subscriptions/${SUB}/resourcegroups/nope-rg`, undefined, "2022-09-01");
    t.equal(missing.status, 404);
    t.match(missing.body, { error: { code: "ResourceGroupNotFound" } });
    // A group is read here, never written (docs/simulator.md): its PUT and DELETE are the method a path lacks.
    for (const method of ["PUT", "DELETE"]) {
      const write = await arm(
        method,
        `/subscriptions/${SUB}/resourcegroups/${RG}`,
        { location: "eastus" },
        "2022-09-01",
      );
      t.equal(write.status, 405, `${method} of a resource group`);
      t.match(write.body, { error: { code: "MethodNotAllowed" } });
    }

    const provider = await arm("GET", `/subscriptions/${SUB}/providers/Microsoft.Compute`, undefined, "2022-09-01");
    t.equal(provider.status, 200);
    const body = provider.body as {
      namespace: string;
      registrationState: string;
      resourceTypes: { resourceType: string; apiVersions: string[]; locations: string[] }[];
    };
    t.equal(body.namespace, "Microsoft.Compute");
    t.equal(body.registrationState, "Registered");
    const vmss = body.resourceTypes.find((r) => r.resourceType === "virtualMachineScaleSets");
    t.ok(vmss?.apiVersions.includes("2022-08-01"), "the Python SDK's api-version is listed");
    t.ok(vmss?.apiVersions.includes("2026-04-01"), "and @azure/arm-compute's");
  },
);

t.test("/metadata/endpoints answers without a token, with this simulator's addresses", async (t) => {
  const res = await control.request("GET", "/metadata/endpoints?api-version=2022-09-01");
  t.equal(res.status, 200);
  t.match(res.body, {
    resourceManager: `${sim.url}/`,
    authentication: { loginEndpoint: `${sim.url}/`, audiences: Array },
  });
  const arr = await control.request("GET", "/metadata/endpoints?api-version=2019-05-01");
  t.equal(arr.status, 200, "the older, list-shaped version too");
  t.match(arr.body, [{ name: "ArmSimulator", resourceManager: `${sim.url}/` }]);
});

// ---- api-versions, not simulated ----

t.test("api-version: checked against the versions Azure serves for the resource type", async (t) => {
  for (const version of ["2022-08-01", "2023-09-01", "2024-11-01", "2026-04-01"]) {
    t.equal((await arm("GET", `${ARM_VMSS}/${WEB}`, undefined, version)).status, 200, version);
  }
  const unknown = await arm("GET", `${ARM_VMSS}/${WEB}`, undefined, "2099-01-01");
  t.equal(unknown.status, 400);
  t.match(unknown.body, {
    error: {
      code: "NoRegisteredProviderFound",
      message: /API version '2099-01-01' for type 'virtualMachineScaleSets'.*2022-08-01/s,
    },
  });
  const malformed = await arm("GET", `${ARM_VMSS}/${WEB}`, undefined, "banana");
  t.equal(malformed.status, 400);
  t.match(malformed.body, { error: { code: "InvalidApiVersionParameter", message: /'banana'/ } });
  t.equal(
    (await arm("GET", `/subscriptions/${SUB}/resourcegroups/${RG}`, undefined, "2026-04-01")).status,
    400,
    "resource groups have their own versions",
  );
});

t.test("a request the simulator does not simulate: 501 NotImplemented saying so, never 404", async (t) => {
  const disks = await arm(
    "GET",
    `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/disks`,
    undefined,
    "2023-04-02",
  );
  t.equal(disks.status, 501);
  t.match(disks.body, { error: { code: "NotImplemented", message: /not simulate/ } });
  const redeploy = await arm("POST", `${ARM_VMSS}/${WEB}/redeploy`);
  t.equal(redeploy.status, 501);
});

// ---- timing: outcomes on the simulator's clock ----

t.test("endTime is when the work ended, not when a client first looked", async (t) => {
  const patch = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { x: "y" } });
  clock += 10 * WRITE_MS;
  t.match((await poll(patch)).body, {
    status: "Succeeded",
    startTime: new Date(START).toISOString(),
    endTime: new Date(START + WRITE_MS).toISOString(),
  });
});

t.test("preemptOperation ends the operation Canceled however late the first poll comes", async (t) => {
  await control.addFault({
    action: "preemptOperation",
    method: "PATCH",
    pathContains: WEB,
    change: { tags: { by: "another-writer" } },
  });
  const patch = await arm("PATCH", `${ARM_VMSS}/${WEB}`, { tags: { x: "y" } });
  clock += 10 * WRITE_MS; // nothing reaches the simulator until long after the write would have ended
  const status = await poll(patch);
  t.match(status.body, {
    status: "Canceled",
    error: { code: "OperationPreempted" },
    endTime: new Date(START + WRITE_MS / 2).toISOString(),
  });
  const ss = (await arm("GET", `${ARM_VMSS}/${WEB}`)).body as Json;
  t.equal(ss.tags.by, "another-writer");
  t.equal(ss.properties.provisioningState, "Succeeded", "the other writer's write ran to its end too");
});
