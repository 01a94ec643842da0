// GET /task/{id} keeps each task's answer until the task's revision changes (src/api/task-bodies.ts): an unchanged
// task is answered without reading it again, and any change — by this replica, another one, or a resume — shows on
// the very next poll, byte for byte as a freshly built answer would.
import t from "tap";
import { buildApp, type Service } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { startSimulator } from "vmss-simulator";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { TaskBodies } from "../src/api/task-bodies.ts";
import type { HistoryEntry } from "../src/tasks/task.ts";

const sim = await startSimulator({ port: 0, seed: false });
t.teardown(() => sim.close());

/** Counts the full reads of a task (get), as against the revision reads that keep answers fresh. */
class CountingStore extends MemoryTaskStore {
  gets = 0;
  revisionReads = 0;
  override async get(id: string) {
    this.gets++;
    return super.get(id);
  }
  override async revision(id: string) {
    this.revisionReads++;
    return super.revision(id);
  }
}

/** A service on `store` whose runner is stopped: the test moves tasks through the store itself, as another replica would. */
async function service(store: MemoryTaskStore, env: Record<string, string> = {}): Promise<Service> {
  const config = loadConfig({ SIMULATOR_URL: sim.url, TASK_STORE: "memory", ...env });
  const s = await buildApp({ config, store, logger: false });
  await s.runner.stop(1000);
  t.teardown(() => s.app.close());
  return s;
}

const line = (status: string): HistoryEntry => ({ phase: "RESIZE", status, timeMs: Date.now() });
const resize = {
  name: "resizeServerGroup",
  description: {
    credentials: "demo",
    region: "eastus",
    serverGroupName: "web-v001",
    capacity: { min: 1, max: 3, desired: 2 },
  },
};

t.test("an unchanged task is answered without reading it again; each change shows on the next poll", async (t) => {
  const store = new CountingStore();
  const s = await service(store);
  const poll = async () => {
    const res = await s.app.inject({ method: "GET", url: `/task/${id}` });
    t.equal(res.statusCode, 200);
    t.match(res.headers["content-type"], /^application\/json/);
    return res;
  };
  const { task } = await store.create({ operations: [resize], scaleSets: ["k"] });
  const id = task.id;

  const first = await poll();
  t.equal(store.gets, 1, "the first poll reads the task");
  t.equal(store.revisionReads, 0, "in one query: with nothing kept, there is no revision to compare");
  const second = await poll();
  t.equal(second.payload, first.payload, "the second poll answers the same");
  t.equal(store.gets, 1, "without reading the task again");
  t.equal(store.revisionReads, 1, "only its revision");

  await store.claim("elsewhere", 60_000, 1);
  t.equal((await poll()).payload, first.payload, "a lease alone changes nothing a reader sees");
  t.equal(store.gets, 1);

  t.ok(await store.update("elsewhere", id, { state: "running", history: [line("capacity 1 → 2")] }));
  const running = (await poll()).json();
  t.equal(running.state, "running", "another replica's change shows at once");
  t.equal(running.status.status, "capacity 1 → 2");
  t.equal(store.gets, 2);

  t.ok(await store.appendHistory("elsewhere", id, line("waiting for Azure")));
  t.equal((await poll()).json().status.status, "waiting for Azure", "so does a history line");

  const failure = { operation: "resizeServerGroup", code: "Conflict", message: "gave up", retryable: true };
  t.ok(await store.update("elsewhere", id, { state: "failed", failure, finishedAtMs: Date.now() }));
  const failed = (await poll()).json();
  t.same(failed.status, {
    phase: "RESIZE",
    status: "waiting for Azure",
    complete: true,
    completed: true,
    failed: true,
    retryable: true,
  });

  const resumed = await s.app.inject({ method: "POST", url: `/task/${id}:resume` });
  t.equal(resumed.statusCode, 200, resumed.payload);
  const after = (await poll()).json();
  t.equal(after.state, "queued", "a resume shows too");
  t.equal(after.status.completed, false);
  const gets = store.gets;
  await poll();
  t.equal(store.gets, gets, "and is kept in its turn");
});

t.test("a kept answer is byte for byte the answer built without keeping any", async (t) => {
  const store = new MemoryTaskStore();
  const keeping = await service(store);
  const building = await service(store, { TASK_BODY_CACHE_ENTRIES: "0" });
  const { task } = await store.create({
    clientRequestId: "same-bytes",
    operations: [resize, { ...resize, name: "scaleDown" }],
    history: [line("selected by the cluster's rules")],
  });
  await store.claim("r", 60_000, 1);
  await store.update("r", task.id, {
    state: "succeeded",
    finishedAtMs: Date.now(),
    armCalls: 7,
    resultObjects: [{ serverGroupName: "web-v001" } as never],
  });
  for (let i = 0; i < 2; i++) {
    const kept = await keeping.app.inject({ method: "GET", url: `/task/${task.id}` });
    const built = await building.app.inject({ method: "GET", url: `/task/${task.id}` });
    t.equal(kept.payload, built.payload, `poll ${i + 1}: the same body`);
    t.equal(kept.headers["content-type"], built.headers["content-type"], "and content type");
  }
  t.equal((await keeping.app.inject({ method: "GET", url: "/task/no-such-task" })).statusCode, 404);
});

t.test(
  "TaskBodies keeps the most recently used, up to its bound, and only at the revision it was built at",
  async (t) => {
    const bodies = new TaskBodies(2);
    const body = (revision: number) => ({ revision, json: `{"r":${revision}}`, accounts: ["demo"], finished: false });
    bodies.set("a", body(1));
    bodies.set("b", body(1));
    t.equal(bodies.get("a", 2), undefined, "another revision is not kept");
    t.same(bodies.get("a", 1), body(1));
    bodies.set("c", body(1));
    t.equal(bodies.size, 2);
    t.equal(bodies.get("b", 1), undefined, "the least recently used went first");
    t.ok(bodies.get("a", 1) && bodies.get("c", 1));
    const none = new TaskBodies(0);
    none.set("a", body(1));
    t.equal(none.size, 0, "a bound of 0 keeps none");
  },
);

t.test(
  "TaskBodies keeps finished tasks' answers to a share of its bound, and running tasks' before them",
  async (t) => {
    const bound = 2 * TaskBodies.FINISHED_SHARE;
    const bodies = new TaskBodies(bound);
    const body = (revision: number, finished: boolean) => ({
      revision,
      json: `{"r":${revision}}`,
      accounts: ["demo"],
      finished,
    });
    for (let i = 0; i < bound; i++) bodies.set(`running-${i}`, body(1, false));
    for (let i = 0; i < bound; i++) bodies.set(`done-${i}`, body(1, true));
    t.equal(bodies.size, bound, "never more than the bound");
    t.equal(
      Array.from({ length: bound }, (_, i) => bodies.get(`done-${i}`, 1)).filter(Boolean).length,
      2,
      "finished answers: bound / FINISHED_SHARE, the latest",
    );
    t.ok(bodies.get(`done-${bound - 1}`, 1), "the latest finished answer is kept");
    t.equal(
      Array.from({ length: bound }, (_, i) => bodies.has(`running-${i}`)).filter(Boolean).length,
      bound - 2,
      "running tasks' answers gave way only to make room",
    );

    // A running task's answer replaced by its finished one moves to the finished share.
    bodies.set("running-5", body(2, true));
    t.equal(bodies.get("running-5", 1), undefined);
    t.ok(bodies.get("running-5", 2));
    t.equal(bodies.get(`done-${bound - 2}`, 1), undefined, "and the oldest finished answer made room for it");
    t.equal(bodies.size, bound - 1);
  },
);
