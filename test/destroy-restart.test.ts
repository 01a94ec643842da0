// A destroy whose DELETE Azure accepted survives a crash of the service: the restarted service follows the stored
// poller to its end and never sends the DELETE again. The service is a real child process; the simulator outlives it.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { restartableServiceEnv, startChildService } from "../testkit/child-service.ts";
import { waitForStoredPoller } from "./helpers/stored-checkpoint.ts";
import type { Json } from "../testkit/json.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 1500, timeScale: 0.001, seed: true });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());

const env = (dataDir: string) => restartableServiceEnv(sim.url, dataDir);

t.test(
  "SIGKILL while the DELETE is in flight: the restarted service finishes the destroy with no second DELETE",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-destroy-restart-"));
    const first = await startChildService(env(dataDir));
    const submitted = await first.api("POST", "/azure/ops/destroyServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
    });
    t.equal(submitted.status, 202);
    await waitFor(async () => Boolean((await control.getScaleSet("demo-rg", "web-prod-v001")).inFlight), {
      what: "Azure to accept the DELETE of web-prod-v001 (a write in flight)",
    });
    await waitForStoredPoller(dataDir, submitted.body.id);
    first.child.kill("SIGKILL");
    await first.exited;

    const second = await startChildService(env(dataDir));
    t.teardown(() => void second.child.kill("SIGKILL"));
    const task = await second.waitForTask(submitted.body.id);
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    t.match(task.resultObjects, [
      { type: "destroyedServerGroup", deletedByThisTask: true, confirmedBy: "GET 404 ResourceNotFound" },
    ]);
    t.match(
      task.history.map((h: Json) => h.status).join("\n"),
      /resuming the write Azure accepted before a restart: delete web-prod-v001/,
    );
    const deletes = (await control.calls()).filter((c) => c.method === "DELETE");
    t.equal(deletes.length, 1, `exactly one DELETE: ${JSON.stringify(deletes)}`);
    second.child.kill("SIGTERM");
    await second.exited;
  },
);
