// A single placement group holds at most 100 VMs (Azure refuses more with 409 OperationNotAllowed). The service
// creates groups that may grow past that with several placement groups, and refuses at once, with what to change, a
// resize past 100 of a group that has one — never a 409 from Azure in the middle of a pipeline.
import t from "tap";
import { modelFromDescription, modelFromSource } from "../src/operations/create/scale-set-model.ts";
import { resizeServerGroup } from "../src/operations/resize-server-group.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import { recordedSnapshot } from "./helpers/recorded-shapes.ts";
import type { Json } from "../testkit/json.ts";

const context = { name: "shop-prod-v001", tags: {}, inTraffic: false };
const spec = (capacity: { desired: number; max?: number }) => ({
  region: "eastus",
  sku: { name: "Standard_D2s_v3" },
  capacity,
});

t.test("create: singlePlacementGroup false when the group may grow past 100, Azure's default otherwise", async (t) => {
  t.equal(modelFromDescription(spec({ desired: 2, max: 101 }), context).singlePlacementGroup, false, "max above 100");
  t.equal(modelFromDescription(spec({ desired: 150 }), context).singlePlacementGroup, false, "size above 100");
  t.equal(
    modelFromDescription(spec({ desired: 2, max: 100 }), context).singlePlacementGroup,
    undefined,
    "up to 100: Azure's default (one group)",
  );
  const source = recordedSnapshot({}, ["Succeeded"]).vmss;
  t.equal(
    modelFromSource(source, spec({ desired: 2, max: 500 }), [], context).singlePlacementGroup,
    false,
    "a clone too",
  );
  t.equal(
    modelFromSource(source, spec({ desired: 2, max: 10 }), [], context).singlePlacementGroup,
    source.singlePlacementGroup,
    "a clone that stays small keeps its source's setting, as it keeps every other",
  );
});

t.test(
  "resize past 100 of a scale set with a single placement group: refused by the plan, saying why and what to change",
  async (t) => {
    const ref = {
      account: "demo",
      subscriptionId: "s",
      resourceGroup: "rgname",
      name: "virtualmachinescaleset16842a5e",
      region: "eastus",
    };
    const where = { credentials: "demo", region: "eastus", serverGroupName: ref.name };
    const single = recordedSnapshot({}, ["Succeeded"]);
    t.equal(single.vmss.singlePlacementGroup, true, "the recorded scale set has Azure's default");
    const planner = resizeServerGroup.planner({ ...where, capacity: { min: 1, max: 200, desired: 101 } }, ref);
    t.throws(() => planner.plan(single), {
      code: "SinglePlacementGroupLimit",
      message: /single placement group.*at most 100.*singlePlacementGroup to false/s,
    });
    t.equal(
      resizeServerGroup.planner({ ...where, capacity: { min: 1, max: 200, desired: 100 } }, ref).plan(single).kind,
      "update",
      "100 fits",
    );
    t.equal(
      planner.plan(recordedSnapshot({ singlePlacementGroup: false }, ["Succeeded"])).kind,
      "update",
      "several placement groups: up to 1,000",
    );
  },
);

t.test("end to end: the task fails at once, before any write; the simulator agrees with the rule", async (t) => {
  const env = await startTestEnv();
  t.teardown(() => env.close());
  // A scale set created the way Azure defaults it: one placement group.
  const arm = `/subscriptions/${env.sim.subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets`;
  const { SimulatorControl } = await import("vmss-simulator");
  const control = new SimulatorControl(env.sim);
  t.teardown(() => control.close());
  const created = await control.request("PUT", `${arm}/single-v001?api-version=2026-04-01`, {
    headers: { authorization: "Bearer t" },
    body: { location: "eastus", sku: { name: "Standard_D2s_v3", capacity: 2 } },
  });
  t.equal(created.status, 201);
  t.equal((created.body as Json).properties.singlePlacementGroup, true);
  const tooBig = await control.request("PATCH", `${arm}/single-v001?api-version=2026-04-01`, {
    headers: { authorization: "Bearer t" },
    body: { sku: { capacity: 101 } },
  });
  t.equal(tooBig.status, 409, "the simulator refuses what Azure refuses");
  await control.clearCalls();

  const submitted = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("single-v001", { capacity: { min: 1, max: 150, desired: 120 } }),
  );
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.status.failed, true);
  t.match(JSON.stringify(task.history), /single placement group/);
  t.same(
    (await env.calls()).filter((c) => c.method !== "GET"),
    [],
    "no write was sent",
  );
});
