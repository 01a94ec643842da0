// The simulator's control API: faults, call log, reset, out-of-band changes, validation, close().
import t from "tap";
import { Agent, request } from "undici";
import { computeClient } from "./helpers/compute-client.ts";
import { SimulatorControl, startSimulator } from "vmss-simulator";

const WRITE_MS = 150;
const sim = await startSimulator({ seed: true, writeDurationMs: WRITE_MS, timeScale: 0.001, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const client = computeClient(sim);
const vmss = client.virtualMachineScaleSets;
const fast = { updateIntervalInMs: 20 };
const RG = "demo-rg";
const WEB = "web-prod-v001";
const ARM_VMSS = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test-token" };

t.beforeEach(async () => {
  await control.reset();
  await control.setConfig({ writeDurationMs: WRITE_MS, timeScale: 0.001, vmPageSize: 50 });
});

t.test("health and config", async (t) => {
  t.same(await control.health(), { status: "ok" });
  const settings = {
    timeScale: 0.001,
    writeDurationMs: WRITE_MS,
    writeDurationsMs: {},
    vmPageSize: 50,
    listPageSize: 100,
    concurrentWrites: "conflict",
    conflictWindowSeconds: 10,
    healthProbeSeconds: 30,
  };
  t.same(await control.getConfig(), { ...settings, throttling: { enabled: false, scale: 1, policies: {} } });
  t.same(await control.setConfig({ vmPageSize: 7 }), {
    ...settings,
    vmPageSize: 7,
    throttling: { enabled: false, scale: 1, policies: {} },
  });
  for (const bad of [
    { writeDurationMs: -1 },
    { pollHintMs: 50 },
    { timeScale: 0 },
    { timeScale: "1" },
    { writeDurationsMs: { resize: 5 } },
    { writeDurationsMs: { update: -5 } },
    { concurrentWrites: "queue" },
    { conflictWindowSeconds: -1 },
    { healthProbeSeconds: "30" },
    { vmPageSize: 0 },
    { vmPageSize: 1.5 },
    { vmPageSize: "3" },
    { listPageSize: 0 },
    { other: 1 },
  ]) {
    const res = await control.request("PUT", "/_sim/config", { body: bad });
    t.equal(res.status, 400, `config ${JSON.stringify(bad)} refused`);
    t.match((res.body as { error: { message: string } }).error.message, /\S/);
  }
  t.equal((await control.getConfig()).vmPageSize, 7, "refused changes change nothing");
  const notFound = await control.request("GET", "/_sim/nothing");
  t.equal(notFound.status, 404);
});

t.test("respond fault: the next `count` matching requests get the error, with Retry-After", async (t) => {
  const fault = await control.addFault({
    method: "get",
    pathContains: "/WEB-PROD-V001",
    status: 503,
    code: "ServerBusy",
    count: 2,
    retryAfterSeconds: 7,
  });
  t.equal(fault.method, "GET");
  t.equal(fault.count, 2);
  // a request that does not match leaves the fault alone
  await vmss.get(RG, "web-prod-v002");
  t.equal((await control.faults())[0].count, 2);

  const raw = await control.request("GET", `${ARM_VMSS}/${WEB}?api-version=2026-04-01`, { headers: AUTH });
  t.equal(raw.status, 503);
  t.equal(raw.headers["retry-after"], "7");
  t.equal((raw.body as { error: { code: string } }).error.code, "ServerBusy");
  t.equal((await control.faults())[0].count, 1);
  await t.rejects(vmss.get(RG, WEB), { name: "RestError", statusCode: 503, code: "ServerBusy" });
  t.same(await control.faults(), [], "the fault is used up");
  t.equal((await vmss.get(RG, WEB)).name, WEB, "the third request is served");

  const calls = await control.calls();
  t.same(
    calls.filter((c) => c.path.endsWith(WEB)).map((c) => [c.status, c.fault ?? null]),
    [
      [503, "respond"],
      [503, "respond"],
      [200, null],
    ],
  );

  await control.addFault({ method: "*", pathContains: "", status: 429, code: "TooManyRequests", count: 1 });
  await t.rejects(vmss.get(RG, "batch-v001"), { name: "RestError", statusCode: 429, code: "TooManyRequests" });
  await control.addFault({ method: "PATCH", pathContains: WEB, status: 500, code: "InternalServerError", count: 5 });
  await control.clearFaults();
  t.same(await control.faults(), []);
});

t.test(
  "failOperation fault: the write is accepted and applied, its operation fails, nothing is rolled back",
  async (t) => {
    const before = await vmss.get(RG, WEB);
    await control.addFault({
      action: "failOperation",
      method: "PATCH",
      pathContains: WEB,
      code: "InternalExecutionError",
      message: "Something broke.",
      count: 1,
    });
    const poller = vmss.update(RG, WEB, { sku: { capacity: 5 } }, fast);
    await poller.submitted();
    const during = await vmss.get(RG, WEB);
    t.equal(during.provisioningState, "Updating", "accepted normally");
    await t.rejects(poller.pollUntilDone(), {
      message: "The long-running operation has failed. InternalExecutionError. Something broke.",
    });
    const after = await vmss.get(RG, WEB);
    t.equal(after.sku?.capacity, 5, "the requested capacity stays in the model");
    t.equal(after.etag, during.etag, "the ETag is the one the write got at acceptance");
    t.not(after.etag, before.etag);
    t.equal(after.provisioningState, "Failed", "the scale set is Failed");
    const vms: [string, string][] = [];
    for await (const vm of client.virtualMachineScaleSetVMs.list(RG, WEB))
      vms.push([vm.instanceId!, vm.provisioningState!]);
    t.same(
      vms,
      [
        ["0", "Succeeded"],
        ["1", "Succeeded"],
        ["2", "Succeeded"],
        ["3", "Failed"],
        ["4", "Failed"],
      ],
      "the VMs it was creating are Failed",
    );
    t.equal((await control.calls()).find((c) => c.method === "PATCH")?.fault, "failOperation");
    t.equal((await vmss.get(RG, WEB)).provisioningState, "Failed", "Failed persists");

    // deleteInstances: the VM that could not be deleted stays, Failed
    await control.addFault({
      action: "failOperation",
      method: "POST",
      pathContains: "/delete",
      code: "InternalExecutionError",
      count: 1,
      status: 500,
    });
    const del = vmss.deleteInstances(RG, WEB, { instanceIds: ["1"] }, fast);
    await del.submitted();
    const marked = await client.virtualMachineScaleSetVMs.get(RG, WEB, "1");
    t.equal(marked.provisioningState, "Deleting");
    await t.rejects(del.pollUntilDone(), {
      message: /^The long-running operation has failed\. InternalExecutionError\./,
    });
    const stuck = await client.virtualMachineScaleSetVMs.get(RG, WEB, "1");
    t.equal(stuck.provisioningState, "Failed");
    t.equal((await vmss.get(RG, WEB)).sku?.capacity, 4, "the capacity was lowered at acceptance and stays lowered");
    // deleting the left-over VM again does not lower the capacity a second time
    await control.addFault({
      action: "failOperation",
      method: "POST",
      pathContains: "/delete",
      code: "InternalExecutionError",
      count: 1,
    });
    const again = vmss.deleteInstances(RG, WEB, { instanceIds: ["1"] }, fast);
    await again.submitted();
    await t.rejects(again.pollUntilDone(), { message: /InternalExecutionError/ });
    t.equal((await vmss.get(RG, WEB)).sku?.capacity, 4, "still 4: VM 1 was already out of the capacity");

    // a later write that succeeds: Succeeded again, failed VMs allocated again
    const healed = await vmss.update(RG, WEB, { sku: { capacity: 5 } }, fast).pollUntilDone();
    t.equal(healed.provisioningState, "Succeeded");
    const states: string[] = [];
    for await (const vm of client.virtualMachineScaleSetVMs.list(RG, WEB)) states.push(vm.provisioningState!);
    t.same(states, ["Succeeded", "Succeeded", "Succeeded", "Succeeded", "Succeeded"]);

    // a failed create leaves a Failed scale set behind (Azure keeps the resource)
    await control.addFault({
      action: "failOperation",
      method: "PUT",
      pathContains: "ghost",
      code: "QuotaExceeded",
      count: 1,
    });
    const create = vmss.createOrUpdate(
      RG,
      "ghost",
      { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 1 } },
      fast,
    );
    await create.submitted();
    t.equal((await vmss.get(RG, "ghost")).provisioningState, "Creating");
    await t.rejects(create.pollUntilDone(), { message: /QuotaExceeded/ });
    const ghost = await vmss.get(RG, "ghost");
    t.equal(ghost.provisioningState, "Failed");
    t.equal(ghost.sku?.capacity, 1);
  },
);

t.test("dropConnection fault: the socket is destroyed, the SDK sees a network error", async (t) => {
  await control.addFault({ action: "dropConnection", method: "GET", pathContains: WEB, count: 1 });
  const err = await vmss.get(RG, WEB).then(
    () => undefined,
    (e: unknown) => e as { name?: string; statusCode?: number; code?: string },
  );
  t.ok(err, "the request failed");
  t.equal(err?.statusCode, undefined, "no HTTP status");
  t.match(err?.code, /ECONNRESET|ECONNREFUSED|EPIPE|UND_ERR_SOCKET|REQUEST_SEND_ERROR/);
  t.equal((await vmss.get(RG, WEB)).name, WEB, "the next request is served");
  const calls = await control.calls();
  t.same(calls[0], { ...calls[0], method: "GET", status: null, fault: "dropConnection" });
});

t.test("outOfBandChange fault: another writer changes the scale set just before the request", async (t) => {
  const read = await vmss.get(RG, WEB);
  await control.addFault({
    action: "outOfBandChange",
    method: "PATCH",
    pathContains: "web-prod-v001",
    change: { tags: { owner: "portal-user" }, capacity: 4 },
  });
  // a GET does not match the method: the fault stays
  t.equal((await vmss.get(RG, WEB)).etag, read.etag);
  await t.rejects(vmss.update(RG, WEB, { sku: { capacity: 6 } }, { ...fast, ifMatch: read.etag }).submitted(), {
    name: "RestError",
    statusCode: 412,
    code: "PreconditionFailed",
  });
  t.same(await control.faults(), [], "used up");
  const now = await vmss.get(RG, WEB);
  t.not(now.etag, read.etag);
  t.equal(now.sku?.capacity, 4, "the other writer's capacity, VMs at once");
  t.equal((await control.getScaleSet(RG, WEB)).vms.length, 4);
  t.same(now.tags, { app: "web", env: "prod", version: "v001", owner: "portal-user" }, "its tag merged in");
  const patch = (await control.calls()).find((c) => c.method === "PATCH");
  t.same([patch?.status, patch?.fault], [412, "outOfBandChange"]);

  // without If-Match the write goes through on top of the other writer's change
  await control.addFault({
    action: "outOfBandChange",
    method: "PATCH",
    pathContains: "web-prod-v002",
    change: { tags: { owner: "x" } },
  });
  const merged = await vmss.update(RG, "web-prod-v002", { sku: { capacity: 1 } }, fast).pollUntilDone();
  t.equal(merged.sku?.capacity, 1);
  t.equal(merged.tags?.owner, "x");

  for (const bad of [{}, { capacity: 1001 }, { tags: { "a/b": "v" } }, { colour: "red" }]) {
    const res = await control.request("POST", "/_sim/faults", {
      body: { action: "outOfBandChange", method: "PATCH", pathContains: "x", change: bad },
    });
    t.equal(res.status, 400, `change ${JSON.stringify(bad)} refused`);
  }
  const noChange = await control.request("POST", "/_sim/faults", {
    body: { action: "outOfBandChange", method: "PATCH", pathContains: "x" },
  });
  t.equal(noChange.status, 400);
  const misplaced = await control.request("POST", "/_sim/faults", {
    body: { method: "PATCH", pathContains: "x", status: 500, code: "X", change: { capacity: 1 } },
  });
  t.equal(misplaced.status, 400);
});

t.test(
  "call log: ARM requests only, oldest first, with method, path, status, ifMatch, time and User-Agent",
  async (t) => {
    await control.clearCalls();
    const start = Date.now();
    const got = await vmss.get(RG, WEB);
    await control.setConfig({ writeDurationMs: 0 });
    await vmss.update(RG, WEB, { tags: { a: "1" } }, { ...fast, ifMatch: got.etag }).pollUntilDone();
    await control.request("GET", "/_sim/health");
    const calls = await control.calls();
    t.same(
      calls.map((c) => [c.method, c.status]),
      [
        ["GET", 200],
        ["PATCH", 200],
        ["GET", 200], // operation status
        ["GET", 200], // final GET of the scale set
      ],
    );
    t.same(Object.keys(calls[0]).sort(), ["answeredAt", "ifMatch", "method", "path", "status", "time", "userAgent"]);
    t.match(calls[0].userAgent, /azsdk-js/, "who called: the client's User-Agent");
    t.equal(calls[0].path, `${ARM_VMSS}/${WEB}`, "pathname, no query");
    t.equal(calls[0].ifMatch, null);
    t.equal(calls[1].ifMatch, '"1"');
    t.match(calls[2].path, /\/providers\/Microsoft\.Compute\/locations\/eastus\/operations\/[0-9a-f-]{36}$/);
    t.ok(calls.every((c, i) => c.time >= start && (i === 0 || c.time >= calls[i - 1].time)));
    t.ok(
      calls.every((c) => c.answeredAt! >= c.time),
      "each answered no earlier than it arrived",
    );
    await control.clearCalls();
    t.same(await control.calls(), []);
  },
);

t.test(
  "a write's call names its long-running operation; GET /_sim/operations gives Azure's times for it",
  async (t) => {
    await control.clearCalls();
    const got = await vmss.get(RG, WEB);
    await vmss.update(RG, WEB, { sku: { capacity: 5 } }, { ...fast, ifMatch: got.etag }).pollUntilDone();
    const calls = await control.calls();
    const patch = calls.find((c) => c.method === "PATCH")!;
    t.match(patch.operationId, /^[0-9a-f-]{36}$/, "the PATCH names its operation");
    t.equal(calls.filter((c) => c.operationId !== undefined).length, 1, "only the write does");
    const op = (await control.operations()).find((o) => o.id === patch.operationId)!;
    t.match(op, { kind: "update", scaleSet: `${RG}/${WEB}`.toLowerCase(), status: "Succeeded", vmsStarted: 2 });
    t.ok(op.startedAt >= patch.time && op.startedAt <= patch.answeredAt!, "accepted while the PATCH was answered");
    t.equal(op.endTime! - op.startedAt, WRITE_MS, "it lasted the write duration, on Azure's clock");
  },
);

t.test("reset restores the seed and clears faults, calls and in-flight operations", async (t) => {
  await control.patchScaleSet(RG, WEB, { capacity: 5 });
  await control.putScaleSet("other-rg", "extra", { capacity: 1 });
  await control.addFault({ method: "GET", pathContains: "x", status: 500, code: "X" });
  const poller = vmss.update(RG, "batch-v001", { sku: { capacity: 9 } }, fast);
  await poller.submitted();
  await control.reset();
  t.same(await control.faults(), []);
  t.same(await control.calls(), []);
  const web = await control.getScaleSet(RG, WEB);
  t.equal(web.etag, '"1"');
  t.equal(web.vms.length, 3);
  const batch = await control.getScaleSet(RG, "batch-v001");
  t.equal(batch.inFlight, null);
  t.equal(batch.vms.length, 2);
  // A write sent after the reset ends after the cancelled one would have: once it has, that one never applied.
  await vmss.update(RG, "batch-v001", { tags: { after: "reset" } }, fast).pollUntilDone();
  t.equal((await control.getScaleSet(RG, "batch-v001")).vms.length, 2, "the cancelled operation never applies");
  t.equal((await control.request("GET", "/_sim/scaleSets/other-rg/extra")).status, 404);
  await t.rejects(poller.pollUntilDone(), { name: "RestError", statusCode: 404 }, "its status is gone");
});

t.test("control scale sets: create with pools, out-of-band PATCH, snapshot with inFlight", async (t) => {
  const created = await control.request("PUT", "/_sim/scaleSets/lab-rg/gw-v001", {
    body: {
      capacity: 2,
      applicationGateway: true,
      upgradePolicy: "Rolling",
      location: "West Europe",
      tags: { team: "x" },
    },
  });
  t.equal(created.status, 201);
  const body = created.body as {
    location: string;
    tags: unknown;
    properties: { upgradePolicy: { mode: string } };
    etag: string;
  };
  t.equal(body.location, "westeurope");
  t.same(body.tags, { team: "x" });
  t.equal(body.properties.upgradePolicy.mode, "Rolling");
  const vm = await client.virtualMachineScaleSetVMs.get("lab-rg", "gw-v001", "1");
  const ip = vm.networkProfileConfiguration!.networkInterfaceConfigurations![0].ipConfigurations![0];
  t.match(
    ip.applicationGatewayBackendAddressPools?.[0].id,
    /\/applicationGateways\/gw-v001-appgw\/backendAddressPools\/gw-v001-appgw-pool$/,
  );
  t.match(
    ip.loadBalancerBackendAddressPools?.[0].id,
    /\/loadBalancers\/gw-v001-lb\/backendAddressPools\/gw-v001-pool$/,
  );
  const noLb = await control.putScaleSet("lab-rg", "plain", { capacity: 1, loadBalanced: false });
  t.notMatch(JSON.stringify(noLb), /loadBalancerBackendAddressPools/);

  const replaced = await control.request("PUT", "/_sim/scaleSets/lab-rg/gw-v001", { body: { capacity: 1 } });
  t.equal(replaced.status, 200);
  t.equal((replaced.body as { etag: string }).etag, '"2"', "a replacement keeps counting ETags");

  const before = await vmss.get(RG, WEB);
  const patched = await control.patchScaleSet(RG, WEB, { capacity: 5, tags: { oob: "1" } });
  t.equal(patched.etag, '"2"');
  const after = await vmss.get(RG, WEB);
  t.not(after.etag, before.etag);
  t.equal(after.sku?.capacity, 5);
  t.same(after.tags, { app: "web", env: "prod", version: "v001", oob: "1" }, "tags merge");
  const removed = await control.patchScaleSet(RG, WEB, { tags: { env: null } });
  t.same(removed.tags, { app: "web", version: "v001", oob: "1" }, "null removes a tag");
  t.equal(removed.etag, '"3"');
  t.equal((await control.getScaleSet(RG, WEB)).vms.length, 5, "VMs created at once");
  await t.rejects(vmss.update(RG, WEB, { tags: {} }, { ...fast, ifMatch: before.etag }).submitted(), {
    name: "RestError",
    statusCode: 412,
  });

  const tooMany: Record<string, string> = {};
  for (let i = 0; i < 48; i++) tooMany[`k${i}`] = "v";
  const refused = await control.request("PATCH", `/_sim/scaleSets/${RG}/${WEB}`, { body: { tags: tooMany } });
  t.equal(refused.status, 400, "the merged tags are held to Azure's limits");
  t.equal((refused.body as { error: { code: string } }).error.code, "InvalidTags");

  const poller = vmss.update(RG, WEB, { sku: { capacity: 2 } }, fast);
  await poller.submitted();
  const snap = await control.getScaleSet(RG, WEB);
  t.equal(snap.inFlight?.kind, "update");
  t.equal(snap.inFlight!.completesAt - snap.inFlight!.startedAt, WRITE_MS);
  t.equal((snap.vmss.properties as { provisioningState: string }).provisioningState, "Updating");
  const busy = await control.request("PATCH", `/_sim/scaleSets/${RG}/${WEB}`, { body: { capacity: 1 } });
  t.equal(busy.status, 409);
  t.equal((busy.body as { error: { code: string } }).error.code, "ConflictingConcurrentWriteNotAllowed");
  await poller.pollUntilDone();
  t.equal((await control.getScaleSet(RG, WEB)).inFlight, null);

  const list = (await control.request("GET", "/_sim/scaleSets")).body as { name: string }[];
  t.same(list.map((s) => s.name).sort(), ["batch-v001", "gw-v001", "plain", "web-prod-v001", "web-prod-v002"]);

  // a resource group made through the control API takes ARM creates
  await control.putResourceGroup("empty-rg");
  await control.setConfig({ writeDurationMs: 0 });
  const made = await vmss
    .createOrUpdate("empty-rg", "arm-made", { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 2 } }, fast)
    .pollUntilDone();
  t.equal(made.sku?.capacity, 2);
  await control.deleteScaleSet("empty-rg", "arm-made");
  await t.rejects(vmss.get("empty-rg", "arm-made"), { name: "RestError", statusCode: 404, code: "ResourceNotFound" });
});

t.test("control API validation", async (t) => {
  const cases: [string, string, unknown, number][] = [
    ["POST", "/_sim/faults", { pathContains: "x", status: 500, code: "X" }, 400], // no method
    ["POST", "/_sim/faults", { method: "GET", pathContains: "x", code: "X" }, 400], // respond without status
    ["POST", "/_sim/faults", { method: "GET", pathContains: "x", status: 200, code: "X" }, 400],
    ["POST", "/_sim/faults", { method: "GET", pathContains: "x", status: 500 }, 400], // no code
    ["POST", "/_sim/faults", { method: "GET", pathContains: "x", status: 500, code: "X", count: 0 }, 400],
    ["POST", "/_sim/faults", { method: "GET", pathContains: "x", status: 500, code: "X", action: "explode" }, 400],
    ["POST", "/_sim/faults", { method: "GET", pathContain: "x", status: 500, code: "X" }, 400], // typo
    ["POST", "/_sim/faults", { action: "failOperation", method: "PUT", pathContains: "x" }, 400], // no code
    ["POST", "/_sim/faults", { method: "GET", pathContains: "x", status: 500, code: "X", retryAfterSeconds: -1 }, 400],
    ["POST", "/_sim/faults", [1, 2], 400],
    ["PUT", "/_sim/scaleSets/rg/x", {}, 400], // capacity required
    ["PUT", "/_sim/scaleSets/rg/x", { capacity: 1001 }, 400],
    ["PUT", "/_sim/scaleSets/rg/x", { capacity: 1, upgradePolicy: "Sometimes" }, 400],
    ["PUT", "/_sim/scaleSets/rg/x", { capacity: 1, loadBalanced: "yes" }, 400],
    ["PUT", "/_sim/scaleSets/rg/x", { capacity: 1, tags: { "a?b": "v" } }, 400],
    ["PUT", "/_sim/scaleSets/rg/x", { capacity: 1, colour: "red" }, 400],
    ["PATCH", `/_sim/scaleSets/${RG}/${WEB}`, {}, 400],
    ["PATCH", `/_sim/scaleSets/${RG}/${WEB}`, { capacity: -1 }, 400],
    ["PATCH", `/_sim/scaleSets/${RG}/missing`, { capacity: 1 }, 404],
    ["GET", `/_sim/scaleSets/${RG}/missing`, undefined, 404],
  ];
  for (const [method, path, body, status] of cases) {
    const res = await control.request(method, path, body === undefined ? {} : { body });
    t.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)} → ${status}`);
    t.type((res.body as { error?: { message?: unknown } }).error?.message, "string");
  }
  const invalidJson = await control.request("POST", "/_sim/faults", {
    rawBody: "{",
    headers: { "content-type": "application/json" },
  });
  t.equal(invalidJson.status, 400);
  t.same(await control.faults(), [], "no fault was added");
  const tags = await control.request("PUT", "/_sim/scaleSets/rg/x", { body: { capacity: 1, tags: { "a?b": "v" } } });
  t.equal(
    (tags.body as { error: { code: string } }).error.code,
    "InvalidTagNameCharacters",
    "Azure's limits, Azure's codes",
  );
  t.equal((await control.request("GET", "/_sim/scaleSets/rg/x")).status, 404, "nothing was created");
});

t.test("close() ends promptly with keep-alive connections open and an operation in flight", async (t) => {
  const other = await startSimulator({ seed: true, writeDurationMs: 60_000 });
  const agent = new Agent({ connect: { ca: other.caPem }, keepAliveTimeout: 60_000 });
  const res = await request(
    `${other.url}${ARM_VMSS.replace(sim.subscriptionId, other.subscriptionId)}/${WEB}?api-version=2026-04-01`,
    {
      method: "PATCH",
      headers: { ...AUTH, "content-type": "application/json" },
      body: JSON.stringify({ sku: { capacity: 4 } }),
      dispatcher: agent,
    },
  );
  t.equal(res.statusCode, 200);
  await res.body.text();
  const started = Date.now();
  await other.close();
  t.ok(Date.now() - started < 1000, `closed in ${Date.now() - started} ms`);
  await other.close(); // idempotent
  await agent.close();
});
