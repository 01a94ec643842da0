// Answers shaped by api-version: what a version's specification does not define is left out, at that version only.
import t from "tap";
import { shapeForApiVersion } from "../src/api-version-shapes.ts";
import { startSimulator } from "../src/simulator.ts";
import { SimulatorControl } from "../src/control-client.ts";

t.test("a scale set and its VM at 2020-06-01, 2022-08-01, 2023-07-01 and 2026-04-01", async (t) => {
  const sim = await startSimulator({ seed: true });
  t.teardown(() => sim.close());
  const control = new SimulatorControl(sim);
  t.teardown(() => control.close());
  const base = `/subscriptions/${sim.subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-prod-v001`;
  const get = async (path: string, version: string) => {
    const res = await control.request("GET", `${base}${path}?api-version=${version}`, {
      headers: { authorization: "Bearer test" },
    });
    t.equal(res.status, 200);
    return res as { body: { etag?: string; properties: Record<string, unknown> }; headers: Record<string, unknown> };
  };
  const newest = await get("", "2026-04-01");
  t.type(newest.body.etag, "string");
  t.type(newest.body.properties.timeCreated, "string");
  t.equal(newest.body.properties.orchestrationMode, "Uniform");

  const v2022 = await get("", "2022-08-01");
  t.equal(v2022.body.etag, undefined, "2022-08-01 defines no etag on a scale set");
  t.type(v2022.body.properties.timeCreated, "string", "…but its timeCreated (since 2021-11-01)");
  t.equal(v2022.headers.etag, newest.headers.etag, "the ETag header stays: If-Match works at every version");

  const v2020 = await get("", "2020-06-01");
  t.equal(v2020.body.properties.orchestrationMode, undefined, "orchestrationMode is defined from 2020-12-01");
  t.equal(v2020.body.properties.timeCreated, undefined);
  t.type(v2020.body.properties.upgradePolicy, "object", "what 2020-06-01 defines stays");

  t.equal((await get("/virtualMachines/0", "2022-08-01")).body.properties.timeCreated, undefined);
  t.type((await get("/virtualMachines/0", "2023-07-01")).body.properties.timeCreated, "string");
  t.type((await get("/virtualMachines/0", "2026-04-01")).body.properties.timeCreated, "string");
});

t.test("shaping copies: the body given is not changed, nor is anything without a type or an api-version", async (t) => {
  const body = { value: [{ type: "Microsoft.Compute/virtualMachineScaleSets", etag: '"1"', properties: {} }] };
  t.same(shapeForApiVersion("2022-08-01", body), {
    value: [{ type: "Microsoft.Compute/virtualMachineScaleSets", properties: {} }],
  });
  t.equal(body.value[0].etag, '"1"');
  t.equal(shapeForApiVersion(null, body), body);
  t.equal(shapeForApiVersion("2026-04-01", body), body);
});
