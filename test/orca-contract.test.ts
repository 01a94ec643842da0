// Orca's Azure server-group stages, run against the service by a client that makes Orca's calls and takes its
// decisions (testkit/orca.ts, which cites spinnaker/orca file:line for each). Paths below are under
// orca-clouddriver/src/main/ of spinnaker/orca. The simulator is Azure.
import t from "tap";
import { operations } from "../src/operations/registry.ts";
import { isActive, newestFirst, newStage, Orca, requestId, type ServerGroup } from "../testkit/orca.ts";
import { startTestEnv, writesOf } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";

// A TTL far longer than the test: every fresh answer Orca gets comes from our writes and its force-cache refreshes.
const env = await startTestEnv({ writeDurationMs: 60, env: { READ_CACHE_TTL_MS: "60000" } });
t.teardown(() => env.close());
const orca = new Orca(env.api, { pollMs: 20 });
const ACCOUNT = "demo";
const REGION = "eastus";

/**
 * Deploys a cluster, oldest first, each with its own timeCreated, in the demo account's resource group (the simulator
 * creates them, standing in for the deploy), then does what Orca's deploy stage does next: its forceCacheRefresh
 * task (CreateServerGroupStage.groovy:78, ServerGroupCacheForceRefreshTask.groovy:119-163).
 */
async function seedCluster(names: string[], body: Record<string, unknown> = { capacity: 2 }) {
  for (const name of names) {
    const res = await env.simControl("PUT", `/_sim/scaleSets/demo-rg/${name}`, body);
    if (res.status >= 300) throw new Error(JSON.stringify(res.body));
    // The next one's timeCreated is later than this one's.
    const created = Date.now();
    await waitFor(() => Date.now() > created, { what: `the clock to move past ${name}'s timeCreated`, intervalMs: 1 });
  }
  await orca.forceCacheRefresh(newStage({ credentials: ACCOUNT, "deploy.server.groups": { [REGION]: names } }));
}

/** The context a stage on a dynamically resolved server group ends up with after DetermineTargetServerGroupStage. */
async function targetStage(cluster: string, target: string, extra: Record<string, unknown> = {}) {
  const app = cluster.split("-")[0];
  const stage = newStage({
    credentials: ACCOUNT,
    region: REGION,
    regions: [REGION],
    cluster,
    moniker: { app, cluster },
    target,
    ...extra,
  });
  // DetermineTargetServerGroupTask → TargetServerGroupResolver.resolve (TargetServerGroupResolver.groovy:47-65),
  // by target (:67-85); the task stores the result as targetReferences, and the stage's tasks take the name from it
  // (AbstractServerGroupTask.groovy:105-123).
  const tsg = await orca.resolveTarget({ app, account: ACCOUNT, cluster, region: REGION, target });
  stage.context.serverGroupName = tsg.name;
  stage.context.asgName = tsg.name;
  stage.context["deploy.server.groups"] = { [REGION]: [tsg.name] }; // AbstractServerGroupTask.groovy:93, :138-150
  return { stage, tsg };
}

/** The operation AbstractServerGroupTask.execute submits (AbstractServerGroupTask.groovy:71-85): the stage context as is. */
function stageOperation(stage: ReturnType<typeof newStage>, extra: Record<string, unknown> = {}) {
  return { ...stage.context, ...extra };
}

t.test("clientRequestId is Orca's sha256 and a resubmission returns the same task", async (t) => {
  const stage = newStage({ credentials: ACCOUNT, region: REGION });
  const ops = [
    {
      enableServerGroup: {
        credentials: ACCOUNT,
        region: REGION,
        serverGroupName: "web-prod-v001",
        cloudProvider: "azure",
      },
    },
  ];
  const id = requestId(stage, ops);
  t.match(id, /^[0-9a-f]{64}$/);
  const first = await orca.requestOperations(stage, ops);
  const again = await orca.requestOperations(stage, ops);
  t.equal(again, first, "KatoService retries (KatoService.java:52-59) do not run the operation twice");
  await orca.monitorKato(stage, first);
});

t.test("Resize stage (ResizeServerGroupStage.groovy:45-52)", async (t) => {
  await seedCluster(["resize-web-v001", "resize-web-v002"]);
  const { stage, tsg } = await targetStage("resize-web", "current_asg_dynamic", {
    action: "scale_exact",
    capacity: { min: 1, max: 5, desired: 4 },
  });
  t.equal(
    tsg.name,
    "resize-web-v002",
    "current_asg_dynamic is the newest by createdTime (ClusterController.groovy:298-303)",
  );

  // ResizeServerGroupTask.convert (ResizeServerGroupTask.groovy:64-88) → ScaleExactResizeStrategy.groovy:36-49, which
  // reads the current capacity (ResizeStrategySupport.groovy:75-89, CloudDriverService.getTargetServerGroup).
  const current = (await env.api<ServerGroup>("GET", `/serverGroups/${ACCOUNT}/${REGION}/${tsg.name}`)).body;
  t.same(current.capacity, { min: 2, max: 2, desired: 2 });
  const taskId = await orca.requestOperations(stage, [
    { resizeServerGroup: stageOperation(stage, { originalCapacity: current.capacity }) },
  ]);
  const task = await orca.monitorKato(stage, taskId); // MonitorKatoTask
  t.same(task.resultObjects[0].capacity, { min: 1, max: 5, desired: 4 });
  await orca.forceCacheRefresh(stage); // ServerGroupCacheForceRefreshTask
  const polls = await orca.waitForCapacityMatch(stage); // WaitForCapacityMatchTask
  t.ok(polls >= 1);
  const after = (await env.api<ServerGroup>("GET", `/serverGroups/${ACCOUNT}/${REGION}/resize-web-v002`)).body;
  t.equal(after.instances.length, 4);
});

t.test(
  "Disable stage (DisableServerGroupStage.groovy:51-64), then Enable stage (EnableServerGroupStage.groovy:45-54)",
  async (t) => {
    await seedCluster(["toggle-web-v001", "toggle-web-v002"]);
    // Static target: TargetServerGroupResolver.groovy:87-104 (a list, filtered by region).
    const stage = newStage({
      credentials: ACCOUNT,
      region: REGION,
      cluster: "toggle-web",
      moniker: { app: "toggle", cluster: "toggle-web" },
      serverGroupName: "toggle-web-v001",
    });
    const tsg = await orca.resolveByName({
      app: "toggle",
      account: ACCOUNT,
      cluster: "toggle-web",
      serverGroupName: "toggle-web-v001",
      region: REGION,
    });
    t.equal(tsg.name, "toggle-web-v001");
    stage.context["deploy.server.groups"] = { [REGION]: [tsg.name] };

    // DetermineHealthProvidersTask.java:95-101: Azure names no platform health provider (AzureServerGroupCreator
    // getHealthProviderName is empty), so interestingHealthProviderNames stays null and every health counts.
    // DisableServerGroupTask: TrafficGuard.java:200 returns at once without a front50 disable lock.
    const disableId = await orca.requestOperations(stage, [{ disableServerGroup: stageOperation(stage) }]);
    await orca.monitorKato(stage, disableId);
    await orca.waitForRequiredInstancesDown(stage); // every instance OutOfService: HealthHelper.someAreDownAndNoneAreUp
    await orca.waitForDisabledServerGroup(stage); // `disabled: true`
    await orca.forceCacheRefresh(stage);
    const disabled = (await env.api<ServerGroup>("GET", `/serverGroups/${ACCOUNT}/${REGION}/toggle-web-v001`)).body;
    t.equal(disabled.disabled, true);
    t.notOk(isActive(disabled), "AbstractClusterWideClouddriverTask.groovy:265-267 sees it inactive");

    const enableStage = newStage({ ...stage.context });
    const enableId = await orca.requestOperations(enableStage, [{ enableServerGroup: stageOperation(enableStage) }]);
    await orca.monitorKato(enableStage, enableId);
    await orca.waitForUpInstances(enableStage); // WaitForUpInstancesTask: every instance Up
    await orca.forceCacheRefresh(enableStage);
    const enabled = (await env.api<ServerGroup>("GET", `/serverGroups/${ACCOUNT}/${REGION}/toggle-web-v001`)).body;
    t.equal(enabled.disabled, false);
    t.ok(enabled.instances.every((i) => i.healthState === "Up"));
  },
);

const hasDestroy = operations.has("destroyServerGroup");
const noDestroy =
  "destroyServerGroup is not an operation of this build yet: the Destroy and ShrinkCluster steps are written, and run once it is";

t.test("Destroy stage (DestroyServerGroupStage.groovy:74-79)", { skip: hasDestroy ? false : noDestroy }, async (t) => {
  await seedCluster(["gone-web-v001", "gone-web-v002"]);
  const { stage, tsg } = await targetStage("gone-web", "oldest_asg_dynamic");
  t.equal(tsg.name, "gone-web-v001");
  const taskId = await orca.requestOperations(stage, [{ destroyServerGroup: stageOperation(stage) }]);
  await orca.monitorKato(stage, taskId);
  await orca.waitForDestroyedServerGroup(stage);
  t.equal((await env.api("GET", `/serverGroups/${ACCOUNT}/${REGION}/gone-web-v001`)).status, 404);
});

t.test(
  "Orca's red/black tail: v002 deployed, then DisableCluster, ScaleDownCluster, ShrinkCluster against v001",
  async (t) => {
    await seedCluster(["rb-web-v001", "rb-web-v002"], { capacity: 3 });
    const clusterStage = (extra: Record<string, unknown>) =>
      newStage({
        credentials: ACCOUNT,
        region: REGION,
        cluster: "rb-web",
        moniker: { app: "rb", cluster: "rb-web" },
        ...extra,
      });

    await t.test("DisableClusterStage: DisableClusterTask, then WaitForClusterDisableTask", async (t) => {
      const stage = clusterStage({ remainingEnabledServerGroups: 1, preferLargerOverNewer: false });
      // DisableClusterTask.groovy:50-63: keep the newest remainingEnabledServerGroups active ones, disable the rest.
      const taskId = await orca.clusterWideOperation(
        stage,
        "disableServerGroup",
        (all) => {
          // (serverGroups.size() - filtered.size()) counts the parent deploys filtered out: none in this pipeline.
          const parentDeploys = 0;
          const dropCount = Math.max(0, stage.context.remainingEnabledServerGroups - parentDeploys);
          return all.filter(isActive).sort(newestFirst).slice(dropCount);
        },
        () => ({ desiredPercentage: null }), // DisableClusterTask.groovy:44-47 sends it, null when not given
      );
      t.ok(taskId);
      t.same(stage.context["deploy.server.groups"], { [REGION]: ["rb-web-v001"] });
      await orca.monitorKato(stage, taskId!);
      // WaitForClusterDisableTask.groovy:73-97 → WaitForRequiredInstancesDownTask.hasSucceeded on the cluster's copy.
      await orca.waitForClusterWide(
        stage,
        "WaitForClusterDisable",
        (sg) => sg !== undefined && !sg.instances.every((i) => i.healthState === "OutOfService"),
      );
      const cluster = (
        await env.api<{ serverGroups: ServerGroup[] }>("GET", "/applications/rb/clusters/demo/rb-web/azure")
      ).body;
      t.same(
        cluster.serverGroups.map((sg) => [sg.name, sg.disabled]),
        [
          ["rb-web-v001", true],
          ["rb-web-v002", false],
        ],
      );
    });

    await t.test("ScaleDownClusterStage: ScaleDownClusterTask, then WaitForScaleDownClusterTask", async (t) => {
      const stage = clusterStage({
        remainingFullSizeServerGroups: 1,
        preferLargerOverNewer: false,
        allowScaleDownActive: false,
      });
      // ScaleDownClusterTask.groovy:72-93: inactive ones only; keep remainingFullSizeServerGroups counting the active.
      let all: ServerGroup[] = [];
      const taskId = await orca.clusterWideOperation(
        stage,
        "resizeServerGroup",
        (groups) => {
          all = groups;
          const inactive = groups.filter((sg) => !isActive(sg));
          const dropCount = Math.max(
            0,
            stage.context.remainingFullSizeServerGroups - (groups.length - inactive.length),
          );
          return inactive.sort(newestFirst).slice(dropCount);
        },
        () => ({ capacity: { min: 0, max: 0, desired: 0 } }), // ScaleDownClusterTask.groovy:43-56
      );
      t.equal(all.length, 2);
      t.same(stage.context["deploy.server.groups"], { [REGION]: ["rb-web-v001"] });
      const task = await orca.monitorKato(stage, taskId!);
      t.same(task.resultObjects[0].capacity, { min: 0, max: 0, desired: 0 }, "resizeServerGroup {0,0,0}, exactly");
      // WaitForScaleDownClusterTask.java:29-34: done when the server group lists no instances.
      await orca.waitForClusterWide(stage, "WaitForScaleDownCluster", (sg) => (sg?.instances.length ?? 0) > 0);
      const v001 = (await env.api<ServerGroup>("GET", `/serverGroups/${ACCOUNT}/${REGION}/rb-web-v001`)).body;
      t.equal(v001.instances.length, 0);
      t.same(v001.capacity, { min: 0, max: 0, desired: 0 });
    });

    await t.test(
      "ShrinkClusterStage: ShrinkClusterTask, then WaitForClusterShrinkTask",
      { skip: hasDestroy ? false : noDestroy },
      async (t) => {
        const stage = clusterStage({ shrinkToSize: 1, allowDeleteActive: false, retainLargerOverNewer: false });
        // ShrinkClusterTask.groovy:61-83
        const taskId = await orca.clusterWideOperation(stage, "destroyServerGroup", (groups) => {
          const inactive = groups.filter((sg) => !isActive(sg));
          const dropCount = stage.context.shrinkToSize - (groups.length - inactive.length);
          return inactive.sort(newestFirst).slice(dropCount);
        });
        t.same(stage.context["deploy.server.groups"], { [REGION]: ["rb-web-v001"] });
        await orca.monitorKato(stage, taskId!);
        // WaitForClusterShrinkTask.java:44-49: done when the server group is gone from the cluster.
        await orca.waitForClusterWide(stage, "WaitForClusterShrink", (sg) => sg !== undefined, true);
        const cluster = (
          await env.api<{ serverGroups: ServerGroup[] }>("GET", "/applications/rb/clusters/demo/rb-web/azure")
        ).body;
        t.same(
          cluster.serverGroups.map((sg) => sg.name),
          ["rb-web-v002"],
        );
      },
    );

    t.test("v002 kept serving throughout", async (t) => {
      const v002 = (await env.api<ServerGroup>("GET", `/serverGroups/${ACCOUNT}/${REGION}/rb-web-v002`)).body;
      t.equal(v002.disabled, false);
      t.equal(v002.instances.length, 3);
      t.ok(v002.instances.every((i) => i.healthState === "Up"));
    });
  },
);

t.test("every read Orca made was answered, and every write carried If-Match", async (t) => {
  const reads = orca.requests.filter((r) => r.startsWith("GET "));
  t.ok(reads.length > 20, `${reads.length} reads`);
  const writes = writesOf(await env.calls());
  t.ok(writes.length > 0);
  t.ok(writes.filter((w) => w.method === "PATCH" || w.method === "PUT").every((w) => w.ifMatch !== null));
});

t.test("20 stages polling at once: Azure calls are bounded by the read cache, not by the polls", async (t) => {
  // The default READ_CACHE_TTL_MS (10 s), in a service of its own.
  const polling = await startTestEnv({ writeDurationMs: 60 });
  t.teardown(() => polling.close());
  const ttlMs = polling.config.readCacheTtlMs;
  t.equal(ttlMs, 10_000);
  const names = Array.from({ length: 20 }, (_, i) => `poll${String.fromCharCode(97 + i)}-web-v001`);
  for (const name of names) await polling.simControl("PUT", `/_sim/scaleSets/demo-rg/${name}`, { capacity: 1 });
  await polling.simControl("DELETE", "/_sim/calls");
  // Each stage polls as WaitForCapacityMatch (GET /serverGroups, AbstractInstancesCheckTask.java:308-309) and as a
  // cluster-wide wait (GET the cluster, AbstractWaitForClusterWideClouddriverTask.groovy:115), round after round
  // with no backoff: far more often than Orca's 10 s (AbstractInstancesCheckTask.java:47).
  const rounds = 8;
  const started = Date.now();
  let polls = 0;
  await Promise.all(
    names.map(async (name) => {
      const app = name.split("-")[0];
      for (let round = 0; round < rounds; round++) {
        const [one, cluster] = await Promise.all([
          polling.api("GET", `/serverGroups/${ACCOUNT}/${REGION}/${name}`),
          polling.api("GET", `/applications/${app}/clusters/${ACCOUNT}/${app}-web/azure`),
        ]);
        if (one.status !== 200 || cluster.status !== 200) throw new Error(`${name}: ${one.status} ${cluster.status}`);
        polls += 2;
      }
    }),
  );
  const elapsed = Date.now() - started;
  const calls = await polling.calls();
  // Per TTL window at most one GET and one VM listing per scale set, and one listing of the resource group's scale
  // sets and one of its autoscale settings (a group's min and max) that all 20 clusters share.
  const windows = Math.ceil(elapsed / ttlMs);
  const perWindow = names.length * 2 + 2;
  t.comment(
    `${polls} reads by 20 stages in ${elapsed} ms: ${calls.length} Azure calls (bound ${windows} × ${perWindow}); uncached, each read costs 2 or 3`,
  );
  t.ok(calls.length <= windows * perWindow, `${calls.length} Azure calls ≤ ${windows * perWindow}`);
  for (const name of names) {
    const mine = calls.filter((c) => c.path.includes(`/${name}`));
    t.ok(mine.length <= 2 * windows, `${name}: ${mine.length} calls (a GET and a VM listing per window)`);
  }
  t.comment(
    `so at most ${2 * Math.ceil(60_000 / ttlMs)} calls per scale set per minute, however many stages poll it, and ${Math.ceil(60_000 / ttlMs)} listings of the resource group (and of its autoscale settings)`,
  );
});
