// The ARM simulator driven by the real @azure/arm-compute client.
import t from "tap";
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { computeClient } from "./helpers/compute-client.ts";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "./helpers/wait-for.ts";

// Long enough that the reads below land while the write is in flight, even on a loaded machine.
const WRITE_MS = 600;
const sim = await startSimulator({ seed: true, writeDurationMs: WRITE_MS, timeScale: 0.001, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const client = computeClient(sim);
const vmss = client.virtualMachineScaleSets;
const fast = { updateIntervalInMs: 20 };
const RG = "demo-rg";
const WEB = "web-prod-v001";
const SUB = sim.subscriptionId;
const ARM_VMSS = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test-token" };

t.beforeEach(async () => {
  await control.reset();
  await control.setConfig({ writeDurationMs: WRITE_MS, timeScale: 0.001, vmPageSize: 50 });
});

async function listVms(name = WEB, rg = RG): Promise<VirtualMachineScaleSetVM[]> {
  const out: VirtualMachineScaleSetVM[] = [];
  for await (const vm of client.virtualMachineScaleSetVMs.list(rg, name)) out.push(vm);
  return out;
}

function ids(vms: VirtualMachineScaleSetVM[]): string[] {
  return vms.map((vm) => vm.instanceId ?? "?");
}

function poolIds(
  vmssOrVm: { virtualMachineProfile?: VirtualMachineScaleSet["virtualMachineProfile"] } | VirtualMachineScaleSetVM,
): string[] {
  const nics =
    "networkProfileConfiguration" in vmssOrVm
      ? vmssOrVm.networkProfileConfiguration?.networkInterfaceConfigurations
      : (vmssOrVm as VirtualMachineScaleSet).virtualMachineProfile?.networkProfile?.networkInterfaceConfigurations;
  return (nics ?? []).flatMap((nic) =>
    (nic.ipConfigurations ?? []).flatMap((ip) => (ip.loadBalancerBackendAddressPools ?? []).map((p) => p.id ?? "")),
  );
}

t.test("GET returns the scale set with its ETag in the body and the header", async (t) => {
  const got = await vmss.get(RG, WEB);
  t.equal(got.name, WEB);
  t.equal(got.etag, '"1"');
  t.equal(got.provisioningState, "Succeeded");
  t.equal(got.sku?.capacity, 3);
  t.equal(got.upgradePolicy?.mode, "Manual");
  t.same(poolIds(got), [
    `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Network/loadBalancers/${WEB}-lb/backendAddressPools/${WEB}-pool`,
  ]);

  const raw = await control.request("GET", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, { headers: AUTH });
  t.equal(raw.status, 200);
  t.equal(raw.headers.etag, '"1"');
  t.equal((raw.body as { etag: string }).etag, '"1"');
  t.match(raw.headers["x-ms-request-id"], /^[0-9a-f-]{36}$/);
  t.match(raw.headers["x-ms-correlation-request-id"], /^[0-9a-f-]{36}$/);
  t.equal(raw.headers["x-ms-sim-time-scale"], "0.001", "the simulator's clock, for a client paced by it");

  // ARM paths and names are case-insensitive
  const upper = await control.request(
    "GET",
    `${ARM_VMSS.toUpperCase().replace(SUB.toUpperCase(), SUB)}/WEB-PROD-V001?api-version=2026-04-01`,
    { headers: AUTH },
  );
  t.equal(upper.status, 200);
  t.equal((upper.body as { name: string }).name, WEB);

  const list = [];
  for await (const s of vmss.list(RG)) list.push(s.name);
  t.same(list.sort(), ["batch-v001", "web-prod-v001", "web-prod-v002"]);
  const batch = await vmss.get(RG, "batch-v001");
  t.equal(batch.sku?.capacity, 2);
  t.same(poolIds(batch), []);
});

t.test("update: the new capacity and ETag at acceptance, new VMs Creating until completion", async (t) => {
  const before = await vmss.get(RG, WEB);
  const raw = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: { ...AUTH, "if-match": before.etag! },
    body: { sku: { capacity: 5 } },
  });
  t.equal(raw.status, 200);
  const accepted = raw.body as { etag: string; sku: { capacity: number }; properties: { provisioningState: string } };
  t.equal(accepted.properties.provisioningState, "Updating");
  t.equal(accepted.sku.capacity, 5, "the response carries the requested model");
  t.not(accepted.etag, before.etag, "and the new ETag already (update[11])");
  t.equal(raw.headers.etag, accepted.etag);

  const during = await vmss.get(RG, WEB);
  t.equal(during.provisioningState, "Updating", "GET shows Updating while the write is in flight");
  t.equal(during.sku?.capacity, 5, "the requested capacity at once");
  t.equal(during.etag, accepted.etag, "the same ETag as the response (update[12])");
  t.same(
    (await listVms()).map((vm) => [vm.instanceId, vm.provisioningState]),
    [
      ["0", "Succeeded"],
      ["1", "Succeeded"],
      ["2", "Succeeded"],
      ["3", "Creating"],
      ["4", "Creating"],
    ],
    "new VMs are listed Creating",
  );

  const after = await waitFor(
    async () => {
      const now = await vmss.get(RG, WEB);
      return now.provisioningState === "Succeeded" && now;
    },
    { what: `the write on ${WEB} to complete` },
  );
  t.equal(after.etag, accepted.etag, "completion does not change the ETag (update[13])");
  t.same(
    (await listVms()).map((vm) => vm.provisioningState),
    ["Succeeded", "Succeeded", "Succeeded", "Succeeded", "Succeeded"],
  );

  const result = await vmss.update(RG, WEB, { sku: { capacity: 4 } }, fast).pollUntilDone();
  t.equal(result.sku?.capacity, 4, "the SDK poller's result is the updated scale set");
  t.equal(result.provisioningState, "Succeeded");
  t.same(ids(await listVms()), ["0", "1", "2", "3"], "scale-in removed the highest id");
});

t.test("a second write while one is in flight gets 409 ConflictingConcurrentWriteNotAllowed", async (t) => {
  const poller = vmss.update(RG, WEB, { sku: { capacity: 4 } }, fast);
  await poller.submitted();
  const conflict = { name: "RestError", statusCode: 409, code: "ConflictingConcurrentWriteNotAllowed" };
  await t.rejects(vmss.update(RG, WEB, { tags: { a: "b" } }, fast).submitted(), conflict, "PATCH");
  await t.rejects(vmss.deleteInstances(RG, WEB, { instanceIds: ["0"] }, fast).submitted(), conflict, "deleteInstances");
  await t.rejects(vmss.updateInstances(RG, WEB, { instanceIds: ["0"] }, fast).submitted(), conflict, "updateInstances");
  const current = await vmss.get(RG, WEB);
  t.equal(current.provisioningState, "Updating");
  await t.rejects(vmss.createOrUpdate(RG, WEB, current, fast).submitted(), conflict, "PUT");

  const raw = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: AUTH,
    body: { tags: {} },
  });
  t.same(raw.body, {
    error: {
      code: "ConflictingConcurrentWriteNotAllowed",
      message:
        "The operation was interrupted by a conflicting concurrent write on the same entity. Please retry later.",
    },
  });
  // other scale sets are not locked
  const other = await vmss
    .update(RG, "web-prod-v002", { tags: { touched: "yes" } }, { updateIntervalInMs: 20 })
    .pollUntilDone();
  t.same(other.tags, { touched: "yes" });
  await poller.pollUntilDone();
  const done = await vmss.update(RG, WEB, { tags: { a: "b" } }, fast).pollUntilDone();
  t.same(done.tags, { a: "b" }, "writes are accepted again after completion");
});

t.test("If-Match: a stale ETag gets 412 PreconditionFailed, checked before the 409", async (t) => {
  const first = await vmss.get(RG, WEB);
  await vmss.update(RG, WEB, { tags: { step: "1" } }, { ...fast, ifMatch: first.etag }).pollUntilDone();
  const stale = first.etag!;
  await t.rejects(vmss.update(RG, WEB, { tags: { step: "2" } }, { ...fast, ifMatch: stale }).submitted(), {
    name: "RestError",
    statusCode: 412,
    code: "PreconditionFailed",
  });
  const current = (await vmss.get(RG, WEB)).etag!;
  t.not(current, stale);

  const poller = vmss.update(RG, WEB, { tags: { step: "3" } }, { ...fast, ifMatch: "*" });
  await poller.submitted();
  const inFlight = (await vmss.get(RG, WEB)).etag!;
  t.not(inFlight, current, "the write in flight already has its new ETag");
  await t.rejects(
    vmss.update(RG, WEB, { tags: {} }, { ...fast, ifMatch: current }).submitted(),
    { name: "RestError", statusCode: 412 },
    "the ETag from before the write in flight: 412",
  );
  await t.rejects(
    vmss.update(RG, WEB, { tags: {} }, { ...fast, ifMatch: inFlight }).submitted(),
    { name: "RestError", statusCode: 409 },
    "the current ETag while in flight: 409",
  );
  await poller.pollUntilDone();

  await t.rejects(vmss.createOrUpdate(RG, WEB, await vmss.get(RG, WEB), { ...fast, ifNoneMatch: "*" }).submitted(), {
    statusCode: 412,
    code: "PreconditionFailed",
  });
  await t.rejects(
    vmss.update(RG, "nope", { tags: {} }, { ...fast, ifMatch: "*" }).submitted(),
    { name: "RestError", statusCode: 404 },
    "404 before 412",
  );

  const calls = await control.calls();
  const patches = calls.filter((c) => c.method === "PATCH");
  t.equal(patches[0].ifMatch, stale);
  t.equal(patches.at(-1)?.ifMatch, "*");
});

t.test("404 ResourceNotFound / ResourceGroupNotFound / SubscriptionNotFound", async (t) => {
  await t.rejects(vmss.get(RG, "missing"), { name: "RestError", statusCode: 404, code: "ResourceNotFound" });
  const raw = await control.request("GET", `${ARM_VMSS}/missing?api-version=2026-04-01`, { headers: AUTH });
  t.match(
    (raw.body as { error: { message: string } }).error.message,
    /^The Resource 'Microsoft.Compute\/virtualMachineScaleSets\/missing' under resource group 'demo-rg' was not found/,
  );
  await t.rejects(vmss.get("no-such-rg", WEB), { statusCode: 404, code: "ResourceGroupNotFound" });
  const other = computeClient({ ...sim, subscriptionId: "11111111-1111-1111-1111-111111111111" });
  await t.rejects(other.virtualMachineScaleSets.get(RG, WEB), { statusCode: 404, code: "SubscriptionNotFound" });
  await t.rejects(client.virtualMachineScaleSetVMs.get(RG, WEB, "99"), { statusCode: 404, code: "ResourceNotFound" });
});

t.test("401 without a bearer token, 400 without api-version", async (t) => {
  const path = `${ARM_VMSS}/${WEB}?api-version=2026-04-01`;
  const none = await control.request("GET", path);
  t.equal(none.status, 401);
  t.equal((none.body as { error: { code: string } }).error.code, "AuthenticationFailed");
  t.ok(none.headers["x-ms-request-id"]);
  const basic = await control.request("GET", path, { headers: { authorization: "Basic dXNlcjpwYXNz" } });
  t.equal(basic.status, 401);
  const empty = await control.request("GET", path, { headers: { authorization: "Bearer " } });
  t.equal(empty.status, 401);
  const noVersion = await control.request("GET", `${ARM_VMSS}/${WEB}`, { headers: AUTH });
  t.equal(noVersion.status, 400);
  t.same(noVersion.body, {
    error: {
      code: "MissingApiVersionParameter",
      message: "The api-version query parameter (?api-version=) is required for all requests.",
    },
  });
});

t.test("scale-in removes the highest instance ids; new VMs get ids never used before", async (t) => {
  await vmss.update(RG, WEB, { sku: { capacity: 2 } }, fast).pollUntilDone();
  t.same(ids(await listVms()), ["0", "1"]);
  await vmss.update(RG, WEB, { sku: { capacity: 4 } }, fast).pollUntilDone();
  const vms = await listVms();
  t.same(ids(vms), ["0", "1", "3", "4"]);
  t.equal(vms[2].name, `${WEB}_3`);
  t.equal(vms[2].id, `${ARM_VMSS}/${WEB}/virtualMachines/3`);
  t.equal(vms[2].location, "eastus");
  t.equal(vms[2].sku?.name, "Standard_D2s_v3");
  t.equal(vms[2].provisioningState, "Succeeded");
  t.equal(vms[2].latestModelApplied, true);
});

t.test(
  "deleteInstances lowers capacity and changes the ETag at acceptance, marks VMs Deleting, removes them at completion",
  async (t) => {
    const before = await vmss.get(RG, WEB);
    const poller = vmss.deleteInstances(RG, WEB, { instanceIds: ["0", "2"] }, { ...fast, forceDeletion: true });
    await poller.submitted();
    const during = await listVms();
    t.same(
      during.map((vm) => [vm.instanceId, vm.provisioningState]),
      [
        ["0", "Deleting"],
        ["1", "Succeeded"],
        ["2", "Deleting"],
      ],
    );
    const mid = await vmss.get(RG, WEB);
    t.equal(mid.sku?.capacity, 1, "the capacity is lowered at acceptance");
    t.not(mid.etag, before.etag, "and the ETag is new");
    t.equal(mid.provisioningState, "Updating");
    await t.rejects(
      vmss.deleteInstances(RG, WEB, { instanceIds: ["2"] }, fast).submitted(),
      {
        statusCode: 400,
        code: "InvalidParameter",
        message: "The provided instanceId 2 is not an active Virtual Machine Scale Set VM instanceId.",
      },
      "a VM being deleted is not active",
    );
    t.equal(await poller.pollUntilDone(), undefined);
    t.same(ids(await listVms()), ["1"]);
    const after = await vmss.get(RG, WEB);
    t.equal(after.sku?.capacity, 1);
    t.equal(after.etag, mid.etag, "completion keeps the ETag");

    await t.rejects(vmss.deleteInstances(RG, WEB, { instanceIds: ["1", "7"] }, fast).submitted(), {
      statusCode: 400,
      code: "InvalidParameter",
      message: /instanceId 7 is not an active Virtual Machine Scale Set VM instanceId/,
    });
    await t.rejects(vmss.deleteInstances(RG, WEB, { instanceIds: [] }, fast).submitted(), {
      statusCode: 400,
      code: "InvalidParameter",
    });
    await t.rejects(
      vmss.updateInstances(RG, WEB, { instanceIds: ["5", "6"] }, fast).submitted(),
      {
        statusCode: 400,
        message: "The provided instanceId 5 is not an active Virtual Machine Scale Set VM instanceId.",
      },
      "the message names one id",
    );
    t.same(ids(await listVms()), ["1"], "nothing was deleted by the refused requests");
  },
);

t.test("model changes under Manual policy reach VMs only through manualupgrade", async (t) => {
  const current = await vmss.get(RG, WEB);
  const nic = current.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0];
  const withoutPool = {
    ...nic,
    ipConfigurations: nic.ipConfigurations!.map((ip) => ({ ...ip, loadBalancerBackendAddressPools: [] })),
  };
  const poller = vmss.update(
    RG,
    WEB,
    { virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: [withoutPool] } } },
    fast,
  );
  await poller.submitted();
  t.equal(poolIds(await vmss.get(RG, WEB)).length, 0, "the model changes at acceptance");
  const updated = await poller.pollUntilDone();
  t.same(poolIds(updated), [], "the model no longer has the pool");
  t.not(updated.etag, current.etag);
  t.equal(
    updated.virtualMachineProfile?.storageProfile?.imageReference?.publisher,
    "Canonical",
    "PATCH merged: the rest of the profile is kept",
  );

  let vms = await listVms();
  t.same(
    vms.map((vm) => vm.latestModelApplied),
    [false, false, false],
  );
  t.same(
    vms.map((vm) => poolIds(vm).length),
    [1, 1, 1],
    "VMs keep the NIC configuration they had",
  );

  const etagBefore = (await vmss.get(RG, WEB)).etag;
  const upgrade = vmss.updateInstances(RG, WEB, { instanceIds: ["0"] }, fast);
  await upgrade.submitted();
  t.equal((await listVms())[0].latestModelApplied, false, "manualupgrade applies at completion");
  await upgrade.pollUntilDone();
  vms = await listVms();
  t.same(
    vms.map((vm) => vm.latestModelApplied),
    [true, false, false],
  );
  t.same(
    vms.map((vm) => poolIds(vm).length),
    [0, 1, 1],
  );
  t.equal((await vmss.get(RG, WEB)).etag, etagBefore, "manualupgrade does not change the scale set's ETag");

  await vmss.update(RG, WEB, { sku: { capacity: 4 } }, fast).pollUntilDone();
  vms = await listVms();
  t.equal(vms[3].instanceId, "3");
  t.equal(vms[3].latestModelApplied, true, "a new VM gets the current model");
  t.same(poolIds(vms[3]), []);
});

t.test("model changes under Automatic policy reach VMs at completion", async (t) => {
  await control.putScaleSet(RG, "auto-v001", { capacity: 2, upgradePolicy: "Automatic" });
  const current = await vmss.get(RG, "auto-v001");
  t.equal(current.upgradePolicy?.mode, "Automatic");
  const nic = current.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0];
  const withoutPool = {
    ...nic,
    ipConfigurations: nic.ipConfigurations!.map((ip) => ({ ...ip, loadBalancerBackendAddressPools: [] })),
  };
  await vmss
    .update(
      RG,
      "auto-v001",
      { virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: [withoutPool] } } },
      fast,
    )
    .pollUntilDone();
  const vms = await listVms("auto-v001");
  t.same(
    vms.map((vm) => vm.latestModelApplied),
    [true, true],
  );
  t.same(
    vms.map((vm) => poolIds(vm).length),
    [0, 0],
  );
});

t.test(
  'createOrUpdate: 201 create with ETag "1" and VMs Creating until completion (then "2"), PUT on it merges',
  async (t) => {
    const template = await vmss.get(RG, WEB);
    const { id: _id, name: _name, etag: _etag, ...body } = template;
    const profile = {
      ...body.virtualMachineProfile,
      osProfile: { ...body.virtualMachineProfile?.osProfile, adminPassword: "s3cret!" },
    };
    const poller = vmss.createOrUpdate(
      RG,
      "new-v001",
      { ...body, virtualMachineProfile: profile, tags: { fresh: "1" }, sku: { ...body.sku, capacity: 2 } },
      fast,
    );
    await poller.submitted();
    const during = await vmss.get(RG, "new-v001");
    t.equal(during.provisioningState, "Creating");
    t.equal(during.etag, '"1"', 'update[0]: the 201 and the scale set being created carry "1"');
    t.same(
      (await listVms("new-v001")).map((vm) => vm.provisioningState),
      ["Creating", "Creating"],
      "VMs are Creating",
    );
    const created = await poller.pollUntilDone();
    t.equal(created.etag, '"2"', 'update[3]: "2" once Succeeded, with no client write in between');
    t.equal(created.name, "new-v001");
    t.equal(created.provisioningState, "Succeeded");
    t.same(ids(await listVms("new-v001")), ["0", "1"]);
    t.equal(created.virtualMachineProfile?.osProfile?.adminUsername, "azureuser");
    t.notMatch(JSON.stringify(await control.getScaleSet(RG, "new-v001")), /s3cret/, "secrets are never returned");
    const calls = await control.calls();
    t.equal(calls.find((c) => c.method === "PUT")?.status, 201);

    // PUT on an existing scale set has PATCH semantics: tags given replace as a whole, the profile omitted stays
    const replaced = await vmss
      .createOrUpdate(
        RG,
        "new-v001",
        { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 1 }, tags: { other: "x" } },
        fast,
      )
      .pollUntilDone();
    t.same(replaced.tags, { other: "x" });
    t.equal(
      replaced.virtualMachineProfile?.osProfile?.adminUsername,
      "azureuser",
      "the VM profile omitted from the PUT stays",
    );
    t.same(ids(await listVms("new-v001")), ["0"]);
    const put2 = (await control.calls()).filter((c) => c.method === "PUT")[1];
    t.equal(put2.status, 200, "a replacement answers 200");

    await t.rejects(
      vmss.createOrUpdate("missing-rg", "x", { location: "eastus", sku: { capacity: 1 } }, fast).submitted(),
      {
        statusCode: 404,
        code: "ResourceGroupNotFound",
      },
    );
    await t.rejects(vmss.createOrUpdate(RG, "x", { location: "eastus" }, fast).submitted(), {
      statusCode: 400,
      code: "InvalidParameter",
    });
    await t.rejects(vmss.createOrUpdate(RG, WEB, { location: "westus", sku: { capacity: 1 } }, fast).submitted(), {
      statusCode: 409,
      code: "InvalidResourceLocation",
    });
  },
);

t.test("PATCH merges objects and replaces tags and arrays as a whole", async (t) => {
  const updated = await vmss
    .update(RG, WEB, { tags: { only: "this" }, upgradePolicy: { mode: "Automatic" } }, fast)
    .pollUntilDone();
  t.same(updated.tags, { only: "this" });
  t.equal(updated.upgradePolicy?.mode, "Automatic");
  t.equal(updated.sku?.capacity, 3);
  t.equal(updated.sku?.name, "Standard_D2s_v3");
  t.ok(updated.virtualMachineProfile?.osProfile?.computerNamePrefix);

  await control.setConfig({ writeDurationMs: 0 });
  const raw = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: AUTH,
    body: { sku: null, tags: null, properties: { virtualMachineProfile: null } },
  });
  t.equal(raw.status, 200);
  const after = await vmss.get(RG, WEB);
  t.equal(after.sku?.capacity, 3, "null changes nothing");
  t.same(after.tags, { only: "this" });
  t.ok(after.virtualMachineProfile?.networkProfile);
});

t.test("VM list is paged with an absolute nextLink", async (t) => {
  await control.setConfig({ vmPageSize: 2 });
  const vms = await listVms();
  t.same(ids(vms), ["0", "1", "2"], "the SDK follows nextLink");
  let pages = 0;
  for await (const page of client.virtualMachineScaleSetVMs.list(RG, WEB).byPage()) {
    pages++;
    t.ok(page.length <= 2);
  }
  t.equal(pages, 2);
  const raw = await control.request("GET", `${ARM_VMSS}/${WEB}/virtualMachines?api-version=2026-04-01`, {
    headers: AUTH,
  });
  const body = raw.body as {
    value: { instanceId: string; properties: { networkProfileConfiguration: unknown } }[];
    nextLink: string;
  };
  t.equal(body.value.length, 2);
  t.ok(body.value[0].properties.networkProfileConfiguration);
  t.match(
    body.nextLink,
    new RegExp(
      `^${sim.url.replace(/[.]/g, "\\.")}/subscriptions/.*/virtualMachines\\?api-version=2026-04-01&\\$skiptoken=1$`,
    ),
  );
  const second = await control.request("GET", body.nextLink.slice(sim.url.length), { headers: AUTH });
  const secondBody = second.body as { value: { instanceId: string }[]; nextLink?: string };
  t.same(
    secondBody.value.map((v) => v.instanceId),
    ["2"],
  );
  t.equal(secondBody.nextLink, undefined);
});

t.test("Azure limits: tags and capacity are refused with 400 and nothing is applied", async (t) => {
  const before = await vmss.get(RG, WEB);
  const many: Record<string, string> = {};
  for (let i = 0; i < 51; i++) many[`t${i}`] = "v";
  await t.rejects(vmss.update(RG, WEB, { tags: many }, fast).submitted(), {
    statusCode: 400,
    code: "InvalidTags",
    message: /Requested tag count - '51'/,
  });
  await t.rejects(vmss.update(RG, WEB, { tags: { long: "x".repeat(257) } }, fast).submitted(), {
    statusCode: 400,
    code: "InvalidTagValueLength",
    message: /long/,
  });
  await t.rejects(vmss.update(RG, WEB, { tags: { ["n".repeat(513)]: "v" } }, fast).submitted(), {
    statusCode: 400,
    code: "InvalidTagName",
  });
  await t.rejects(vmss.update(RG, WEB, { tags: { "a/b": "v" } }, fast).submitted(), {
    statusCode: 400,
    code: "InvalidTagNameCharacters",
    message: /'a\/b'/,
  });
  await t.rejects(vmss.update(RG, WEB, { sku: { capacity: 1001 } }, fast).submitted(), {
    statusCode: 400,
    code: "InvalidParameter",
    message: /sku\.capacity/,
  });
  await t.rejects(vmss.update(RG, WEB, { sku: { capacity: -1 } }, fast).submitted(), {
    statusCode: 400,
    code: "InvalidParameter",
  });
  const raw = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: AUTH,
    body: { sku: { capacity: 2.5 } },
  });
  t.equal(raw.status, 400);
  t.equal((raw.body as { error: { target: string } }).error.target, "sku.capacity");

  // the limits themselves are allowed
  const fifty: Record<string, string> = {};
  for (let i = 0; i < 50; i++) fifty[`t${i}`] = "v".repeat(256);
  await control.setConfig({ writeDurationMs: 0 });
  const ok = await vmss.update(RG, WEB, { tags: fifty, sku: { capacity: 0 } }, fast).pollUntilDone();
  t.equal(Object.keys(ok.tags ?? {}).length, 50);
  t.equal(ok.sku?.capacity, 0);
  const after = await vmss.get(RG, WEB);
  t.equal(
    Number(JSON.parse(after.etag!)),
    Number(JSON.parse(before.etag!)) + 1,
    "only the valid write changed the ETag",
  );
});

t.test("long-running operation headers and status endpoints", async (t) => {
  const patch = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: AUTH,
    body: { sku: { capacity: 4 } },
  });
  t.equal(patch.status, 200);
  const patchBody = patch.body as {
    properties: { provisioningState: string };
    sku: { capacity: number };
    etag: string;
  };
  t.equal(patchBody.properties.provisioningState, "Updating");
  t.equal(patchBody.sku.capacity, 4, "the first response shows the model as requested");
  t.equal(patchBody.etag, '"2"', "…with the new ETag already");
  const asyncUrl = String(patch.headers["azure-asyncoperation"]);
  t.match(
    asyncUrl,
    new RegExp(
      `^${sim.url.replace(/[.]/g, "\\.")}/subscriptions/${SUB}/providers/Microsoft.Compute/locations/eastus/operations/[0-9a-f-]{36}\\?api-version=2026-04-01$`,
    ),
  );
  t.equal(patch.headers.location, undefined, "PUT/PATCH carry no Location header");
  t.equal(patch.headers["retry-after"], "1", "Azure's 10 s scaled by 0.001, and at least one whole second");
  t.equal(patch.headers["retry-after-ms"], undefined, "never retry-after-ms");

  const status = await control.request("GET", asyncUrl.slice(sim.url.length), { headers: AUTH });
  const statusBody = status.body as { name: string; status: string; startTime: string };
  t.equal(statusBody.status, "InProgress");
  t.ok(asyncUrl.includes(statusBody.name));
  t.ok(Date.parse(statusBody.startTime) > 0);
  t.equal(status.headers["retry-after"], "1", "Azure's 30 s scaled by 0.001, and at least one whole second");
  t.equal(status.headers["retry-after-ms"], undefined);

  const doneStatus = await waitFor(
    async () => {
      const res = await control.request("GET", asyncUrl.slice(sim.url.length), { headers: AUTH });
      return (res.body as { status: string }).status !== "InProgress" && res;
    },
    { what: "the PATCH's operation status to end" },
  );
  t.equal((doneStatus.body as { status: string }).status, "Succeeded");
  t.ok((doneStatus.body as { endTime?: string }).endTime);
  t.equal(doneStatus.headers["retry-after"], undefined);

  const post = await control.request("POST", `${ARM_VMSS}/${WEB}/delete?api-version=2026-04-01`, {
    headers: AUTH,
    body: { instanceIds: ["0"] },
  });
  t.equal(post.status, 202);
  t.equal(post.body, undefined);
  const location = String(post.headers.location);
  t.equal(
    location,
    `${String(post.headers["azure-asyncoperation"])}&monitor=true`,
    "Location is the status URL plus &monitor=true",
  );
  t.ok(post.headers["azure-asyncoperation"]);
  t.equal(post.headers["retry-after"], undefined, "py[48]: no Retry-After on deleteInstances");
  const pending = await control.request("GET", location.slice(sim.url.length), { headers: AUTH });
  t.equal(pending.status, 202);
  t.equal(pending.headers["retry-after"], undefined, "py[49]: nor on its polls");
  const finished = await waitFor(
    async () => {
      const res = await control.request("GET", location.slice(sim.url.length), { headers: AUTH });
      return res.status !== 202 && res;
    },
    { what: "the deleteInstances location to stop answering 202" },
  );
  t.equal(finished.status, 200);
  t.equal(finished.body, undefined);
});

t.test("writeDurationMs 0 applies the write before the first response", async (t) => {
  await control.setConfig({ writeDurationMs: 0 });
  const poller = vmss.update(RG, WEB, { sku: { capacity: 1 } }, fast);
  await poller.submitted();
  const now = await vmss.get(RG, WEB);
  t.equal(now.sku?.capacity, 1);
  t.equal(now.provisioningState, "Succeeded");
  const started = Date.now();
  const result = await poller.pollUntilDone();
  t.ok(Date.now() - started < 500, "no poll wait");
  t.equal(result.etag, now.etag);
});

t.test("bad bodies: invalid JSON 400 InvalidRequestContent, over 1 MiB 413", async (t) => {
  const invalid = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: { ...AUTH, "content-type": "application/json" },
    rawBody: "{not json",
  });
  t.equal(invalid.status, 400);
  t.equal((invalid.body as { error: { code: string } }).error.code, "InvalidRequestContent");
  const big = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
    headers: { ...AUTH, "content-type": "application/json" },
    rawBody: JSON.stringify({ tags: { a: "x".repeat(1024 * 1024) } }),
  });
  t.equal(big.status, 413);
  t.equal((await vmss.get(RG, WEB)).etag, '"1"', "nothing applied");
  const unknownPath = await control.request(
    "GET",
    `/subscriptions/${SUB}/resourceGroups/${RG}/providers/Microsoft.Compute/disks?api-version=2026-04-01`,
    { headers: AUTH },
  );
  t.equal(unknownPath.status, 501, "not simulated: never a 404, which would say the resource is not there");
  const wrongMethod = await control.request("DELETE", `${ARM_VMSS}/${WEB}/delete?api-version=2026-04-01`, {
    headers: AUTH,
  });
  t.equal(wrongMethod.status, 405);
});

t.test(
  "DELETE of a scale set: 202 with Azure-AsyncOperation and Location, Deleting while it runs, then gone",
  async (t) => {
    const raw = await control.request("DELETE", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, { headers: AUTH });
    t.equal(raw.status, 202);
    t.equal(raw.body, undefined, "no body");
    t.match(
      String(raw.headers["azure-asyncoperation"]),
      /\/providers\/Microsoft\.Compute\/locations\/eastus\/operations\/[0-9a-f-]{36}\?api-version=/,
    );
    t.equal(String(raw.headers.location), `${String(raw.headers["azure-asyncoperation"])}&monitor=true`);
    const during = await vmss.get(RG, WEB);
    t.equal(during.provisioningState, "Deleting");
    t.same(
      (await listVms()).map((vm) => vm.provisioningState),
      ["Deleting", "Deleting", "Deleting"],
    );
    const again = await control.request("PATCH", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, {
      headers: AUTH,
      body: { tags: { a: "b" } },
    });
    t.equal(again.status, 409, "a write during the delete conflicts");
    const gone = await waitFor(
      async () => {
        const res = await control.request("GET", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, { headers: AUTH });
        return res.status !== 200 && res;
      },
      { what: `the DELETE of ${WEB} to end` },
    );
    t.equal(gone.status, 404);
    t.equal((gone.body as { error: { code: string } }).error.code, "ResourceNotFound");
  },
);

t.test(
  "DELETE through the SDK: the poller resolves once the scale set is gone; deleting it again is 204",
  async (t) => {
    const poller = vmss.delete(RG, "batch-v001", fast);
    await poller.submitted();
    await poller.pollUntilDone();
    await t.rejects(vmss.get(RG, "batch-v001"), { name: "RestError", statusCode: 404, code: "ResourceNotFound" });
    const twice = await control.request("DELETE", `${ARM_VMSS}/batch-v001?api-version=2026-04-01`, { headers: AUTH });
    t.equal(twice.status, 204);
  },
);
