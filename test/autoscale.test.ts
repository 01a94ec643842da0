// Azure Monitor autoscale respected end to end: a setting targets the scale set (written with Microsoft's
// @azure/arm-monitor, as its owner would), Azure's evaluation runs on the simulator's clock all along (every 60 ms at
// the tests' time factor) and several more times on demand after each operation, and the capacity stays where the
// pipeline put it. The real service, the real SDK, the simulator: nothing mocked.
import t, { type Test } from "tap";
import { MonitorClient, type AutoscaleProfile } from "@azure/arm-monitor";
import { autoscaleEvaluations, evaluateAutoscale, type AutoscaleEvaluation } from "vmss-simulator";
import { SimulatorCredential } from "../src/azure/client.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, startResettingTestEnv } from "./helpers/service.ts";

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
