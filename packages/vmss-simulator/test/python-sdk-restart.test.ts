// Microsoft's Python SDK (Debian's python3-azure: azure-identity, azure-mgmt-compute 2022-08-01) on both sides of a
// crash of vmss-sim --state: it logs in with a client secret, starts a scale and keeps only the poller's continuation
// token; vmss-sim is killed (SIGKILL) with the scale in flight and started again on the same state directory and port;
// the SDK, with the same credentials, reads the same scale set (same ETag) and resumes its poller to the end.
// test/python/restart_client.py is the script; the test is skipped only where those modules are missing.
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import t from "tap";
import { SimulatorControl, SIMULATOR_SUBSCRIPTION_ID } from "vmss-simulator";
import type { Json } from "./helpers/json.ts";
import { startSimProcess, type SimProcess } from "./helpers/vmss-sim-process.ts";

const run = promisify(execFile);
// Debian's packages are for Debian's Python; a python3 earlier on PATH (pyenv) does not see them.
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const CA_FILE = fileURLToPath(import.meta.resolve("vmss-simulator/ca-cert.pem"));
const SCRIPT = fileURLToPath(new URL("./python/restart_client.py", import.meta.url));
const CLIENT = { tenantId: "11111111-2222-4333-8444-555555555555", clientId: "python-sdk", secret: "python-secret" };

async function pythonAzureMissing(): Promise<string | undefined> {
  try {
    await run(PYTHON, ["-c", "import azure.identity, azure.mgmt.compute"]);
    return undefined;
  } catch (err) {
    const last = String((err as { stderr?: string }).stderr ?? err)
      .trim()
      .split("\n")
      .at(-1);
    return `${PYTHON} cannot import azure.identity and azure.mgmt.compute (install Debian's python3-azure): ${last}`;
  }
}

const missing = await pythonAzureMissing();

async function python(url: string, ...args: string[]): Promise<Json> {
  try {
    const { stdout } = await run(PYTHON, [SCRIPT, ...args], {
      timeout: 180_000,
      env: {
        ...process.env,
        SIM_URL: url,
        SIM_TENANT: CLIENT.tenantId,
        SIM_CLIENT_ID: CLIENT.clientId,
        SIM_CLIENT_SECRET: CLIENT.secret,
        SIM_SUBSCRIPTION: SIMULATOR_SUBSCRIPTION_ID,
        SIM_RESOURCE_GROUP: "demo-rg",
        SIM_SCALE_SET: "web-prod-v002",
        REQUESTS_CA_BUNDLE: CA_FILE,
        NO_PROXY: [process.env.NO_PROXY, "127.0.0.1", "localhost"].filter(Boolean).join(","),
        no_proxy: [process.env.no_proxy, "127.0.0.1", "localhost"].filter(Boolean).join(","),
      },
    });
    return JSON.parse(stdout);
  } catch (err) {
    throw new Error(`the Python client failed: ${String((err as { stderr?: string }).stderr ?? err)}`, { cause: err });
  }
}

t.test(
  "the Python SDK reads the same scale set after a crash and resumes the poller it started before",
  { skip: missing ?? false },
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), "vmss-sim-state-"));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    let sim: SimProcess | undefined;
    t.teardown(() => sim?.stop("SIGKILL"));
    // Writes take 15 s: the scale is still in flight when the simulator is killed, on any machine.
    const env = { SIMULATOR_WRITE_DURATION_MS: "15000" };
    sim = await startSimProcess(["--state", dir], env);
    const { url } = sim;
    const control = new SimulatorControl({ url, caPem: readFileSync(CA_FILE, "utf8") });
    t.equal((await control.request("POST", "/_sim/identity/clients", { body: CLIENT })).status, 201);
    // Only tokens the simulator issued are accepted, before the crash and after it.
    await control.request("PUT", "/_sim/identity", { body: { requireIssuedTokens: true } });
    await control.close();

    const before = await python(url, "before");
    t.match(before.accepted, { capacity: before.before.capacity + 1, provisioningState: "Updating" });
    t.not(before.accepted.etag, before.before.etag, "the scale has its ETag from acceptance on");
    t.equal(await sim.stop("SIGKILL"), null, "vmss-sim killed with the scale in flight");

    sim = await startSimProcess(["--state", dir, "--port", new URL(url).port], env);
    const after = await python(url, "after", before.token);
    t.match(after.read, { etag: before.accepted.etag, uniqueId: before.before.uniqueId }, "the same scale set");
    t.match(after.resumed, { capacity: before.before.capacity + 1, provisioningState: "Succeeded" }, "resumed");
    t.match(after.final, { etag: before.accepted.etag, provisioningState: "Succeeded" }, "the ETag of the scale");
    t.equal(after.vms.length, before.before.capacity + 1, "its VMs as the scale made them");
  },
);
