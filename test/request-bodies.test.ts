// Request bodies: the limits are checked on the raw bytes before anything parses or walks the body. A body nested
// deeper than BODY_MAX_DEPTH is a 400 that names the limit (it used to run the null stripping out of stack: a 500),
// a body larger than BODY_LIMIT_BYTES a 413 that names it, and a charset other than UTF-8 a 415 (it used to be read
// as UTF-8 regardless).
import t from "tap";
import { request } from "undici";
import { charsetOf, jsonDepthExceeds } from "../src/api/json-body.ts";
import { demo, startTestEnv } from "./helpers/service.ts";

const env = await startTestEnv({ writeDurationMs: 40, env: { BODY_LIMIT_BYTES: "400000" } });
t.teardown(() => env.close());

async function post(path: string, body: string | Buffer, contentType = "application/json") {
  const res = await request(`${env.baseUrl}${path}`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  return { status: res.statusCode, body: JSON.parse(await res.body.text()) };
}

t.test("the depth scan: brackets in strings do not count, escapes are skipped", async (t) => {
  const b = (s: string) => Buffer.from(s, "utf8");
  t.equal(jsonDepthExceeds(b("[[[]]]"), 3), false);
  t.equal(jsonDepthExceeds(b("[[[[]]]]"), 3), true);
  t.equal(jsonDepthExceeds(b('[{"a":"[[[[[[{{{{"}]'), 3), false, "inside a string");
  t.equal(jsonDepthExceeds(b('["\\"[[[[[["]'), 3), false, "an escaped quote does not end the string");
  t.equal(
    jsonDepthExceeds(b('["é☕\\\\", [[[]]]]'), 3),
    true,
    "multi-byte text and an escaped backslash before the nesting",
  );
  t.equal(jsonDepthExceeds(b("[] [] [] []"), 1), false, "siblings are not depth");
  t.equal(charsetOf("application/json; charset=UTF-16"), "utf-16");
  t.equal(charsetOf('application/json;charset="utf-8"'), "utf-8");
  t.equal(charsetOf("application/json"), undefined);
});

t.test("a deeply nested body is a 400 naming the limit, never a 500", async (t) => {
  for (const depth of [33, 1000, 150_000]) {
    const res = await post("/azure/ops/resizeServerGroup", "[".repeat(depth) + "]".repeat(depth));
    t.equal(res.status, 400, `depth ${depth}`);
    t.match(res.body, { error: "BodyTooDeep", message: /more than 32 levels deep \(BODY_MAX_DEPTH\)/ });
  }
  const deepValue = JSON.stringify(
    demo("web-prod-v001", { capacity: { min: 0, max: 3, desired: 1 }, note: "NOTE" }),
  ).replace('"NOTE"', "[".repeat(5000) + "]".repeat(5000));
  const res = await post("/azure/ops", `[{"resizeServerGroup":${deepValue}}]`);
  t.equal(res.status, 400, "a list body too");
  t.equal(res.body.error, "BodyTooDeep");
  // Within the limit (31 levels): parsed, validated (descriptions take keys they do not know, as Clouddriver's do)
  // and stored as usual.
  const atLimit = JSON.stringify(
    demo("web-prod-v001", {
      capacity: { min: 0, max: 3, desired: 1 },
      extra: JSON.parse("[".repeat(30) + "]".repeat(30)),
    }),
  );
  const ok = await post("/azure/ops/resizeServerGroup", atLimit);
  t.equal(ok.status, 202, JSON.stringify(ok.body));
  t.equal((await env.waitForTask(ok.body.id)).state, "succeeded");
});

t.test("a body over BODY_LIMIT_BYTES is a 413 naming the limit", async (t) => {
  const res = await post(
    "/azure/ops/resizeServerGroup",
    JSON.stringify(demo("web-prod-v001", { pad: "x".repeat(500_000) })),
  );
  t.equal(res.status, 413);
  t.match(res.body, { error: "PayloadTooLarge", message: "the body is larger than 400000 bytes (BODY_LIMIT_BYTES)" });
});

t.test("a charset other than UTF-8 is a 415; UTF-8 however spelled is read", async (t) => {
  const body = JSON.stringify(demo("web-prod-v001", { capacity: { min: 0, max: 3, desired: 2 } }));
  const utf16 = await post(
    "/azure/ops/resizeServerGroup",
    Buffer.from("\ufeff" + body, "utf16le"),
    "application/json; charset=utf-16",
  );
  t.equal(utf16.status, 415);
  t.match(utf16.body, { error: "UnsupportedMediaType", message: /must be UTF-8; Content-Type says charset=utf-16/ });
  t.equal((await post("/azure/ops/resizeServerGroup", body, "application/json; charset=ISO-8859-1")).status, 415);
  for (const ct of [
    "application/json; charset=UTF-8",
    'application/json;charset="utf-8"',
    "application/json; charset=utf8",
  ]) {
    const res = await post("/azure/ops/resizeServerGroup", body, ct);
    t.equal(res.status, 202, ct);
    await env.waitForTask(res.body.id);
  }
});
