// Bad input gets a clear 4xx naming the field; nothing produces a 500, stops the service, or creates a task.
import t from "tap";
import { demo, startTestEnv } from "./helpers/service.ts";
import { request } from "undici";
import type { Json } from "../testkit/json.ts";

const env = await startTestEnv({ env: { BODY_LIMIT_BYTES: "4096" } });
t.teardown(() => env.close());

const resize = (extra: Record<string, unknown>, name = "web-prod-v001") =>
  demo(name, { capacity: { min: 1, max: 5, desired: 3 }, ...extra });

const cases: {
  name: string;
  path?: string;
  body: unknown;
  status: number;
  field?: string | RegExp;
  message?: RegExp;
}[] = [
  {
    name: "missing serverGroupName",
    body: { credentials: "demo", region: "eastus", targetSize: 1 },
    status: 400,
    field: "serverGroupName",
    message: /required/,
  },
  {
    name: "missing region",
    body: { credentials: "demo", serverGroupName: "web-prod-v001", targetSize: 1 },
    status: 400,
    field: "region",
  },
  {
    name: "path traversal in the name",
    body: resize({ serverGroupName: "../../subscriptions" }),
    status: 400,
    field: "serverGroupName",
    message: /scale set name/,
  },
  { name: "slash in the name", body: resize({ serverGroupName: "a/b" }), status: 400, field: "serverGroupName" },
  {
    name: "query string in the name",
    body: resize({ serverGroupName: "a?api-version=1" }),
    status: 400,
    field: "serverGroupName",
  },
  { name: "name too long", body: resize({ serverGroupName: "a".repeat(65) }), status: 400, field: "serverGroupName" },
  {
    name: "name ending with a hyphen",
    body: resize({ serverGroupName: "web-" }),
    status: 400,
    field: "serverGroupName",
  },
  {
    name: "resource group ending with a period",
    body: resize({ resourceGroup: "rg." }),
    status: 400,
    field: "resourceGroup",
  },
  { name: "resource group with a slash", body: resize({ resourceGroup: "rg/x" }), status: 400, field: "resourceGroup" },
  { name: "region with spaces", body: resize({ region: "East US" }), status: 400, field: "region", message: /region/ },
  {
    name: "capacity over Azure's 1000",
    body: resize({ capacity: { min: 0, max: 1001, desired: 3 } }),
    status: 400,
    field: "capacity.max",
    message: /1000/,
  },
  {
    name: "negative capacity",
    body: resize({ capacity: { min: -1, max: 5, desired: 3 } }),
    status: 400,
    field: "capacity.min",
  },
  {
    name: "fractional capacity",
    body: resize({ capacity: { min: 1, max: 5, desired: 2.5 } }),
    status: 400,
    field: "capacity.desired",
    message: /must be a whole number, got 2.5/,
  },
  {
    name: "string capacity",
    body: resize({ capacity: { min: 1, max: 5, desired: "three" } }),
    status: 400,
    field: "capacity.desired",
  },
  {
    name: "desired above max",
    body: resize({ capacity: { min: 1, max: 2, desired: 3 } }),
    status: 400,
    field: "capacity.max",
  },
  {
    name: "unknown key in capacity",
    body: resize({ capacity: { min: 1, max: 5, desired: 3, maximum: 9 } }),
    status: 400,
    field: "capacity.maximum",
  },
  { name: "neither capacity nor targetSize", body: demo("web-prod-v001"), status: 400, field: "capacity" },
  {
    name: "unknown account",
    body: resize({ credentials: "prod" }),
    status: 400,
    field: "credentials",
    message: /unknown account "prod"; known: demo/,
  },
  {
    name: "no account",
    body: { region: "eastus", serverGroupName: "web-prod-v001", targetSize: 1 },
    status: 400,
    field: "credentials",
  },
  { name: "account and credentials disagree", body: resize({ account: "other" }), status: 400, field: "account" },
  { name: "region the account does not serve", body: resize({ region: "westeurope" }), status: 400, field: "region" },
  { name: "array instead of object", body: [1, 2], status: 400 },
  { name: "null body", body: null, status: 400 },
  {
    name: "bad clientRequestId",
    path: "/azure/ops/resizeServerGroup?clientRequestId=has%20space",
    body: resize({}),
    status: 400,
    field: "query.clientRequestId",
  },
  {
    name: "unknown operation",
    path: "/azure/ops/destroyEverything",
    body: resize({}),
    status: 404,
    message: /known: resizeServerGroup, disableServerGroup, enableServerGroup, scaleDown/,
  },
  { name: "empty list", path: "/azure/ops", body: [], status: 400 },
  {
    name: "list item naming two operations",
    path: "/azure/ops",
    body: [{ disableServerGroup: demo("a"), enableServerGroup: demo("a") }],
    status: 400,
  },
  {
    name: "list item with an unknown operation",
    path: "/azure/ops",
    body: [{ rebootEverything: {} }],
    status: 400,
    field: "[0].rebootEverything",
  },
  {
    name: "list item with a bad field",
    path: "/azure/ops",
    body: [{ scaleDown: demo("web-prod-v001", { capacity: { min: 0, max: 0, desired: -5 } }) }],
    status: 400,
    field: "[0].scaleDown.capacity.desired",
  },
  {
    name: "list item failing a cross-field rule",
    path: "/azure/ops",
    body: [{ resizeServerGroup: demo("web-prod-v001", { capacity: { min: 1, max: 2, desired: 3 } }) }],
    status: 400,
    field: "[0].resizeServerGroup.capacity.max",
  },
];

for (const c of cases) {
  t.test(c.name, async (t) => {
    const res = await env.api("POST", c.path ?? "/azure/ops/resizeServerGroup", c.body);
    t.equal(res.status, c.status, JSON.stringify(res.body));
    t.equal(res.body.statusCode, c.status);
    t.type(res.body.message, "string");
    if (c.field)
      t.ok(
        res.body.details?.some((d: Json) =>
          typeof c.field === "string" ? d.field === c.field : c.field!.test(d.field),
        ),
        `names ${c.field}: ${JSON.stringify(res.body.details)}`,
      );
    if (c.message) t.match(res.body.message, c.message);
  });
}

async function raw(path: string, body: string, contentType = "application/json") {
  const res = await request(`${env.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  return { status: res.statusCode, body: JSON.parse(await res.body.text()) };
}

t.test("malformed JSON is a 400", async (t) => {
  const res = await raw("/azure/ops/scaleDown", '{"credentials": "demo",');
  t.equal(res.status, 400);
  t.equal(res.body.error, "InvalidJson");
});

t.test("a body that is not JSON is a 415", async (t) => {
  const res = await raw("/azure/ops/scaleDown", "credentials=demo", "text/plain");
  t.equal(res.status, 415);
});

t.test("an oversized body is a 413", async (t) => {
  const res = await raw("/azure/ops/scaleDown", JSON.stringify(demo("web-prod-v001", { padding: "x".repeat(10_000) })));
  t.equal(res.status, 413);
  t.equal(res.body.error, "PayloadTooLarge");
});

t.test("unknown routes and bad parameters on reads", async (t) => {
  t.equal((await env.api("GET", "/nope")).status, 404);
  t.equal((await env.api("GET", "/task?limit=abc")).status, 400);
  t.equal((await env.api("GET", "/task?state=exploded")).status, 400);
  t.equal((await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/bad..name-")).status, 400);
  t.equal((await env.api("GET", "/azure/serverGroups/demo/eastus/demo-rg/missing-vmss")).status, 404);
  t.equal((await env.api("GET", "/azure/serverGroups/ghost/eastus/demo-rg/web-prod-v001")).status, 400);
});

t.test("path parameters: every length the document allows reaches the route; a longer one is our 400", async (t) => {
  const id128 = "t".repeat(128);
  const found = await env.api("GET", `/task/${id128}`);
  t.equal(found.status, 404, "a task id of 128 characters, as the document allows, is looked up");
  t.equal(found.body.error, "NotFound");
  const tooLong = await env.api("GET", `/task/${id128}x`);
  t.equal(tooLong.status, 400);
  t.match(tooLong.body, { error: "ValidationError", details: [{ field: "params.id", message: /at most 128/ }] });
  const farTooLong = await env.api("GET", `/task/${"t".repeat(400)}`);
  t.equal(farTooLong.status, 400, "past what the router matches: still a 400, in our error shape");
  t.match(farTooLong.body, { statusCode: 400, error: "ValidationError", details: [{ field: "path" }] });
  t.notOk("code" in farTooLong.body, "not fastify's own body");
  const badEncoding = await env.api("GET", "/task/%zz");
  t.equal(badEncoding.status, 400);
  t.match(badEncoding.body, { error: "ValidationError", details: [{ field: "path" }] });
});

t.test("random junk never produces a 5xx, and none of it created a task", async (t) => {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const atoms = [
    null,
    true,
    0,
    -1,
    Infinity,
    2 ** 53,
    "",
    "eastus",
    "web-prod-v001",
    "\u0000",
    "💥",
    [],
    {},
    "a".repeat(300),
  ];
  const keys = [
    "credentials",
    "account",
    "region",
    "serverGroupName",
    "resourceGroup",
    "capacity",
    "targetSize",
    "min",
    "max",
    "desired",
    "__proto__",
    "constructor",
  ];
  const value = (depth: number): unknown => {
    const r = rand();
    if (depth > 2 || r < 0.5) return atoms[Math.floor(rand() * atoms.length)];
    if (r < 0.6) return [value(depth + 1)];
    return Object.fromEntries(
      Array.from({ length: 1 + Math.floor(rand() * 5) }, () => [
        keys[Math.floor(rand() * keys.length)],
        value(depth + 1),
      ]),
    );
  };
  const paths = ["/azure/ops/resizeServerGroup", "/azure/ops/scaleDown", "/azure/ops/disableServerGroup", "/azure/ops"];
  for (let i = 0; i < 200; i++) {
    const body = value(0);
    const path = paths[i % paths.length];
    const res = await env.api("POST", path, body);
    if (res.status >= 500 || res.status === 202)
      t.fail(`${path} ${JSON.stringify(body)} → ${res.status} ${JSON.stringify(res.body)}`);
  }
  t.equal((await env.api("GET", "/health")).status, 200, "still up");
  t.same((await env.api("GET", "/task")).body.tasks, [], "no task was created by bad input");
});
