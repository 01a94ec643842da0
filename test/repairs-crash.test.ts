// Automatic repairs suspended by a disable stay ours across a crash: the replica is killed (SIGKILL) while the
// disable's network change is in flight with repairs suspended; the next replica takes the task over, finds the
// suspension marked with the task, finishes the disable and resumes repairs. The service is a real child process;
// the simulator ("Azure") outlives it.
import t from "tap";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { restartableServiceEnv, startChildService, type ChildService } from "../testkit/child-service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const NAME = "web-prod-v002";
const sim = await startSimulator({ port: 0, writeDurationMs: 600, timeScale: 0.001, seed: true });
const control = new SimulatorControl(sim);
t.teardown(async () => {
  await control.close();
  await sim.close();
});

const armPath = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${NAME}`;

async function repairsState(): Promise<string | undefined> {
  const res = await control.request("GET", `${armPath}/instanceView?api-version=2026-04-01`, {
    headers: { authorization: "Bearer test" },
  });
  return (res.body as Json).orchestrationServices?.find((s: Json) => s.serviceName === "AutomaticRepairs")
    ?.serviceState;
}

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  let value: T | undefined;
  await waitFor(async () => (value = await probe()) !== undefined, { what, intervalMs: 5 });
  return value as T;
}

async function kill(service: ChildService): Promise<void> {
  service.child.kill("SIGKILL");
  await service.exited;
}

t.test(
  "SIGKILL mid-disable with repairs suspended: the next replica finishes the disable and resumes repairs",
  async (t) => {
    const kind = await control.request("PUT", `/_sim/scaleSets/${RG}/${NAME}/kind`, {
      body: { automaticRepairs: true },
    });
    t.equal(kind.status, 200);
    t.equal(await repairsState(), "Running");

    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-repairs-crash-"));
    const first = await startChildService(restartableServiceEnv(sim.url, dataDir));
    const submitted = await first.api("POST", "/azure/ops/disableServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: NAME,
    });
    t.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const id = submitted.body.id;

    // The network change (If-Match) is accepted and in flight: the point at which VMs begin to leave traffic.
    await until("the network change in flight", async () => {
      const snap = await control.getScaleSet(RG, NAME);
      return snap.inFlight?.kind === "update" && (snap.vmss as Json).tags?.["vmss-ops.disabled"] === "pools"
        ? true
        : undefined;
    });
    t.equal(await repairsState(), "Suspended", "Azure's repairs are suspended while VMs leave traffic");
    t.equal(
      ((await control.getScaleSet(RG, NAME)).vmss as Json).tags["vmss-ops.repairs-suspended-by"],
      id,
      "marked with the task",
    );
    await kill(first);
    t.equal(await repairsState(), "Suspended", "the replica died with repairs suspended");

    const second = await startChildService(restartableServiceEnv(sim.url, dataDir));
    t.teardown(() => void second.child.kill("SIGKILL"));
    const task = await second.waitForTask(id, 120_000);
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.equal(task.state, "succeeded", history);
    t.match(history, /Resumed by replica/);
    t.match(history, /resume automatic repairs, suspended by this task/);

    t.equal(await repairsState(), "Running", "the next owner resumed Azure's repairs");
    const after = await control.getScaleSet(RG, NAME);
    t.equal((after.vmss as Json).tags["vmss-ops.repairs-suspended-by"], undefined, "the mark is gone");
    t.ok(
      after.vms.every((vm: Json) =>
        vm.properties.networkProfileConfiguration.networkInterfaceConfigurations.every((nic: Json) =>
          nic.properties.ipConfigurations.every(
            (ipc: Json) => (ipc.properties.loadBalancerBackendAddressPools ?? []).length === 0,
          ),
        ),
      ),
      "every VM is out of the pools",
    );
    const actions = (await control.calls()).filter(
      (c) => c.method === "POST" && c.path.endsWith("/setOrchestrationServiceState"),
    );
    t.equal(actions.length, 2, "one suspend before the crash, one resume after: not suspended twice");
    second.child.kill("SIGTERM");
    await second.exited;
  },
);

t.test(
  "SIGKILL while waiting for Azure's rollout, then canceled: the next replica ends the task canceled and resumes repairs",
  async (t) => {
    const name = "web-roll-crash";
    await control.putScaleSet(RG, name, { capacity: 5, loadBalanced: true, upgradePolicy: "Rolling" });
    // Repairs on; the rollout outlives the write and takes 3 s: the task waits for it with nothing in flight.
    t.equal(
      (
        await control.request("PUT", `/_sim/scaleSets/${RG}/${name}/kind`, {
          body: { automaticRepairs: true, rolloutAfterWrite: true },
        })
      ).status,
      200,
    );
    await control.setConfig({ writeDurationMs: 3000 });
    t.teardown(() => control.setConfig({ writeDurationMs: 600 }));
    const path = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;
    const repairs = async () =>
      (
        (
          await control.request("GET", `${path}/instanceView?api-version=2026-04-01`, {
            headers: { authorization: "Bearer test" },
          })
        ).body as Json
      ).orchestrationServices?.[0]?.serviceState;

    const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-repairs-cancel-"));
    // A lease of 8 s: the cancel reaches the store while the dead replica's lease still holds the task, so the next
    // replica claims a task that is canceled already (and had started its operation).
    const env = { ...restartableServiceEnv(sim.url, dataDir), TASK_LEASE_MS: "8000" };
    const first = await startChildService(env);
    const submitted = await first.api("POST", "/azure/ops/disableServerGroup", {
      credentials: "demo",
      region: "eastus",
      serverGroupName: name,
    });
    const id = submitted.body.id;
    await until("the wait for Azure's rollout", async () => {
      const { body } = await first.api("GET", `/task/${id}`);
      return body?.history?.some((h: Json) =>
        /waiting for Azure to roll the removal of the backend pools out/.test(h.status),
      )
        ? true
        : undefined;
    });
    t.equal(
      (await control.getScaleSet(RG, name)).inFlight,
      null,
      "nothing in flight: the write ended, Azure's rollout goes on",
    );
    t.equal(await repairs(), "Suspended");
    await kill(first);

    const second = await startChildService(env);
    t.teardown(() => void second.child.kill("SIGKILL"));
    const cancel = await second.api("POST", `/task/${id}/cancel`);
    t.equal(cancel.status, 200);
    t.equal(cancel.body.state, "running", "asked while the dead replica's lease still held the task");
    const task = await second.waitForTask(id, 120_000);
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.equal(task.state, "canceled", history);
    t.match(history, /the operation ended unfinished: resume automatic repairs, suspended by this task/);
    t.equal(await repairs(), "Running", "the replica that ended the task resumed Azure's repairs");
    t.equal(
      ((await control.getScaleSet(RG, name)).vmss as Json).tags["vmss-ops.repairs-suspended-by"],
      undefined,
      "the mark is gone",
    );
    second.child.kill("SIGTERM");
    await second.exited;
  },
);
