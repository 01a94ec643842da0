// A red/black deploy on the simulator through the API only, as Orca runs one on Azure: create v002 from v001 (a
// clone with a new image), disable v001, scale v001 down, destroy v001. The simulator's state is sampled
// throughout: at every sampled moment at least the desired number of instances is in traffic.
//
// Orca's order: the deploy stage's CloneServerGroupTask (CloneServerGroupTask.groovy l.100, `cloneServerGroup`),
// then the red/black strategy's disableCluster, scaleDownCluster (resizeServerGroup to {0,0,0}) and shrinkCluster
// (destroyServerGroup) against the older groups (RedBlackStrategy.groovy l.111-150). Orca enables nothing: the new
// group serves at the end of its create, once its instances are healthy, as clouddriver-azure's does.
import t from "tap";
import { sample, waitFor } from "../testkit/wait-for.ts";
import { startTestEnv } from "./helpers/service.ts";
import type { Json as JsonValue } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 120 });
t.teardown(() => env.close());

const where = { credentials: "demo", region: "eastus" };
const DESIRED = 3;

async function run(op: string, description: unknown) {
  const res = await env.api("POST", `/azure/ops/${op}`, description);
  if (res.status !== 202) throw new Error(`${op}: ${res.status} ${JSON.stringify(res.body)}`);
  const task = await env.waitForTask(res.body.id, 60_000);
  if (task.state !== "succeeded") throw new Error(`${op} ${task.state}: ${JSON.stringify(task.history)}`);
  return task;
}

type Json = Record<string, JsonValue>;

/**
 * A VM serves traffic when it is running (not being created, deleted, or Failed), its NIC is in a backend pool, and
 * the load balancer's probe finds it healthy (the load balancer sends nothing to the others).
 */
function servesTraffic(vm: Json): boolean {
  const state = String(vm.properties?.provisioningState ?? "").toLowerCase();
  if (state === "creating" || state === "deleting" || state === "failed") return false;
  const health = vm.properties?.instanceView?.vmHealth?.status?.code;
  if (health !== undefined && health !== "HealthState/healthy") return false;
  const nics: Json[] = vm.properties?.networkProfileConfiguration?.networkInterfaceConfigurations ?? [];
  return nics.some((nic) =>
    (nic.properties?.ipConfigurations ?? []).some(
      (ipc: Json) => (ipc.properties?.loadBalancerBackendAddressPools ?? []).length > 0,
    ),
  );
}

async function inTraffic(name: string): Promise<number> {
  const res = await env.simControl("GET", `/_sim/scaleSets/demo-rg/${name}`);
  if (res.status === 404) return 0;
  return (res.body.vms as Json[]).filter(servesTraffic).length;
}

t.test(
  "red/black: clone, enable, disable, scale down, destroy; never fewer than the desired instances in traffic",
  async (t) => {
    await env.simControl("PUT", "/_sim/scaleSets/demo-rg/shop-prod-v001", {
      capacity: DESIRED,
      loadBalanced: true,
      upgradePolicy: "Manual",
      tags: { app: "shop" },
    });
    t.equal(await inTraffic("shop-prod-v001"), DESIRED, "v001 serves");

    let step = "start";
    const sampler = sample(async () => {
      const [v001, v002] = await Promise.all([inTraffic("shop-prod-v001"), inTraffic("shop-prod-v002")]);
      return { at: step, v001, v002 };
    }, 5);

    const newImage = { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" };
    step = "clone";
    // Orca's SourceResolver.groovy l.63-64 names the source both as serverGroupName and asgName.
    const source = { account: "demo", region: "eastus", serverGroupName: "shop-prod-v001", asgName: "shop-prod-v001" };
    const cloned = await run("cloneServerGroup", { ...where, cloudProvider: "azure", source, image: newImage });
    // What MonitorKatoTask.groovy l.287-301 makes of the result: deploy.server.groups by region.
    const deployed: Record<string, string[]> = {};
    for (const r of cloned.resultObjects)
      for (const n of r.serverGroupNames ?? []) (deployed[n.split(":")[0]] ??= []).push(n.split(":")[1]);
    t.same(deployed, { eastus: ["shop-prod-v002"] }, "deploy.server.groups");
    t.match(cloned.resultObjects[0], {
      serverGroupNames: ["eastus:shop-prod-v002"],
      instanceCount: DESIRED,
      disabled: false,
    });
    t.equal(await inTraffic("shop-prod-v002"), DESIRED, "when its task ends, every instance of the new group serves");
    step = "disable v001";
    await run("disableServerGroup", { ...where, serverGroupName: "shop-prod-v001" });
    step = "scale down v001";
    await run("resizeServerGroup", {
      ...where,
      serverGroupName: "shop-prod-v001",
      capacity: { min: 0, max: 0, desired: 0 },
    });
    step = "destroy v001";
    const destroyed = await run("destroyServerGroup", { ...where, serverGroupName: "shop-prod-v001" });
    t.match(destroyed.resultObjects[0], { type: "destroyedServerGroup", deletedByThisTask: true });
    step = "end";
    await waitFor(() => sampler.samples.some((s) => s.at === "end"), { what: "a sample taken after the destroy" });
    const samples = await sampler.stop();

    const steps = new Set(samples.map((s) => s.at));
    for (const s of ["clone", "disable v001", "scale down v001", "destroy v001"])
      t.ok(steps.has(s), `sampled during ${s}`);
    t.ok(samples.length >= 20, `${samples.length} samples`);
    const low = samples.filter((s) => s.v001 + s.v002 < DESIRED);
    t.same(
      low,
      [],
      `never fewer than ${DESIRED} in traffic (lowest: ${Math.min(...samples.map((s) => s.v001 + s.v002))})`,
    );
    t.ok(
      samples.some((s) => s.at === "clone" && s.v002 === 0 && s.v001 === DESIRED),
      "the clone served nothing until its instances were healthy",
    );

    const last = samples.at(-1)!;
    t.same({ v001: last.v001, v002: last.v002 }, { v001: 0, v002: DESIRED }, "v002 alone serves");
    t.equal((await env.simControl("GET", "/_sim/scaleSets/demo-rg/shop-prod-v001")).status, 404, "v001 is gone");
    const v002 = (await env.simControl("GET", "/_sim/scaleSets/demo-rg/shop-prod-v002")).body;
    t.ok(
      (v002.vms as Json[]).every((vm) => vm.properties.storageProfile.imageReference.version === newImage.version),
      "every v002 instance runs the new image",
    );
  },
);
