// scaleDownCluster and disableCluster against the simulator: the cluster is read, Orca's selection is made when the
// request comes in, and one task acts on the chosen server groups, with one history line per server group of the
// cluster. The selection's own cases (Orca's spec rows) are in test/cluster-selection.test.ts.
//
// Orca (spinnaker/orca 2fdb327), orca-clouddriver/.../tasks/cluster/:
//   ScaleDownClusterTask.groovy l.43-56: each server group acted on gets resizeServerGroup with capacity 0/0/0
//   DisableClusterTask.groovy l.29-31: disableServerGroup
//   AbstractClusterWideClouddriverTask.groovy l.107-117: the selection is made per location (region)
import t from "tap";
import { SimulatorControl } from "vmss-simulator";
import { waitFor } from "../testkit/wait-for.ts";
import { callsFor, demo, startTestEnv, writesOf } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ writeDurationMs: 60 });
t.teardown(() => env.close());
const control = new SimulatorControl(env.sim);

t.beforeEach(async () => {
  await control.reset();
  // web-prod-v001 and web-prod-v002 come from the seed; v003 is created after them, so it is the newest.
  const seeded = Date.now();
  await waitFor(() => Date.now() > seeded, { what: "the clock to move past the seed's timeCreated", intervalMs: 1 });
  await control.putScaleSet("demo-rg", "web-prod-v003", { capacity: 2, loadBalanced: true, tags: { app: "web" } });
  await control.clearCalls();
});

async function run(operation: string, body: Record<string, unknown>) {
  const res = await env.api("POST", `/azure/ops/${operation}`, { credentials: "demo", regions: ["eastus"], ...body });
  if (res.status !== 202) throw new Error(`${res.status} ${JSON.stringify(res.body)}`);
  return env.waitForTask(res.body.id);
}

const lineFor = (task: Json, name: string) =>
  task.history.find((h: Json) => h.status.startsWith(`${name} (eastus): `))?.status;
const disabled = async (name: string) =>
  (await env.api("GET", `/azure/serverGroups/demo/eastus/demo-rg/${name}`)).body.disabled;

t.test(
  "disableCluster: the newest stays enabled, the older ones are disabled, one line per server group",
  async (t) => {
    const task = await run("disableCluster", { cluster: "web-prod" });
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    t.same(task.operations, ["disableServerGroup", "disableServerGroup"]);
    t.match(lineFor(task, "web-prod-v003"), /left enabled: the newest/);
    t.match(lineFor(task, "web-prod-v001"), /disabled$/);
    t.match(lineFor(task, "web-prod-v002"), /disabled$/);
    t.same(
      [await disabled("web-prod-v001"), await disabled("web-prod-v002"), await disabled("web-prod-v003")],
      [true, true, false],
    );
  },
);

t.test("scaleDownCluster: active server groups are skipped unless allowed; nothing is written", async (t) => {
  const task = await run("scaleDownCluster", { cluster: "web-prod" });
  t.equal(task.state, "succeeded");
  t.same(task.operations, [], "no operation");
  for (const name of ["web-prod-v001", "web-prod-v002", "web-prod-v003"])
    t.match(lineFor(task, name), /left as it is: active, and allowScaleDownActive is false/);
  t.same(writesOf(await control.calls()), [], "no write");
});

t.test(
  "scaleDownCluster, active allowed, preferLargerOverNewer: the largest is kept, the others go to 0",
  async (t) => {
    const resized = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup?wait=30",
      demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 5 } }),
    );
    t.equal(resized.body.state, "succeeded");
    const task = await run("scaleDownCluster", {
      cluster: "web-prod",
      allowScaleDownActive: true,
      preferLargerOverNewer: true,
    });
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    t.match(lineFor(task, "web-prod-v002"), /kept at full size: the largest/);
    const capacity = async (name: string) =>
      (await env.api("GET", `/azure/serverGroups/demo/eastus/demo-rg/${name}`)).body.capacity.desired;
    t.same(
      [await capacity("web-prod-v001"), await capacity("web-prod-v002"), await capacity("web-prod-v003")],
      [0, 5, 0],
    );
    t.equal(
      writesOf(callsFor(await control.calls(), "web-prod-v002")).length,
      1,
      "only the resize that made it the largest wrote to it",
    );
  },
);

t.test("a cluster of one is left alone", async (t) => {
  const task = await run("scaleDownCluster", { cluster: "batch", allowScaleDownActive: true });
  t.same(task.operations, []);
  t.match(lineFor(task, "batch-v001"), /kept at full size/);
  t.same(writesOf(await control.calls()), []);
});

t.test("bad input names the field", async (t) => {
  const notACluster = await env.api("POST", "/azure/ops/scaleDownCluster", {
    credentials: "demo",
    regions: ["eastus"],
    cluster: "web-prod-v001",
  });
  t.equal(notACluster.status, 400);
  t.match(notACluster.body.details, [{ field: "cluster" }]);
  const noRegion = await env.api("POST", "/azure/ops/disableCluster", { credentials: "demo", cluster: "web-prod" });
  t.equal(noRegion.status, 400);
  t.match(noRegion.body.details, [{ field: "regions" }]);
});

t.test(
  "?dryRun=true: the selection and each server group's plan, nothing written, no task; ?wait answers with the task",
  async (t) => {
    const before = (await env.api("GET", "/task?limit=500")).body.tasks.length;
    const dry = await env.api("POST", "/azure/ops/disableCluster?dryRun=true", {
      credentials: "demo",
      regions: ["eastus"],
      cluster: "web-prod",
    });
    t.equal(dry.status, 200, JSON.stringify(dry.body));
    t.equal(dry.body.selection.length, 3, "one line per server group");
    t.same(dry.body.operations.map((o: Json) => [o.operation, o.write?.kind]).sort(), [
      ["disableServerGroup", "update"],
      ["disableServerGroup", "update"],
    ]);
    t.same(writesOf(await control.calls()), [], "nothing written");
    t.equal((await env.api("GET", "/task?limit=500")).body.tasks.length, before, "no task stored");
    const waited = await env.api("POST", "/azure/ops/disableCluster?wait=30", {
      credentials: "demo",
      regions: ["eastus"],
      cluster: "web-prod",
    });
    t.equal(waited.status, 200);
    t.equal(waited.body.state, "succeeded");
    t.same(
      waited.body.history
        .slice(0, 3)
        .map((h: Json) => h.status)
        .sort(),
      [...dry.body.selection].sort(),
      "the run selected what the dry run said",
    );
  },
);

t.test(
  "clientRequestId: the same cluster request again is the same task, even after it acted; another request with it is a 409",
  async (t) => {
    const path = "/azure/ops/disableCluster?clientRequestId=orca-stage-7";
    const first = await env.api("POST", path, { credentials: "demo", regions: ["eastus"], cluster: "web-prod" });
    t.equal(first.status, 202, JSON.stringify(first.body));
    const task = await env.waitForTask(first.body.id);
    t.equal(task.state, "succeeded");
    // The retry reads the cluster again and would select nothing more (its older server groups are disabled now).
    const again = await env.api("POST", path, { credentials: "demo", regions: ["eastus"], cluster: "web-prod" });
    t.equal(again.status, 202);
    t.equal(again.body.id, first.body.id, "the same task, not a second one");
    const other = await env.api("POST", path, { credentials: "demo", regions: ["eastus"], cluster: "api-prod" });
    t.equal(other.status, 409, JSON.stringify(other.body));
    t.match(other.body.message, /clientRequestId "orca-stage-7" was already used for a different request/);
    const bad = await env.api("POST", "/azure/ops/scaleDownCluster?clientRequestId=has%20space", {
      credentials: "demo",
      regions: ["eastus"],
      cluster: "web-prod",
    });
    t.equal(bad.status, 400, "a clientRequestId that is not printable ASCII is refused, naming it");
    t.match(JSON.stringify(bad.body), /clientRequestId/);
  },
);

t.test(
  "the cluster's reads: a transient failure is read again; a throttle past the read's deadline is a 503, not an internal error",
  async (t) => {
    // The listing of the resource group: one 503 is read again (observe), and the selection is made as usual.
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: "/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets",
      status: 503,
      code: "ServiceUnavailable",
      count: 1,
    });
    const task = await run("disableCluster", { cluster: "web-prod" });
    t.equal(task.state, "succeeded", JSON.stringify(task.history));
    await control.reset();
    // Azure asks for an hour: more than the read may wait, so it answers at once, passing the wait on.
    await env.simControl("POST", "/_sim/faults", {
      method: "GET",
      pathContains: "/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets",
      status: 429,
      code: "TooManyRequests",
      retryAfterSeconds: 3600,
      count: 100,
    });
    const res = await env.api("POST", "/azure/ops/disableCluster", {
      credentials: "demo",
      regions: ["eastus"],
      cluster: "web-prod",
    });
    t.equal(res.status, 503, JSON.stringify(res.body));
    t.match(res.body, { error: "AzureUnavailable", message: /cluster web-prod in demo/ });
  },
);
