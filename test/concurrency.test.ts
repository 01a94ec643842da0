// Other writers on the same scale set: a write still in flight (409), and an out-of-band change (412).
import t from "tap";
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config/accounts.ts";
import { demo, startTestEnv, writesOf } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { Json } from "../testkit/json.ts";

const WRITE_MS = 300;
const env = await startTestEnv({ writeDurationMs: WRITE_MS });
t.teardown(() => env.close());

t.beforeEach(async () => {
  await env.simControl("POST", "/_sim/reset");
});

async function waitForInFlight(name: string) {
  await waitFor(async () => Boolean((await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`)).body.inFlight), {
    what: `a write in flight on ${name}`,
    intervalMs: 5,
  });
}

async function submit(operation: string, description: unknown) {
  const res = await env.api("POST", `/azure/ops/${operation}`, description);
  if (res.status !== 202) throw new Error(JSON.stringify(res.body));
  return res.body.id as string;
}

t.test(
  "our own disable still in flight, then scaleDown at once: queued, no 409, both succeed, capacity 0",
  async (t) => {
    const disableId = await submit("disableServerGroup", demo("web-prod-v001"));
    await waitForInFlight("web-prod-v001");
    const scaleDownId = await submit("scaleDown", demo("web-prod-v001"));
    const [disable, scaleDown] = await Promise.all([env.waitForTask(disableId), env.waitForTask(scaleDownId)]);
    t.equal(disable.status.failed, false, JSON.stringify(disable.history));
    t.equal(scaleDown.status.failed, false, JSON.stringify(scaleDown.history));
    t.ok(
      scaleDown.history.some(
        (h: Json) =>
          h.status.startsWith(`Waiting for task ${disableId} on scale set `) &&
          /\/web-prod-v001 to finish/.test(h.status),
      ),
      `scaleDown waited its turn: ${JSON.stringify(scaleDown.history)}`,
    );
    t.same(
      (await env.calls()).filter((c) => c.status === 409),
      [],
      "our own tasks never 409 each other",
    );
    const state = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v001")).body;
    t.equal(state.vmss.sku.capacity, 0);
    t.equal(state.vms.length, 0);
    t.equal(scaleDown.resultObjects[0].capacity.desired, 0, "reported capacity is what Azure confirmed");
    t.equal(scaleDown.resultObjects[0].disabled, true, "the disable's record survives the scale down");
  },
);

t.test("another writer's write in flight (the Spinnaker race), then scaleDown: waited out, capacity 0", async (t) => {
  // Another deployment tool's write, sent straight to "Azure": not ours, so not in our queue.
  const other = createComputeClient(
    simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }),
  );
  const foreign = other.virtualMachineScaleSets.update(
    "demo-rg",
    "web-prod-v002",
    { tags: { deployedBy: "other-tool" } },
    { updateIntervalInMs: 20 },
  );
  await foreign.submitted();
  const id = await submit("scaleDown", demo("web-prod-v002"));
  const task = await env.waitForTask(id);
  await foreign.pollUntilDone();
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  t.ok(
    task.history.some((h: Json) =>
      /is Updating \(another write in flight\); waiting|409 ConflictingConcurrentWriteNotAllowed, retrying/.test(
        h.status,
      ),
    ),
    `scaleDown saw the write in flight and waited it out: ${JSON.stringify(task.history)}`,
  );
  const conflicted = (await env.calls()).filter((c) => c.method === "PATCH" && c.status === 409).length;
  t.ok(conflicted <= 1, `at most one doomed write (${conflicted}): the harness reads the lock instead of hammering it`);
  const vmss = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v002")).body.vmss;
  t.equal(vmss.sku.capacity, 0);
  t.equal(vmss.tags.deployedBy, "other-tool", "the other tool's change was planned on, not overwritten");
});

t.test("a 412 from an out-of-band change leads to a re-read, and the other writer's change survives", async (t) => {
  // Just before our write lands, "a person in the portal" adds a tag: our If-Match is now stale.
  await env.simControl("POST", "/_sim/faults", {
    method: "PATCH",
    pathContains: "web-prod-v001",
    action: "outOfBandChange",
    change: { tags: { owner: "portal-user" } },
    count: 1,
  });
  const id = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } }));
  const task = await env.waitForTask(id);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  const patches = writesOf(await env.calls()).filter((c) => c.method === "PATCH");
  t.same(
    patches.map((p) => p.status),
    [412, 200],
    "stale ETag refused, then a write planned on the fresh read",
  );
  t.not(patches[0].ifMatch, patches[1].ifMatch, "the second write used the new ETag");
  t.ok(
    task.history.some((h: Json) => /412 PreconditionFailed, retrying/.test(h.status)),
    JSON.stringify(task.history),
  );
  const vmss = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v001")).body.vmss;
  t.equal(vmss.sku.capacity, 6);
  t.equal(vmss.tags.owner, "portal-user", "no lost update");
  t.equal(vmss.tags["vmss-ops.max"], "9");
});

t.test("an autoscaler's capacity change before our write is re-planned over, not overwritten blindly", async (t) => {
  await env.simControl("POST", "/_sim/faults", {
    method: "PATCH",
    pathContains: "web-prod-v002",
    action: "outOfBandChange",
    change: { capacity: 1 },
    count: 1,
  });
  const id = await submit("scaleDown", demo("web-prod-v002", { capacity: { min: 0, max: 5, desired: 2 } }));
  const task = await env.waitForTask(id);
  t.equal(task.status.failed, false, JSON.stringify(task.history));
  // The re-read saw 1 running; scaleDown never raises, so 1 it stays.
  t.equal(task.resultObjects[0].capacity.desired, 1);
  t.equal((await env.simControl("GET", "/_sim/scaleSets/demo-rg/web-prod-v002")).body.vmss.sku.capacity, 1);
});
