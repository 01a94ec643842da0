// A second client, written by Microsoft in another language: Python's azure-identity + azure-mgmt-compute (Debian's
// python3-azure, api-version 2022-08-01) logs in with a client secret at the simulator's token endpoint and drives a
// scale set through test/python/vmss_client.py. Our own client and our own simulator could agree on a mistake; this
// one was not written here. Its pollers honour Retry-After (azure-core reads it with int(): a fraction would raise).
// .ci/run installs python3-azure; the test is skipped only where those modules are missing.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import t, { type Test } from "tap";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import type { Json } from "../testkit/json.ts";

const run = promisify(execFile);
// Debian's packages are for Debian's Python; a python3 earlier on PATH (pyenv) does not see them.
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const CA_FILE = fileURLToPath(import.meta.resolve("vmss-simulator/ca-cert.pem"));

async function pythonAzureMissing(): Promise<string | undefined> {
  try {
    await run(PYTHON, ["-c", "import azure.identity, azure.mgmt.compute"]);
    return undefined;
  } catch (err) {
    return `${PYTHON} cannot import azure.identity and azure.mgmt.compute (install Debian's python3-azure, as .ci/run does): ${String(
      (err as { stderr?: string }).stderr ?? err,
    )
      .trim()
      .split("\n")
      .at(-1)}`;
  }
}

const missing = await pythonAzureMissing();

/** Runs one of test/python/*.py against the simulator as the registered client; its JSON output, or a failed test. */
async function runPython(
  t: Test,
  script: string,
  sim: { url: string; subscriptionId: string },
  scaleSet: string,
): Promise<Json> {
  try {
    const { stdout } = await run(PYTHON, [fileURLToPath(new URL(`./python/${script}`, import.meta.url))], {
      timeout: 120_000,
      env: {
        ...process.env,
        SIM_URL: sim.url,
        SIM_TENANT: CLIENT.tenantId,
        SIM_CLIENT_ID: CLIENT.clientId,
        SIM_CLIENT_SECRET: CLIENT.secret,
        SIM_SUBSCRIPTION: sim.subscriptionId,
        SIM_RESOURCE_GROUP: "demo-rg",
        SIM_SCALE_SET: scaleSet,
        REQUESTS_CA_BUNDLE: CA_FILE,
        // The simulator is local: never through a proxy the environment may name.
        NO_PROXY: [process.env.NO_PROXY, "127.0.0.1", "localhost"].filter(Boolean).join(","),
        no_proxy: [process.env.no_proxy, "127.0.0.1", "localhost"].filter(Boolean).join(","),
      },
    });
    return JSON.parse(stdout);
  } catch (err) {
    t.fail(`the Python client failed: ${String((err as { stderr?: string }).stderr ?? err)}`);
    return undefined;
  }
}

const CLIENT = { tenantId: "11111111-2222-4333-8444-555555555555", clientId: "python-sdk", secret: "python-secret" };

t.test("the Python SDK drives a scale set through the simulator", { skip: missing ?? false }, async (t) => {
  // Model writes end fast; a power action lasts long enough that a PATCH sent during it meets the one-write-at-a-time 409.
  const sim = await startSimulator({
    seed: true,
    timeScale: 0.001,
    writeDurationMs: 100,
    writeDurationsMs: { powerAction: 1500 },
  });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  t.equal((await control.request("POST", "/_sim/identity/clients", { body: CLIENT })).status, 201);
  await control.request("PUT", "/_sim/identity", { body: { requireIssuedTokens: true } });

  const seen = await runPython(t, "vmss_client.py", sim, "web-prod-v001");
  if (!seen) return;
  t.same(seen.steps, [
    "get",
    "list",
    "listVms",
    "scale",
    "updateTags",
    "instanceView",
    "patchAfterConflict",
    "deallocate",
    "start",
    "deleteInstances",
  ]);
  const seeded = { app: "web", env: "prod", version: "v001" };
  t.match(seen.get, { name: "web-prod-v001", capacity: 3, tags: seeded, orchestrationMode: "Uniform" });
  t.same(seen.list, {
    names: ["batch-v001", "web-prod-v001", "web-prod-v002"],
    all: ["batch-v001", "web-prod-v001", "web-prod-v002"],
  });
  t.same(seen.listVms.instanceIds, ["0", "1", "2"]);
  t.same(
    seen.scale,
    { capacity: 4, tags: seeded, keptProfile: true, instanceIds: ["0", "1", "2", "3"] },
    "a PUT of location + sku keeps tags and profile",
  );
  t.same(seen.updateTags.tags, { ...seeded, owner: "python" });
  t.same(seen.instanceView, {
    statuses: ["ProvisioningState/succeeded"],
    summary: { "ProvisioningState/succeeded": 4 },
    vm0: "PowerState/running",
  });
  t.ok(seen.patchAfterConflict.conflicts.length >= 1, "the PATCH sent during the deallocate met 409 at least once");
  t.match(seen.patchAfterConflict.conflicts[0], { status: 409, code: "ConflictingConcurrentWriteNotAllowed" });
  t.same(
    seen.patchAfterConflict.tags,
    { ...seeded, owner: "python", retried: "yes" },
    "…and went through when retried",
  );
  t.same(seen.deallocate, { vm0: "PowerState/deallocated" });
  t.same(seen.start, { vm0: "PowerState/running" });
  t.same(seen.deleteInstances, { capacity: 3, instanceIds: ["0", "1", "2"] });

  // azure-core polls once at once, then waits the Retry-After each InProgress answer carries (1 s) before the next.
  const calls = (await control.request("GET", "/_sim/calls")).body as { method: string; path: string; time: number }[];
  const put = calls.findIndex((c) => c.method === "PUT");
  const polls = calls
    .slice(put + 1)
    .filter((c) => c.path.includes("/operations/"))
    .slice(0, 2);
  t.equal(polls.length, 2);
  t.equal(polls[0].path, polls[1].path, "two polls of the PUT's operation");
  t.ok(polls[1].time - polls[0].time >= 900, `second poll ${polls[1].time - polls[0].time} ms after the first`);
});

t.test(
  "the Python SDK lists a Flexible set's VMs by the scale-set filter, powers one and deletes one by name",
  { skip: missing ?? false },
  async (t) => {
    const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 100 });
    t.teardown(() => sim.close());
    const control = new SimulatorControl(sim);
    t.teardown(() => control.close());
    t.equal((await control.request("POST", "/_sim/identity/clients", { body: CLIENT })).status, 201);
    await control.putScaleSet("demo-rg", "flex-py-v001", { capacity: 3, orchestrationMode: "Flexible" });
    const made = (await control.getScaleSet("demo-rg", "flex-py-v001")).vms.map((vm) => String(vm.name));

    const seen = await runPython(t, "flexible_client.py", sim, "flex-py-v001");
    if (!seen) return;
    const scaleSetId = `/subscriptions/${sim.subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/flex-py-v001`;
    t.same(seen.list.names, made, "the three VMs the simulator made, by name");
    t.same(seen.list.scaleSets, [scaleSetId]);
    t.same(
      seen.list.nics,
      made.map((name) => [
        `/subscriptions/${sim.subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Network/networkInterfaces/${name}-flex-py-v001-nic`,
      ]),
    );
    t.same(seen.get, { name: made[0], power: "PowerState/running" });
    t.equal(seen.deallocate, "PowerState/deallocated");
    t.same(seen.deleteInstances, { names: [made[0], made[2]], capacity: 2 });
    t.same(seen.uniformList, { status: 400, code: "BadRequest" });
  },
);
