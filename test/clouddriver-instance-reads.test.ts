// The two Clouddriver reads Orca's instance stages make, answered from what the simulator holds, and Orca's
// decisions on them as testkit/orca.ts follows its source (spinnaker/orca, orca-clouddriver/src/main/):
// - the search by instance id, `GET /search?q={id}&type=instances&cloudProvider=azure` (OortService.java:130-134,
//   CloudDriverService.java:52-55): TrafficGuard.java:83-87 and :154-172 read `account`, `region` and `serverGroup`
//   of the first page's results; TerminatingInstanceSupport.groovy:113-124 reads `totalMatches`, a failed search
//   counting as the instance still there, so WaitForTerminatedInstancesTask.groovy:42-47 ends only on a 0;
// - the instance, `GET /instances/{account}/{region}/{id}` (OortService.java:139-143), whose `health` list
//   WaitForDownInstanceHealthTask.java:54-64 judges with HealthHelper.someAreDownAndNoneAreUp (HealthHelper.java:102-125).
// Clouddriver's shapes: clouddriver-web SearchController.groovy:57-111 and InstanceController.groovy:41-53 (404
// "Instance not found"); an Azure instance's search fields as clouddriver-azure Keys.groovy:131-139 parses them.
import t from "tap";
import { newStage, Orca, someAreDownAndNoneAreUp } from "../testkit/orca.ts";
import { startResettingTestEnv, startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { Json } from "../testkit/json.ts";

const RG = "demo-rg";
// Reads go through the read cache as every Clouddriver read does; a short TTL keeps the waits short.
const { env, control } = await startResettingTestEnv(t, { writeDurationMs: 50, env: { READ_CACHE_TTL_MS: "300" } });
const orca = new Orca(env.api, { pollMs: 20 });

async function vmNames(name: string): Promise<string[]> {
  const snapshot = await control.getScaleSet(RG, name);
  return snapshot.vms.map((vm: Json) => vm.name as string).sort();
}

const search = (q: string, extra = "") => env.api("GET", `/search?q=${encodeURIComponent(q)}&type=instances${extra}`);

/** Deck's one-instance terminate (deck instance.write.service.ts l.31-46), with TaskExecutor's user. */
function deckTerminate(vmName: string) {
  return {
    type: "terminateInstances",
    instanceIds: [vmName],
    region: "eastus",
    zone: "eastus",
    credentials: "demo",
    user: "anonymous",
  };
}

for (const orchestrationMode of ["Uniform", "Flexible"] as const) {
  const name = `ir${orchestrationMode === "Uniform" ? "u" : "f"}-web-v001`;

  t.test(`${orchestrationMode}: the search finds the VM where TrafficGuard looks for it`, async (t) => {
    await control.putScaleSet(RG, name, { capacity: 2, orchestrationMode });
    const [vm] = await vmNames(name);
    const res = await search(vm, "&cloudProvider=azure");
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.equal(res.body.length, 1, "one page");
    t.match(res.body[0], { platform: "azure", query: vm, totalMatches: 1, pageNumber: 1 });
    t.same(res.body[0].results, [
      {
        type: "instances",
        provider: "azure",
        account: "demo",
        region: "eastus",
        application: name.split("-")[0],
        cluster: name.replace(/-v001$/, ""),
        serverGroup: name,
        name: vm,
        instanceId: vm,
      },
    ]);
    const raw = await fetch(`${env.baseUrl}/search?q=${vm}&type=instances`);
    t.match(raw.headers.get("x-azure-read-at"), /^\d{4}-/, "says how fresh it is");
    t.match(raw.headers.get("age"), /^\d+$/);
    t.equal(await orca.resolveServerGroupNameForInstance(vm, "demo", "eastus"), name, "TrafficGuard.java:154-172");
    t.equal(
      await orca.resolveServerGroupNameForInstance(vm, "demo", "westus"),
      undefined,
      "in another region: not the one the stage names",
    );
    t.same(await orca.remainingInstancesFromSearch([vm]), [vm], "TerminatingInstanceSupport: still there");
  });

  t.test(`${orchestrationMode}: GET /instances answers what the server group lists for that VM`, async (t) => {
    // A scale set of its own: the one of the test above, made again under the same name after the reset, has VMs of
    // the same names (Uniform) but other VMs, created at another time; a read the service still held of those is
    // another VM's launchTime, not this one's.
    const own = name.replace("v001", "v003");
    await control.putScaleSet(RG, own, { capacity: 2, orchestrationMode });
    const [, vm] = await vmNames(own);
    const res = await env.api("GET", `/instances/demo/eastus/${vm}`);
    t.equal(res.status, 200, JSON.stringify(res.body));
    const sg = await env.api("GET", `/serverGroups/demo/eastus/${own}`);
    t.same(
      res.body,
      sg.body.instances.find((i: Json) => i.name === vm),
      "the same instance as the server group's",
    );
    const held = (await control.getScaleSet(RG, own)).vms.find((v: Json) => v.name === vm) as Json;
    t.equal(res.body.launchTime, Date.parse(held.properties.timeCreated), "launchTime: the timeCreated Azure holds");
    t.match(res.body, { name: vm, healthState: "Up", zone: String, cloudProvider: "azure" });
    t.type(res.body.launchTime, "number");
    t.notOk(someAreDownAndNoneAreUp(res.body, null), "running and in traffic: not down");
  });

  t.test(
    `${orchestrationMode}: a one-instance terminate through Orca's stage replaces the VM, and ends once the search finds none`,
    async (t) => {
      const sgName = name.replace("v001", "v002");
      await control.putScaleSet(RG, sgName, { capacity: 3, orchestrationMode });
      const names = await vmNames(sgName);
      const { task, serverGroups } = await orca.terminateInstancesStage(newStage(deckTerminate(names[1])));
      t.equal(task?.status.failed, false, JSON.stringify(task?.history));
      t.same([...serverGroups], [[sgName, [names[1]]]], "the traffic guard's lookup found the server group");
      const after3 = await vmNames(sgName);
      t.equal(after3.length, 3, "the capacity kept: terminateInstances replaces (TerminateInstancesStage)");
      t.notOk(after3.includes(names[1]), "that VM gone");
      t.ok(after3.includes(names[0]) && after3.includes(names[2]), "the others kept");
      const after = await search(names[1]);
      t.equal(after.status, 200);
      t.match(after.body[0], { totalMatches: 0, results: [] }, "an empty page: WaitForTerminatedInstancesTask ends");
      const gone = await env.api("GET", `/instances/demo/eastus/${names[1]}`);
      t.equal(gone.status, 404);
      t.match(gone.body, { error: "NotFound", message: /Instance not found \(id: / });
      t.equal(
        orca.requests.filter((r) => r.startsWith(`GET /search?q=${encodeURIComponent(names[1])}`)).length >= 3,
        true,
        "searched before, for the traffic guard, and after",
      );
    },
  );
}

for (const loadBalanced of [false, true]) {
  t.test(
    `WaitForDownInstanceHealthTask${loadBalanced ? ", in a backend pool" : ""}: a powered-off VM is down, a running one is not`,
    async (t) => {
      const name = loadBalanced ? "irl-web-v001" : "irp-web-v001";
      await control.putScaleSet(RG, name, { capacity: 2, loadBalanced });
      const [vm] = await vmNames(name);
      const stage = newStage({ instanceIds: [vm], region: "eastus", credentials: "demo" });
      t.equal(await orca.instancesDown(stage), false, "running: not down");
      const sub = env.sim.subscriptionId;
      const off = await control.request(
        "POST",
        `/subscriptions/${sub}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}/virtualMachines/${vm.split("_")[1]}/poweroff?api-version=2024-11-01`,
        { headers: { authorization: "Bearer test-token" } },
      );
      t.ok(off.status < 300, JSON.stringify(off.body));
      await waitFor(() => orca.instancesDown(stage), { what: `${vm} read as down` });
      const res = await env.api("GET", `/instances/demo/eastus/${vm}`);
      t.equal(res.body.healthState, "Down");
      t.match(
        res.body.health.find((h: Json) => h.type === "Azure"),
        { healthClass: "platform", state: "Down" },
      );
    },
  );
}

t.test("absent, not a VM name, another provider: Clouddriver's 404 and empty pages", async (t) => {
  await control.putScaleSet(RG, "irn-web-v001", { capacity: 1 });
  for (const path of [
    "/instances/demo/eastus/irn-web-v001_7",
    "/instances/demo/eastus/irn-web-v009_0",
    "/instances/demo/eastus/0",
    "/instances/nobody/eastus/irn-web-v001_0",
  ]) {
    const res = await env.api("GET", path);
    t.equal(res.status, 404, path);
    t.equal(res.body.error, "NotFound", path);
  }
  t.match((await env.api("GET", "/instances/demo/eastus/0")).body.message, /the VM's name, \{scale set\}_\{suffix\}/);
  t.equal((await env.api("GET", "/instances/demo/East%20US/irn-web-v001_0")).status, 400, "not an Azure region name");
  for (const [q, extra, why] of [
    ["irn-web-v001_7", "", "no such VM"],
    ["0", "", "an instance id that names no scale set"],
    ["irn-web-v001_0", "&cloudProvider=aws", "another provider"],
    ["irn-web-v001_0", "&platform=aws", "another platform"],
  ]) {
    const res = await search(q, extra);
    t.equal(res.status, 200, why);
    t.match(res.body, [{ totalMatches: 0, results: [] }], why);
  }
  const other = await env.api("GET", "/search?q=irn-web-v001_0&type=serverGroups");
  t.match(other.body, [{ totalMatches: 0, results: [] }], "only instances are searched here");
  t.equal((await env.api("GET", "/search?q=irn-web-v001_0")).status, 400, "type is required, as in SearchController");
});

t.test("Azure unreachable: the search is a 503, which Orca counts as the VM still there", async (t) => {
  await control.putScaleSet(RG, "irx-web-v001", { capacity: 1 });
  await env.simControl("POST", "/_sim/faults", {
    action: "respond",
    method: "GET",
    pathContains: "virtualMachineScaleSets/irx-web-v001",
    status: 503,
    code: "ServiceUnavailable",
    message: "Azure is down.",
    count: 1000,
  });
  const res = await fetch(`${env.baseUrl}/search?q=irx-web-v001_0&type=instances`);
  t.equal(res.status, 503, await res.text());
  t.ok(res.headers.get("retry-after"), "Retry-After");
  t.same(await orca.remainingInstancesFromSearch(["irx-web-v001_0"]), ["irx-web-v001_0"]);
  t.equal((await env.api("GET", "/instances/demo/eastus/irx-web-v001_0")).status, 503);
});

t.test("a miss is never a cached one: a VM of a scale set made after the listing was cached is found", async (t) => {
  // TerminateInstancesTask terminates only what the search finds, and takes none as terminated: a stale "none"
  // would end the stage without deleting anything.
  const longCache = await startTestEnv({ writeDurationMs: 50, env: { READ_CACHE_TTL_MS: "60000" } });
  t.teardown(() => longCache.close());
  const sim = `/_sim/scaleSets/${RG}`;
  t.ok((await longCache.simControl("PUT", `${sim}/irc-web-v001`, { capacity: 1 })).status < 300);
  const first = await longCache.api("GET", "/search?q=irc-web-v001_0&type=instances");
  t.match(first.body, [{ totalMatches: 1 }], "the listing of demo-rg is now cached");
  t.ok((await longCache.simControl("PUT", `${sim}/irc-web-v002`, { capacity: 1 })).status < 300);
  const second = await longCache.api("GET", "/search?q=irc-web-v002_0&type=instances");
  t.match(second.body, [{ totalMatches: 1, results: [{ serverGroup: "irc-web-v002" }] }]);
  t.ok((await longCache.simControl("PUT", `${sim}/irc-web-v002`, { capacity: 2 })).status < 300);
  const scaledOut = await longCache.api("GET", "/instances/demo/eastus/irc-web-v002_1");
  t.equal(scaledOut.status, 200, "a VM added since the scale set was cached");
});
