// rollingUpgrade end to end: the real service, the real SDK, the simulator with its health probe. A sampler reads
// the simulator throughout and counts the instances in traffic that its probe reports healthy. The planning order
// follows Cluster API Provider Azure's machine-pool rolling update (kubernetes-sigs/cluster-api-provider-azure at
// 69ec3a4, azure/scope/strategies/machinepool_deployments/machinepool_deployment_strategy.go l.92-112 for the
// budgets, l.208-350 for the order; azure/scope/machinepool.go l.332-360 for the surge of the scale set's capacity).
import t from "tap";
import { newStage, Orca } from "../testkit/orca.ts";
import { sample, waitFor } from "../testkit/wait-for.ts";
import { demo, startTestEnv, type TestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
const NEW_IMAGE = { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" };

let env: TestEnv;
t.before(async () => {
  env = await startTestEnv({ writeDurationMs: 100 });
});
t.teardown(() => env.close());

async function freshScaleSet(name: string, capacity: number, extra: Record<string, unknown> = {}) {
  await env.simControl("DELETE", "/_sim/faults");
  // 0.001 × 200 Azure seconds: a new instance is healthy 200 ms after it runs, twice a write's 100 ms.
  await env.simControl("PUT", "/_sim/config", { healthProbeSeconds: 200 });
  const res = await env.simControl("PUT", `/_sim/scaleSets/${RG}/${name}`, { capacity, loadBalanced: true, ...extra });
  if (res.status >= 300) throw new Error(JSON.stringify(res.body));
}

/** Instances in a load-balancer pool that the simulator's probe reports healthy, read from its control API. */
async function healthyInTraffic(name: string): Promise<number> {
  const { body } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}`);
  return body.vms.filter((vm: Json) => {
    const inPool = (vm.properties.networkProfileConfiguration?.networkInterfaceConfigurations ?? []).some((nic: Json) =>
      nic.properties.ipConfigurations.some(
        (ipc: Json) => (ipc.properties.loadBalancerBackendAddressPools ?? []).length > 0,
      ),
    );
    return (
      inPool &&
      vm.properties.provisioningState === "Succeeded" &&
      vm.properties.instanceView?.vmHealth?.status?.code === "HealthState/healthy"
    );
  }).length;
}

/** Samples until stopped; returns every count seen. */
function sampleHealthy(name: string) {
  const sampler = sample(() => healthyInTraffic(name), 5);
  return { seen: sampler.samples, stop: sampler.stop };
}

async function capacityIncreases(name: string): Promise<number> {
  const { body } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}/versions`);
  let n = 0;
  for (let i = 1; i < body.length; i++) if (body[i].source === "arm" && body[i].capacity > body[i - 1].capacity) n++;
  return n;
}

t.test(
  "10 instances, maxSurge 2, maxUnavailable 0: never fewer than 10 healthy in traffic, all on the new model at the end",
  async (t) => {
    const name = "web-ru-v001";
    await freshScaleSet(name, 10);
    t.equal(await healthyInTraffic(name), 10, "all 10 healthy before");
    const sampler = sampleHealthy(name);
    const submitted = await env.api(
      "POST",
      "/azure/ops/rollingUpgrade",
      demo(name, { image: NEW_IMAGE, maxSurge: 2, maxUnavailable: 0 }),
    );
    t.equal(submitted.status, 202, JSON.stringify(submitted.body));
    const task = await env.waitForTask(submitted.body.id, 120_000);
    const seen = await sampler.stop();
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.equal(task.state, "succeeded", history);
    t.ok(seen.length > 20, `sampled ${seen.length} times`);
    t.equal(Math.min(...seen), 10, "never fewer than 10 healthy instances in traffic");
    t.ok(Math.max(...seen) <= 12, "never more than desired + maxSurge");

    const { body: after } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}`);
    t.equal(after.vms.length, 10);
    t.ok(
      after.vms.every((vm: Json) => vm.properties.latestModelApplied === true),
      "every instance on the latest model",
    );
    t.same(after.vms[0].properties.storageProfile.imageReference, NEW_IMAGE, "and the latest model is the new image");
    t.equal(after.vmss.sku.capacity, 10);
    t.notOk("vmss-ops.upgrade-desired" in after.vmss.tags, "the under-way record is removed");
    t.equal(await capacityIncreases(name), 5, "five surges of 2 for 10 instances");
    t.comment(
      `10 instances upgraded in ${task.endTimeMs - task.startTimeMs} ms with ${task.armCalls} ARM calls (writes 100 ms, probe 200 ms)`,
    );

    // A batch deletes its two out-of-date instances once replacements are healthy: both at once, or one by one when a
    // read finds one of the two new instances healthy before the other (the health wait reads when the probe can
    // first answer, which a loaded machine can reach between the two).
    const deletedIn = (b: number) =>
      [
        ...history.matchAll(
          new RegExp(
            `batch ${b}/5: surged \\d, replaced \\d, healthy 10/10: delete out-of-date instance\\(s\\) ([\\d, ]+) \\(`,
            "g",
          ),
        ),
      ].flatMap((m) => m[1].split(",").map((id: string) => Number(id.trim())));
    for (let b = 1; b <= 5; b++) t.equal(deletedIn(b).length, 2, `batch ${b} deletes two out-of-date instances`);
    t.match(history, /batch 1\/5: surge 10 → 12/);
    t.match(history, /waiting for the new instance\(s\) to be running and healthy in the load balancer's pool/);
    t.match(task.resultObjects[0], {
      type: "serverGroup",
      serverGroupName: name,
      capacity: { desired: 10 },
      instanceCount: 10,
    });
    // Oldest first: the first batch removes instances 0 and 1.
    t.same(deletedIn(1), [0, 1], "oldest first: batch 1 deletes instances 0 and 1");

    const again = await env.api(
      "POST",
      "/azure/ops/rollingUpgrade",
      demo(name, { image: NEW_IMAGE, maxSurge: 2, maxUnavailable: 0 }),
    );
    const second = await env.waitForTask(again.body.id);
    t.equal(second.state, "succeeded");
    t.match(second.history.map((h: Json) => h.status).join("\n"), /every instance runs the new model/);
    t.equal(await capacityIncreases(name), 5, "the same upgrade again changes nothing");
  },
);

t.test(
  "an allocation failure during a surge stops at a safe point: failed instances removed, old ones serving, the task says why",
  async (t) => {
    const name = "web-ru-v002";
    await freshScaleSet(name, 4);
    const sampler = sampleHealthy(name);
    const submitted = await env.api(
      "POST",
      "/azure/ops/rollingUpgrade",
      demo(name, { sku: { name: "Standard_D4s_v3" }, maxSurge: 2 }),
    );
    t.equal(submitted.status, 202);
    // Once the first batch is being replaced, the next surge finds no capacity in the region.
    await waitFor(
      async () => {
        const { body } = await env.api("GET", `/task/${submitted.body.id}`);
        return body.history.some((h: Json) => /batch 1\/2: surged 2, replaced [12]/.test(h.status));
      },
      { what: "batch 1/2 replaced", intervalMs: 5 },
    );
    await env.simControl("POST", "/_sim/faults", {
      action: "allocationFailed",
      method: "PATCH",
      pathContains: `/virtualMachineScaleSets/${name}`,
      allocatable: 0,
      count: 1,
    });
    const task = await env.waitForTask(submitted.body.id, 60_000);
    const seen = await sampler.stop();
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.equal(task.state, "failed", history);
    t.equal(Math.min(...seen), 4, "never fewer than 4 healthy in traffic");
    t.match(
      task.status.status,
      /Azure could not allocate 2 new instance\(s\) \(\d+, \d+\) in batch 2\/2; the failed instance\(s\) were removed/,
    );
    t.match(task.status.status, /4 instance\(s\) ready \(2 on the old model, 2 on the new\), 2 of 4 replaced/);
    t.match(history, /batch 2\/2: remove failed instance\(s\)/);
    t.match(task.resultObjects, [{ type: "EXCEPTION", cause: "AllocationFailed" }]);

    const { body: after } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}`);
    t.equal(after.vms.length, 4, "back at the desired count");
    t.ok(
      after.vms.every((vm: Json) => vm.properties.provisioningState === "Succeeded"),
      "no Failed instance left behind",
    );
    t.equal(
      after.vms.filter((vm: Json) => vm.properties.latestModelApplied === false).length,
      2,
      "the two old instances still serve",
    );
    t.equal(after.vmss.properties.provisioningState, "Succeeded");

    // Submitted again once Azure has capacity: it continues from here.
    const again = await env.api(
      "POST",
      "/azure/ops/rollingUpgrade",
      demo(name, { sku: { name: "Standard_D4s_v3" }, maxSurge: 2 }),
    );
    const resumed = await env.waitForTask(again.body.id, 60_000);
    t.equal(resumed.state, "succeeded", JSON.stringify(resumed.history));
    const { body: done } = await env.simControl("GET", `/_sim/scaleSets/${RG}/${name}`);
    t.ok(done.vms.every((vm: Json) => vm.properties.latestModelApplied && vm.sku.name === "Standard_D4s_v3"));
  },
);

t.test("bad input is a 400 naming the field", async (t) => {
  const both0 = await env.api(
    "POST",
    "/azure/ops/rollingUpgrade",
    demo("web-prod-v001", { image: NEW_IMAGE, maxSurge: 0, maxUnavailable: "0%" }),
  );
  t.equal(both0.status, 400);
  t.match(JSON.stringify(both0.body), /maxSurge/);
  t.match(JSON.stringify(both0.body), /both 0/);
  const nothing = await env.api("POST", "/azure/ops/rollingUpgrade", demo("web-prod-v001", { maxSurge: 1 }));
  t.equal(nothing.status, 400);
  t.match(JSON.stringify(nothing.body), /image.*at least one change/);
  const badPercent = await env.api(
    "POST",
    "/azure/ops/rollingUpgrade",
    demo("web-prod-v001", { image: NEW_IMAGE, maxSurge: "150%" }),
  );
  t.equal(badPercent.status, 400);
  t.match(JSON.stringify(badPercent.body), /maxSurge/);
  const ownTag = await env.api(
    "POST",
    "/azure/ops/rollingUpgrade",
    demo("web-prod-v001", { tags: { "vmss-ops.min": "1" } }),
  );
  t.equal(ownTag.status, 400);
  t.match(JSON.stringify(ownTag.body), /tags\.vmss-ops\.min/);
});

t.test("a scale set with Azure's Rolling upgrade policy is refused before anything is written", async (t) => {
  const name = "web-ru-rolling";
  await freshScaleSet(name, 3, { upgradePolicy: "Rolling" });
  await env.simControl("DELETE", "/_sim/calls");
  const submitted = await env.api("POST", "/azure/ops/rollingUpgrade", demo(name, { image: NEW_IMAGE }));
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.state, "failed");
  t.match(task.status.status, /upgrade policy Rolling: .*Use Azure's rolling upgrade/);
  t.same(
    (await env.calls()).filter((c) => c.method !== "GET"),
    [],
    "no write",
  );
});

t.test(
  "through Orca's generic path: the stage context as the description, Orca's task monitoring, its server-group read",
  async (t) => {
    // Orca has no Azure rolling-upgrade stage; a custom stage submits like every other: KatoService.requestOperations
    // (KatoService.java:52-59 → KatoRestService.java:30-34, POST /azure/ops with [{"rollingUpgrade": context}] and
    // its clientRequestId), then MonitorKatoTask (MonitorKatoTask.groovy:123, :255-257) polls GET /task/{id}.
    const name = "web-ru-v003";
    await freshScaleSet(name, 3);
    const orca = new Orca(env.api, { pollMs: 20 });
    const stage = newStage({
      credentials: "demo",
      region: "eastus",
      serverGroupName: name,
      cloudProvider: "azure",
      moniker: { app: "web" },
      image: NEW_IMAGE,
      maxSurge: "33%",
      maxUnavailable: null,
      deletePolicy: "Newest",
      user: "pipeline",
    });
    const taskId = await orca.requestOperations(stage, [{ rollingUpgrade: { ...stage.context } }]);
    const task = await orca.monitorKato(stage, taskId);
    t.equal(task.status.completed, true);
    const history = task.history.map((h: Json) => h.status).join("\n");
    t.match(
      history,
      /maxSurge 33%, maxUnavailable 0, delete Newest first/,
      "null is absent: maxUnavailable defaults to 0",
    );
    t.match(history, /batch 1\/3: surge 3 → 4/, "33% of 3 (0.99) rounds up to 1");
    t.match(
      history,
      /batch 1\/3: surged 1, replaced 1, healthy 3\/3: delete out-of-date instance\(s\) 2 /,
      "Newest first",
    );
    const sg = await orca.api("GET", `/serverGroups/demo/eastus/${name}`);
    t.equal(sg.status, 200);
    t.equal(sg.body.instances.length, 3);
    t.ok(
      sg.body.instances.every((i: Json) => i.healthState === "Up" && i.latestModelApplied === true),
      "Orca sees three Up instances on the latest model",
    );
  },
);
