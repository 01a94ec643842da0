// Azure Monitor autoscale in the simulator: Microsoft.Insights/autoscaleSettings through Microsoft's @azure/arm-monitor
// (CRUD, lists, validation), and the evaluator on a clock the test moves: the active profile (fixedDate over
// recurrence over default), the capacity brought into the profile's bounds, metric rules with their cooldown, the
// periodic evaluation, and autoscale's writes recorded as Azure's own.
import t from "tap";
import type { AutoscaleProfile, AutoscaleSettingResource } from "@azure/arm-monitor";
import {
  evaluateAutoscale,
  setAutoscaleMetric,
  setAutoscalePeriodic,
  SimulatorControl,
  startSimulator,
  type RunningSimulator,
} from "vmss-simulator";
import { HAND_CLOCK_START } from "./helpers/hand-clock-simulator.ts";
import { monitorClient } from "./helpers/monitor-client.ts";

const RG = "demo-rg";
const WEB = "web-prod-v001";

let clock = HAND_CLOCK_START; // a Sunday, 12:00 UTC
const sim: RunningSimulator = await startSimulator({
  seed: true,
  timeScale: 1,
  writeDurationMs: 0,
  throttling: false,
  now: () => clock,
});
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());
const monitor = monitorClient(sim);
const WEB_ID = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/${WEB}`;
const SETTINGS_PATH = `/subscriptions/${sim.subscriptionId}/resourceGroups/${RG}/providers/Microsoft.Insights/autoscalesettings`;

t.beforeEach(async () => {
  await control.reset();
  clock = HAND_CLOCK_START;
  // Each evaluation is the test's own (the periodic one has a test of its own below).
  await setAutoscalePeriodic(control, false);
});

/** A profile as the SDK takes it (extra: its wire fields, unchecked, so that a test can send a wrong one). */
function profile(name: string, min: number, max: number, def: number, extra: object = {}): AutoscaleProfile {
  return {
    name,
    capacity: { minimum: String(min), maximum: String(max), default: String(def) },
    rules: [],
    ...extra,
  };
}

function cpuRule(direction: "Increase" | "Decrease", operator: "GreaterThan" | "LessThan", threshold: number) {
  return {
    metricTrigger: {
      metricName: "Percentage CPU",
      metricResourceUri: WEB_ID,
      timeGrain: "PT1M",
      statistic: "Average" as const,
      timeWindow: "PT5M",
      timeAggregation: "Average" as const,
      operator,
      threshold,
    },
    scaleAction: { direction, type: "ChangeCount" as const, value: "1", cooldown: "PT5M" },
  };
}

function setting(profiles: AutoscaleProfile[], enabled = true): AutoscaleSettingResource {
  return { location: "eastus", profiles, enabled, targetResourceUri: WEB_ID, tags: {} };
}

async function capacity(): Promise<number> {
  const snap = (await control.getScaleSet(RG, WEB)) as unknown as { vmss: { sku: { capacity: number } } };
  return snap.vmss.sku.capacity;
}

t.test("CRUD through @azure/arm-monitor: create 201, read, list, patch, delete", async (t) => {
  const created = await monitor.autoscaleSettings.createOrUpdate(RG, "web-autoscale", setting([profile("d", 2, 5, 3)]));
  t.equal(created.name, "web-autoscale");
  t.equal(created.type, "Microsoft.Insights/autoscaleSettings");
  t.equal(created.targetResourceUri, WEB_ID);
  t.same(created.profiles[0].capacity, { minimum: "2", maximum: "5", default: "3" });
  t.equal(created.enabled, true);
  t.match(created.id, /\/autoscalesettings\/web-autoscale$/);
  const read = await monitor.autoscaleSettings.get(RG, "WEB-AUTOSCALE");
  t.equal(read.name, "web-autoscale", "names are matched case-insensitively");
  const inGroup = [];
  for await (const s of monitor.autoscaleSettings.listByResourceGroup(RG)) inGroup.push(s.name);
  const inSub = [];
  for await (const s of monitor.autoscaleSettings.listBySubscription()) inSub.push(s.name);
  t.same(inGroup, ["web-autoscale"]);
  t.same(inSub, ["web-autoscale"]);
  const patched = await monitor.autoscaleSettings.update(RG, "web-autoscale", { enabled: false, tags: { a: "b" } });
  t.equal(patched.enabled, false);
  t.same(patched.tags, { a: "b" });
  t.same(patched.profiles[0].capacity, { minimum: "2", maximum: "5", default: "3" }, "PATCH keeps what it omits");
  const replaced = await control.request("PUT", `${SETTINGS_PATH}/web-autoscale?api-version=2022-10-01`, {
    body: { location: "eastus", properties: { profiles: [profile("d", 1, 4, 2)], targetResourceUri: WEB_ID } },
    headers: { authorization: "Bearer x" },
  });
  t.equal(replaced.status, 200, "a PUT over an existing setting answers 200");
  t.notOk((replaced.body as { etag?: string }).etag, "no ETag: the specification defines none for this resource");
  await monitor.autoscaleSettings.delete(RG, "web-autoscale");
  await t.rejects(monitor.autoscaleSettings.get(RG, "web-autoscale"), { statusCode: 404, code: "ResourceNotFound" });
  await monitor.autoscaleSettings.delete(RG, "web-autoscale"); // 204: already gone
  await t.rejects(monitor.autoscaleSettings.get("no-such-rg", "x"), { statusCode: 404, code: "ResourceGroupNotFound" });
});

t.test("a bad setting is a 400 naming the field", async (t) => {
  const put = (body: unknown, version = "2022-10-01") =>
    control.request("PUT", `${SETTINGS_PATH}/bad?api-version=${version}`, {
      body,
      headers: { authorization: "Bearer x" },
    });
  const props = (p: object) => ({ location: "eastus", properties: { targetResourceUri: WEB_ID, ...p } });
  const cases: [unknown, string][] = [
    [props({ profiles: [] }), "properties.profiles"],
    [props({ profiles: [profile("d", 5, 2, 3)] }), "properties.profiles[0].capacity.minimum"],
    [props({ profiles: [profile("d", 1, 3, 9)] }), "properties.profiles[0].capacity.default"],
    [
      props({ profiles: [{ ...profile("d", 1, 3, 2), capacity: { minimum: "x", maximum: "3", default: "2" } }] }),
      "properties.profiles[0].capacity.minimum",
    ],
    [
      props({
        profiles: [
          profile("d", 1, 3, 2, {
            rules: [
              {
                ...cpuRule("Increase", "GreaterThan", 70),
                scaleAction: { direction: "Up", type: "ChangeCount", value: "1", cooldown: "PT5M" },
              },
            ],
          }),
        ],
      }),
      "properties.profiles[0].rules[0].scaleAction.direction",
    ],
    [
      props({
        profiles: [
          profile("d", 1, 3, 2, { fixedDate: { timeZone: "UTC", start: "nope", end: "2026-01-01T00:00:00Z" } }),
        ],
      }),
      "properties.profiles[0].fixedDate.start",
    ],
    [{ location: "eastus", properties: { profiles: [profile("d", 1, 3, 2)] } }, "properties.targetResourceUri"],
  ];
  for (const [body, target] of cases) {
    const res = await put(body);
    t.equal(res.status, 400, target);
    t.match(res.body, { error: { code: "InvalidParameter", target } }, target);
  }
  t.match(await put({ properties: { profiles: [profile("d", 1, 3, 2)], targetResourceUri: WEB_ID } }), {
    status: 400,
    body: { error: { code: "LocationRequired" } },
  });
  t.match(await put(props({ profiles: [profile("d", 1, 3, 2)] }), "2026-04-01"), {
    status: 400,
    body: { error: { code: "NoRegisteredProviderFound" } },
  });
});

t.test("the default profile: the capacity is brought into [minimum, maximum], as Azure's own write", async (t) => {
  t.equal(await capacity(), 3);
  await monitor.autoscaleSettings.createOrUpdate(RG, "web-autoscale", setting([profile("d", 4, 6, 4)]));
  await control.clearCalls();
  const [evaluation] = await evaluateAutoscale(control);
  t.match(evaluation, {
    setting: "web-autoscale",
    profile: "d",
    capacityBefore: 3,
    capacityAfter: 4,
    outcome: "changed",
  });
  t.equal(await capacity(), 4);
  const calls = await control.calls();
  t.match(calls, [{ method: "PATCH", path: WEB_ID, origin: "autoscale", userAgent: "Azure Monitor autoscale" }]);
  const versions = (await control.request("GET", `/_sim/scaleSets/${RG}/${WEB}/versions`)).body as { source: string }[];
  t.equal(versions.at(-1)?.source, "autoscale");
  const [again] = await evaluateAutoscale(control);
  t.equal(again.outcome, "unchanged", "within the bounds: nothing to do");

  await monitor.autoscaleSettings.update(RG, "web-autoscale", { enabled: false, profiles: [profile("d", 1, 2, 1)] });
  const [disabled] = await evaluateAutoscale(control);
  t.match(disabled, { outcome: "skipped", reason: "disabled" });
  t.equal(await capacity(), 4, "a disabled setting does nothing");
});

t.test("metric rules: any scale-out rule, every scale-in rule, the cooldown, the maximum", async (t) => {
  const rules = [
    cpuRule("Increase", "GreaterThan", 70),
    cpuRule("Decrease", "LessThan", 30),
    {
      ...cpuRule("Decrease", "LessThan", 30),
      metricTrigger: { ...cpuRule("Decrease", "LessThan", 30).metricTrigger, metricName: "Network In" },
    },
  ];
  await monitor.autoscaleSettings.createOrUpdate(RG, "web-autoscale", setting([profile("d", 2, 5, 3, { rules })]));
  t.match(await evaluateAutoscale(control), [{ outcome: "unchanged" }], "no data, and not below the default");
  await setAutoscaleMetric(control, { resourceUri: WEB_ID, metricName: "Percentage CPU", value: 90 });
  t.match(await evaluateAutoscale(control), [{ capacityAfter: 4, outcome: "changed" }]);
  t.match(await evaluateAutoscale(control), [{ outcome: "unchanged" }], "within the cooldown");
  clock += 5 * 60_000;
  t.match(await evaluateAutoscale(control), [{ capacityAfter: 5 }]);
  clock += 5 * 60_000;
  t.match(await evaluateAutoscale(control), [{ outcome: "unchanged" }], "at the maximum");
  await setAutoscaleMetric(control, { resourceUri: WEB_ID, metricName: "Percentage CPU", value: 10 });
  clock += 5 * 60_000;
  t.match(await evaluateAutoscale(control), [{ outcome: "unchanged" }], "one scale-in rule has no data: no scale-in");
  await setAutoscaleMetric(control, { resourceUri: WEB_ID, metricName: "Network In", value: 5 });
  t.match(await evaluateAutoscale(control), [{ capacityAfter: 4, outcome: "changed" }], "every scale-in rule met");
  t.equal(await capacity(), 4);
});

t.test("the active profile: fixedDate over recurrence over default", async (t) => {
  const weekend = profile("weekend", 1, 1, 1, {
    recurrence: {
      frequency: "Week",
      schedule: { timeZone: "UTC", days: ["Saturday", "Sunday"], hours: [0], minutes: [0] },
    },
  });
  const weekdays = profile("weekdays", 2, 2, 2, {
    recurrence: { frequency: "Week", schedule: { timeZone: "UTC", days: ["Monday"], hours: [0], minutes: [0] } },
  });
  const launch = profile("launch", 6, 6, 6, {
    fixedDate: { timeZone: "UTC", start: new Date(clock + 3_600_000), end: new Date(clock + 7_200_000) },
  });
  await monitor.autoscaleSettings.createOrUpdate(
    RG,
    "web-autoscale",
    setting([profile("d", 3, 3, 3), weekend, weekdays, launch]),
  );
  t.match(await evaluateAutoscale(control), [{ profile: "weekend", capacityAfter: 1 }], "Sunday: the weekend's");
  clock += 90 * 60_000;
  t.match(await evaluateAutoscale(control), [{ profile: "launch", capacityAfter: 6 }], "within the fixed date");
  clock += 24 * 3_600_000;
  t.match(await evaluateAutoscale(control), [{ profile: "weekdays", capacityAfter: 2 }], "Monday");
});

t.test("the evaluation runs by itself once a minute of the simulator's clock", async (t) => {
  await setAutoscalePeriodic(control, true);
  await monitor.autoscaleSettings.createOrUpdate(RG, "web-autoscale", setting([profile("d", 5, 5, 5)]));
  await control.health(); // the clock is read: the minute starts
  clock += 59_000;
  t.equal(await capacity(), 3, "not yet a minute");
  clock += 1_000;
  t.equal(await capacity(), 5, "a minute later, autoscale has acted");
});
