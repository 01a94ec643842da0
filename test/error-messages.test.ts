// Every refusal says what is wrong and what would be right, in one sentence; start-up problems are one line and
// a non-zero exit, no stack trace.
import t from "tap";
import { createServer } from "node:net";
import { startChildService } from "../testkit/child-service.ts";
import { startTestEnv } from "./helpers/service.ts";

const env = await startTestEnv();
t.teardown(() => env.close());

async function post(body: string, contentType = "application/json") {
  const res = await fetch(`${env.baseUrl}/azure/ops/resizeServerGroup`, {
    method: "POST",
    headers: { "content-type": contentType },
    body,
  });
  return { status: res.status, body: (await res.json()) as { error: string; message: string } };
}

t.test("4xx messages", async (t) => {
  const rg = await post(
    JSON.stringify({
      credentials: "demo",
      region: "eastus",
      serverGroupName: "web-prod-v001",
      resourceGroup: "bad/rg",
      targetSize: 2,
    }),
  );
  t.equal(rg.status, 400);
  t.equal(
    rg.body.message,
    `resourceGroup: must be an Azure resource group name: 1-90 letters, digits, '_', '-', '.', '(' or ')', not ending with '.', got "bad/rg"`,
    "the naming rule, not the field's documentation",
  );

  const proto = await post(
    '{"__proto__":{"admin":true},"credentials":"demo","region":"eastus","serverGroupName":"web-prod-v001","targetSize":2}',
  );
  t.same(proto, {
    status: 400,
    body: {
      statusCode: 400,
      error: "ForbiddenKey",
      message: 'the body has a "__proto__" key, which is refused: remove it (no operation has such a field)',
    },
  });

  const media = await post("resize please", "text/plain");
  t.equal(media.status, 415);
  t.match(
    media.body.message,
    /content-type text\/plain is not accepted: send the body as JSON with content-type: application\/json/,
  );

  const json = await post("{bad");
  t.equal(json.body.error, "InvalidJson");
  t.match(json.body.message, /^the body is not valid JSON \(.*position 1.*\): send a JSON object/);
  t.equal((await post("")).body.error, "EmptyBody");

  const res = await fetch(`${env.baseUrl}/task?cursor=not-a-cursor`);
  t.equal(res.status, 400);
  t.match(
    ((await res.json()) as { message: string }).message,
    /query\.cursor: "not-a-cursor" is not a cursor this service gave: pass a page's nextCursor as it came/,
  );
});

t.test("a value of the wrong kind: what it must be, and what came", async (t) => {
  const base = { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001" };
  const message = async (path: string, body: unknown) => (await env.api("POST", path, body)).body.message as string;
  t.equal(
    await message("/azure/ops/resizeServerGroup", { ...base, capacity: { min: 1, max: 5, desired: 2.5 } }),
    "capacity.desired: must be a whole number, got 2.5",
  );
  t.equal(
    await message("/azure/ops/resizeServerGroup", { ...base, capacity: { min: 1, max: 1001, desired: 3 } }),
    "capacity.max: must be at most 1000, got 1001",
  );
  t.equal(
    await message("/azure/ops/rollingUpgrade", { ...base, image: { publisher: "a" }, deletePolicy: "Random" }),
    'image: must be {publisher, offer, sku} or {id}, got {"publisher":"a"}; deletePolicy: must be one of "Oldest", "Newest", got "Random"',
    "a union names its forms, not each branch's complaints",
  );
  t.equal(
    await message("/azure/ops/rollingUpgrade", {
      ...base,
      image: { publisher: "a", offer: "b", sku: "c", version: "d" },
    }),
    'image.version: must match ^(latest|[0-9]+\\.[0-9]+\\.[0-9]+)$, got "d"',
    "a value that plainly means one form gets that form's complaint",
  );
  const query = await env.api("GET", "/task?limit=0&state=bogus");
  t.equal(
    query.body.message,
    'query.limit: must be at least 1, got 0; query.state: must be one of "queued", "running", "succeeded", "failed", "canceled", got "bogus"',
  );
});

t.test("a port in use: one line, exit 2, no stack", async (t) => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
  t.teardown(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const service = await startChildService(
    { SIMULATOR_URL: env.sim.url, TASK_STORE: "memory", PORT: String(port) },
    { waitForListen: false },
  );
  const exit = await service.exited;
  t.equal(exit.code, 2);
  const lines = service
    .output()
    .trim()
    .split("\n")
    .filter((l) => !l.startsWith("{"));
  t.same(lines, [
    `vmss-ops: port ${port} (PORT) on 127.0.0.1 is already in use, often by an earlier npm start: stop that, or choose another port, e.g. PORT=${port + 10}`,
  ]);
  t.notMatch(service.output(), /\n\s+at /, "no stack trace");
});

t.test("the embedded simulator's port in use: one line naming SIMULATOR_PORT", async (t) => {
  const blocker = createServer();
  await new Promise<void>((r) => blocker.listen(0, "127.0.0.1", r));
  t.teardown(() => blocker.close());
  const port = (blocker.address() as { port: number }).port;
  const service = await startChildService({ SIMULATOR_PORT: String(port) }, { waitForListen: false });
  t.equal((await service.exited).code, 2);
  t.same(service.output().trim().split("\n"), [
    `vmss-ops: the embedded simulator: port ${port} (SIMULATOR_PORT) on 127.0.0.1 is already in use, often by an earlier npm start: stop that, or choose another port, e.g. SIMULATOR_PORT=${port + 10}`,
  ]);
});

t.test("an unreachable database: one line, non-zero exit", async (t) => {
  const service = await startChildService(
    { SIMULATOR_URL: env.sim.url, DATABASE_URL: "postgres://postgres@127.0.0.1:1/nothing" },
    { waitForListen: false },
  );
  const exit = await service.exited;
  t.not(exit.code, 0);
  t.match(service.output(), /^vmss-ops: cannot open the task store: /m);
  t.notMatch(service.output(), /\n\s+at /, "no stack trace");
});

t.test("bad configuration: one line naming the variable", async (t) => {
  const service = await startChildService(
    { SIMULATOR_URL: env.sim.url, TASK_STORE: "redis" },
    { waitForListen: false },
  );
  t.equal((await service.exited).code, 2);
  t.match(
    service.output().trim(),
    /^vmss-ops: configuration error: TASK_STORE must be memory, sqlite or postgres, got "redis"$/,
  );
});
