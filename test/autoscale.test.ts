// Azure Monitor autoscale respected end to end: a setting targets the scale set (written with Microsoft's
// @azure/arm-monitor, as its owner would), Azure's evaluation runs on the simulator's clock all along (every 60 ms at
// the tests' time factor) and several more times on demand after each operation, and the capacity stays where the
// pipeline put it. The real service, the real SDK, the simulator: nothing mocked.
import t, { type Test } from "tap";
import {
  MonitorClient,
  type AutoscaleProfile,
  type AutoscaleSettingResource,
  type ComparisonOperationType,
  type ScaleDirection,
  type ScaleRule,
} from "@azure/arm-monitor";
import { autoscaleEvaluations, evaluateAutoscale, type AutoscaleEvaluation } from "vmss-simulator";
import { SimulatorCredential } from "../src/azure/client.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, demoCreate, startResettingTestEnv } from "./helpers/service.ts";

const { env, control } = await startResettingTestEnv(t);
const monitor = new MonitorClient(new SimulatorCredential(), env.sim.subscriptionId, {
  endpoint: env.sim.url,
  credentials: { scopes: ["https://management.azure.com/.default"] },
  retryOptions: { maxRetries: 0 },
  tlsOptions: { ca: env.sim.caPem },
});
const RG = "demo-rg";
const WEB = "web-prod-v001";
const webId = (name: string) =>
  `/subscriptions/${env.sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${name}`;

function profile(min: number, max: number, def: number): AutoscaleProfile {
  return {
    name: "default",
    capacity: { minimum: String(min), maximum: String(max), default: String(def) },
    rules: [
      {
        metricTrigger: {
          metricName: "Percentage CPU",
          metricResourceUri: webId(WEB),
          timeGrain: "PT1M",
          statistic: "Average",
          timeWindow: "PT5M",
          timeAggregation: "Average",
          operator: "GreaterThan",
          threshold: 75,
        },
        scaleAction: { direction: "Increase", type: "ChangeCount", value: "1", cooldown: "PT5M" },
      },
    ],
  };
}

async function putSetting(name: string, target: string, p: AutoscaleProfile): Promise<void> {
  await monitor.autoscaleSettings.createOrUpdate(RG, name, {
    location: "eastus",
    enabled: true,
    targetResourceUri: webId(target),
    profiles: [p],
  });
}

async function run(operation: string, description: Record<string, unknown>) {
  const res = await env.api<{ id: string }>("POST", `/azure/ops/${operation}`, description);
  t.equal(res.status, 202, `${operation} accepted`);
  const task = await env.waitForTask(res.body.id, 60_000);
  t.equal(task.status.failed, false, `${operation} succeeded: ${JSON.stringify(task.history)}`);
  return task;
}

/** The scale set once no write is in flight on it. */
async function settled(name: string) {
  return waitFor(
    async () => {
      const snap = await control.getScaleSet(RG, name);
      return snap.inFlight === null && (snap.vmss as { sku: { capacity: number } });
    },
    { what: `${name} with no write in flight` },
  );
}

/**
 * Azure's evaluation, `times` times on demand, each after the last one's write (if any) ended: every one leaves the
 * capacity at `capacity`. Also none of the periodic evaluations made since `since` changed it.
 */
async function staysAt(t: Test, name: string, capacity: number, since: number, times = 3): Promise<void> {
  for (let i = 0; i < times; i++) {
    await settled(name);
    const evaluations = await evaluateAutoscale(control);
    const own = evaluations.filter((e) => e.targetResourceUri.toLowerCase() === webId(name).toLowerCase());
    t.ok(own.length > 0, `evaluation ${i + 1} looked at ${name}`);
    t.same(
      own.filter((e) => e.outcome === "changed"),
      [],
      `evaluation ${i + 1} left ${name} alone`,
    );
    t.equal((await settled(name)).sku.capacity, capacity, `${name} holds ${capacity} after evaluation ${i + 1}`);
  }
  const periodic = (await autoscaleEvaluations(control)).filter(
    (e: AutoscaleEvaluation) =>
      e.time >= since && e.outcome === "changed" && e.targetResourceUri.toLowerCase() === webId(name).toLowerCase(),
  );
  t.same(periodic, [], "no evaluation since the operation ended moved the capacity");
}

function historyHas(task: { history: { status: string }[] }, pattern: RegExp): boolean {
  return task.history.some((h) => pattern.test(h.status));
}

async function simNow(): Promise<number> {
  const status = await env.simControl<{ lastEvaluationAt: number | null }>("GET", "/_sim/autoscale");
  return status.body.lastEvaluationAt ?? 0;
}

t.test("resize: min and max become the profile's bounds, desired its default and the capacity", async (t) => {
  await putSetting("web-autoscale", WEB, profile(2, 4, 3));
  const task = await run("resizeServerGroup", demo(WEB, { capacity: { min: 1, max: 10, desired: 6 } }));
  const since = await simNow();
  t.ok(
    historyHas(task, /set autoscale setting web-autoscale \(profile "default"\) to min 1, max 10, default 6/),
    "the history says the bounds were written",
  );
  const setting = await monitor.autoscaleSettings.get(RG, "web-autoscale");
  t.same(setting.profiles[0].capacity, { minimum: "1", maximum: "10", default: "6" });
  t.equal(setting.profiles[0].rules.length, 1, "the rules are kept");
  t.match(task.resultObjects, [{ capacity: { min: 1, max: 10, desired: 6 } }]);
  await staysAt(t, WEB, 6, since);
});

t.test("disable suspends the setting (marked), enable resumes only what disable suspended", async (t) => {
  const BATCH = "batch-v001"; // no load balancer: disable scales it to 0, which autoscale would undo
  await putSetting("batch-autoscale", BATCH, profile(2, 4, 2));
  await run("disableServerGroup", demo(BATCH));
  let since = await simNow();
  let setting = await monitor.autoscaleSettings.get(RG, "batch-autoscale");
  t.equal(setting.enabled, false, "autoscale suspended");
  t.equal(setting.tags?.["vmss-ops.autoscale-suspended-by"], "disableServerGroup", "marked as suspended by us");
  await staysAt(t, BATCH, 0, since);

  await run("enableServerGroup", demo(BATCH));
  since = await simNow();
  setting = await monitor.autoscaleSettings.get(RG, "batch-autoscale");
  t.equal(setting.enabled, true, "autoscale resumed");
  t.equal(setting.tags?.["vmss-ops.autoscale-suspended-by"], undefined, "the mark removed");
  await staysAt(t, BATCH, 2, since);

  // Someone else turned autoscale off: a disable and an enable leave it off.
  await monitor.autoscaleSettings.update(RG, "batch-autoscale", { enabled: false });
  await run("disableServerGroup", demo(BATCH));
  await run("enableServerGroup", demo(BATCH));
  setting = await monitor.autoscaleSettings.get(RG, "batch-autoscale");
  t.equal(setting.enabled, false, "not ours to resume");
});

t.test(
  "a partial disable (rolling red/black) leaves autoscale on: AWS suspends a group's scaling only when it is disabled whole",
  async (t) => {
    const ROLL = "roll-prod-v001";
    await control.putScaleSet(RG, ROLL, { capacity: 2, orchestrationMode: "Flexible" });
    await putSetting("roll-autoscale", ROLL, profile(2, 4, 2));
    const task = await run("disableServerGroup", { ...demo(ROLL), desiredPercentage: 50 });
    t.match(
      task.resultObjects,
      [{ instanceIdsToDisable: [String], disabled: false }],
      "a share out, the group enabled",
    );
    const setting = await monitor.autoscaleSettings.get(RG, "roll-autoscale");
    t.equal(setting.enabled, true, "autoscale still on");
    t.equal(setting.tags?.["vmss-ops.autoscale-suspended-by"], undefined, "and not marked");
    await run("disableServerGroup", demo(ROLL));
    t.equal(
      (await monitor.autoscaleSettings.get(RG, "roll-autoscale")).enabled,
      false,
      "the whole disable suspends it",
    );
  },
);

t.test("scaleDown to 0 stays at 0: the profile's bounds become 0", async (t) => {
  await putSetting("web-autoscale", WEB, profile(2, 4, 3));
  await run("scaleDown", demo(WEB));
  const since = await simNow();
  const setting = await monitor.autoscaleSettings.get(RG, "web-autoscale");
  t.same(setting.profiles[0].capacity, { minimum: "0", maximum: "0", default: "0" });
  t.equal(setting.enabled, true, "autoscale stays on: it holds the group at 0");
  await staysAt(t, WEB, 0, since);
});

t.test("destroy deletes the setting that targets the scale set", async (t) => {
  await putSetting("v002-autoscale", "web-prod-v002", profile(2, 4, 3));
  await putSetting("web-autoscale", WEB, profile(2, 4, 3));
  const task = await run("destroyServerGroup", demo("web-prod-v002"));
  t.ok(historyHas(task, /delete autoscale setting v002-autoscale/), "the history says so");
  await t.rejects(monitor.autoscaleSettings.get(RG, "v002-autoscale"), { statusCode: 404, code: "ResourceNotFound" });
  const left = [];
  for await (const s of monitor.autoscaleSettings.listByResourceGroup(RG)) left.push(s.name);
  t.same(left, ["web-autoscale"], "another scale set's setting is left alone");
});

const BATCH_ID = () => webId("batch-v001");

/** A setting as platform teams write one: a daily schedule with rules, a default, a past fixed date, a notification. */
function scheduledSetting(target: string): AutoscaleSettingResource {
  const cpu = (
    resource: string,
    operator: ComparisonOperationType,
    threshold: number,
    direction: ScaleDirection,
  ): ScaleRule => ({
    metricTrigger: {
      metricName: "Percentage CPU",
      metricResourceUri: resource,
      timeGrain: "PT1M",
      statistic: "Average",
      timeWindow: "PT5M",
      timeAggregation: "Average",
      operator,
      threshold,
    },
    scaleAction: { direction, type: "ChangeCount", value: "1", cooldown: "PT5M" },
  });
  return {
    location: "eastus",
    enabled: true,
    targetResourceUri: webId(target),
    profiles: [
      { name: "default", capacity: { minimum: "1", maximum: "2", default: "1" }, rules: [] },
      {
        name: "daily",
        capacity: { minimum: "2", maximum: "4", default: "2" },
        // The scale set's own CPU, and a queue worker's (another resource: kept as it is).
        rules: [cpu(webId(target), "GreaterThan", 75, "Increase"), cpu(BATCH_ID(), "LessThan", 5, "Decrease")],
        recurrence: {
          frequency: "Week",
          schedule: {
            timeZone: "UTC",
            days: ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"],
            hours: [0],
            minutes: [0],
          },
        },
      },
      {
        name: "launch-day",
        capacity: { minimum: "6", maximum: "6", default: "6" },
        rules: [],
        fixedDate: { timeZone: "UTC", start: new Date("2020-01-01T00:00:00Z"), end: new Date("2020-01-02T00:00:00Z") },
      },
    ],
    notifications: [
      {
        operation: "Scale",
        email: { sendToSubscriptionAdministrator: false, customEmails: ["ops@example.com"] },
        webhooks: [],
      },
    ],
  };
}

/** The body Orca's clone stage sends: the stage context (CloneServerGroupTask.groovy l.53-54, l.100), its source as
 * SourceResolver.groovy l.122 names it (asgName), the capacity the stage asks for. */
function orcaClone(source: string, capacity?: { min: number; max: number; desired: number }) {
  return [
    {
      cloneServerGroup: {
        credentials: "demo",
        region: "eastus",
        cloudProvider: "azure",
        source: { account: "demo", region: "eastus", asgName: source },
        ...(capacity ? { capacity } : {}),
      },
    },
  ];
}

async function runList(body: unknown) {
  const res = await env.api<{ id: string }>("POST", "/azure/ops", body);
  t.equal(res.status, 202, `accepted: ${JSON.stringify(res.body)}`);
  const task = await env.waitForTask(res.body.id, 60_000);
  t.equal(task.status.failed, false, `succeeded: ${JSON.stringify(task.history)}`);
  return task;
}

t.test(
  "clone: the source's setting copied to the new group, the capacity on the profile in force, rules re-pointed",
  async (t) => {
    await monitor.autoscaleSettings.createOrUpdate(RG, `${WEB}-autoscale`, scheduledSetting(WEB));
    // The source runs hot: a rule still watching it would scale the copy out.
    await env.simControl("PUT", "/_sim/autoscale/metrics", {
      resourceUri: webId(WEB),
      metricName: "Percentage CPU",
      value: 90,
    });
    const dry = await env.api("POST", "/azure/ops?dryRun=true", orcaClone(WEB, { min: 2, max: 5, desired: 3 }));
    t.match(
      JSON.stringify(dry.body),
      new RegExp(`then the source's autoscale setting ${WEB}-autoscale copied as web-prod-v\\d{3}-autoscale`),
      "a dry run shows the copy to come",
    );
    const task = await runList(orcaClone(WEB, { min: 2, max: 5, desired: 3 }));
    const since = await simNow();
    const name = task.resultObjects[0].serverGroupName as string;
    const copyName = `${name}-autoscale`;
    t.ok(
      historyHas(
        task,
        new RegExp(
          `copy autoscale setting ${WEB}-autoscale of ${WEB} as ${copyName}: 3 profile\\(s\\), 2 rule\\(s\\), 1 notification\\(s\\), profile "daily" at min 2, max 5, default 3`,
        ),
      ),
      `the history says what was copied: ${JSON.stringify(task.history)}`,
    );
    const source = await monitor.autoscaleSettings.get(RG, `${WEB}-autoscale`);
    const copy = await monitor.autoscaleSettings.get(RG, copyName);
    t.equal(copy.targetResourceUri?.toLowerCase(), webId(name).toLowerCase(), "the copy targets the new group");
    t.equal(copy.enabled, true);
    t.same(copy.profiles[0], source.profiles[0], "the default profile as it was");
    t.same(copy.profiles[1].capacity, { minimum: "2", maximum: "5", default: "3" }, "the clone's capacity in force");
    t.same(copy.profiles[1].recurrence, source.profiles[1].recurrence, "the schedule kept");
    t.equal(copy.profiles[1].rules[0].metricTrigger.metricResourceUri.toLowerCase(), webId(name).toLowerCase());
    t.same(
      {
        ...copy.profiles[1].rules[0],
        metricTrigger: { ...copy.profiles[1].rules[0].metricTrigger, metricResourceUri: "" },
      },
      {
        ...source.profiles[1].rules[0],
        metricTrigger: { ...source.profiles[1].rules[0].metricTrigger, metricResourceUri: "" },
      },
      "the rule otherwise as it was",
    );
    t.same(copy.profiles[1].rules[1], source.profiles[1].rules[1], "a rule on another resource kept as it is");
    t.same(copy.profiles[2], source.profiles[2], "the fixed-date profile as it was");
    t.same(copy.notifications, source.notifications, "the notification kept");
    t.same(source.profiles[1].capacity, { minimum: "2", maximum: "4", default: "2" }, "the source's setting untouched");
    await staysAt(t, name, 3, since);

    // Orca's reads: min and max are the setting's, as Azure enforces them.
    const read = await env.api<{ capacity: unknown }>("GET", `/serverGroups/demo/eastus/${name}`);
    t.same(read.body.capacity, { min: 2, max: 5, desired: 3 }, "GET /serverGroups reports the setting's bounds");
  },
);

t.test("a clone of a group without a setting writes none", async (t) => {
  const task = await runList(orcaClone(WEB));
  t.notOk(historyHas(task, /autoscale/), "no setting, nothing said");
  const settings = [];
  for await (const s of monitor.autoscaleSettings.listByResourceGroup(RG)) settings.push(s.name);
  t.same(settings, [], "none made");
});

// Orca's deploy stage with a strategy sends createServerGroup (not a clone) with the cluster's current group as
// `source` (DetermineSourceServerGroupTask.groovy l.69-81). Clouddriver's AWS deploy copies that group's scaling
// policies and scheduled actions unless told not to (BasicAmazonDeployDescription.groovy l.76-82): so does this one,
// else a red/black would leave the cluster without autoscale once the old group's setting is deleted with it.
t.test("createServerGroup with Orca's source: the source's setting copied, with the deploy's capacity", async (t) => {
  await monitor.autoscaleSettings.createOrUpdate(RG, `${WEB}-autoscale`, scheduledSetting(WEB));
  const source = { account: "demo", region: "eastus", asgName: WEB, serverGroupName: WEB, useSourceCapacity: false };
  const create = (extra: Record<string, unknown>) =>
    run(
      "createServerGroup",
      demoCreate(env.sim.subscriptionId, {
        application: "web",
        stack: "prod",
        capacity: { min: 2, max: 6, desired: 2 },
        source,
        ...extra,
      }),
    );
  const task = await create({});
  const since = await simNow();
  const name = task.resultObjects[0].serverGroupName as string;
  const copy = await monitor.autoscaleSettings.get(RG, `${name}-autoscale`);
  t.equal(copy.targetResourceUri?.toLowerCase(), webId(name).toLowerCase());
  t.same(copy.profiles[1].capacity, { minimum: "2", maximum: "6", default: "2" }, "the deploy's capacity in force");
  t.equal(copy.profiles.length, 3, "every profile");
  await staysAt(t, name, 2, since);

  const without = await create({ copySourceScalingPoliciesAndActions: false });
  const other = without.resultObjects[0].serverGroupName as string;
  const names = [];
  for await (const s of monitor.autoscaleSettings.listByResourceGroup(RG)) names.push(s.name);
  t.notOk(names.includes(`${other}-autoscale`), "copySourceScalingPoliciesAndActions: false copies none");
});

/** Orca's refresh after it changes a group (ServerGroupCacheForceRefreshTask): the reads ask Azure again. */
async function forceCacheRefresh(name: string): Promise<void> {
  const res = await env.api("POST", "/cache/azure/ServerGroup", {
    account: "demo",
    region: "eastus",
    serverGroupName: name,
  });
  t.ok(res.status < 300, `cache refreshed: ${res.status}`);
}

t.test("Orca's reads report min and max from the setting in force, not the tags", async (t) => {
  // Written by the setting's owner, not through resize: the scale set's tags say otherwise.
  await putSetting("web-autoscale", WEB, profile(1, 8, 3));
  await forceCacheRefresh(WEB);
  const one = await env.api<{ capacity: { min: number; max: number; desired: number } }>(
    "GET",
    `/serverGroups/demo/eastus/${WEB}`,
  );
  t.equal(one.status, 200);
  t.match(one.body.capacity, { min: 1, max: 8 }, "GET /serverGroups/{account}/{region}/{name}");
  const cluster = await env.api<{ serverGroups: { name: string; capacity: unknown }[] }>(
    "GET",
    "/applications/web/clusters/demo/web-prod/azure",
  );
  t.equal(cluster.status, 200);
  t.match(
    cluster.body.serverGroups.find((g) => g.name === WEB)?.capacity,
    { min: 1, max: 8 },
    "the cluster's listing too",
  );
  // Turned off by its owner: Azure does not enforce it, the recorded bounds are reported.
  await monitor.autoscaleSettings.update(RG, "web-autoscale", { enabled: false });
  await forceCacheRefresh(WEB);
  const off = await env.api<{ capacity: { min: number; max: number } }>("GET", `/serverGroups/demo/eastus/${WEB}`);
  t.not(off.body.capacity.max, 8, `a setting its owner disabled is not reported: ${JSON.stringify(off.body.capacity)}`);
});
