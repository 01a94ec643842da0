// ?wait=<seconds> on the submission routes and on GET /task/{id}: one request, one answer with the ended task (or the
// task as it is when the time ran out). A client that leaves costs nothing: its waiter is gone at once.
import t from "tap";
import { request } from "undici";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { TaskWaiter } from "../src/tasks/task-waiter.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import { waitFor } from "../testkit/wait-for.ts";

// Bounded: a held request that is never let go would otherwise keep the service from closing, and the file from ending.
t.setTimeout(180_000);

t.test("the service", async (t) => {
  const env = await startTestEnv({ writeDurationMs: 100 });
  t.teardown(() => env.close());

  t.test("a submission with ?wait answers 200 with the ended task, as GET /task/{id} would", async (t) => {
    const res = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup?wait=30",
      demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 4 } }),
    );
    t.equal(res.status, 200, JSON.stringify(res.body));
    t.equal(res.body.state, "succeeded");
    t.equal(res.body.status.completed, true);
    t.match(res.body.resultObjects, [{ serverGroupName: "web-prod-v001", capacity: { desired: 4 } }]);
    t.same(res.body, (await env.api("GET", `/task/${res.body.id}`)).body, "the same body GET /task/{id} answers");
  });

  t.test("the list body too, and GET /task/{id}?wait on a task that has ended answers at once", async (t) => {
    const res = await env.api("POST", "/azure/ops?wait=30", [
      { resizeServerGroup: demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 2 } }) },
    ]);
    t.equal(res.status, 200);
    t.equal(res.body.state, "succeeded");
    const again = await env.api("GET", `/task/${res.body.id}?wait=60`);
    t.equal(again.status, 200);
    t.equal(again.body.state, "succeeded");
  });

  t.test("without ?wait the submission answers 202 with the task's reference, as before", async (t) => {
    const res = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 3 } }),
    );
    t.equal(res.status, 202);
    t.same(Object.keys(res.body).sort(), ["id", "ignoredFields", "kind", "resourceUri"]);
    await env.waitForTask(res.body.id);
  });

  t.test("the time runs out: the task as it is, still running", async (t) => {
    // A write of 3 s: a wait of 1 s ends first.
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 3000 });
    const started = Date.now();
    const res = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup?wait=1",
      demo("batch-v001", { capacity: { min: 1, max: 9, desired: 5 } }),
    );
    t.equal(res.status, 200);
    t.equal(res.body.state, "running", "answered before the task ended");
    t.equal(res.body.status.completed, false);
    t.ok(Date.now() - started >= 1000, "after the time asked for");
    const done = await env.api("GET", `/task/${res.body.id}?wait=30`);
    t.equal(done.body.state, "succeeded", "a second wait sees it end");
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 100 });
  });

  t.test("a client that leaves: its waiter is dropped at once", async (t) => {
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 3000 });
    const submitted = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v002", { capacity: { min: 1, max: 9, desired: 6 } }),
    );
    const id = submitted.body.id;
    const clients = Array.from({ length: 20 }, () => new AbortController());
    // A request answered before its client left (a busy machine: the task may end first) has its body read, so its
    // connection does not stay open and hold the service's close.
    const held = clients.map((c) =>
      request(`${env.baseUrl}/task/${id}?wait=60`, { signal: c.signal })
        .then((res) => res.body.dump())
        .catch(() => undefined),
    );
    await waitFor(() => env.service.waiter.waiters >= 20, { what: "twenty waiters" });
    t.equal(env.service.waiter.waiters, 20, "twenty requests held");
    for (const c of clients) c.abort();
    await Promise.all(held);
    await waitFor(() => env.service.waiter.waiters === 0, { what: "the waiters of the clients that left to go" });
    t.equal(env.service.waiter.waiters, 0, "none left once their clients went away, long before the task ends");
    t.equal((await env.api("GET", `/task/${id}`)).body.state, "running", "the task was still running");
    await env.simControl("PUT", "/_sim/config", { writeDurationMs: 100 });
    await env.waitForTask(id);
  });

  t.test("a wait that is not 0..60 is a 400 naming it", async (t) => {
    for (const wait of ["61", "-1", "soon"]) {
      const res = await env.api("GET", `/task/x?wait=${wait}`);
      t.equal(res.status, 400, wait);
      t.match(res.body.message, /wait/);
    }
    const res = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup?wait=600",
      demo("web-prod-v001", { capacity: { min: 1, max: 9, desired: 3 } }),
    );
    t.equal(res.status, 400);
    t.match(res.body.message, /wait/);
  });
});

t.test("a task another replica ends is noticed by the store poll, without a notification", async (t) => {
  const store = new MemoryTaskStore();
  const waiter = new TaskWaiter({ store, pollMs: 20 });
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  const [claimed] = await store.claim("other-replica", 60_000, 1);
  const waiting = waiter.waitForEnd(task.id, 30_000);
  await waitFor(() => waiter.waiters === 1, { what: "the waiter to register" });
  await store.update("other-replica", claimed.id, { state: "succeeded", finishedAtMs: Date.now() });
  const ended = await waiting;
  t.equal(ended?.state, "succeeded");
  t.equal(waiter.waiters, 0);
});

t.test(
  "the poll asks where every waited task stands in one call, and reads a task only once it has ended",
  async (t) => {
    const store = new MemoryTaskStore();
    const reads = { get: 0, revisions: 0 };
    const counted = {
      get: (id: string) => (reads.get++, store.get(id)),
      revisions: (ids: readonly string[]) => (reads.revisions++, store.revisions(ids)),
    };
    const waiter = new TaskWaiter({ store: counted, pollMs: 5 });
    const op = { name: "resizeServerGroup", description: {} };
    const tasks = [];
    for (let i = 0; i < 3; i++) tasks.push((await store.create({ operations: [op] })).task);
    // A hold that takes the poll's word on an ended task as fresh (as a held GET /task/{id} does within its deadline).
    const waits = tasks.map((task) =>
      waiter.hold(task.id, { holdEndsAtMs: performance.now() + 30_000, freshForMs: 60_000 }),
    );
    await waitFor(() => waiter.waiters === 3, { what: "the three waiters to register" });
    t.equal(reads.get, 3, "each wait read its task once, before it slept");
    // Another replica runs them: each moves (claimed, running, a line, a checkpoint) and none ends yet.
    const claimed = await store.claim("other-replica", 60_000, 3);
    t.equal(claimed.length, 3);
    for (const task of tasks) {
      await store.update("other-replica", task.id, { state: "running" });
      await store.appendHistory("other-replica", task.id, { phase: "RESIZE", status: "Resizing", timeMs: Date.now() });
      await store.update("other-replica", task.id, { armCalls: 1 });
    }
    const polled = reads.revisions;
    await waitFor(() => reads.revisions >= polled + 5, { what: "five polls after the tasks moved" });
    t.equal(reads.get, 3, "a task that moved but has not ended is not read by the poll");
    t.equal(waiter.waiters, 3, "and its waiters sleep on");
    await store.update("other-replica", tasks[1].id, { state: "succeeded", finishedAtMs: Date.now() });
    t.equal((await waits[1])?.state, "succeeded", "the one that ended is answered");
    t.equal(reads.get, 4, "read once, by the poll that saw it end");
    for (const task of [tasks[0], tasks[2]])
      await store.update("other-replica", task.id, { state: "succeeded", finishedAtMs: Date.now() });
    t.same(
      (await Promise.all(waits)).map((task) => task?.state),
      ["succeeded", "succeeded", "succeeded"],
    );
  },
);

t.test("a hold over on a task that moved since it was last read reads it again, not the old one", async (t) => {
  const store = new MemoryTaskStore();
  const waiter = new TaskWaiter({ store, pollMs: 5 });
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  const read = (await store.get(task.id))!;
  await store.claim("other-replica", 60_000, 1);
  await store.update("other-replica", task.id, { state: "running" });
  const held = await waiter.hold(task.id, {
    holdEndsAtMs: performance.now() + 200,
    deadlineAtMs: performance.now() + 60_000,
    freshForMs: 100,
    read,
  });
  t.equal(held?.state, "running", "the task as it is at the hold's end, not as the caller first read it");
  t.ok(held!.revision > read.revision);
});

t.test("a wait given the task as its caller read it does not read it again before it sleeps", async (t) => {
  const store = new MemoryTaskStore();
  const reads = { get: 0 };
  const counted = {
    get: (id: string) => (reads.get++, store.get(id)),
    revisions: (ids: readonly string[]) => store.revisions(ids),
  };
  const waiter = new TaskWaiter({ store: counted, pollMs: 60_000 }); // the poll never runs in this test
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  await store.claim("me", 60_000, 1);
  const read = (await store.get(task.id))!;
  const waiting = waiter.waitForEnd(task.id, 30_000, undefined, read);
  await waitFor(() => waiter.waiters === 1, { what: "the waiter to register" });
  t.equal(reads.get, 0, "no read before the wait sleeps");
  await store.update("me", task.id, { state: "succeeded", finishedAtMs: Date.now() });
  waiter.notify(task.id);
  t.equal((await waiting)?.state, "succeeded");
  t.equal(reads.get, 1, "the task is read once, when woken");
});

t.test("a task that ended after its caller read it, with no notification, is noticed by the store poll", async (t) => {
  const store = new MemoryTaskStore();
  const waiter = new TaskWaiter({ store, pollMs: 5 });
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  const [claimed] = await store.claim("other-replica", 60_000, 1);
  const read = (await store.get(task.id))!;
  await store.update("other-replica", claimed.id, { state: "succeeded", finishedAtMs: Date.now() });
  const ended = await waiter.waitForEnd(task.id, 30_000, undefined, read);
  t.equal(ended?.state, "succeeded");
  t.equal(waiter.waiters, 0);
});

t.test("notify wakes every waiter on the task at once; each reads the task again", async (t) => {
  const store = new MemoryTaskStore();
  const waiter = new TaskWaiter({ store, pollMs: 60_000 }); // the poll never runs in this test
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  await store.claim("me", 60_000, 1);
  const waiting = Array.from({ length: 200 }, () => waiter.waitForEnd(task.id, 30_000));
  await waitFor(() => waiter.waiters === 200, { what: "200 waiters to register" });
  await store.update("me", task.id, { state: "failed", finishedAtMs: Date.now() });
  waiter.notify(task.id);
  const ended = await Promise.all(waiting);
  t.ok(ended.every((e) => e?.state === "failed"));
  t.equal(waiter.waiters, 0);
});
