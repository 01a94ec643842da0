// Overload: a burst far above the limits gets 429 (per-principal rate limit) or 503 (load shedding) with
// Retry-After; the service stays up, other principals are not starved, and every accepted task completes.
import t from "tap";
import { request } from "undici";
import { demo, startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { connect, type Socket } from "node:net";
import { linkedDatabase } from "./helpers/linked-database.ts";

const A = "team-a-burst-token-0123456789";
const B = "team-b-burst-token-0123456789";
const PRINCIPALS = JSON.stringify([
  { name: "team-a", token: A, accounts: "*" },
  { name: "team-b", token: B, accounts: "*" },
]);

async function post(baseUrl: string, token: string, path: string, body: unknown) {
  const res = await request(`${baseUrl}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined, retryAfter: res.headers["retry-after"] };
}

async function get(baseUrl: string, token: string | undefined, path: string) {
  const res = await request(`${baseUrl}${path}`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    body: text && text.startsWith("{") ? JSON.parse(text) : text,
    retryAfter: res.headers["retry-after"],
  };
}

t.test("a burst of 400 submissions against a limit of 25: 429s with Retry-After, the rest all complete", async (t) => {
  const LIMIT = 25;
  const env = await startTestEnv({
    writeDurationMs: 20,
    env: { AUTH_TOKENS: PRINCIPALS, RATE_LIMIT_SUBMISSIONS: String(LIMIT), RATE_LIMIT_WINDOW_MS: "60000" },
    headers: { authorization: `Bearer ${A}` },
  });
  t.teardown(() => env.close());
  const names = ["web-prod-v001", "web-prod-v002", "batch-v001"];
  const burst = await Promise.all(
    Array.from({ length: 400 }, (_, i) =>
      post(
        env.baseUrl,
        A,
        "/azure/ops/resizeServerGroup",
        demo(names[i % 3], { capacity: { min: 1, max: 10, desired: 1 + (i % 5) } }),
      ),
    ),
  );
  const accepted = burst.filter((r) => r.status === 202);
  const limited = burst.filter((r) => r.status === 429);
  t.equal(accepted.length, LIMIT, "exactly the limit got through");
  t.equal(limited.length, 400 - LIMIT, "every other one was told to come back");
  t.same(new Set(burst.map((r) => r.status)), new Set([202, 429]), "nothing else (no 5xx)");
  for (const r of limited.slice(0, 5)) {
    t.match(r.retryAfter, /^\d+$/, "Retry-After");
    t.match(r.body, { statusCode: 429, error: "TooManyRequests", message: /team-a sent more than 25 submissions/ });
  }
  // Another principal is not starved by team A's burst, and the service is up.
  const other = await post(
    env.baseUrl,
    B,
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 2 } }),
  );
  t.equal(other.status, 202);
  t.equal((await get(env.baseUrl, undefined, "/health")).status, 200);
  // Every accepted task completes (reads have their own, larger budget).
  const ids = [...accepted.map((r) => r.body.id as string), other.body.id as string];
  const finished = await Promise.all(ids.map((id) => env.waitForTask(id, 120_000)));
  t.same(
    finished.map((f) => f.state),
    ids.map(() => "succeeded"),
  );
  const stored = await env.service.store.list({ limit: 500 });
  t.equal(stored.tasks.length, LIMIT + 1, "no task was created for a refused request");
});

t.test("reads have a per-principal limit of their own", async (t) => {
  const env = await startTestEnv({
    env: {
      AUTH_TOKENS: PRINCIPALS,
      RATE_LIMIT_READS: "10",
      RATE_LIMIT_WINDOW_MS: "60000",
      METRICS_REQUIRE_TOKEN: "false",
    },
  });
  t.teardown(() => env.close());
  const reads = await Promise.all(Array.from({ length: 30 }, () => get(env.baseUrl, A, "/task")));
  t.equal(reads.filter((r) => r.status === 200).length, 10);
  t.equal(reads.filter((r) => r.status === 429).length, 20);
  t.equal((await get(env.baseUrl, B, "/task")).status, 200, "team B has its own budget");
  t.equal((await get(env.baseUrl, undefined, "/metrics")).status, 200, "/metrics is never limited");
});

t.test(
  "load shedding: 503 with Retry-After while under pressure; /health, /ready and /metrics still answer",
  async (t) => {
    // A heap limit of one byte: under pressure from the first sample on.
    const env = await startTestEnv({
      env: { OVERLOAD_MAX_HEAP_USED_BYTES: "1", OVERLOAD_SAMPLE_INTERVAL_MS: "20", OVERLOAD_RETRY_AFTER_S: "7" },
    });
    t.teardown(() => env.close());
    // Under pressure once the first sample is taken: wait for that, not for a time.
    await waitFor(async () => (await get(env.baseUrl, undefined, "/task")).status === 503, {
      what: "the first sample to find the heap over its limit",
    });
    const shed = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        env.api(
          "POST",
          "/azure/ops/resizeServerGroup",
          demo("web-prod-v001", { capacity: { min: 1, max: 10, desired: 1 + (i % 3) } }),
        ),
      ),
    );
    t.same(new Set(shed.map((r) => r.status)), new Set([503]));
    t.match(shed[0].body, { statusCode: 503, error: "Overloaded", message: /heapUsedBytes/ });
    const raw = await get(env.baseUrl, undefined, "/task");
    t.equal(raw.status, 503);
    t.equal(raw.retryAfter, "7");
    t.equal((await get(env.baseUrl, undefined, "/health")).status, 200);
    t.equal((await get(env.baseUrl, undefined, "/metrics")).status, 200);
    t.not(
      (await get(env.baseUrl, undefined, "/ready")).status,
      503,
      "readiness reports the dependencies, not the pressure",
    );
    t.equal((await env.service.store.list({ limit: 10 })).tasks.length, 0, "nothing was half-accepted");
  },
);

/**
 * Sends a raw request on a connection already open, then holds this process's event loop up for holdMs: the request
 * sits in the service's socket, unread, until the loop turns again. The service's whole answer.
 */
async function sentWhileHeldUp(baseUrl: string, path: string, holdMs: number): Promise<string> {
  const url = new URL(baseUrl);
  const socket = await new Promise<Socket>((resolve, reject) => {
    const s = connect(Number(url.port), url.hostname, () => resolve(s));
    s.once("error", reject);
  });
  let answer = "";
  socket.on("data", (chunk: Buffer) => (answer += chunk.toString()));
  const ended = new Promise((resolve) => socket.once("close", resolve));
  // Written to the kernel at once (libuv tries the write before it queues it): it arrives while the loop is held.
  socket.write(`GET ${path} HTTP/1.1\r\nHost: ${url.host}\r\nConnection: close\r\n\r\n`);
  const until = performance.now() + holdMs;
  while (performance.now() < until);
  await ended;
  return answer;
}

t.test(
  "a request that waited unread past OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: 503 with Retry-After at once",
  async (t) => {
    const env = await startTestEnv({ env: { OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "500", OVERLOAD_RETRY_AFTER_S: "7" } });
    t.teardown(() => env.close());
    // Held up three times the bound, in this process, for a known time: no machine's clock is asserted on.
    const answer = await sentWhileHeldUp(env.baseUrl, "/task?limit=1", 1500);
    t.match(answer, /^HTTP\/1\.1 503 /, answer);
    t.match(answer, /\r\nretry-after: 7\r\n/i);
    t.match(answer, /"error":"Overloaded"/);
    t.match(answer, /the request waited \d+ ms|eventLoopDelay \d+/);
    // Once the loop turns again, requests are served as usual.
    await waitFor(async () => (await get(env.baseUrl, undefined, "/task?limit=1")).status === 200, {
      what: "a request served once the loop turns",
    });
    t.pass("served again");
  },
);

t.test("a request's deadline counts the time it waited unread: past it, the store is not asked", async (t) => {
  const db = await linkedDatabase(t, "vmss_ops_arrival");
  const env = await startTestEnv({
    env: {
      TASK_STORE: "postgres",
      DATABASE_URL: db.directUrl,
      TASK_STORE_REQUEST_DEADLINE_MS: "1000",
      // Not shed on arrival: the deadline alone decides.
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "0",
    },
    configuredStore: true,
  });
  t.teardown(() => env.close());
  // Repeated until created (a busy machine's first statements may take longer than the deadline): safe by its id.
  const made = await waitFor(
    async () => {
      const r = await env.api(
        "POST",
        "/azure/ops/resizeServerGroup?clientRequestId=arrival-1",
        demo("web-prod-v001", { capacity: { min: 1, max: 5, desired: 2 } }),
      );
      return r.status === 202 && (r.body as { id: string });
    },
    { what: "the task created" },
  );
  // Held up two and a half times the deadline: the request's time is gone before it is read.
  const answer = await sentWhileHeldUp(env.baseUrl, `/task/${made.id}`, 2500);
  t.match(answer, /^HTTP\/1\.1 503 /, answer);
  t.match(answer, /"error":"TaskStoreUnavailable"/);
  t.match(answer, /\r\nretry-after: \d+\r\n/i);
  await waitFor(async () => (await env.api("GET", `/task/${made.id}`)).status === 200, {
    what: "the task read once the loop turns",
  });
  t.pass("read again");
});
