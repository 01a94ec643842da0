// The API documentation the service serves: GET /openapi.json is the checked-in document, and /docs is Swagger UI
// over that same document (loaded on its first request).
import t from "tap";
import { readFile } from "node:fs/promises";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { DEFAULT_OPENAPI_PATH } from "../scripts/write-openapi.ts";

const config = loadConfig({ SIMULATOR: "external", SIMULATOR_URL: "https://127.0.0.1:1", LOG_LEVEL: "silent" });
const service = await buildApp({ config, logger: false });
t.teardown(() => service.close());
const checkedIn = JSON.parse(await readFile(DEFAULT_OPENAPI_PATH, "utf8"));
const get = (url: string, headers: Record<string, string> = {}) => service.app.inject({ method: "GET", url, headers });

t.test("GET /openapi.json is the checked-in document", async (t) => {
  const res = await get("/openapi.json");
  t.equal(res.statusCode, 200);
  t.match(res.headers["content-type"], /^application\/json/);
  t.same(JSON.parse(res.body), checkedIn);
  t.equal(checkedIn.info.title, "vmss-ops", "(a real document)");
});

t.test("/docs is Swagger UI over the same document", async (t) => {
  const page = await get("/docs");
  t.equal(page.statusCode, 200);
  t.match(page.headers["content-type"], /^text\/html/);
  t.match(page.body, /swagger-ui/i, "the Swagger UI page");
  t.equal((await get("/docs/")).statusCode, 200, "with a trailing slash too");
  t.equal((await service.app.inject({ method: "HEAD", url: "/docs" })).statusCode, 200, "HEAD as well");

  const json = await get("/docs/json");
  t.equal(json.statusCode, 200);
  t.same(JSON.parse(json.body), checkedIn, "the document Swagger UI shows is the checked-in one");
  const yaml = await get("/docs/yaml");
  t.equal(yaml.statusCode, 200);
  t.match(yaml.body, /title: vmss-ops/);

  const css = await get("/docs/static/swagger-ui.css");
  t.equal(css.statusCode, 200, "its assets are served");
  t.match(css.headers["content-type"], /^text\/css/);
  t.ok(css.rawPayload.length > 10_000, "whole");
  t.ok(css.headers.etag, "with an ETag");
  t.equal(
    (await get("/docs/static/swagger-ui.css", { "if-none-match": String(css.headers.etag) })).statusCode,
    304,
    "which revalidates",
  );
  const redirect = await get("/docs/static/index.html");
  t.equal(redirect.statusCode, 302);
  t.equal(redirect.headers.location, "/docs/");
});

t.test("an unknown path under /docs is this service's 404", async (t) => {
  const res = await get("/docs/no-such-thing");
  t.equal(res.statusCode, 404);
  t.same(
    JSON.parse(res.body),
    JSON.parse((await get("/no-such-thing")).body.replace("/no-such-thing", "/docs/no-such-thing")),
  );
});
