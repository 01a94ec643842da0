// The named races: two resizes at once, a resize against an autoscaler, terminate while a resize is in flight.
import t from "tap";
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config/accounts.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 120 });
t.teardown(() => env.close());
t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

async function submit(operation: string, description: unknown): Promise<string> {
  const res = await env.api("POST", `/azure/ops/${operation}`, description);
  if (res.status !== 202) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

const sim = async (name: string) => (await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body;
const lines = (task: Json) => task.history.map((h: Json) => h.status).join("\n");

t.test(
  "two resizes at once: both succeed in turn, the later one wins, no 409, each result is what Azure had",
  async (t) => {
    const a = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } }));
    const b = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 2 } }));
    const [ta, tb] = await Promise.all([env.waitForTask(a), env.waitForTask(b)]);
    t.equal(ta.status.failed, false);
    t.equal(tb.status.failed, false);
    t.equal(ta.resultObjects[0].capacity.desired, 6);
    t.equal(tb.resultObjects[0].capacity.desired, 2);
    t.match(lines(tb), /set capacity 6 → 2/, "the second planned on the state the first left");
    t.equal((await sim("web-prod-v001")).vmss.sku.capacity, 2);
    t.same(
      (await env.calls()).filter((c) => c.status === 409),
      [],
    );
  },
);

t.test("a resize against an autoscaler: its change is seen, then knowingly re-planned over", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    action: "outOfBandChange",
    method: "PATCH",
    pathContains: "web-prod-v002",
    change: { capacity: 7 },
    count: 1,
  });
  const task = await env.waitForTask(
    await submit("resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 5 } })),
  );
  t.equal(task.status.failed, false, lines(task));
  t.match(lines(task), /412 PreconditionFailed, retrying/);
  t.match(lines(task), /set capacity 7 → 5/, "the re-plan read the autoscaler's 7");
  t.equal(task.resultObjects[0].capacity.desired, 5);
  t.equal((await sim("web-prod-v002")).vms.length, 5);
});

t.test(
  "terminate while our resize is in flight: it waits its turn and deletes from what the resize left",
  async (t) => {
    const resize = await submit(
      "resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 0, max: 9, desired: 5 } }),
    );
    const terminate = await submit("terminateInstances", demo("web-prod-v001", { instanceIds: ["3", "4"] }));
    const [tr, tt] = await Promise.all([env.waitForTask(resize), env.waitForTask(terminate)]);
    t.equal(tr.status.failed, false);
    t.equal(tt.status.failed, false, lines(tt));
    t.match(
      lines(tt),
      /delete instance\(s\) 3, 4 \(capacity 5 → 3, then back to 5\)/,
      "instances 3 and 4 exist once the resize completed",
    );
    t.same(
      (await sim("web-prod-v001")).vms.map((v: Json) => v.instanceId),
      ["0", "1", "2", "5", "6"],
      "3 and 4 replaced",
    );
    t.equal(tt.resultObjects[0].capacity.desired, 5, "the capacity the resize left, kept");
  },
);

t.test(
  "terminate while another tool's resize is in flight: waited out, then planned on the VMs it created",
  async (t) => {
    // The other tool's write lasts long enough that the task's first read lands in it even on a loaded machine, where
    // claiming and reading can take seconds: the test is about waiting it out, not about when the task gets there.
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 6000 });
    t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 120 }));
    const other = createComputeClient(
      simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }),
    );
    const vmss = await other.virtualMachineScaleSets.get("demo-rg", "web-prod-v002");
    const poller = other.virtualMachineScaleSets.update(
      "demo-rg",
      "web-prod-v002",
      { sku: { ...vmss.sku, capacity: 5 } },
      { ifMatch: vmss.etag, updateIntervalInMs: 20 },
    );
    await poller.submitted();
    const task = await env.waitForTask(
      await submit("terminateInstances", demo("web-prod-v002", { instanceIds: ["4"] })),
    );
    await poller.pollUntilDone();
    t.equal(task.status.failed, false, lines(task));
    t.match(lines(task), /is Updating \(another write in flight\); waiting/);
    t.match(lines(task), /delete instance\(s\) 4 \(capacity 5 → 4, then back to 5\)/);
    t.same(
      (await sim("web-prod-v002")).vms.map((v: Json) => v.instanceId),
      ["0", "1", "2", "3", "5"],
      "4 replaced",
    );
  },
);

// ---- Azure's own failure modes, as the simulator reproduces them from the recordings ----

const other = () =>
  createComputeClient(
    simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }),
  );
const isScaleSetGet = (c: { method: string; path: string }, name: string) =>
  c.method === "GET" && c.path.toLowerCase().endsWith(`/virtualmachinescalesets/${name}`);
const running = (vms: Json[]) =>
  vms.filter((v) => !["Creating", "Deleting", "Failed"].includes(v.properties?.provisioningState)).length;

async function waitUntilSettled(name: string) {
  await waitFor(async () => !(await sim(name)).inFlight, { what: `${name} to have no write in flight`, intervalMs: 5 });
  return Date.now();
}

// Orca trusts these fields: WaitForCapacityMatchTask.java:100 (spinnaker/orca 2fdb327, orca-clouddriver) compares
// capacity.desired with the instances it lists, and MonitorKatoTask.groovy:234-239 has Clouddriver retry a failed task
// when status.retryable. So a failed scale-out must report the running count as desired, and be retryable.
t.test(
  "AllocationFailed during a scale-out: never reported as confirmed; the result carries the instances Azure lists",
  async (t) => {
    // Every write gets none of its new VMs: the first one, and both re-drives.
    await env.simControl("POST", "/_sim/faults", {
      action: "allocationFailed",
      method: "PATCH",
      pathContains: "web-prod-v001",
      allocatable: 0,
      count: 3,
    });
    const task = await env.waitForTask(
      await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } })),
    );
    const azure = await sim("web-prod-v001");
    t.equal(azure.vmss.sku.capacity, 6, "Azure keeps the requested capacity in the model");
    t.equal(azure.vmss.properties.provisioningState, "Failed");
    t.equal(running(azure.vms), 3, "three VMs run; the three new ones are listed Failed");
    t.equal(task.status.failed, true, lines(task));
    t.equal(task.status.retryable, true, "the same request later can succeed");
    t.notMatch(lines(task), /Azure confirmed|has capacity 6/, "6 is never reported");
    t.match(lines(task), /Failed with 3 of 6 instance\(s\) running; re-sending its model/);
    const result = task.resultObjects.find((r: Json) => r.type === "serverGroup");
    t.match(result, {
      capacity: { desired: 3 },
      instanceCount: 3,
      requestedCapacity: 6,
      confirmed: false,
      provisioningState: "Failed",
    });
    t.match(task.resultObjects.at(-1), { type: "EXCEPTION", cause: "ScaleSetLeftFailed" });
    const patches = (await env.calls()).filter((c) => c.method === "PATCH");
    t.equal(patches.length, 1 + env.config.retry.maxRedrives, "the write, then the bounded re-drives");
  },
);

t.test(
  "AllocationFailed once, then Azure allocates: the re-drive completes the scale-out, confirmed on the VM list",
  async (t) => {
    await env.simControl("POST", "/_sim/faults", {
      action: "allocationFailed",
      method: "PATCH",
      pathContains: "web-prod-v001",
      allocatable: 1,
      count: 1,
    });
    const task = await env.waitForTask(
      await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } })),
    );
    t.equal(task.status.failed, false, lines(task));
    t.match(lines(task), /operation failed AllocationFailed, retrying/);
    t.match(lines(task), /Failed with 4 of 6 instance\(s\) running; re-sending its model to drive it again \(1\/2\)/);
    t.match(task.resultObjects[0], { capacity: { desired: 6 }, instanceCount: 6 });
    t.equal(task.resultObjects[0].confirmed, undefined);
    t.equal(running((await sim("web-prod-v001")).vms), 6);
  },
);

t.test(
  "Canceled (preempted by another writer's write): re-read, re-planned on what it left, never the old plan",
  async (t) => {
    // Halfway through our write, another writer's write (capacity 5) replaces it: ours ends Canceled. The write is long
    // enough that one of our polls (Retry-After is at least 1 s) lands after the halfway mark and before the end.
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 2500 });
    t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 120 }));
    await env.simControl("POST", "/_sim/faults", {
      action: "preemptOperation",
      method: "PATCH",
      pathContains: "web-prod-v002",
      change: { capacity: 5 },
      count: 1,
    });
    const task = await env.waitForTask(
      await submit("resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 2 } })),
    );
    t.equal(task.status.failed, false, lines(task));
    t.match(lines(task), /operation canceled OperationPreempted, retrying/);
    t.match(lines(task), /attempt 2\/\d+: set capacity 5 → 2/, "the second plan started from the other writer's 5");
    const versions: Json[] = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v002/versions")).body;
    const preempting = versions.find((v) => v.source === "outOfBandChange");
    t.ok(preempting, "the other writer's write is a version of its own");
    const patches = (await env.calls()).filter((c) => c.method === "PATCH");
    t.equal(patches.length, 2, "one write canceled, one re-planned; nothing else");
    t.equal(
      patches[1].ifMatch,
      preempting.etag,
      "the second write was planned on the preempting version, not on our canceled one",
    );
    t.equal(task.resultObjects[0].capacity.desired, 2);
    t.equal(running((await sim("web-prod-v002")).vms), 2);
  },
);

t.test(
  "another writer's long write with throttling on: our re-reads stay within a quarter of the read refill",
  async (t) => {
    const throttling = (await env.simControl("GET", "/_sim/throttling")).body;
    t.equal(throttling.enabled, true, "Azure's throttling is on");
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 2000 });
    t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 120 }));
    const client = other();
    const vmss = await client.virtualMachineScaleSets.get("demo-rg", "web-prod-v001");
    const poller = client.virtualMachineScaleSets.update(
      "demo-rg",
      "web-prod-v001",
      { tags: { ...vmss.tags, deployedBy: "other-tool" } },
      { ifMatch: vmss.etag },
    );
    await poller.submitted();
    await env.simControl("DELETE", "/_sim/calls");
    const started = Date.now();
    const id = await submit("scaleDown", demo("web-prod-v001", { capacity: { min: 0, max: 2, desired: 2 } }));
    const otherEnded = await waitUntilSettled("web-prod-v001");
    const task = await env.waitForTask(id);
    await poller.pollUntilDone();
    t.equal(task.status.failed, false, lines(task));
    t.match(lines(task), /is Updating \(another write in flight\); waiting/);
    const gets = (await env.calls()).filter((c) => isScaleSetGet(c, "web-prod-v001") && c.time <= otherEnded);
    // The tests' clock runs 1000 times fast (a minute of refill is 60 ms): a quarter of 12 a minute is 3 per 60 ms.
    const minutes = (otherEnded - started) / (60_000 * 0.001);
    const allowed = 1 + Math.ceil(minutes * 12 * 0.25);
    t.ok(gets.length >= 3, `it did re-read while waiting (${gets.length} GETs)`);
    t.ok(
      gets.length <= allowed,
      `${gets.length} GETs in ${minutes.toFixed(1)} scaled minutes: at most ${allowed} (a quarter of 12 a minute, plus the first read)`,
    );
    t.same(
      (await env.calls()).filter((c) => c.status === 429),
      [],
      "never throttled",
    );
  },
);

t.test("a scale to 0 by another writer, read mid-flight: waited out, not a failed attempt", async (t) => {
  await env.simControl("PUT", "/_sim/config", { writeDurationMs: 600 });
  t.teardown(() => env.simControl("PUT", "/_sim/config", { writeDurationMs: 120 }));
  const client = other();
  const vmss = await client.virtualMachineScaleSets.get("demo-rg", "web-prod-v001");
  const poller = client.virtualMachineScaleSets.update(
    "demo-rg",
    "web-prod-v001",
    { sku: { ...vmss.sku, capacity: 0 } },
    { ifMatch: vmss.etag },
  );
  await poller.submitted();
  const midFlight = await sim("web-prod-v001");
  t.equal(midFlight.vmss.sku.capacity, 0, "mid-flight, Azure already shows the new capacity");
  t.equal(midFlight.vms.length, 3, "while the VMs are still listed");
  const task = await env.waitForTask(await submit("terminateInstances", demo("web-prod-v001", { instanceIds: ["1"] })));
  await poller.pollUntilDone();
  t.equal(task.status.failed, false, lines(task));
  t.match(lines(task), /is Updating \(another write in flight\); waiting for it to end before planning/);
  t.notMatch(lines(task), /attempt 2\/|SuspiciousRead/, "no failed attempt");
  t.match(task.resultObjects[0], { capacity: { desired: 0 }, instanceCount: 0 });
  t.same(
    (await env.calls()).filter((c) => c.method === "POST" && c.path.endsWith("/delete")),
    [],
    "nothing left to delete",
  );
});

t.test(
  "another tool's write preempts ours (the simulator's preempt mode): ours ends Canceled, is waited out and re-planned",
  async (t) => {
    // Whether Azure lets a later write preempt one in flight is not documented: the simulator makes it a mode, and the
    // service is tested in each (conflict is the default of every other test here; the randomized test runs
    // conflictThenPreempt).
    await env.simControl("PUT", "/_sim/config", { concurrentWrites: "preempt", writeDurationMs: 800 });
    t.teardown(() => env.simControl("PUT", "/_sim/config", { concurrentWrites: "conflict", writeDurationMs: 120 }));
    const id = await submit("resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 5 } }));
    await waitFor(async () => Boolean((await sim("web-prod-v002")).inFlight), {
      what: "our write on web-prod-v002 in flight",
      intervalMs: 5,
    });
    const client = other();
    const vmss = await client.virtualMachineScaleSets.get("demo-rg", "web-prod-v002");
    t.equal(vmss.sku?.capacity, 5, "our write is in flight: Azure already shows its model");
    const poller = client.virtualMachineScaleSets.update(
      "demo-rg",
      "web-prod-v002",
      { sku: { ...vmss.sku, capacity: 2 } },
      { ifMatch: vmss.etag },
    );
    await poller.submitted();
    const task = await env.waitForTask(id);
    await poller.pollUntilDone();
    t.equal(task.status.failed, false, lines(task));
    t.match(lines(task), /operation canceled OperationPreempted, retrying/);
    t.match(lines(task), /set capacity 2 → 5/, "re-planned on the other tool's 2");
    t.equal(task.resultObjects[0].capacity.desired, 5);
    t.equal(running((await sim("web-prod-v002")).vms), 5);
  },
);
