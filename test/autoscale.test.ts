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
