// A rolling upgrade survives SIGKILL of the service, twice: once while a batch's surge is in flight (its poller is
// stored, and followed after the restart), once while the service waits for a batch's new instances to pass the
// health probe (nothing in flight: the fresh read shows the surge already made). Either way the plan, a pure function
// of a fresh read, resumes the batch it was in: exactly five surges for 10 instances with maxSurge 2, counted in the
// simulator's version history, and never fewer than 10 healthy instances in traffic. The service is a real child
// process; the simulator outlives it.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { sample, waitFor } from "../testkit/wait-for.ts";
import { restartableServiceEnv, startChildService, type ChildService } from "../testkit/child-service.ts";
import { waitForStoredPoller } from "./helpers/stored-checkpoint.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const NAME = "web-ru-restart";
// Writes of 400 ms; a new instance is healthy 400 ms (0.001 × 400 Azure seconds) after it runs.
const sim = await startSimulator({
  port: 0,
  writeDurationMs: 400,
  timeScale: 0.001,
  seed: true,
  healthProbeSeconds: 400,
});
const control = new SimulatorControl(sim);
t.teardown(async () => {
  await control.close();
  await sim.close();
});

const env = (dataDir: string) => ({
  ...restartableServiceEnv(sim.url, dataDir),
  AZURE_SCALE_SET_READS_PER_MINUTE: "12000",
});

async function healthyInTraffic(): Promise<number> {
  const snap = await control.getScaleSet(RG, NAME);
  return snap.vms.filter(
    (vm: Json) =>
      vm.properties.provisioningState === "Succeeded" &&
      vm.properties.instanceView?.vmHealth?.status?.code === "HealthState/healthy",
  ).length;
}

async function untilHistory(service: ChildService, id: string, pattern: RegExp): Promise<void> {
  await waitFor(
    async () => {
      const { body } = await service.api("GET", `/task/${id}`);
      return Boolean(body?.history?.some((h: Json) => pattern.test(h.status)));
    },
    { what: `a history line like ${String(pattern)}`, intervalMs: 5 },
  );
}

async function kill(service: ChildService): Promise<void> {
  service.child.kill("SIGKILL");
  await service.exited;
}

t.test("SIGKILL mid-surge and mid-wait: resumed at the batch it was in, with no extra surge", async (t) => {
  await control.putScaleSet(RG, NAME, { capacity: 10, loadBalanced: true });
  // Samples taken while the probe is held (below) are left out: the hold makes healthy instances initializing again.
  let held = false;
  const sampler = sample(async () => {
    const heldBefore = held;
    const healthy = await healthyInTraffic();
    return heldBefore || held ? undefined : healthy;
  });

  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-rolling-upgrade-restart-"));
  const first = await startChildService(env(dataDir));
  const submitted = await first.api("POST", "/azure/ops/rollingUpgrade", {
    credentials: "demo",
    region: "eastus",
    serverGroupName: NAME,
    image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" },
    maxSurge: 2,
    maxUnavailable: 0,
  });
  t.equal(submitted.status, 202, JSON.stringify(submitted.body));
  const id = submitted.body.id;

  // 1: batch 2's surge is accepted and in flight when the service dies.
  await untilHistory(first, id, /batch 2\/5: surge 10 → 12/);
  await waitForStoredPoller(dataDir, id); // accepted; its poller checkpointed
  t.equal((await control.getScaleSet(RG, NAME)).inFlight?.kind, "update", "the surge is in flight");
  await kill(first);

  // 2: the restarted service follows the stored poller, then waits for a batch's new instances; killed while waiting.
  // The probe is held for the wait (3600 Azure seconds at 0.005: 18 s from each new instance's start, where it is 0.4 s
  // otherwise), so the wait is still under way when it is seen, however busy the machine.
  held = true;
  await control.setConfig({ healthProbeSeconds: 3600, timeScale: 0.005 });
  const second = await startChildService(env(dataDir));
  await untilHistory(second, id, /batch [2-5]\/5: waiting for the new instance\(s\)/);
  t.equal((await control.getScaleSet(RG, NAME)).inFlight, null, "nothing in flight while waiting");
  await kill(second);
  await control.setConfig({ healthProbeSeconds: 400, timeScale: 0.001 });
  held = false;

  const third = await startChildService(env(dataDir));
  t.teardown(() => void third.child.kill("SIGKILL"));
  const task = await third.waitForTask(id, 120_000);
  const seen = (await sampler.stop()).filter((n) => n !== undefined);
  const history = task.history.map((h: Json) => h.status).join("\n");
  t.equal(task.state, "succeeded", history);
  t.match(history, /resuming the write Azure accepted before a restart: batch 2\/5: surge 10 → 12/);
  // Once per restart at least. On a loaded machine a replica can also miss a renewal of its 1.5 s lease and take the
  // task back itself, which is a resume too (and no write is repeated: the counts below hold either way).
  t.ok((history.match(/Resumed by replica/g)?.length ?? 0) >= 2, "resumed after each restart");

  const versions = (await control.request("GET", `/_sim/scaleSets/${RG}/${NAME}/versions`)).body as {
    capacity: number;
    source: string;
  }[];
  const surges = versions.filter((v, i) => i > 0 && v.source === "arm" && v.capacity > versions[i - 1].capacity).length;
  t.equal(surges, 5, "five surges: none repeated after a restart");
  const patches = (await control.calls()).filter(
    (c) => c.method === "PATCH" && c.path.toLowerCase().endsWith(`/virtualmachinescalesets/${NAME}`.toLowerCase()),
  );
  t.equal(patches.length, 7, "the model, five surges and the end of the upgrade: one PATCH each");
  t.ok(seen.length > 20, `sampled ${seen.length} times`);
  t.equal(Math.min(...seen), 10, "never fewer than 10 healthy instances in traffic");
  const after = await control.getScaleSet(RG, NAME);
  t.equal(after.vms.length, 10);
  t.ok(
    after.vms.every((vm: Json) => vm.properties.latestModelApplied === true),
    "every instance on the new model",
  );
  third.child.kill("SIGTERM");
  await third.exited;
});
