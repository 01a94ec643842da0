// The named races: two resizes at once, a resize against an autoscaler, terminate while a resize is in flight.
import t from "tap";
import { createComputeClient } from "../src/azure/client.ts";
import { simulatorDemoAccount } from "../src/config.ts";
import { demo, startTestEnv } from "./helpers/service.ts";

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
const lines = (task: any) => task.history.map((h: any) => h.status).join("\n");

t.test("two resizes at once: both succeed in turn, the later one wins, no 409, each result is what Azure had", async (t) => {
  const a = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 6 } }));
  const b = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 2 } }));
  const [ta, tb] = await Promise.all([env.waitForTask(a), env.waitForTask(b)]);
  t.equal(ta.status.failed, false);
  t.equal(tb.status.failed, false);
  t.equal(ta.resultObjects[0].capacity.desired, 6);
  t.equal(tb.resultObjects[0].capacity.desired, 2);
  t.match(lines(tb), /set capacity 6 → 2/, "the second planned on the state the first left");
  t.equal((await sim("web-prod-v001")).vmss.sku.capacity, 2);
  t.same((await env.calls()).filter((c) => c.status === 409), []);
});

t.test("a resize against an autoscaler: its change is seen, then knowingly re-planned over", async (t) => {
  await env.simControl("POST", "/_sim/faults", { action: "outOfBandChange", method: "PATCH", pathContains: "web-prod-v002", change: { capacity: 7 }, count: 1 });
  const task = await env.waitForTask(await submit("resizeServerGroup", demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 5 } })));
  t.equal(task.status.failed, false, lines(task));
  t.match(lines(task), /412 PreconditionFailed, retrying/);
  t.match(lines(task), /set capacity 7 → 5/, "the re-plan read the autoscaler's 7");
  t.equal(task.resultObjects[0].capacity.desired, 5);
  t.equal((await sim("web-prod-v002")).vms.length, 5);
});

t.test("terminate while our resize is in flight: it waits its turn and deletes from what the resize left", async (t) => {
  const resize = await submit("resizeServerGroup", demo("web-prod-v001", { capacity: { min: 0, max: 9, desired: 5 } }));
  const terminate = await submit("terminateInstances", demo("web-prod-v001", { instanceIds: ["3", "4"] }));
  const [tr, tt] = await Promise.all([env.waitForTask(resize), env.waitForTask(terminate)]);
  t.equal(tr.status.failed, false);
  t.equal(tt.status.failed, false, lines(tt));
  t.match(lines(tt), /delete instance\(s\) 3, 4 \(capacity 5 → 3\)/, "instances 3 and 4 exist once the resize completed");
  t.same((await sim("web-prod-v001")).vms.map((v: any) => v.instanceId), ["0", "1", "2"]);
  t.equal(tt.resultObjects[0].capacity.desired, 3);
});

t.test("terminate while another tool's resize is in flight: waited out, then planned on the VMs it created", async (t) => {
  const other = createComputeClient(simulatorDemoAccount({ url: env.sim.url, caPem: env.sim.caPem, subscriptionId: env.sim.subscriptionId }));
  const vmss = await other.virtualMachineScaleSets.get("demo-rg", "web-prod-v002");
  const poller = other.virtualMachineScaleSets.update("demo-rg", "web-prod-v002", { sku: { ...vmss.sku, capacity: 5 } }, { ifMatch: vmss.etag, updateIntervalInMs: 20 });
  await poller.submitted();
  const task = await env.waitForTask(await submit("terminateInstances", demo("web-prod-v002", { instanceIds: ["4"] })));
  await poller.pollUntilDone();
  t.equal(task.status.failed, false, lines(task));
  t.match(lines(task), /is Updating \(another write in flight\); waiting/);
  t.match(lines(task), /delete instance\(s\) 4 \(capacity 5 → 4\)/);
  t.same((await sim("web-prod-v002")).vms.map((v: any) => v.instanceId), ["0", "1", "2", "3"]);
});
