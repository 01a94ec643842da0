// A third client that is not ours: the Azure CLI (Debian's azure-cli 2.45, its hybrid profile: Compute 2020-06-01,
// Resources 2019-10-01) against the simulator, registered as a custom cloud in a private AZURE_CONFIG_DIR. It logs in
// with a service principal registered at the simulator's identity endpoint — the cloud's Active Directory endpoint is
// the simulator's `/adfs` authority, for which MSAL asks login.microsoftonline.com nothing — creates a Uniform and a
// Flexible scale set (`az vmss create` submits an ARM template deployment), scales, tags, lists instances, stops,
// starts, restarts and deletes; every step is judged by what the simulator then holds, read from it directly.
// The simulator is vmss-sim itself, keeping its world in a state directory (--state): between the creates and the
// scale it is stopped and started again (SIGTERM), and killed (SIGKILL) with the CLI's scale in flight; the CLI,
// logged in once, reads and scales the same scale set after each restart.
// .ci/run installs azure-cli; the test is skipped only where `az` is not installed.
import { execFile } from "node:child_process";
import { accessSync, constants, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import t from "tap";
import { SimulatorControl, SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import type { Json } from "./helpers/json.ts";
import { startSimProcess, type SimProcess } from "./helpers/vmss-sim-process.ts";
import { waitFor } from "./helpers/wait-for.ts";

const run = promisify(execFile);
const CA_FILE = fileURLToPath(new URL(import.meta.resolve("vmss-simulator/ca-cert.pem")));
const CA_PEM = readFileSync(CA_FILE, "utf8");

/** Skipped only where no `az` is on PATH: an installed CLI that fails fails the test. */
function azMissing(): string | undefined {
  const found = (process.env.PATH ?? "").split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, "az"), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
  return found ? undefined : "the Azure CLI (az) is not on PATH: install Debian's azure-cli, as .ci/run does";
}

const missing = azMissing();
const CLIENT = { tenantId: "22222222-3333-4444-8555-666666666666", clientId: "azure-cli", secret: "cli-secret" };
const RG = "demo-rg";

t.test(
  "the Azure CLI logs in, creates Uniform and Flexible scale sets and drives them",
  { skip: missing ?? false },
  async (t) => {
    t.setTimeout(600_000);
    const stateDir = mkdtempSync(join(tmpdir(), "vmss-sim-state-"));
    t.teardown(() => rmSync(stateDir, { recursive: true, force: true }));
    let sim: SimProcess | undefined;
    let control: SimulatorControl | undefined;
    t.teardown(async () => {
      await sim?.stop("SIGKILL");
      await control?.close();
    });
    /** vmss-sim on the state directory, on `port` (the URL the CLI's cloud names once it is registered). */
    const startSim = async (port: string, env: Record<string, string> = {}) => {
      await control?.close();
      sim = await startSimProcess(["--state", stateDir, "--time-scale", "0.001", "--port", port], {
        SIMULATOR_WRITE_DURATION_MS: "50",
        ...env,
      });
      control = new SimulatorControl({ url: sim.url, caPem: CA_PEM });
      return { sim, control };
    };
    const url = (await startSim("0")).sim.url;
    const port = new URL(url).port;
    const subscriptionId = SIMULATOR_SUBSCRIPTION_ID;
    t.equal((await control!.request("POST", "/_sim/identity/clients", { body: CLIENT })).status, 201);
    // Only tokens the simulator issued are accepted: the CLI's calls carry the one it obtained at login.
    await control!.request("PUT", "/_sim/identity", { body: { requireIssuedTokens: true } });

    const configDir = mkdtempSync(join(tmpdir(), "az-config-"));
    t.teardown(() => rmSync(configDir, { recursive: true, force: true }));
    const az = async (...args: string[]): Promise<Json> => {
      const started = Date.now();
      try {
        const { stdout } = await run("az", [...args, "-o", "json"], {
          timeout: 180_000,
          env: {
            ...process.env,
            AZURE_CONFIG_DIR: configDir,
            AZURE_CORE_COLLECT_TELEMETRY: "false",
            AZURE_CORE_NO_COLOR: "true",
            REQUESTS_CA_BUNDLE: CA_FILE,
            NO_PROXY: [process.env.NO_PROXY, "127.0.0.1", "localhost"].filter(Boolean).join(","),
            no_proxy: [process.env.no_proxy, "127.0.0.1", "localhost"].filter(Boolean).join(","),
          },
        });
        t.comment(`az ${args.slice(0, 2).join(" ")}: ${Date.now() - started} ms`);
        return stdout.trim() === "" ? undefined : JSON.parse(stdout);
      } catch (err) {
        throw new Error(`az ${args.join(" ")} failed: ${String((err as { stderr?: string }).stderr ?? err)}`, {
          cause: err,
        });
      }
    };
    /** What the simulator holds at an ARM path (read with a token it issued). */
    const held = async (path: string): Promise<{ status: number; body: Json }> => {
      const token = await control!.request("POST", "/_sim/identity/tokens", {
        body: { tenantId: CLIENT.tenantId, claims: { aud: "https://management.azure.com/", appid: "test" } },
      });
      const sep = path.includes("?") ? "&" : "?";
      const res = await control!.request("GET", `${path}${sep}api-version=2024-03-01`, {
        headers: { authorization: `Bearer ${(token.body as Json).access_token}` },
      });
      return { status: res.status, body: res.body };
    };
    const VMSS = `/subscriptions/${subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;

    await az(
      "cloud",
      "register",
      "-n",
      "VmssSimulator",
      "--endpoint-resource-manager",
      url,
      "--endpoint-active-directory",
      `${url}/adfs`,
      "--endpoint-vm-image-alias-doc",
      `${url}/arm-compute/quickstart-templates/aliases.json`,
      "--profile",
      "2020-09-01-hybrid",
    );
    await az("cloud", "set", "-n", "VmssSimulator");
    const login = await az(
      "login",
      "--service-principal",
      "-u",
      CLIENT.clientId,
      "-p",
      CLIENT.secret,
      "--tenant",
      CLIENT.tenantId,
    );
    t.match(login, [
      { id: subscriptionId, cloudName: "VmssSimulator", user: { name: CLIENT.clientId, type: "servicePrincipal" } },
    ]);

    const created = await az(
      "vmss",
      "create",
      "-g",
      RG,
      "-n",
      "cli-uniform",
      "--image",
      "Ubuntu2204",
      "--instance-count",
      "2",
      "--vm-sku",
      "Standard_D2s_v3",
      "--admin-username",
      "azureuser",
      "--admin-password",
      "Sim-Passw0rd-2026",
      "--orchestration-mode",
      "Uniform",
    );
    t.equal(created.vmss.provisioningState, "Succeeded", "the deployment's output is the scale set");
    const uniform = await held(`${VMSS}/cli-uniform`);
    t.match(uniform.body, {
      sku: { name: "Standard_D2s_v3", capacity: 2 },
      properties: {
        orchestrationMode: "Uniform",
        provisioningState: "Succeeded",
        virtualMachineProfile: {
          storageProfile: {
            imageReference: { publisher: "Canonical", offer: "0001-com-ubuntu-server-jammy", sku: "22_04-lts-gen2" },
          },
        },
      },
    });
    const lb = await held(
      `/subscriptions/${subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Network/loadBalancers/cli-uniformLB`,
    );
    t.equal(lb.status, 200, "the template's load balancer was deployed with it");
    t.equal((await held(`${VMSS}/cli-uniform/virtualMachines`)).body.value.length, 2, "two VMs");

    await az(
      "vmss",
      "create",
      "-g",
      RG,
      "-n",
      "cli-flex",
      "--image",
      "Ubuntu2204",
      "--instance-count",
      "2",
      "--vm-sku",
      "Standard_D2s_v3",
      "--admin-username",
      "azureuser",
      "--admin-password",
      "Sim-Passw0rd-2026",
      "--orchestration-mode",
      "Flexible",
    );
    const flex = await held(`${VMSS}/cli-flex`);
    t.match(flex.body, {
      sku: { name: "Standard_D2s_v3", capacity: 2 },
      properties: { orchestrationMode: "Flexible", platformFaultDomainCount: 1, provisioningState: "Succeeded" },
    });
    const flexLb = await held(
      `/subscriptions/${subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Network/loadBalancers/cli-flexLB`,
    );
    t.match(
      flexLb.body,
      { properties: { inboundNatRules: [{ name: "NatRule" }] } },
      "the NAT rule joined its load balancer",
    );

    // A restart (SIGTERM): the CLI, logged in before it, reads the scale set it created, as it was.
    const beforeRestart = (await held(`${VMSS}/cli-uniform`)).body;
    t.equal(await sim!.stop("SIGTERM"), 0, "vmss-sim stopped");
    // Writes take 15 s from now on: long enough to kill it with one in flight.
    await startSim(port, { SIMULATOR_WRITE_DURATION_MS: "15000" });
    t.match(
      sim!.output(),
      /state kept in .*: 5 scale sets/,
      "restarted on its state directory: the three seeded and the two made",
    );
    const shown = await az("vmss", "show", "-g", RG, "-n", "cli-uniform");
    t.match(
      shown,
      { uniqueId: beforeRestart.properties.uniqueId, provisioningState: "Succeeded", sku: { capacity: 2 } },
      "the CLI reads the scale set it created before the restart",
    );
    t.same((await held(`${VMSS}/cli-uniform`)).body, beforeRestart, "the same body, ETag included");

    // A crash (SIGKILL) with the CLI's scale in flight: after the restart the scale goes on and ends.
    await az("vmss", "scale", "-g", RG, "-n", "cli-uniform", "--new-capacity", "4", "--no-wait");
    const inFlight = (await held(`${VMSS}/cli-uniform`)).body;
    t.match(
      inFlight,
      { sku: { capacity: 4 }, properties: { provisioningState: "Updating" } },
      "the scale is in flight",
    );
    t.equal(await sim!.stop("SIGKILL"), null, "vmss-sim killed");
    await startSim(port);
    t.match(sim!.output(), /1 operations in flight resumed/);
    await waitFor(async () => (await held(`${VMSS}/cli-uniform`)).body.properties.provisioningState === "Succeeded", {
      what: "the scale accepted before the crash to end",
      timeoutMs: 120_000,
      intervalMs: 200,
    });
    t.equal((await held(`${VMSS}/cli-uniform`)).body.etag, inFlight.etag, "the ETag it was accepted with");
    t.match(await az("vmss", "show", "-g", RG, "-n", "cli-uniform"), { sku: { capacity: 4 } }, "the CLI reads it");
    await az("vmss", "scale", "-g", RG, "-n", "cli-uniform", "--new-capacity", "3");
    t.equal((await held(`${VMSS}/cli-uniform`)).body.sku.capacity, 3, "scaled to 3");

    await az("vmss", "update", "-g", RG, "-n", "cli-uniform", "--set", "tags.owner=cli");
    t.match((await held(`${VMSS}/cli-uniform`)).body.tags, { owner: "cli" }, "tagged");

    const instances = (await az("vmss", "list-instances", "-g", RG, "-n", "cli-uniform")) as { instanceId: string }[];
    const vms = (await held(`${VMSS}/cli-uniform/virtualMachines`)).body.value as { instanceId: string }[];
    t.same(
      instances.map((i) => i.instanceId).sort(),
      vms.map((v) => v.instanceId).sort(),
      "list-instances lists what is held",
    );
    t.equal(instances.length, 3);

    const powerOf = async (id: string) =>
      ((await held(`${VMSS}/cli-uniform/virtualMachines/${id}/instanceView`)).body.statuses as { code: string }[])
        .map((s) => s.code)
        .find((c) => c.startsWith("PowerState/"));
    // Power actions carry no Retry-After (as Azure's), and the CLI's poller then waits its default 30 s between polls:
    // stop and start go with --no-wait and the simulator is watched until it holds the outcome; the restart is waited
    // for by the CLI itself.
    const powerIs = (id: string, code: string) =>
      waitFor(async () => (await powerOf(id)) === code, { what: `VM ${id} ${code}`, timeoutMs: 120_000 });
    await az("vmss", "stop", "-g", RG, "-n", "cli-uniform", "--instance-ids", "0", "--no-wait");
    await powerIs("0", "PowerState/stopped");
    t.equal(await powerOf("1"), "PowerState/running", "only the VM named was stopped");
    await az("vmss", "start", "-g", RG, "-n", "cli-uniform", "--instance-ids", "0", "--no-wait");
    await powerIs("0", "PowerState/running");
    await control!.clearCalls();
    await az("vmss", "restart", "-g", RG, "-n", "cli-uniform");
    const calls = (await control!.request("GET", "/_sim/calls")).body as {
      method: string;
      path: string;
      status: number;
    }[];
    t.ok(
      calls.some((c) => c.method === "POST" && c.path.endsWith("/cli-uniform/restart") && c.status === 202),
      "the restart reached the scale set",
    );
    t.same(
      await Promise.all(["0", "1", "2"].map(powerOf)),
      ["PowerState/running", "PowerState/running", "PowerState/running"],
      "every VM running after the restart",
    );

    // a template of its own: a type the simulator does not model is refused by name; one it models is deployed
    const dir = mkdtempSync(join(tmpdir(), "az-templates-"));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const storage = join(dir, "storage.json");
    writeFileSync(
      storage,
      JSON.stringify({
        $schema: "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
        contentVersion: "1.0.0.0",
        resources: [
          { type: "Microsoft.Storage/storageAccounts", apiVersion: "2022-09-01", name: "simstore", location: "eastus" },
        ],
      }),
    );
    await t.rejects(
      az("deployment", "group", "create", "-g", RG, "--template-file", storage),
      /InvalidTemplateDeployment.*'simstore' of type 'Microsoft.Storage\/storageAccounts' cannot be deployed/,
    );
    const vnet = join(dir, "vnet.jsonc");
    writeFileSync(
      vnet,
      `{
  // a comment, as template files may have: az sends the file as written
  "$schema": "https://schema.management.azure.com/schemas/2019-04-01/deploymentTemplate.json#",
  "contentVersion": "1.0.0.0",
  "parameters": { "prefix": { "type": "string", "defaultValue": "10.9" } },
  "resources": [{ "type": "Microsoft.Network/virtualNetworks", "apiVersion": "2018-11-01", "name": "cli-vnet",
    "location": "eastus", "properties": { "addressSpace": { "addressPrefixes": ["[concat(parameters('prefix'), '.0.0/16')]"] } } }],
  "outputs": { "VnetId": { "type": "string", "value": "[resourceId('Microsoft.Network/virtualNetworks', 'cli-vnet')]" } }
}`,
    );
    const deployed = await az("deployment", "group", "create", "-g", RG, "--template-file", vnet);
    t.match(deployed.properties, {
      provisioningState: "Succeeded",
      outputs: { vnetId: { value: /\/virtualNetworks\/cli-vnet$/ } },
    });
    t.match(
      (
        await held(
          `/subscriptions/${subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Network/virtualNetworks/cli-vnet`,
        )
      ).body,
      { properties: { addressSpace: { addressPrefixes: ["10.9.0.0/16"] } } },
    );

    await az("vmss", "delete", "-g", RG, "-n", "cli-uniform");
    await az("vmss", "delete", "-g", RG, "-n", "cli-flex");
    t.equal((await held(`${VMSS}/cli-uniform`)).status, 404, "the Uniform set is gone");
    t.equal((await held(`${VMSS}/cli-flex`)).status, 404, "the Flexible set is gone");
  },
);
