// The Clouddriver read model: Frigga's naming, target resolution as ClusterController does it, health from Azure's
// view of each VM, and the routes Orca calls, against the simulator.
import t from "tap";
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { instanceHealth } from "../src/clouddriver/health.ts";
import { belongsTo } from "../src/clouddriver/listing.ts";
import { serverGroupView } from "../src/clouddriver/server-group.ts";
import { defaultResourceGroupOf, parseName } from "../src/naming/frigga.ts";
import { chooseTarget, parseTarget, type Candidate } from "../src/clouddriver/targets.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import { CLOUDS } from "../src/azure/account-config.ts";
import { waitFor } from "../testkit/wait-for.ts";
import type { ScaleSetSnapshot } from "../src/azure/vmss-gateway.ts";
import type { Json } from "../testkit/json.ts";

t.test("Frigga's Names.parseName", async (t) => {
  t.same(parseName("app-stack-detail-v001"), {
    app: "app",
    cluster: "app-stack-detail",
    stack: "stack",
    detail: "detail",
    sequence: 1,
  });
  t.same(parseName("app-v002"), { app: "app", cluster: "app", sequence: 2 });
  t.same(parseName("app"), { app: "app", cluster: "app" });
  t.same(parseName("app--detail-v123456"), { app: "app", cluster: "app--detail", detail: "detail", sequence: 123456 });
  t.same(
    parseName("app-stack-d-e-tail"),
    { app: "app", cluster: "app-stack-d-e-tail", stack: "stack", detail: "d-e-tail" },
    "detail keeps its hyphens",
  );
  t.same(
    parseName("app-stack-v01"),
    { app: "app", cluster: "app-stack-v01", stack: "stack", detail: "v01" },
    "a push needs 3 to 6 digits",
  );
  t.equal(parseName("-app"), undefined, "an app is at least one character");
  t.equal(parseName(""), undefined);
  t.equal(defaultResourceGroupOf("shop", "East US"), "shop-eastus", "clouddriver-azure's {application}-{region}");
});

t.test("target resolution follows ClusterController", async (t) => {
  const sg = (
    name: string,
    createdTime: number | undefined,
    instanceCount = 1,
    extra: Partial<Candidate> = {},
  ): Candidate => ({ name, region: "eastus", createdTime, disabled: false, instanceCount, ...extra });
  const groups = [
    sg("a-v002", 200, 2),
    sg("a-v001", 100, 5),
    sg("a-v003", 300, 2),
    sg("a-v004", undefined, 9),
    sg("a-v005", 400, 9, { region: "westus" }),
  ];
  const pick = (target: string, scope = "eastus", options = { onlyEnabled: false, validateOldest: true }) => {
    const choice = chooseTarget(groups, parseTarget(target)!, scope, options);
    return choice.ok ? choice.serverGroup.name : choice.message;
  };
  t.equal(pick("current_asg_dynamic"), "a-v003", "newest by createdTime, in the scope only");
  t.equal(pick("ancestor_asg_dynamic"), "a-v002");
  t.equal(pick("oldest_asg_dynamic"), "a-v001");
  t.equal(pick("largest_asg_dynamic"), "a-v001", "most instances; one without createdTime is never a candidate");
  t.equal(pick("newest"), "a-v003");
  t.equal(pick("current_asg_dynamic", "westus"), "a-v005");
  t.match(pick("ancestor_asg_dynamic", "westus"), /Target not found/, "previous needs two");
  t.match(pick("oldest_asg_dynamic", "westus"), /Target not found/, "oldest is validated unless validateOldest=false");
  t.equal(pick("oldest_asg_dynamic", "westus", { onlyEnabled: false, validateOldest: false }), "a-v005");
  t.match(pick("fail"), /More than one target/);
  t.equal(parseTarget("nonsense"), undefined);
  const tie = chooseTarget([sg("a-v001", 100, 3), sg("a-v002", 200, 3)], "LARGEST", "eastus", {
    onlyEnabled: false,
    validateOldest: true,
  });
  t.equal(tie.ok && tie.serverGroup.name, "a-v002", "a tie in size goes to the newest");
  const enabled = chooseTarget([sg("a-v001", 100), sg("a-v002", 200, 1, { disabled: true })], "CURRENT", "eastus", {
    onlyEnabled: true,
    validateOldest: true,
  });
  t.equal(enabled.ok && enabled.serverGroup.name, "a-v001", "onlyEnabled skips disabled ones");
});

t.test("health from what Azure knows", async (t) => {
  const vm = (provisioningState: string, power?: string): VirtualMachineScaleSetVM =>
    ({
      provisioningState,
      ...(power
        ? {
            instanceView: {
              statuses: [
                { code: `ProvisioningState/${provisioningState.toLowerCase()}` },
                { code: `PowerState/${power}` },
              ],
            },
          }
        : {}),
    }) as VirtualMachineScaleSetVM;
  t.equal(instanceHealth(vm("Succeeded", "running"), true).healthState, "Up");
  t.equal(instanceHealth(vm("Succeeded", "running"), false).healthState, "OutOfService");
  t.same(
    instanceHealth(vm("Succeeded", "running"), false).health.map((h) => h.state),
    ["Unknown", "OutOfService"],
    "the load balancer decides for a running VM",
  );
  t.equal(instanceHealth(vm("Succeeded", "running"), undefined).healthState, "Up", "no load balancer: running is Up");
  t.equal(instanceHealth(vm("Succeeded", "deallocated"), true).healthState, "Down");
  t.equal(instanceHealth(vm("Succeeded", "starting"), undefined).healthState, "Starting");
  t.equal(instanceHealth(vm("Creating"), true).healthState, "Starting");
  t.equal(instanceHealth(vm("Failed"), true).healthState, "Failed");
  t.equal(instanceHealth(vm("Deleting"), undefined).healthState, "Down");
  t.equal(
    instanceHealth(vm("Succeeded"), undefined).healthState,
    "Up",
    "no instance view listed: a provisioned VM counts as running",
  );
});

t.test("a scale set parked in clouddriver-azure's parking pool reads disabled, its VMs out of service", async (t) => {
  const nics = (pool: string) => [
    {
      name: "nic",
      ipConfigurations: [
        {
          name: "ip",
          loadBalancerBackendAddressPools: [
            {
              id: `/subscriptions/s/resourceGroups/rg/providers/Microsoft.Network/loadBalancers/lb/backendAddressPools/${pool}`,
            },
          ],
        },
      ],
    },
  ];
  const vmss = {
    name: "shop-web-v001",
    location: "eastus",
    sku: { capacity: 1 },
    virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: nics("default_LB_BAP") } },
  };
  const vm = (pool: string) => ({
    instanceId: "0",
    name: "shop-web-v001_0",
    provisioningState: "Succeeded",
    networkProfileConfiguration: { networkInterfaceConfigurations: nics(pool) },
  });
  const ref = { account: "a", subscriptionId: "s", resourceGroup: "rg", name: "shop-web-v001", region: "eastus" };
  const parked = serverGroupView({ vmss, etag: "1", vms: [vm("default_LB_BAP")] } as ScaleSetSnapshot, ref);
  t.equal(parked.disabled, true);
  t.equal(parked.instances[0].healthState, "OutOfService");
  const notYet = serverGroupView({ vmss, etag: "1", vms: [vm("shop-web-v001")] } as ScaleSetSnapshot, ref);
  t.equal(
    notYet.instances[0].healthState,
    "Up",
    "a VM the parked model has not reached yet still serves from its pool",
  );
});

t.test("which listed scale sets belong to an application", async (t) => {
  const account = {
    name: "a",
    subscriptionId: "s",
    regions: [] as string[],
    cloud: "AzureCloud" as const,
    ...CLOUDS.AzureCloud,
    endpoint: "",
    credential: { kind: "default" as const },
  };
  const listed = (name: string, rg: string, location = "eastus") => ({
    name,
    location,
    id: `/subscriptions/s/resourceGroups/${rg}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`,
  });
  t.ok(
    belongsTo(listed("shop-web-v001", "shop-eastus"), account, { application: "shop" }),
    "in {application}-{region}",
  );
  t.notOk(
    belongsTo(listed("shop-web-v001", "other-rg"), account, { application: "shop" }),
    "not in another resource group",
  );
  t.notOk(
    belongsTo(listed("shop-web-v001", "shop-eastus", "westus"), account, { application: "shop" }),
    "the resource group follows the region",
  );
  t.notOk(belongsTo(listed("shopping-v001", "shop-eastus"), account, { application: "shop" }), "another application");
  t.notOk(
    belongsTo(listed("shop-web-v001", "shop-eastus"), account, { application: "shop", cluster: "shop-api" }),
    "another cluster",
  );
  t.ok(
    belongsTo(
      listed("shop-web-v001", "ops-rg"),
      { ...account, defaultResourceGroup: "ops-rg", serverGroupResourceGroup: "account" },
      { application: "shop" },
    ),
    "the account's own resource group, where it keeps its server groups",
  );
  t.ok(
    belongsTo(
      listed("shop-web-v001", "shop-eastus"),
      { ...account, defaultResourceGroup: "ops-rg" },
      { application: "shop" },
    ),
    "a default resource group alone keeps clouddriver-azure's {application}-{region}",
  );
  t.notOk(
    belongsTo(listed("shop-web-v001", "shop-eastus"), { ...account, regions: ["westus"] }, { application: "shop" }),
    "outside the account's regions",
  );
});

t.test("the routes, against the simulator", async (t) => {
  // `plain` has no resource group of its own: clouddriver-azure's {application}-{region} applies.
  const accounts = JSON.stringify([
    { name: "plain", subscriptionId: "00000000-0000-4000-8000-000000000001", credential: "simulator" },
  ]);
  const env = await startTestEnv({ writeDurationMs: 100, env: { ACCOUNTS: accounts, READ_CACHE_TTL_MS: "0" } });
  t.teardown(() => env.close());
  const seed = async (rg: string, name: string, body: Record<string, unknown>) => {
    const res = await env.simControl("PUT", `/_sim/scaleSets/${rg}/${name}`, body);
    if (res.status >= 300) throw new Error(JSON.stringify(res.body));
    // The next one's timeCreated is later than this one's.
    const created = Date.now();
    await waitFor(() => Date.now() > created, {
      what: "the clock to move past this scale set's timeCreated",
      intervalMs: 1,
    });
  };
  await seed("shop-eastus", "shop-web-v001", { capacity: 2 });
  await seed("shop-eastus", "shop-web-v002", { capacity: 1 });
  await seed("shop-eastus", "shop-web-v003", { capacity: 3, loadBalanced: false });
  await seed("shop-westus", "shop-web-v004", { capacity: 1, location: "westus" });
  await seed("shop-eastus", "shop-api-v001", { capacity: 1 });
  await seed("elsewhere", "shop-web-v009", { capacity: 1 });

  await t.test(
    "GET /serverGroups/{account}/{region}/{name}: capacity, instances with health, disabled, createdTime",
    async (t) => {
      const res = await env.api("GET", "/serverGroups/plain/eastus/shop-web-v001");
      t.equal(res.status, 200, JSON.stringify(res.body));
      const sg = res.body;
      t.match(sg, {
        name: "shop-web-v001",
        type: "azure",
        cloudProvider: "azure",
        account: "plain",
        region: "eastus",
        resourceGroup: "shop-eastus",
        cluster: "shop-web",
        disabled: false,
      });
      t.same(sg.moniker, { app: "shop", cluster: "shop-web", stack: "web", sequence: 1 });
      t.same(sg.capacity, { min: 2, max: 2, desired: 2 });
      t.equal(sg.instances.length, 2);
      t.ok(
        sg.instances.every(
          (i: Json) =>
            i.healthState === "Up" && i.health.some((h: Json) => h.type === "LoadBalancer" && h.state === "Up"),
        ),
      );
      const created = await env.simControl("GET", "/_sim/scaleSets/shop-eastus/shop-web-v001");
      t.equal(
        sg.createdTime,
        Date.parse(created.body.vmss.properties.timeCreated),
        "createdTime is Azure's timeCreated",
      );
      t.same(sg.instanceCounts, { total: 2, up: 2, down: 0, unknown: 0, starting: 0, outOfService: 0 });
    },
  );

  await t.test("not found, and names that are not valid", async (t) => {
    t.equal(
      (await env.api("GET", "/serverGroups/plain/eastus/shop-web-v009")).status,
      404,
      "in another resource group: not this application's",
    );
    t.equal(
      (await env.api("GET", "/serverGroups/nobody/eastus/shop-web-v001")).status,
      404,
      "an account we do not serve",
    );
    const bad = await env.api("GET", "/serverGroups/plain/East%20US/shop-web-v001");
    t.equal(bad.status, 400);
    t.match(bad.body.message, /region/);
    t.equal((await env.api("GET", "/applications/shop/clusters/plain/shop-none/azure")).status, 404, "no such cluster");
    t.equal((await env.api("GET", "/applications/nothing")).status, 404, "no such application");
    t.equal(
      (await env.api("GET", "/applications/shop/clusters/plain/shop-web/azure/eastus/serverGroups/target/sideways"))
        .status,
      404,
      "unknown target",
    );
    const badRefresh = await env.api("POST", "/cache/azure/ServerGroup", {
      account: "plain",
      region: "eastus",
      serverGroupName: "web/../x",
    });
    t.equal(badRefresh.status, 400);
    t.match(badRefresh.body.message, /serverGroupName/);
    const noName = await env.api("POST", "/cache/azure/ServerGroup", { account: "plain", region: "eastus" });
    t.equal(noName.status, 400);
    t.match(noName.body.details, [{ field: "serverGroupName" }]);
  });

  await t.test("GET the cluster: its server groups in every region, each with its instances", async (t) => {
    const res = await env.api("GET", "/applications/shop/clusters/plain/shop-web/azure");
    t.equal(res.status, 200);
    t.equal(res.body.name, "shop-web");
    t.equal(res.body.accountName, "plain");
    t.same(
      res.body.serverGroups.map((sg: Json) => `${sg.region}/${sg.name}`),
      ["eastus/shop-web-v001", "eastus/shop-web-v002", "eastus/shop-web-v003", "westus/shop-web-v004"],
    );
    t.same(
      res.body.serverGroups.map((sg: Json) => sg.instances.length),
      [2, 1, 3, 1],
    );
    const noLb = res.body.serverGroups[2];
    t.ok(
      noLb.instances.every(
        (i: Json) => i.healthState === "Up" && i.health.length === 1 && i.health[0].healthClass === "platform",
      ),
      "no load balancer: the platform says Up",
    );
  });

  await t.test("GET a server group of a cluster: a list, or one with ?region=", async (t) => {
    const list = await env.api("GET", "/applications/shop/clusters/plain/shop-web/azure/serverGroups/shop-web-v002");
    t.equal(list.status, 200);
    t.ok(Array.isArray(list.body));
    t.same(
      list.body.map((sg: Json) => sg.name),
      ["shop-web-v002"],
    );
    const one = await env.api(
      "GET",
      "/applications/shop/clusters/plain/shop-web/azure/serverGroups/shop-web-v002?region=eastus",
    );
    t.equal(one.body.name, "shop-web-v002");
    t.equal(
      (
        await env.api(
          "GET",
          "/applications/shop/clusters/plain/shop-web/azure/serverGroups/shop-web-v002?region=westus",
        )
      ).status,
      404,
    );
  });

  await t.test("targets resolve by createdTime within the region", async (t) => {
    const target = async (name: string, scope = "eastus", query = "") => {
      const res = await env.api(
        "GET",
        `/applications/shop/clusters/plain/shop-web/azure/${scope}/serverGroups/target/${name}${query}`,
      );
      return res.status === 200 ? res.body.name : res.status;
    };
    t.equal(await target("current_asg_dynamic"), "shop-web-v003");
    t.equal(await target("ancestor_asg_dynamic"), "shop-web-v002");
    t.equal(await target("oldest_asg_dynamic"), "shop-web-v001");
    t.equal(await target("largest_asg_dynamic"), "shop-web-v003");
    t.equal(await target("current_asg_dynamic", "westus"), "shop-web-v004");
    t.equal(await target("ancestor_asg_dynamic", "westus"), 404);
  });

  await t.test("GET /applications/{app}: clusters by account", async (t) => {
    const res = await env.api("GET", "/applications/shop");
    t.equal(res.status, 200);
    t.same(res.body.attributes, { name: "shop", cloudProviders: "azure" });
    t.same(
      res.body.clusters.plain.map((c: Json) => [c.name, c.serverGroups]),
      [
        ["shop-api", ["shop-api-v001"]],
        ["shop-web", ["shop-web-v001", "shop-web-v002", "shop-web-v003", "shop-web-v004"]],
      ],
    );
    t.notOk(res.body.clusters.demo, "the demo account keeps its server groups in demo-rg, where shop has none");
  });

  await t.test(
    "writes find the server group where reads do: {application}-{region} when the account names no resource group",
    async (t) => {
      const submitted = await env.api("POST", "/azure/ops/resizeServerGroup", {
        credentials: "plain",
        region: "eastus",
        serverGroupName: "shop-web-v002",
        capacity: { min: 1, max: 3, desired: 2 },
      });
      t.equal(submitted.status, 202, JSON.stringify(submitted.body));
      const task = await env.waitForTask(submitted.body.id);
      t.equal(task.status.failed, false, JSON.stringify(task.history));
      t.equal(task.resultObjects[0].resourceGroup, "shop-eastus");
      const sg = (await env.api("GET", "/serverGroups/plain/eastus/shop-web-v002")).body;
      t.same(sg.capacity, { min: 1, max: 3, desired: 2 });
      t.equal(sg.instances.length, 2);
    },
  );

  await t.test("disabled agrees with disable and enable, and health follows", async (t) => {
    const run = async (op: string, extra = {}) => {
      const submitted = await env.api("POST", `/azure/ops/${op}`, {
        credentials: "demo",
        region: "eastus",
        serverGroupName: "web-prod-v001",
        ...extra,
      });
      return env.waitForTask(submitted.body.id);
    };
    t.equal((await run("disableServerGroup")).status.failed, false);
    const disabled = (await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001")).body;
    t.equal(disabled.disabled, true);
    t.ok(disabled.instances.every((i: Json) => i.healthState === "OutOfService"));
    t.equal((await run("enableServerGroup")).status.failed, false);
    const enabled = (await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001")).body;
    t.equal(enabled.disabled, false);
    t.ok(enabled.instances.every((i: Json) => i.healthState === "Up"));
    t.equal((await env.api("POST", "/azure/ops/disableServerGroup", demo("batch-v001"))).status, 202);
  });
});

t.test("with a Clouddriver behind us, reads we do not serve go to it unchanged", async (t) => {
  const { createServer } = await import("node:http");
  const seen: string[] = [];
  const clouddriver = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.setHeader("content-type", "application/json");
    res.end(JSON.stringify({ from: "clouddriver", url: req.url }));
  });
  await new Promise<void>((r) => clouddriver.listen(0, "127.0.0.1", r));
  t.teardown(() => new Promise<void>((r) => clouddriver.close(() => r())));
  const url = `http://127.0.0.1:${(clouddriver.address() as { port: number }).port}`;
  const env = await startTestEnv({ env: { CLOUDDRIVER_URL: url } });
  t.teardown(() => env.close());

  const ours = await env.api("GET", "/serverGroups/demo/eastus/web-prod-v001");
  t.equal(ours.body.type, "azure", "our account: answered here");
  t.equal(
    (await env.api("GET", "/applications/web")).body.attributes.cloudProviders,
    "azure",
    "an application with Azure server groups: answered here",
  );

  const theirs = [
    "/serverGroups/aws-prod/us-east-1/api-main-v003",
    "/applications/api",
    "/applications/api/clusters/aws-prod/api-main/azure",
    "/applications/api/clusters/aws-prod/api-main/azure/us-east-1/serverGroups/target/current_asg_dynamic?onlyEnabled=true",
  ];
  for (const path of theirs) {
    const res = await env.api("GET", path);
    t.same(res.body, { from: "clouddriver", url: path }, `${path} forwarded`);
  }
  const refresh = await env.api("POST", "/cache/azure/ServerGroup", {
    account: "aws-prod",
    region: "us-east-1",
    serverGroupName: "api-main-v003",
  });
  t.equal(refresh.body.from, "clouddriver", "a refresh for another account goes to Clouddriver");
  t.same(seen, [...theirs.map((p) => `GET ${p}`), "POST /cache/azure/ServerGroup"]);
});
