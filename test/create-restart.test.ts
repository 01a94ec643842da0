// A create whose PUT Azure accepted survives a crash of the service: the restarted service chooses the same name
// (the scale set carries this request's mark), follows the stored poller to its end, and never sends the PUT again.
// The service is a real child process killed with SIGKILL; the simulator outlives it.
import t from "tap";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
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

const env = (dataDir: string) => ({
  ...restartableServiceEnv(sim.url, dataDir),
  // The admin password the clone names by reference: it goes into the PUT, never into the task store.
  DEPLOY_ADMIN_PASSWORD: "Restart-s3cret-9",
});

const clone = {
  credentials: "demo",
  region: "eastus",
  source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v002" },
  image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" },
  osConfig: { adminPasswordEnv: "DEPLOY_ADMIN_PASSWORD" },
};

/** Everything the SQLite store wrote (database and WAL), as text. */
const storeBytes = (dir: string) =>
  readdirSync(dir)
    .map((f) => readFileSync(join(dir, f)).toString("latin1"))
    .join("\n");

async function inFlight(name: string): Promise<boolean> {
  try {
    return Boolean((await control.getScaleSet("demo-rg", name)).inFlight);
  } catch {
    return false; // not created yet
  }
}

t.test("SIGKILL while the create is in flight: the restarted service finishes it with exactly one PUT", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-create-restart-"));
  const first = await startChildService(env(dataDir));
  const submitted = await first.api("POST", "/azure/ops/cloneServerGroup?clientRequestId=red-black-1", clone);
  t.equal(submitted.status, 202, JSON.stringify(submitted.body));
  await waitFor(() => inFlight("web-prod-v003"), { what: "Azure to accept the PUT of web-prod-v003" });
  await waitForStoredPoller(dataDir, submitted.body.id);
  first.child.kill("SIGKILL");
  await first.exited;
  t.ok(await inFlight("web-prod-v003"), "killed while Azure was still creating it");
  const stored = storeBytes(dataDir);
  t.match(stored, /"kind":"create"/, "the checkpoint names the create in flight");
  t.notMatch(stored, /Restart-s3cret-9/, "and holds no password");

  const second = await startChildService(env(dataDir));
  t.teardown(() => void second.child.kill("SIGKILL"));
  const task = await second.waitForTask(submitted.body.id);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  t.match(task.resultObjects, [
    {
      type: "createdServerGroup",
      serverGroupName: "web-prod-v003",
      serverGroupNames: ["eastus:web-prod-v003"],
      instanceCount: 3,
      ancestorServerGroupNameByRegion: { eastus: "web-prod-v002" },
    },
  ]);
  const history = task.history.map((h: Json) => h.status).join("\n");
  t.match(history, /web-prod-v003 was created for this request already/, "the same name, found by its mark");
  t.match(
    history,
    /resuming the write Azure accepted before a restart: create web-prod-v003/,
    "the stored poller was followed",
  );
  const calls = await control.calls();
  const puts = calls.filter((c) => c.method === "PUT");
  t.equal(puts.length, 1, `exactly one PUT: ${JSON.stringify(puts)}`);
  t.equal(calls.filter((c) => c.method === "PUT" && /web-prod-v004/.test(c.path)).length, 0, "no v004");

  // The same request submitted again after it finished: the same task, nothing created.
  const again = await second.api("POST", "/azure/ops/cloneServerGroup?clientRequestId=red-black-1", clone);
  t.equal(again.body.id, submitted.body.id);
  t.equal((await control.calls()).filter((c) => c.method === "PUT").length, 1, "still one PUT");
  second.child.kill("SIGTERM");
  await second.exited;
});
