// A restart of the service must not lose a task, leave it running forever, or send a write twice. The service runs
// as a real child process; "Azure" (the simulator) lives in the test process and outlives it.
import t from "tap";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { restartableServiceEnv, startChildService } from "../testkit/child-service.ts";
import { waitForStoredPoller } from "./helpers/stored-checkpoint.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { Json } from "../testkit/json.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 1500, timeScale: 0.001, seed: true });
const control = new SimulatorControl(sim);
t.teardown(() => sim.close());

const baseEnv = (dataDir: string) => restartableServiceEnv(sim.url, dataDir);

const patchesOn = async (name: string) =>
  (await control.calls()).filter((c) => c.method === "PATCH" && c.path.toLowerCase().endsWith(`/${name}`));

/** A write is in flight on the scale set, and its task's checkpoint holds the write's poller (stored once accepted). */
async function waitForWriteInFlight(name: string, dataDir: string, taskId: string): Promise<void> {
  await waitFor(async () => Boolean((await control.getScaleSet("demo-rg", name)).inFlight), {
    what: `a write in flight on ${name}`,
  });
  await waitForStoredPoller(dataDir, taskId);
}

t.beforeEach(async () => {
  await control.reset();
  await control.clearCalls();
});

t.test(
  "SIGKILL while a write is in flight: after a restart the task completes, and Azure saw exactly one write",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-restart-"));
    const first = await startChildService(baseEnv(dataDir));
    const submitted = await first.api("POST", "/azure/ops/resizeServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      capacity: { min: 1, max: 9, desired: 6 },
    });
    t.equal(submitted.status, 202);
    await waitForWriteInFlight("web-prod-v001", dataDir, submitted.body.id);
    first.child.kill("SIGKILL");
    t.match(await first.exited, { signal: "SIGKILL" });

    const second = await startChildService(baseEnv(dataDir));
    t.teardown(() => void second.child.kill("SIGKILL"));
    const task = await second.waitForTask(submitted.body.id);
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    t.equal(task.resultObjects[0].capacity.desired, 6);
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.match(history, /Resumed by replica/);
    t.match(history, /resuming the write Azure accepted before a restart: set capacity 3 → 6/);
    const patches = await patchesOn("web-prod-v001");
    t.equal(patches.length, 1, `exactly one write: ${JSON.stringify(patches)}`);
    t.equal((await control.getScaleSet("demo-rg", "web-prod-v001")).vms.length, 6);
    second.child.kill("SIGTERM");
    await second.exited;
  },
);

t.test(
  "SIGTERM: exits promptly, gives the lease back, and the next start continues the task without a second write",
  async (t) => {
    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-sigterm-"));
    const first = await startChildService(baseEnv(dataDir));
    const submitted = await first.api("POST", "/azure/ops/disableServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v002",
    });
    await waitForWriteInFlight("web-prod-v002", dataDir, submitted.body.id);
    const stopAt = Date.now();
    first.child.kill("SIGTERM");
    const exit = await first.exited;
    t.equal(exit.code, 0, `clean exit: ${first.output()}`);
    t.ok(Date.now() - stopAt < 3000 + 2000, "within the configured shutdown bound");

    const second = await startChildService(baseEnv(dataDir));
    const claimedAt = Date.now();
    const task = await second.waitForTask(submitted.body.id);
    t.equal(task.status.failed, false, JSON.stringify(task.history));
    t.match(task.history.map((h: Json) => h.status).join("\n"), /Resumed by replica/);
    t.equal((await patchesOn("web-prod-v002")).length, 1, "the network change was written once");
    t.ok(task.resultObjects[0].disabled, "and the disable finished (pools removed, instances rolled)");
    t.ok(Date.now() - claimedAt < 15_000);
    second.child.kill("SIGTERM");
    await second.exited;
  },
);

t.test("the embedded store keeps finished tasks across a restart", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-keep-"));
  const first = await startChildService(baseEnv(dataDir));
  const submitted = await first.api("POST", "/azure/ops/scaleDown?clientRequestId=keep-1", {
    credentials: "demo",
    region: "eastus",
    serverGroupName: "batch-v001",
  });
  const done = await first.waitForTask(submitted.body.id);
  first.child.kill("SIGTERM");
  await first.exited;
  const second = await startChildService(baseEnv(dataDir));
  const again = await second.api("GET", `/task/${submitted.body.id}`);
  t.equal(again.status, 200);
  t.same(again.body.history, done.history);
  const resubmitted = await second.api("POST", "/azure/ops/scaleDown?clientRequestId=keep-1", {
    credentials: "demo",
    region: "eastus",
    serverGroupName: "batch-v001",
  });
  t.equal(resubmitted.body.id, submitted.body.id, "clientRequestId still deduplicates after the restart");
  second.child.kill("SIGTERM");
  await second.exited;
});

t.test("a corrupt task store stops start-up with a message naming it, and is left as it was", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-corrupt-"));
  const file = join(dataDir, "tasks.db");
  const garbage = Buffer.from("this is not a database, but somebody's data ".repeat(200));
  writeFileSync(file, garbage);
  const service = await startChildService(baseEnv(dataDir), { waitForListen: false });
  const exit = await service.exited;
  t.equal(exit.code, 2);
  t.match(service.output(), `cannot open the task store`);
  t.match(service.output(), file);
  t.ok(readFileSync(file).equals(garbage), "the file is byte for byte what it was");
});

t.test("an unusable data directory stops start-up with a message naming it", async (t) => {
  const parent = mkdtempSync(join(tmpdir(), "vmss-ops-notdir-"));
  const notADir = join(parent, "plain-file");
  writeFileSync(notADir, "x");
  const service = await startChildService(baseEnv(join(notADir, "data")), { waitForListen: false });
  t.equal((await service.exited).code, 2);
  t.match(service.output(), join(notADir, "data"));
});

t.test("while draining, requests get 503 with Retry-After", async (t) => {
  const config = loadConfig({ SIMULATOR_URL: sim.url, TASK_STORE: "memory" });
  const service = await buildApp({ config, logger: false });
  service.drain();
  const res = await service.app.inject({
    method: "POST",
    url: "/azure/ops/scaleDown",
    payload: { credentials: "demo", region: "eastus", serverGroupName: "batch-v001" },
  });
  t.equal(res.statusCode, 503);
  t.equal(res.headers["retry-after"], "5");
  t.equal(res.json().error, "ShuttingDown");
  await service.close();
});
