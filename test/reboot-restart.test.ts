// A reboot whose restart Azure accepted survives a crash of the service: the restarted service follows the stored
// poller to its end, never sends the restart again, and is done on what Azure reports (each instance running with a
// later provisioning time than before the restart, as the task's checkpoint kept it). The service is a real child
// process; the simulator outlives it.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { restartableServiceEnv, startChildService } from "../testkit/child-service.ts";
import { waitForStoredPoller } from "./helpers/stored-checkpoint.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { Json } from "../testkit/json.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 1500, timeScale: 0.001, seed: true });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());

/** Each VM's ProvisioningState time, as the simulator reports it. */
async function bootTimes(name: string): Promise<Record<string, string>> {
  const { vms } = await control.getScaleSet("demo-rg", name);
  return Object.fromEntries(
    vms.map((vm: Json) => [
      vm.instanceId,
      (vm.properties.instanceView.statuses as Json[]).find((s) => s.code.startsWith("ProvisioningState/"))?.time,
    ]),
  );
}

t.test(
  "SIGKILL while the restart is in flight: the restarted service follows it, sends no second restart, confirms it",
  async (t) => {
    const before = await bootTimes("web-prod-v001");
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-reboot-restart-"));
    const first = await startChildService(restartableServiceEnv(sim.url, dataDir));
    const submitted = await first.api("POST", "/azure/ops/rebootInstances", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      instanceIds: ["0", "1"],
    });
    t.equal(submitted.status, 202);
    await waitFor(async () => Boolean((await control.getScaleSet("demo-rg", "web-prod-v001")).inFlight), {
      what: "the restart accepted by Azure",
    });
    await waitForStoredPoller(dataDir, submitted.body.id);
    first.child.kill("SIGKILL");
    await first.exited;

    const second = await startChildService(restartableServiceEnv(sim.url, dataDir));
    t.teardown(() => void second.child.kill("SIGKILL"));
    const task = await second.waitForTask(submitted.body.id);
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.match(history, /resuming the write Azure accepted before a restart: restart instance\(s\) 0, 1/);
    t.match(history, /Azure reports instance\(s\) 0, 1 running again after the restart/);
    const restarts = (await control.calls()).filter((c) => c.method === "POST" && /\/restart$/i.test(c.path));
    t.equal(restarts.length, 1, `exactly one restart: ${JSON.stringify(restarts)}`);
    const after = await bootTimes("web-prod-v001");
    t.ok(after["0"] > before["0"] && after["1"] > before["1"], "0 and 1 booted again");
    t.equal(after["2"], before["2"], "2 was not restarted");
    second.child.kill("SIGTERM");
    await second.exited;
  },
);
