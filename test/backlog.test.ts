// A backlog an operator can see, and a limit to it: queued tasks and the oldest one's wait as metrics and in
// /ready's details, and past TASK_BACKLOG_LIMIT a submission gets 429 with Retry-After and creates nothing.
import t from "tap";
import { request } from "undici";
import { BacklogMonitor } from "../src/tasks/backlog.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import type { TaskStore } from "../src/tasks/task-store.ts";
import pg from "pg";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { waitFor } from "../testkit/wait-for.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import type { Json } from "../testkit/json.ts";

const LIMIT = 3;

t.test("the store counts the backlog; the monitor refuses at the limit", async (t) => {
  let now = 1_000_000;
  const store = new MemoryTaskStore(100, () => now);
  const op = (n: string) => [{ name: "resizeServerGroup", description: { serverGroupName: n } }];
  t.same(await store.backlog(), { queued: 0 });
  await store.create({ operations: op("a"), scaleSets: ["a"] });
  now += 500;
  await store.create({ operations: op("b"), scaleSets: ["b"] });
  t.same(await store.backlog(), { queued: 2, oldestQueuedAtMs: 1_000_000, oldestQueuedForMs: 500 });
  await store.claim("r", 10_000, 1);
  t.same(
    await store.backlog(),
    { queued: 1, oldestQueuedAtMs: 1_000_500, oldestQueuedForMs: 0 },
    "a claimed task waits no more",
  );
  const monitor = new BacklogMonitor(store, { limit: 1, retryAfterSeconds: 7 });
  await t.rejects(monitor.admit(), {
    name: "BacklogFullError",
    retryAfterSeconds: 7,
    message: /1 tasks are waiting to start, the most this service takes \(TASK_BACKLOG_LIMIT 1\)/,
  });
  await new BacklogMonitor(store, { limit: 0, retryAfterSeconds: 7 }).admit();
  t.pass("limit 0: no limit");
});

t.test(
  "the oldest task's wait is the store's own figure: a replica's clock ahead of the database's adds nothing",
  async (t) => {
    // The database's clock 30 s behind this replica's: the oldest queued task was created 2 s ago by the database's
    // clock, which the store says as a wait (oldestQueuedForMs); its creation time, read against this replica's clock,
    // would say 32 s.
    const skewMs = 30_000;
    const store = {
      backlog: async () => ({ queued: 1, oldestQueuedAtMs: Date.now() - skewMs - 2000, oldestQueuedForMs: 2000 }),
    };
    const view = await new BacklogMonitor(store, { limit: 0, retryAfterSeconds: 1 }).view();
    t.equal(view?.queued, 1);
    t.ok(view!.oldestAgeSeconds >= 2 && view!.oldestAgeSeconds < 3, `waited 2 s, not 32 s (${view!.oldestAgeSeconds})`);
  },
);

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

t.test("SQLite and PostgreSQL count the same backlog: queued and not leased", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-backlog-"));
  const schema = `vmss_ops_backlog_${randomBytes(6).toString("hex")}`;
  const stores: [string, TaskStore][] = [
    ["sqlite", await SqliteTaskStore.open({ dataDir })],
    ["postgres", await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema })],
  ];
  t.teardown(async () => {
    for (const [, s] of stores) await s.close();
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  for (const [kind, store] of stores) {
    t.same(await store.backlog!(), { queued: 0 }, `${kind}: none`);
    const first = await store.create({
      operations: [{ name: "resizeServerGroup", description: { serverGroupName: "a" } }],
      scaleSets: ["a"],
    });
    await store.create({
      operations: [{ name: "resizeServerGroup", description: { serverGroupName: "b" } }],
      scaleSets: ["b"],
    });
    const two = await store.backlog!();
    t.equal(two.queued, 2, `${kind}: two queued`);
    t.equal(two.oldestQueuedAtMs, first.task.createdAtMs, `${kind}: since the first was created`);
    // The store's own clock: the wait is at least 0 and less than the test has run.
    t.ok(two.oldestQueuedForMs! >= 0 && two.oldestQueuedForMs! < 60_000, `${kind}: waited ${two.oldestQueuedForMs} ms`);
    await store.claim("r", 10_000, 1);
    t.equal((await store.backlog!()).queued, 1, `${kind}: a claimed task waits no more`);
  }
});

t.test(`past ${LIMIT} queued tasks: 429 with Retry-After; the backlog on /metrics and /ready`, async (t) => {
  const env = await startTestEnv({
    writeDurationMs: 3000,
    env: {
      ...{ TASK_CONCURRENCY: "1", TASK_BACKLOG_LIMIT: String(LIMIT), OVERLOAD_RETRY_AFTER_S: "7", READY_CACHE_MS: "0" },
      // What /ready says of a backlog, alone: this process (service, simulator and test in one) had its event loop
      // held past the default 5 s at load average 20, which /ready rightly reports.
      READY_TIMEOUT_MS: "120000",
    },
  });
  t.teardown(() => env.close());
  const accepted: string[] = [];
  let refused: { status: number; body: Json; retryAfter?: string } | undefined;
  // One runs, the others queue behind the single slot; submit until the limit answers (the count is at most a second old).
  for (let i = 0; i < 40 && !refused; i++) {
    const res = await request(`${env.baseUrl}/azure/ops/resizeServerGroup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(demo(`web-prod-v00${(i % 2) + 1}`, { capacity: { min: 0, max: 10, desired: 2 + (i % 5) } })),
    });
    const body = await res.body.json();
    if (res.statusCode === 202) accepted.push((body as { id: string }).id);
    else refused = { status: res.statusCode, body, retryAfter: res.headers["retry-after"] as string | undefined };
  }
  t.ok(refused, `a submission was refused after ${accepted.length} accepted`);
  t.equal(refused!.status, 429);
  t.equal(refused!.retryAfter, "7");
  t.match(refused!.body, {
    error: "BacklogFull",
    message: /tasks are waiting to start, the most this service takes \(TASK_BACKLOG_LIMIT 3\)/,
  });
  t.ok(accepted.length >= LIMIT, "the limit counts queued tasks, not the one running");

  // One task runs in the single slot; the others wait. The figures are at most a second old: wait for them.
  const waiting = accepted.length - 1;
  let metrics = "";
  await waitFor(
    async () => {
      metrics = await (await request(`${env.baseUrl}/metrics`)).body.text();
      return Number(/^vmssops_tasks_queued (\d+)/m.exec(metrics)?.[1]) === waiting;
    },
    {
      what: `vmssops_tasks_queued ${waiting}`,
      intervalMs: 100,
      seen: () => /^vmssops_tasks_queued.*$/m.exec(metrics)?.[0],
    },
  );
  t.pass(`vmssops_tasks_queued ${waiting}`);
  const age = Number(/^vmssops_tasks_queued_oldest_age_seconds (\S+)$/m.exec(metrics)?.[1]);
  t.ok(age > 0, `vmssops_tasks_queued_oldest_age_seconds ${age}`);
  const ready = await env.api("GET", "/ready");
  t.equal(ready.body.backlog.queued, waiting, `/ready details: ${JSON.stringify(ready.body.backlog)}`);
  t.ok(ready.body.backlog.oldestAgeSeconds > 0);
  t.equal(ready.status, 200, "a backlog is a detail, not unreadiness");

  for (const id of accepted) t.equal((await env.waitForTask(id, 120_000)).state, "succeeded");
  // Taken again once the backlog has drained (the count it looks at is at most a second old).
  const again = await waitFor(
    async () => {
      const res = await env.api(
        "POST",
        "/azure/ops/resizeServerGroup",
        demo("web-prod-v001", { capacity: { min: 0, max: 10, desired: 3 } }),
      );
      return res.status !== 429 && res;
    },
    { what: "a submission not refused 429 once the backlog drained", intervalMs: 200 },
  );
  t.equal(again.status, 202, "submissions are taken again once the backlog drained");
});
