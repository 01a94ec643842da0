// `vmss-sim --state DIR`: what the simulator holds survives a restart, as Azurite's storage does. vmss-sim runs as a
// child process; it is stopped by SIGTERM (a clean stop) and by SIGKILL (a crash, with a write in flight), started
// again on the same directory, and every resource is read back through ARM with the same ETag and provisioning state.
// A long-running operation accepted before a crash goes on after it and ends when it was due (docs/simulator.md).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import t, { type Test } from "tap";
import { SimulatorControl, SIMULATOR_SUBSCRIPTION_ID, startSimulator } from "vmss-simulator";
import { computeClient } from "./helpers/compute-client.ts";
import { HAND_CLOCK_START } from "./helpers/hand-clock-simulator.ts";
import type { Json } from "./helpers/json.ts";
import { monitorClient } from "./helpers/monitor-client.ts";
import { startSimProcess, type SimProcess } from "./helpers/vmss-sim-process.ts";
import { waitFor } from "./helpers/wait-for.ts";

const CA_PEM = readFileSync(new URL(import.meta.resolve("vmss-simulator/ca-cert.pem")), "utf8");
const SUB = `/subscriptions/${SIMULATOR_SUBSCRIPTION_ID}`;
const RG = `${SUB}/resourceGroups/demo-rg`;
const VMSS = `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer state-dir-test" };

/** The resources the test makes, each at its ARM path and api-version, with the body it is created with. */
const RESOURCES: { path: string; apiVersion: string; body: Json }[] = [
  {
    path: `${RG}/providers/Microsoft.Network/networkSecurityGroups/state-nsg`,
    apiVersion: "2023-09-01",
    body: { location: "eastus", properties: { securityRules: [] } },
  },
  {
    path: `${RG}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/state-identity`,
    apiVersion: "2023-01-31",
    body: { location: "eastus", tags: { kept: "yes" } },
  },
  {
    path: `${RG}/providers/Microsoft.Authorization/locks/state-lock`,
    apiVersion: "2020-05-01",
    body: { properties: { level: "CanNotDelete", notes: "kept across restarts" } },
  },
  {
    path: `${RG}/providers/Microsoft.Compute/proximityPlacementGroups/state-ppg`,
    apiVersion: "2024-03-01",
    body: { location: "eastus" },
  },
  {
    path: `${RG}/providers/Microsoft.Compute/images/state-image`,
    apiVersion: "2024-11-01",
    body: {
      location: "eastus",
      properties: { storageProfile: { osDisk: { osType: "Linux", osState: "Generalized" } } },
    },
  },
];

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), "vmss-sim-state-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function started(t: Test, args: string[], env: Record<string, string> = {}) {
  const sim = await startSimProcess(args, env);
  t.teardown(() => sim.stop("SIGKILL"));
  const control = new SimulatorControl({ url: sim.url, caPem: CA_PEM });
  t.teardown(() => control.close());
  const arm = async (method: string, path: string, apiVersion: string, body?: Json) =>
    control.request(method, `${path}?api-version=${apiVersion}`, { headers: AUTH, ...(body ? { body } : {}) });
  return { sim, control, arm };
}

/** What a resource reads as: its whole ARM body (ETag and provisioning state included). */
async function readAll(arm: Awaited<ReturnType<typeof started>>["arm"]): Promise<Json[]> {
  const bodies: Json[] = [];
  for (const r of RESOURCES) bodies.push((await arm("GET", r.path, r.apiVersion)).body);
  for (const name of ["web-prod-v002", "batch-v001"]) {
    bodies.push((await arm("GET", `${VMSS}/${name}`, "2024-11-01")).body);
    bodies.push((await arm("GET", `${VMSS}/${name}/virtualMachines`, "2024-11-01")).body);
  }
  return bodies;
}

async function stopped(sim: SimProcess, signal: "SIGTERM" | "SIGKILL"): Promise<number | null> {
  return sim.stop(signal);
}

t.test(
  "resources, ETags and provisioning states survive SIGTERM and SIGKILL; the seed goes only into an empty state",
  async (t) => {
    const dir = tempDir(t);
    const env = { SIMULATOR_WRITE_DURATION_MS: "0" };
    const first = await started(t, ["--state", dir], env);
    t.match(first.sim.output(), /state kept in .* \(it was empty\)/, "an empty directory: the seed goes in");

    const compute = computeClient({ url: first.sim.url, caPem: CA_PEM, subscriptionId: SIMULATOR_SUBSCRIPTION_ID });
    await compute.virtualMachineScaleSets.beginUpdateAndWait("demo-rg", "web-prod-v002", {
      sku: { capacity: 4 },
      tags: { step: "before-restart" },
    });
    await compute.virtualMachineScaleSets.beginDeleteAndWait("demo-rg", "web-prod-v001");
    for (const r of RESOURCES) {
      const res = await first.arm("PUT", r.path, r.apiVersion, r.body);
      t.ok(res.status === 200 || res.status === 201, `${r.path.split("/").at(-2)} created (${res.status})`);
    }
    // A Flexible scale set: its VMs are resources of the group, each with a NIC; one VM carries a lock of its own.
    await first.control.putScaleSet("demo-rg", "flex-kept", { capacity: 2, orchestrationMode: "Flexible" });
    const flexVm = String((await first.control.getScaleSet("demo-rg", "flex-kept")).vms[0].name);
    const vmLock = `${RG}/providers/Microsoft.Compute/virtualMachines/${flexVm}/providers/Microsoft.Authorization/locks/vm-lock`;
    t.equal((await first.arm("PUT", vmLock, "2020-05-01", { properties: { level: "ReadOnly" } })).status, 201);
    const flexible = async (arm: typeof first.arm): Promise<Json[]> => [
      (await arm("GET", `${VMSS}/flex-kept`, "2024-11-01")).body,
      (await arm("GET", `${RG}/providers/Microsoft.Network/networkInterfaces`, "2023-09-01")).body,
      (await arm("GET", vmLock, "2020-05-01")).body,
    ];
    const flexBefore = await flexible(first.arm);
    t.equal(flexBefore[1].value.length, 2, "two NICs");
    const before = await readAll(first.arm);
    t.match(before[RESOURCES.length], {
      etag: /"\d+"/,
      sku: { capacity: 4 },
      properties: { provisioningState: "Succeeded" },
    });
    t.equal(((before[RESOURCES.length + 1] as { value: Json[] }).value ?? []).length, 4, "four VMs");

    t.equal(await stopped(first.sim, "SIGTERM"), 0, "a clean stop on SIGTERM");
    const second = await started(t, ["--state", dir, "--seed"], env);
    t.match(second.sim.output(), /state kept in .*: 3 scale sets, 0 operations in flight resumed/);
    t.same(await readAll(second.arm), before, "every resource as it was, ETags and provisioning states included");
    t.same(await flexible(second.arm), flexBefore, "the Flexible set, its VMs' NICs and a VM's lock as they were");
    // The NICs are still their VMs' own: deleting the scale set takes them with it.
    t.equal((await second.arm("DELETE", vmLock, "2020-05-01")).status, 200);
    await second.control.deleteScaleSet("demo-rg", "flex-kept");
    t.same(
      ((await second.arm("GET", `${RG}/providers/Microsoft.Network/networkInterfaces`, "2023-09-01")).body as Json)
        .value,
      [],
      "the NICs went with their VMs",
    );
    t.equal(
      (await second.arm("GET", `${VMSS}/web-prod-v001`, "2024-11-01")).status,
      404,
      "the deleted seeded scale set is not seeded again: the seed goes only into an empty state",
    );

    // A crash just after an answer: what was answered is there after it.
    const tagged = await second.arm("PATCH", `${VMSS}/web-prod-v002`, "2024-11-01", { tags: { step: "before-crash" } });
    t.equal(tagged.status, 200);
    const etag = (tagged.body as { etag: string }).etag;
    t.equal(await stopped(second.sim, "SIGKILL"), null, "killed");
    const third = await started(t, ["--state", dir], env);
    t.match((await third.arm("GET", `${VMSS}/web-prod-v002`, "2024-11-01")).body, {
      etag,
      tags: { step: "before-crash" },
      properties: { provisioningState: "Succeeded" },
    });
    t.same((await readAll(third.arm)).slice(0, RESOURCES.length), before.slice(0, RESOURCES.length));
    const state = JSON.parse(readFileSync(join(dir, "state.json"), "utf8")) as { format: string };
    t.equal(state.format, "vmss-simulator-state/1", "the directory holds one document, state.json");
  },
);

t.test("a write in flight when vmss-sim is killed goes on after the restart and ends when it was due", async (t) => {
  const dir = tempDir(t);
  // Long enough that the write is still in flight when the simulator is killed, on any machine.
  const first = await started(t, ["--state", dir], { SIMULATOR_WRITE_DURATION_MS: "6000" });
  const accepted = await first.arm("PATCH", `${VMSS}/web-prod-v002`, "2024-11-01", { sku: { capacity: 5 } });
  t.equal(accepted.status, 200, "accepted");
  const { etag } = accepted.body as { etag: string };
  t.match(accepted.body, { properties: { provisioningState: "Updating" } });
  const statusUrl = new URL(String(accepted.headers["azure-asyncoperation"]));
  t.equal(await stopped(first.sim, "SIGKILL"), null, "killed with the write in flight");

  const second = await started(t, ["--state", dir]);
  t.match(second.sim.output(), /1 operations in flight resumed/);
  const read = await second.arm("GET", `${VMSS}/web-prod-v002`, "2024-11-01");
  t.equal((read.body as { etag: string }).etag, etag, "the ETag the write was answered with");
  // The status URL of the operation accepted before the crash answers on the new simulator (same path, new port).
  const poll = () => second.control.request("GET", `${statusUrl.pathname}${statusUrl.search}`, { headers: AUTH });
  const done = await waitFor(
    async () => {
      const res = await poll();
      return (res.body as { status: string }).status === "InProgress" ? undefined : (res.body as Json);
    },
    { what: "the operation accepted before the crash to end", timeoutMs: 120_000, intervalMs: 200 },
  );
  t.equal(done.status, "Succeeded");
  t.equal(
    Date.parse(done.endTime) - Date.parse(done.startTime),
    6000,
    "it ended when it was due, not when the simulator came back",
  );
  const after = await second.arm("GET", `${VMSS}/web-prod-v002/virtualMachines`, "2024-11-01");
  t.equal((after.body as { value: Json[] }).value.length, 5, "five VMs");
  t.match((await second.arm("GET", `${VMSS}/web-prod-v002`, "2024-11-01")).body, {
    sku: { capacity: 5 },
    properties: { provisioningState: "Succeeded" },
  });
});

t.test("a directory the simulator cannot use is refused with a sentence", async (t) => {
  const other = tempDir(t);
  writeFileSync(join(other, "state.json"), "not json");
  const bad = await startSimProcess(["--state", other]).then(
    () => "started",
    (err: Error) => err.message,
  );
  t.match(bad, /state\.json is not JSON/);

  const foreign = tempDir(t);
  const first = await started(t, [], { SIMULATOR_STATE_DIR: foreign }); // the variable stands for --state
  t.match(first.sim.output(), `state kept in ${foreign} (it was empty)`);
  t.equal(await stopped(first.sim, "SIGTERM"), 0);
  const refused = await startSimProcess(["--state", foreign], {
    SIMULATOR_SUBSCRIPTION_ID: "22222222-2222-4222-8222-222222222222",
  }).then(
    () => "started",
    (err: Error) => err.message,
  );
  t.match(refused, /holds subscription 00000000-0000-4000-8000-000000000001, not 22222222-2222-4222-8222-222222222222/);
});

t.test(
  "on a hand-moved clock: after a restart the clock never goes back, and the operation ends at its time",
  async (t) => {
    const dir = tempDir(t);
    let now = HAND_CLOCK_START;
    const options = { seed: true, timeScale: 1, throttling: false, writeDurationMs: 5000, stateDir: dir };
    const first = await startSimulator({ ...options, now: () => now });
    const control = new SimulatorControl(first);
    const accepted = await control.request("PATCH", `${VMSS}/web-prod-v002?api-version=2024-11-01`, {
      headers: AUTH,
      body: { sku: { capacity: 4 } },
    });
    t.equal(accepted.status, 200);
    const status = new URL(String(accepted.headers["azure-asyncoperation"]));
    now += 1000;
    await control.close();
    await first.close(); // written at HAND_CLOCK_START + 1000

    // The next simulator's clock starts an hour earlier: it is moved on to where the last one stopped.
    now = HAND_CLOCK_START - 3_600_000;
    const second = await startSimulator({ ...options, now: () => now });
    t.teardown(() => second.close());
    t.match(second.stateDir, { restored: true, savedAt: HAND_CLOCK_START + 1000, scaleSets: 3, inFlight: 1 });
    const again = new SimulatorControl(second);
    t.teardown(() => again.close());
    const poll = async () =>
      (await again.request("GET", `${status.pathname}${status.search}`, { headers: AUTH })).body as Json;
    t.match(await poll(), { status: "InProgress" }, "still in flight: the clock did not go back");
    now += 3_999; // HAND_CLOCK_START + 4999 on the restored clock
    t.match(await poll(), { status: "InProgress" }, "not yet due");
    now += 1;
    const done = await poll();
    t.match(done, { status: "Succeeded", endTime: new Date(HAND_CLOCK_START + 5000).toISOString() }, "ended when due");
  },
);

t.test(
  "deployments, autoscale settings, secrets and Entra registrations are kept (startSimulator's stateDir)",
  async (t) => {
    const dir = tempDir(t);
    const options = { seed: true, writeDurationMs: 0, throttling: false, stateDir: dir };
    const first = await startSimulator(options);
    const control = new SimulatorControl(first);
    const arm = (method: string, path: string, apiVersion: string, body?: Json) =>
      control.request(method, `${path}?api-version=${apiVersion}`, { headers: AUTH, ...(body ? { body } : {}) });
    const deployment = `${RG}/providers/Microsoft.Resources/deployments/kept-deploy`;
    const template = {
      $schema: "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
      contentVersion: "1.0.0.0",
      resources: [
        {
          type: "Microsoft.Network/virtualNetworks",
          apiVersion: "2018-11-01",
          name: "kept-vnet",
          location: "eastus",
          properties: { addressSpace: { addressPrefixes: ["10.8.0.0/16"] } },
        },
      ],
    };
    t.equal(
      (await arm("PUT", deployment, "2021-04-01", { properties: { mode: "Incremental", template } })).status,
      201,
    );
    await waitFor(
      async () =>
        ((await arm("GET", deployment, "2021-04-01")).body as Json).properties.provisioningState === "Succeeded",
      {
        what: "the deployment to succeed",
      },
    );
    const monitor = monitorClient(first);
    await monitor.autoscaleSettings.createOrUpdate("demo-rg", "kept-autoscale", {
      location: "eastus",
      enabled: false,
      targetResourceUri: `${VMSS}/web-prod-v002`,
      profiles: [{ name: "p", capacity: { minimum: "1", maximum: "5", default: "3" }, rules: [] }],
    });
    t.equal(
      (
        await control.request("PUT", "/keyvaults/demo-kv/secrets/kept?api-version=7.4", {
          headers: AUTH,
          body: { value: "s" },
        })
      ).status,
      200,
    );
    const client = { tenantId: "33333333-4444-4555-8666-777777777777", clientId: "kept-client", secret: "kept-secret" };
    t.equal((await control.request("POST", "/_sim/identity/clients", { body: client })).status, 201);

    const read = async (c: SimulatorControl) => {
      const get = (path: string, apiVersion: string) =>
        c.request("GET", `${path}?api-version=${apiVersion}`, { headers: AUTH }).then((r) => r.body as Json);
      const identity = (await c.request("GET", "/_sim/identity")).body as Json;
      return {
        deployment: await get(deployment, "2021-04-01"),
        vnet: await get(`${RG}/providers/Microsoft.Network/virtualNetworks/kept-vnet`, "2023-09-01"),
        autoscale: await get(`${RG}/providers/Microsoft.Insights/autoscalesettings/kept-autoscale`, "2022-10-01"),
        secret: (
          (await c.request("GET", "/keyvaults/demo-kv/secrets/kept?api-version=7.4", { headers: AUTH })).body as Json
        ).value,
        clients: identity.clients,
        signingKey: identity.signingKey,
      };
    };
    const before = await read(control);
    await control.close();
    await first.close();

    const second = await startSimulator(options);
    t.teardown(() => second.close());
    const again = new SimulatorControl(second);
    t.teardown(() => again.close());
    t.same(await read(again), before, "each as it was, the Entra ID's signing key included");
    t.match(before, { deployment: { properties: { provisioningState: "Succeeded" } }, secret: "s" });
  },
);
