// A clone's copy of its source's autoscale setting, as pure parts: the name it gets, what it keeps, and the create
// planner writing it once the scale set exists and never over a setting that targets the new group already (a run
// resumed after the copy was written reads it there and goes on).
import t from "tap";
import type { AutoscaleSettingWire } from "../src/azure/autoscale-gateway.ts";
import { copiedSettingName, copyAutoscaleSetting, type CopyTarget } from "../src/operations/create/autoscale-copy.ts";
import { createPlanner } from "../src/operations/create/create-planner.ts";
import { TAG_CREATED_BY, type CreateContext } from "../src/operations/create/prepare.ts";
import { TAG_AUTOSCALE_SUSPENDED_BY } from "../src/operations/autoscale-suspension.ts";
import type { AnyCreate } from "../src/operations/create/description.ts";

const VMSS = "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Compute/virtualMachineScaleSets";

function source(extra: Partial<AutoscaleSettingWire["properties"]> = {}, tags?: Record<string, string>) {
  return {
    id: "/subscriptions/s/resourceGroups/rg/providers/Microsoft.Insights/autoscalesettings/web-prod-v001-autoscale",
    name: "web-prod-v001-autoscale",
    location: "eastus",
    ...(tags ? { tags } : {}),
    properties: {
      enabled: true,
      targetResourceUri: `${VMSS}/web-prod-v001`,
      profiles: [
        {
          name: "default",
          capacity: { minimum: "2", maximum: "4", default: "2" },
          rules: [
            { metricTrigger: { metricResourceUri: `${VMSS}/WEB-PROD-V001` }, scaleAction: { direction: "Increase" } },
          ],
        },
      ],
      ...extra,
    },
  } satisfies AutoscaleSettingWire;
}

const target = (over: Partial<CopyTarget> = {}): CopyTarget => ({
  sourceId: `${VMSS}/web-prod-v001`,
  sourceName: "web-prod-v001",
  targetId: `${VMSS}/web-prod-v002`,
  targetName: "web-prod-v002",
  region: "eastus",
  inTraffic: true,
  taken: new Set(),
  now: Date.now(),
  ...over,
});

t.test(
  "the name: the source's with the new group's, else <group>-autoscale; never one another resource's holds",
  async (t) => {
    t.equal(copiedSettingName("web-prod-v001-autoscale", target()), "web-prod-v002-autoscale");
    t.equal(copiedSettingName("cpu-scaling", target()), "web-prod-v002-autoscale");
    t.equal(
      copiedSettingName("web-prod-v001-autoscale", target({ taken: new Set(["web-prod-v002-autoscale"]) })),
      "web-prod-v002-autoscale-2",
    );
  },
);

t.test("the copy: re-pointed, capacity on the profile in force, our suspension mark not carried", async (t) => {
  const copy = copyAutoscaleSetting(
    source({ enabled: false }, { [TAG_AUTOSCALE_SUSPENDED_BY]: "disableServerGroup", team: "a" }),
    {
      ...target(),
      capacity: { min: 1, max: 6, desired: 3 },
    },
  )!;
  t.equal(copy.name, "web-prod-v002-autoscale");
  t.equal(copy.setting.id, undefined, "Azure's own fields left out");
  t.equal(copy.setting.properties.targetResourceUri, `${VMSS}/web-prod-v002`);
  t.equal(copy.setting.properties.profiles[0].rules[0].metricTrigger.metricResourceUri, `${VMSS}/web-prod-v002`);
  t.same(copy.setting.properties.profiles[0].capacity, { minimum: "1", maximum: "6", default: "3" });
  t.same(copy.setting.tags, { team: "a" }, "the source was suspended by our disable: the copy serves, enabled");
  t.equal(copy.setting.properties.enabled, true);
  const off = copyAutoscaleSetting(source({ enabled: false }), target())!;
  t.equal(off.setting.properties.enabled, false, "turned off by its owner: the copy too");
  const disabled = copyAutoscaleSetting(source(), target({ inTraffic: false }))!;
  t.equal(disabled.setting.properties.enabled, false, "a clone created out of traffic: suspended as disable would");
  t.equal(disabled.setting.tags?.[TAG_AUTOSCALE_SUSPENDED_BY], "disableServerGroup", "so that enable resumes it");
  t.equal(copyAutoscaleSetting(null, target()), undefined, "no setting, no copy");
});

t.test("the planner writes the copy once the scale set exists, and not over a setting that targets it", async (t) => {
  const copy = copyAutoscaleSetting(source(), target())!;
  const context: CreateContext = { cluster: "web-prod", found: true, autoscale: copy };
  const origin = { taskId: "task-1" };
  const ref = { account: "demo", subscriptionId: "s", resourceGroup: "rg", name: "web-prod-v002", region: "eastus" };
  const d: AnyCreate = {
    credentials: "demo",
    region: "eastus",
    disabled: true,
    source: { serverGroupName: "web-prod-v001" },
  };
  const planner = createPlanner(d, ref, {
    origin,
    prepared: { serverGroupName: "web-prod-v002", context },
  });
  t.equal(planner.readsAutoscale, true, "every read sees the settings");
  const vmss = {
    id: `${VMSS}/web-prod-v002`,
    name: "web-prod-v002",
    location: "eastus",
    sku: { capacity: 2 },
    tags: { [TAG_CREATED_BY]: "task:task-1" },
    provisioningState: "Succeeded",
  };
  const first = planner.plan({ vmss, etag: "1", vms: [], autoscale: null });
  t.match(first, { kind: "autoscale", name: "web-prod-v002-autoscale" }, "none yet: the copy is written");
  const again = planner.plan({ vmss, etag: "1", vms: [], autoscale: { ...copy.setting, name: copy.name } });
  t.not(again.kind, "autoscale", "one targets the new group: not written twice");
});
