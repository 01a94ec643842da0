// Route schemas compile on first use (start-up does not compile them), behave as fastify's own compilers would, and
// every one of the service's schemas still compiles.
import t from "tap";
import Fastify from "fastify";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { LazySchemaCompilers } from "../src/api/schema-compilers.ts";

t.test("every route schema of the service compiles", async (t) => {
  const config = loadConfig({ SIMULATOR: "external", SIMULATOR_URL: "https://127.0.0.1:1", LOG_LEVEL: "silent" });
  const service = await buildApp({ config, logger: false });
  t.teardown(() => service.close());
  const compiled = service.compileSchemas();
  // Validators and serializers of dozens of routes (GET routes twice: their HEAD twins share the schemas).
  t.ok(compiled > 50, `compiled ${compiled} schemas`);
  t.equal(service.compileSchemas(), 0, "nothing is left to compile");
  t.equal((await service.app.inject({ method: "GET", url: "/health" })).statusCode, 200, "and the routes still answer");
});

/** A small app on the lazy compilers, with a shared schema, a coerced querystring and a response schema. */
async function app(compilers: LazySchemaCompilers, extra?: (app: ReturnType<typeof Fastify>) => void) {
  const app = Fastify({
    ajv: { customOptions: { allErrors: true } },
    schemaController: { compilersFactory: compilers.factory },
  });
  app.addSchema({ $id: "Size", type: "integer", minimum: 1 });
  app.get(
    "/things",
    {
      schema: {
        querystring: { type: "object", properties: { limit: { $ref: "Size" } }, additionalProperties: false },
        response: { 200: { type: "object", properties: { limit: { type: "integer" }, kind: { type: "string" } } } },
      },
    },
    // The secret field is not in the response schema: the serializer must drop it.
    (request) => ({
      limit: (request.query as { limit?: number }).limit,
      kind: typeof (request.query as { limit?: number }).limit,
      secret: "x",
    }),
  );
  // Ajv coerces a root value only when given its parent: a lone item becomes the array the schema asks for.
  app.post("/list", { schema: { body: { type: "array", items: { type: "integer" } } } }, (request) => ({
    body: request.body,
  }));
  extra?.(app);
  await app.ready();
  return app;
}

t.test(
  "nothing compiles until a route is used; then it validates, coerces and serializes as fastify does",
  async (t) => {
    const compilers = new LazySchemaCompilers();
    const a = await app(compilers);
    t.teardown(() => a.close());
    const ok = await a.inject({ method: "GET", url: "/things?limit=3" });
    t.equal(ok.statusCode, 200);
    t.same(JSON.parse(ok.body), { limit: 3, kind: "number" }, "the query string is coerced, the extra field dropped");
    const bad = await a.inject({ method: "GET", url: "/things?limit=0&other=1" });
    t.equal(bad.statusCode, 400);
    t.match(JSON.parse(bad.body).message, /querystring\/limit must be >= 1/, "the errors of the call that failed");
    const list = await a.inject({
      method: "POST",
      url: "/list",
      payload: "5",
      headers: { "content-type": "application/json" },
    });
    t.same(JSON.parse(list.body), { body: [5] }, "a root value is coerced too");
    // The GET's validator and serializer ran, and the POST's validator; the HEAD twin's two never did.
    t.equal(compilers.compileAll(), 2, "only the HEAD route's two are still pending");
  },
);

t.test("a schema that cannot compile fails when compiled, naming its route", async (t) => {
  const compilers = new LazySchemaCompilers();
  const a = await app(compilers, (app) =>
    app.post("/broken", { schema: { body: { type: "object", properties: { n: { $ref: "Missing" } } } } }, () => ({})),
  );
  t.teardown(() => a.close());
  t.throws(() => compilers.compileAll(), /cannot compile the body schema of POST \/broken/);
});

t.test(
  "a headers schema is refused when the app starts (fastify lower-cases those only for its own compiler)",
  async (t) => {
    const compilers = new LazySchemaCompilers();
    await t.rejects(
      app(compilers, (app) =>
        app.get(
          "/h",
          { schema: { headers: { type: "object", properties: { "X-Thing": { type: "string" } } } } },
          () => ({}),
        ),
      ),
      /headers schemas are not supported/,
    );
  },
);
