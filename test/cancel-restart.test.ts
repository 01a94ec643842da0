// A cancel outlives the replica it was asked of: the request is stored with the task, so the replica that takes the
// task over follows the write in flight to its end and stops there, and a canceled task is never run again. The
// services run as real child processes sharing one SQLite file; "Azure" (the simulator) lives in the test process.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { restartableServiceEnv, startChildService } from "../testkit/child-service.ts";
import { waitForStoredPoller } from "./helpers/stored-checkpoint.ts";
import type { Json } from "../testkit/json.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 2000, timeScale: 0.001, seed: true });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());

const env = (dataDir: string) => restartableServiceEnv(sim.url, dataDir);

const patchesOn = async (name: string) =>
  (await control.calls()).filter((c) => c.method === "PATCH" && c.path.toLowerCase().endsWith(`/${name}`));

t.test(
  "cancel asked, then the replica dies mid-write: the next one ends the write, then the task, canceled, for good",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-cancel-"));
    const a = await startChildService(env(dataDir));
    const submitted = await a.api("POST", "/azure/ops", [
      {
        resizeServerGroup: {
          credentials: "demo",
          region: "eastus",
          serverGroupName: "web-prod-v001",
          capacity: { min: 1, max: 9, desired: 6 },
        },
      },
      { disableServerGroup: { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001" } },
    ]);
    t.equal(submitted.status, 202);
    const id = submitted.body.id as string;
    await waitFor(async () => Boolean((await control.getScaleSet("demo-rg", "web-prod-v001")).inFlight), {
      what: "a write in flight on web-prod-v001",
    });
    // The runner stores the write's poller (the checkpoint) once Azure accepted it: ask after that.
    await waitForStoredPoller(dataDir, id);
    const asked = await a.api("POST", `/task/${id}/cancel`);
    t.equal(asked.status, 200);
    t.equal(asked.body.state, "running", "the write is still in flight");
    a.child.kill("SIGKILL");
    await a.exited;

    const b = await startChildService(env(dataDir));
    const done = await b.waitForTask(id);
    t.equal(done.state, "canceled", JSON.stringify(done.history));
    t.ok(
      done.history.some((h: Json) => /^Resumed by replica/.test(h.status)),
      "replica b took it over",
    );
    t.match(
      done.history.at(-1).status,
      /^Canceled on request, after the write in flight ended\. Done: .*\(written and ended\)\. Not done: the rest of resizeServerGroup .*; disableServerGroup \(operation 2\)$/,
    );
    t.equal((await patchesOn("web-prod-v001")).length, 1, "one write: followed, never sent again");
    b.child.kill("SIGKILL");
    await b.exited;

    // Another replica on the same store finds nothing to run: canceled stays canceled.
    const c = await startChildService(env(dataDir));
    t.teardown(() => void c.child.kill("SIGKILL"));
    // Wait until c has claimed and run work of its own: a task on another scale set that finds nothing to change. Its
    // claims passed over the canceled task (it is the oldest), so whatever c would do with it, it has had the chance.
    const probe = await c.api("POST", "/azure/ops/resizeServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v002",
      capacity: { min: 1, max: 9, desired: 3 },
    });
    t.equal(probe.status, 202);
    t.equal((await c.waitForTask(probe.body.id)).state, "succeeded", "c claims and runs work");
    const later = await c.api("GET", `/task/${id}`);
    t.equal(later.body.state, "canceled");
    t.same(later.body.history, done.history, "not a line more");
    t.equal((await patchesOn("web-prod-v001")).length, 1, "and still one write");
    t.equal((await c.api("POST", `/task/${id}:resume`)).status, 409, "nor can it be resumed");
  },
);
