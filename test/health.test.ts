// GET /health is written with JSON.stringify rather than its schema's serializer (so that the first probe after
// start-up does not wait for the serializers to load): its body must be exactly the Health schema, no field more.
import t from "tap";
import { Value } from "@sinclair/typebox/value";
import { buildApp } from "../src/app.ts";
import { Health } from "../src/api/schemas.ts";
import { loadConfig } from "../src/startup-config.ts";

t.test("the liveness body is exactly Health", async (t) => {
  const config = loadConfig({ SIMULATOR: "external", SIMULATOR_URL: "https://127.0.0.1:1", LOG_LEVEL: "silent" });
  const service = await buildApp({ config, logger: false });
  t.teardown(() => service.close());
  const res = await service.app.inject({ method: "GET", url: "/health" });
  t.equal(res.statusCode, 200);
  t.match(res.headers["content-type"], /^application\/json/);
  const body = JSON.parse(res.body);
  t.same(
    [...Value.Errors(Health, body)].map((e) => `${e.path}: ${e.message}`),
    [],
    "valid, and nothing Health does not have",
  );
  t.same(Object.keys(body).sort(), Object.keys(Health.properties).sort(), "every field of Health");
  t.same(body.accounts, ["demo"]);
});
