// The TaskStore contract (src/tasks/task-store.ts), one suite for every implementation: memory, SQLite and
// PostgreSQL run the same tests (test/task-store.test.ts). Each subtest gets a fresh, empty store.
//
// Timing: a lease that must expire is SHORT_LEASE_MS, long enough for the writes a test makes under it even on a
// loaded machine; the test then waits until well past the expiry the store reports (waitPastLease). Leases that
// must not expire are LONG_LEASE_MS. No test depends on a tight timing window.
import type { Test } from "tap";
import type { HistoryEntry, OperationRequest, Task, TaskCheckpoint } from "../src/tasks/task.ts";
import type { TaskStore } from "../src/tasks/task-store.ts";
import { waitingEntry } from "../src/tasks/ordering.ts";
import type { AuditEntry, AuditQuery, NewAuditEntry } from "../src/tasks/audit.ts";
import { afterQueuedImmediates, waitFor } from "../testkit/wait-for.ts";

export interface StoreHandle {
  store: TaskStore;
  /** Closes the store (if the test did not) and removes what it created. */
  cleanup: () => Promise<void>;
  /**
   * Another store on the same data (a second replica: another connection or pool). Absent for the memory store,
   * which cannot be shared. Stores it returns are closed by cleanup.
   */
  replica?: () => Promise<TaskStore>;
}

const SHORT_LEASE_MS = 500;
const PAST_EXPIRY_MS = 250;
const LONG_LEASE_MS = 60_000;

function op(name: string, serverGroupName: string, extra: Record<string, unknown> = {}): OperationRequest {
  return { name, description: { credentials: "demo", region: "eastus", serverGroupName, ...extra } };
}

function entry(status: string, phase = "TEST"): HistoryEntry {
  return { phase, status, timeMs: Date.now() };
}

/** Pages through list() with `limit`, returning every id in order. */
async function listAll(store: TaskStore, query: Omit<Parameters<TaskStore["list"]>[0], "cursor">): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (let pages = 0; pages < 1000; pages++) {
    const page = await store.list({ ...query, cursor });
    ids.push(...page.tasks.map((t) => t.id));
    if (!page.nextCursor) return ids;
    cursor = page.nextCursor;
  }
  throw new Error("list never ended");
}

export function taskStoreSuite(t: Test, name: string, makeStore: () => Promise<StoreHandle>): void {
  /** A fresh store for one subtest, cleaned up when it ends. */
  async function fresh(t: Test): Promise<StoreHandle> {
    const handle = await makeStore();
    t.teardown(() => handle.cleanup());
    return handle;
  }

  /** Creates n tasks one after another (so creation order is well defined). */
  async function createMany(
    store: TaskStore,
    n: number,
    make: (i: number) => OperationRequest[] = (i) => [op("resizeServerGroup", `sg-${i}`)],
  ) {
    const tasks: Task[] = [];
    for (let i = 0; i < n; i++) tasks.push((await store.create({ operations: make(i) })).task);
    return tasks;
  }

  /** Waits until PAST_EXPIRY_MS after `expiresAtMs` (a lease's end is a time: these are tests of it). */
  async function waitPast(expiresAtMs: number, what: string): Promise<void> {
    await waitFor(() => Date.now() > expiresAtMs + PAST_EXPIRY_MS, {
      what: `${PAST_EXPIRY_MS} ms past the end of ${what}`,
      intervalMs: 5,
    });
  }

  /** Waits until PAST_EXPIRY_MS after the task's lease ends (by the store's own account of it). */
  async function waitPastLease(store: TaskStore, id: string): Promise<void> {
    const expires = (await store.get(id))?.leaseExpiresAtMs;
    if (expires === undefined) throw new Error(`${id} has no lease`);
    await waitPast(expires, `${id}'s lease`);
  }

  /** Claims one specific task for owner (claims everything runnable, releases the rest). */
  async function claimTask(store: TaskStore, owner: string, id: string, leaseMs = LONG_LEASE_MS): Promise<Task> {
    const claimed = await store.claim(owner, leaseMs, 500);
    const mine = claimed.find((c) => c.id === id);
    for (const c of claimed) if (c.id !== id) await store.release(owner, c.id);
    if (!mine) throw new Error(`could not claim ${id}`);
    return mine;
  }

  t.test(`${name}: create and get`, async (t) => {
    const { store } = await fresh(t);
    const before = Date.now();
    const operations = [
      op("resizeServerGroup", "web-v001", { capacity: { min: 1, max: 10, desired: 5 }, tags: ["a", "ü"] }),
    ];
    const { task, created } = await store.create({ operations });
    t.equal(created, true);
    t.match(task.id, /^\S{8,}$/);
    t.equal(task.state, "queued");
    t.same(task.operations, operations);
    t.equal(task.operationIndex, 0);
    t.same(task.history, []);
    t.same(task.resultObjects, []);
    t.equal(task.armCalls, 0);
    t.notOk("leaseOwner" in task, "no lease");
    t.notOk("checkpoint" in task, "no checkpoint");
    t.notOk("finishedAtMs" in task);
    t.notOk("clientRequestId" in task, "no clientRequestId when none was given");
    t.ok(task.createdAtMs >= before - 1000 && task.createdAtMs <= Date.now() + 1000, "createdAtMs is now");
    t.equal(task.updatedAtMs, task.createdAtMs);

    operations[0].description.serverGroupName = "changed-after-create";
    t.same(await store.get(task.id), task, "get returns what create returned, not the caller's objects");
    t.equal(await store.get("no-such-task"), undefined);
    t.equal(await store.get("00000000-0000-4000-8000-000000000000"), undefined);

    const other = await store.create({ operations: [op("scaleDown", "b")] });
    t.not(other.task.id, task.id, "ids are unique");
  });

  t.test(
    `${name}: Azure's write durations are kept by kind, the last eight of each, oldest first, for every replica`,
    async (t) => {
      const handle = await fresh(t);
      const { store } = handle;
      t.same(await store.sharedWriteDurations(), new Map(), "none at first");
      await store.shareWriteDurations([]);
      await store.shareWriteDurations([
        { kind: "update", ms: 30_000 },
        { kind: "createOrUpdate", ms: 61_000 },
        { kind: "update", ms: 31_000 },
      ]);
      t.same(
        await store.sharedWriteDurations(),
        new Map([
          ["update", [30_000, 31_000]],
          ["createOrUpdate", [61_000]],
        ]),
      );
      const other = handle.replica ? await handle.replica() : store;
      await other.shareWriteDurations(Array.from({ length: 7 }, (_, i) => ({ kind: "update", ms: 40_000 + i })));
      const expected = [31_000, 40_000, 40_001, 40_002, 40_003, 40_004, 40_005, 40_006];
      t.same((await store.sharedWriteDurations()).get("update"), expected, "the oldest gone, whoever added");
      t.same((await other.sharedWriteDurations()).get("update"), expected, "read alike by another replica");
    },
  );

  t.test(`${name}: ids are UUIDv7 and sort in the order their tasks and audit entries were made`, async (t) => {
    // What keeps each index keyed by an id appending to its last page (src/tasks/ids.ts).
    const { store } = await fresh(t);
    const oneByOne = await createMany(store, 3);
    const atOnce = await Promise.all(
      [3, 4, 5, 6].map((i) =>
        store.create({ operations: [op("resizeServerGroup", `sg-${i}`)], audit: auditEntry("submit") }),
      ),
    );
    const ids = [...oneByOne, ...atOnce.map((c) => c.task)].map((task) => task.id);
    t.same([...ids].sort(), ids, "each task id sorts after those made before it, creates asked for at once included");
    const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    t.same(
      ids.filter((id) => !v7.test(id)),
      [],
      "every task id is a UUIDv7",
    );
    const auditIds = (await allAudit(store)).map((e) => e.id).reverse();
    t.equal(auditIds.length, 4);
    t.same([...auditIds].sort(), auditIds, "audit entries' ids too, oldest first");
  });

  t.test(`${name}: each operation's target is stored with the task, as located, and handed out with it`, async (t) => {
    const { store } = await fresh(t);
    const ref = {
      account: "demo",
      subscriptionId: "s-1",
      resourceGroup: "demo-rg",
      name: "web-v001",
      region: "eastus",
    };
    const targets = [ref, null];
    const operations = [op("resizeServerGroup", "web-v001"), op("scaleDown", "unlocated")];
    const { task } = await store.create({ operations, targets, scaleSets: ["s-1/demo-rg/web-v001"] });
    t.same(task.targets, [ref, null], "create answers with them");
    ref.name = "changed-after-create";
    t.same((await store.get(task.id))?.targets?.[0]?.name, "web-v001", "stored, not the caller's objects");
    const [claimed] = await store.claim("r1", LONG_LEASE_MS, 1);
    t.same(claimed.targets, task.targets, "a claim hands them to the run");
    const without = await store.create({ operations: [op("scaleDown", "b")] });
    t.notOk("targets" in without.task, "none given, none stored");
    t.notOk("targets" in ((await store.get(without.task.id)) ?? {}));
  });

  t.test(`${name}: the submission's traceparent is stored with the task and handed out with it`, async (t) => {
    const { store } = await fresh(t);
    const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    const { task } = await store.create({ operations: [op("resizeServerGroup", "a")], traceparent });
    t.equal(task.traceparent, traceparent, "create answers with it");
    t.equal((await store.get(task.id))?.traceparent, traceparent, "stored");
    const [claimed] = await store.claim("r1", LONG_LEASE_MS, 1);
    t.equal(claimed.traceparent, traceparent, "a claim hands it to the run");
    const without = await store.create({ operations: [op("scaleDown", "b")] });
    t.notOk("traceparent" in without.task, "none given (tracing off), none stored");
    t.notOk("traceparent" in ((await store.get(without.task.id)) ?? {}));
  });

  t.test(`${name}: dedupe by clientRequestId`, async (t) => {
    const { store } = await fresh(t);
    const a = await store.create({ clientRequestId: "req-1", operations: [op("resizeServerGroup", "a")] });
    t.equal(a.created, true);
    t.equal(a.task.clientRequestId, "req-1");
    const again = await store.create({ clientRequestId: "req-1", operations: [op("scaleDown", "different")] });
    t.equal(again.created, false, "same clientRequestId: not created");
    t.equal(again.task.id, a.task.id);
    t.same(again.task.operations, a.task.operations, "the first request's task, not the second's body");
    t.equal((await store.findByClientRequestId("req-1"))?.id, a.task.id, "found by its clientRequestId");
    t.equal(await store.findByClientRequestId("req-unknown"), undefined, "none made with that one");
    const b = await store.create({ clientRequestId: "req-2", operations: [op("resizeServerGroup", "a")] });
    t.equal(b.created, true);
    t.not(b.task.id, a.task.id);
    const n1 = await store.create({ operations: [op("resizeServerGroup", "a")] });
    const n2 = await store.create({ operations: [op("resizeServerGroup", "a")] });
    t.ok(n1.created && n2.created && n1.task.id !== n2.task.id, "without clientRequestId every create is new");

    // Still deduped after it finished.
    await claimTask(store, "o", a.task.id);
    t.ok(await store.update("o", a.task.id, { state: "succeeded", finishedAtMs: Date.now() }));
    const later = await store.create({ clientRequestId: "req-1", operations: [op("resizeServerGroup", "a")] });
    t.equal(later.created, false);
    t.equal(later.task.id, a.task.id);
    t.equal(later.task.state, "succeeded", "returns the task as it is now");
  });

  t.test(`${name}: dedupe under concurrent creates`, async (t) => {
    const handle = await fresh(t);
    const stores = [handle.store];
    if (handle.replica) stores.push(await handle.replica(), await handle.replica());
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 24 }, (_, i) =>
          stores[i % stores.length].create({
            clientRequestId: `conc-${round}`,
            operations: [op("scaleDown", `sg-${i}`)],
          }),
        ),
      );
      t.equal(results.filter((r) => r.created).length, 1, `round ${round}: exactly one created`);
      t.equal(new Set(results.map((r) => r.task.id)).size, 1, `round ${round}: all got the same task`);
    }
    t.equal((await listAll(handle.store, { limit: 100 })).length, 5, "five tasks in all");
  });

  t.test(`${name}: list is newest first, paged`, async (t) => {
    const { store } = await fresh(t);
    t.same(await store.list({ limit: 10 }), { tasks: [] }, "empty store: no tasks, no cursor");
    const tasks = await createMany(store, 7);
    const newestFirst = tasks.map((x) => x.id).reverse();

    const all = await store.list({ limit: 50 });
    t.same(
      all.tasks.map((x) => x.id),
      newestFirst,
    );
    t.notOk(all.nextCursor, "everything fits: no nextCursor");
    t.same(all.tasks[0], await store.get(newestFirst[0]), "list returns whole tasks");

    const p1 = await store.list({ limit: 3 });
    t.same(
      p1.tasks.map((x) => x.id),
      newestFirst.slice(0, 3),
    );
    t.type(p1.nextCursor, "string");
    const p2 = await store.list({ limit: 3, cursor: p1.nextCursor });
    t.same(
      p2.tasks.map((x) => x.id),
      newestFirst.slice(3, 6),
    );
    t.type(p2.nextCursor, "string");
    const p3 = await store.list({ limit: 3, cursor: p2.nextCursor });
    t.same(
      p3.tasks.map((x) => x.id),
      newestFirst.slice(6),
    );
    t.notOk(p3.nextCursor, "last page: no nextCursor");

    const exact = await store.list({ limit: 7 });
    t.equal(exact.tasks.length, 7);
    t.notOk(exact.nextCursor, "a page that ends exactly at the last task has no nextCursor");
    t.same(await listAll(store, { limit: 1 }), newestFirst, "page size 1");
  });

  t.test(`${name}: pagination while tasks are added has no duplicates and no gaps`, async (t) => {
    const { store } = await fresh(t);
    const original = (await createMany(store, 25)).map((x) => x.id).reverse();
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await store.list({ limit: 4, cursor });
      seen.push(...page.tasks.map((x) => x.id));
      cursor = page.nextCursor;
      pages++;
      await createMany(store, 2); // newer tasks arrive between pages
    } while (cursor && pages < 100);
    t.equal(new Set(seen).size, seen.length, "no duplicates");
    t.same(seen, original, "every task that existed, in order, none of the newer ones");
    t.equal(pages, 7);
  });

  t.test(`${name}: list filters`, async (t) => {
    const { store } = await fresh(t);
    const a = (await store.create({ operations: [op("resizeServerGroup", "web-v001")] })).task;
    const b = (
      await store.create({ operations: [op("disableServerGroup", "web-v001"), op("enableServerGroup", "web-v002")] })
    ).task;
    const c = (await store.create({ operations: [op("scaleDown", "batch-v001")] })).task;
    const d = (await store.create({ operations: [op("resizeServerGroup", "web-v002"), op("scaleDown", "web-v0")] }))
      .task;
    // A description without serverGroupName, and one where the name appears only elsewhere.
    const e = (
      await store.create({
        operations: [{ name: "resizeServerGroup", description: { note: "web-v001", serverGroupName: 7 } }],
      })
    ).task;
    await claimTask(store, "o", c.id);
    t.ok(await store.update("o", c.id, { state: "failed", finishedAtMs: Date.now() }));
    await claimTask(store, "o", d.id);
    t.ok(await store.update("o", d.id, { state: "running" }));

    const ids = async (q: Omit<Parameters<TaskStore["list"]>[0], "limit" | "cursor">) =>
      listAll(store, { limit: 2, ...q });
    t.same(await ids({ state: "queued" }), [e.id, b.id, a.id]);
    t.same(await ids({ state: "failed" }), [c.id]);
    t.same(await ids({ state: "running" }), [d.id]);
    t.same(await ids({ state: "succeeded" }), []);
    t.same(await ids({ operation: "resizeServerGroup" }), [e.id, d.id, a.id]);
    t.same(await ids({ operation: "enableServerGroup" }), [b.id], "an operation that is not the first one");
    t.same(await ids({ operation: "scaleDown" }), [d.id, c.id]);
    t.same(await ids({ operation: "resize" }), [], "whole names only");
    t.same(await ids({ serverGroup: "web-v001" }), [b.id, a.id], "only serverGroupName counts");
    t.same(await ids({ serverGroup: "web-v002" }), [d.id, b.id], "any description of the task");
    t.same(await ids({ serverGroup: "web-v0" }), [d.id], "exact names");
    t.same(await ids({ serverGroup: "web-v00" }), []);
    t.same(await ids({ operation: "scaleDown", serverGroup: "web-v0", state: "running" }), [d.id], "filters combine");
    t.same(await ids({ operation: "scaleDown", state: "queued" }), []);
    t.same(await ids({ operation: "resizeServerGroup", serverGroup: "web-v002" }), [d.id]);
  });

  t.test(`${name}: claim takes queued tasks oldest first, and leases them`, async (t) => {
    const { store } = await fresh(t);
    const tasks = await createMany(store, 5);
    const before = Date.now();
    const first = await store.claim("owner-a", LONG_LEASE_MS, 2);
    t.same(
      first.map((x) => x.id),
      [tasks[0].id, tasks[1].id],
      "oldest first, up to the limit",
    );
    for (const c of first) {
      t.equal(c.leaseOwner, "owner-a");
      t.ok(
        c.leaseExpiresAtMs! >= before + LONG_LEASE_MS - 2000 &&
          c.leaseExpiresAtMs! <= Date.now() + LONG_LEASE_MS + 2000,
        "leased until now + leaseMs",
      );
      t.equal(c.state, "queued", "claim leases; the runner sets running");
      t.same(await store.get(c.id), c, "claim returns the task as stored");
    }
    const second = await store.claim("owner-b", LONG_LEASE_MS, 10);
    t.same(
      second.map((x) => x.id),
      tasks.slice(2).map((x) => x.id),
      "another owner gets the rest, not leased ones",
    );
    t.same(await store.claim("owner-c", LONG_LEASE_MS, 10), [], "nothing left");
    t.same(await store.claim("owner-a", LONG_LEASE_MS, 10), [], "not even for an owner that holds leases");
    t.same(await store.claim("owner-a", LONG_LEASE_MS, 0), [], "limit 0");
    t.equal((await store.get(tasks[3].id))!.leaseOwner, "owner-b");
  });

  t.test(`${name}: claim takes running tasks whose lease expired, and fences the old owner`, async (t) => {
    const { store } = await fresh(t);
    const [x, y] = await createMany(store, 2);
    await claimTask(store, "dead", x.id, SHORT_LEASE_MS);
    t.ok(await store.update("dead", x.id, { state: "running", checkpoint: { operationIndex: 0, attempt: 1 } }));
    t.ok(await store.appendHistory("dead", x.id, entry("working")));
    await claimTask(store, "alive", y.id, LONG_LEASE_MS);
    t.ok(await store.update("alive", y.id, { state: "running" }));
    t.same(await store.claim("other", LONG_LEASE_MS, 10), [], "leases still valid: nothing to claim");

    await waitPastLease(store, x.id);
    const taken = await store.claim("other", LONG_LEASE_MS, 10);
    t.same(
      taken.map((c) => c.id),
      [x.id],
      "the expired running task, not the one whose lease is valid",
    );
    t.equal(taken[0].state, "running");
    t.equal(taken[0].leaseOwner, "other");
    t.same(taken[0].checkpoint, { operationIndex: 0, attempt: 1 }, "it comes with its checkpoint");
    t.same(
      taken[0].history.map((h) => h.status),
      ["working"],
    );

    t.equal(await store.update("dead", x.id, { armCalls: 99 }), false, "the old owner can no longer update");
    t.equal(await store.appendHistory("dead", x.id, entry("zombie")), false, "nor append history");
    t.same(await store.renew("dead", [x.id], LONG_LEASE_MS), [], "nor renew");
    await store.release("dead", x.id);
    t.equal((await store.get(x.id))!.leaseOwner, "other", "nor release");
    t.ok(await store.appendHistory("other", x.id, entry("resumed")));
    const now = (await store.get(x.id))!;
    t.equal(now.armCalls, 0);
    t.same(
      now.history.map((h) => h.status),
      ["working", "resumed"],
    );
  });

  t.test(`${name}: a queued task whose lease expired is claimable again`, async (t) => {
    const { store } = await fresh(t);
    const [x] = await createMany(store, 1);
    t.same(
      (await store.claim("a", SHORT_LEASE_MS, 10)).map((c) => c.id),
      [x.id],
    );
    t.same(await store.claim("b", SHORT_LEASE_MS, 10), []);
    await waitPastLease(store, x.id);
    const again = await store.claim("b", LONG_LEASE_MS, 10);
    t.same(
      again.map((c) => c.id),
      [x.id],
    );
    t.equal(again[0].leaseOwner, "b");
  });

  t.test(`${name}: concurrent claimers never get the same task`, async (t) => {
    const handle = await fresh(t);
    const stores = [handle.store];
    if (handle.replica) stores.push(await handle.replica());
    const tasks = await createMany(handle.store, 100);
    const claimedBy = new Map<string, string[]>();
    const owners = Array.from({ length: 10 }, (_, i) => `owner-${i}`);
    await Promise.all(
      owners.map(async (owner, i) => {
        const store = stores[i % stores.length];
        for (let empty = 0; empty < 3;) {
          const got = await store.claim(owner, LONG_LEASE_MS, 1 + (i % 7));
          if (got.length === 0) empty++;
          for (const task of got) {
            t.equal(task.leaseOwner, owner);
            claimedBy.set(task.id, [...(claimedBy.get(task.id) ?? []), owner]);
          }
          await afterQueuedImmediates(); // the other owners' claims come in between
        }
      }),
    );
    const twice = [...claimedBy].filter(([, by]) => by.length > 1);
    t.same(twice, [], "no task claimed twice");
    t.equal(claimedBy.size, 100, "every task claimed");
    t.same([...claimedBy.keys()].sort(), tasks.map((x) => x.id).sort());
    for (const task of tasks) t.equal((await handle.store.get(task.id))!.leaseOwner, claimedBy.get(task.id)![0]);
    t.ok(new Set([...claimedBy.values()].map((by) => by[0])).size > 1, "the work was shared");
  });

  // Order per scale set (src/tasks/ordering.ts): one task at a time per scale set, in creation order.
  const S1 = "sub/rg/s1";
  const S2 = "sub/rg/s2";
  const S3 = "sub/rg/s3";
  async function createOn(store: TaskStore, scaleSets: string[], label: string): Promise<Task> {
    return (
      await store.create({
        operations: scaleSets.map((k) => op("resizeServerGroup", `${label}-${k.split("/").pop()}`)),
        scaleSets,
      })
    ).task;
  }
  async function finish(
    store: TaskStore,
    owner: string,
    id: string,
    state: "succeeded" | "failed" | "canceled" = "succeeded",
  ) {
    if (!(await store.update(owner, id, { state, finishedAtMs: Date.now() })))
      throw new Error(`could not finish ${id}`);
  }

  t.test(`${name}: creates asked for at once come out as if made one after another, in the order asked`, async (t) => {
    const { store } = await fresh(t);
    const first = (await store.create({ operations: [op("resizeServerGroup", "a")], scaleSets: [S1] })).task;
    const results = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) =>
        store.create({ operations: [op("resizeServerGroup", `b${i}`)], scaleSets: i % 2 ? [S1, S2] : [S1] }),
      ),
      store.create({ clientRequestId: "together", operations: [op("scaleDown", "c")], scaleSets: [S3] }),
      store.create({ clientRequestId: "together", operations: [op("scaleDown", "d")], scaleSets: [S3] }),
    ]);
    const chain = [first, ...results.slice(0, 6).map((r) => r.task)];
    for (let i = 1; i < chain.length; i++) {
      const status = chain[i].history[0]?.status ?? "";
      t.match(
        status,
        new RegExp(`Waiting for task ${chain[i - 1].id} on scale set ${S1}[ ,]`),
        `create ${i} waits on ${S1} for the one asked for just before it`,
      );
      if (i % 2 === 0 && i > 2)
        t.match(
          status,
          new RegExp(`task ${chain[i - 2].id} on scale set ${S2}`),
          `and on ${S2} for the one before it there`,
        );
      t.same((await store.get(chain[i].id))?.history, chain[i].history, `create ${i}: stored as returned`);
    }
    t.same(
      results.slice(6).map((r) => r.created),
      [true, false],
      "the same clientRequestId twice at once: one task",
    );
    t.equal(results[7].task.id, results[6].task.id);
    t.same(results[7].task.operations, [op("scaleDown", "c")]);
    t.same(
      (await listAll(store, { limit: 100 })).reverse(),
      [...chain.map((x) => x.id), results[6].task.id],
      "creation order is the order asked",
    );
  });

  t.test(`${name}: one task at a time per scale set, in creation order; other scale sets in parallel`, async (t) => {
    const { store } = await fresh(t);
    const a = await createOn(store, [S1], "a");
    const b = await createOn(store, [S1], "b");
    const c = await createOn(store, [S2], "c");
    const d = await createOn(store, [S1], "d");
    t.same(a.history, [], "the first on its scale set waits for nobody");
    t.same(c.history, []);
    t.match(
      b.history.map((h) => h.status),
      [new RegExp(`^Waiting for task ${a.id} on scale set ${S1} `)],
      "a waiting task names the task it waits for",
    );
    t.match(
      d.history.map((h) => h.status),
      [new RegExp(`^Waiting for task ${b.id} on scale set ${S1} `)],
      "the one just before it",
    );
    t.same(await store.get(b.id), b, "the line is stored");

    t.same(
      (await store.claim("r", LONG_LEASE_MS, 10)).map((x) => x.id),
      [a.id, c.id],
      "the first of each scale set",
    );
    t.same(await store.claim("r", LONG_LEASE_MS, 10), [], "the others wait, even for another owner with room");
    t.ok(await store.update("r", a.id, { state: "running" }));
    t.same(await store.claim("other", LONG_LEASE_MS, 10), []);
    await finish(store, "r", a.id);
    t.same(
      (await store.claim("other", LONG_LEASE_MS, 10)).map((x) => x.id),
      [b.id],
      "the next in line, once the first finished",
    );
    await finish(store, "other", b.id, "failed");
    t.same(
      (await store.claim("r", LONG_LEASE_MS, 10)).map((x) => x.id),
      [d.id],
      "a failed task lets the next go too",
    );
    await finish(store, "r", c.id, "canceled");
    const e = await createOn(store, [S2], "e");
    t.same(e.history, [], "a finished task holds nothing");
    t.same(
      (await store.claim("r", LONG_LEASE_MS, 10)).map((x) => x.id),
      [e.id],
    );
  });

  t.test(`${name}: a task on several scale sets waits until it is first on all of them, then holds all`, async (t) => {
    const { store } = await fresh(t);
    const t1 = await createOn(store, [S1], "t1");
    const t2 = await createOn(store, [S1, S2], "t2");
    const t3 = await createOn(store, [S2], "t3");
    const t4 = await createOn(store, [S3], "t4");
    t.match(
      t2.history[0]?.status,
      new RegExp(`^Waiting for task ${t1.id} on scale set ${S1} `),
      "names the task on the busy scale set only",
    );
    t.match(
      t3.history[0]?.status,
      new RegExp(`^Waiting for task ${t2.id} on scale set ${S2} `),
      "submitted after t2: waits for it although s2 is free now",
    );
    t.same(
      (await store.claim("r", LONG_LEASE_MS, 10)).map((x) => x.id),
      [t1.id, t4.id],
    );
    await finish(store, "r", t1.id);
    t.same(
      (await store.claim("r", LONG_LEASE_MS, 10)).map((x) => x.id),
      [t2.id],
      "t2 takes both; t3 still waits",
    );
    await finish(store, "r", t2.id);
    t.same(
      (await store.claim("r", LONG_LEASE_MS, 10)).map((x) => x.id),
      [t3.id],
    );
    const dup = await store.create({ operations: [op("resizeServerGroup", "x")], scaleSets: [S3, S3] });
    t.same(
      dup.task.history.map((h) => h.status),
      [waitingEntry([{ taskId: t4.id, scaleSet: S3 }], 0)!.status],
      "a scale set named twice counts once",
    );
  });

  t.test(`${name}: a started task keeps its scale sets through an expired lease and a release`, async (t) => {
    const { store } = await fresh(t);
    const a = await createOn(store, [S1], "a");
    const b = await createOn(store, [S1], "b");
    await claimTask(store, "dead", a.id, SHORT_LEASE_MS);
    t.ok(await store.update("dead", a.id, { state: "running" }));
    await waitPastLease(store, a.id);
    t.same(
      (await store.claim("alive", LONG_LEASE_MS, 10)).map((x) => x.id),
      [a.id],
      "the expired task is taken over, not the next one",
    );
    t.equal(await store.update("dead", a.id, { armCalls: 1 }), false, "fencing as before");
    await store.release("alive", a.id);
    t.same(
      (await store.claim("again", LONG_LEASE_MS, 10)).map((x) => x.id),
      [a.id],
      "released (shutdown): still first",
    );
    await finish(store, "again", a.id);
    t.same(
      (await store.claim("again", LONG_LEASE_MS, 10)).map((x) => x.id),
      [b.id],
    );
  });

  t.test(`${name}: concurrent claimers keep one task at a time per scale set, in creation order`, async (t) => {
    const handle = await fresh(t);
    const stores = [handle.store];
    if (handle.replica) stores.push(await handle.replica());
    const keys = [S1, S2, S3];
    const created: Task[] = [];
    for (let i = 0; i < 30; i++) created.push(await createOn(handle.store, [keys[i % 3]], `c${i}`));
    const holding = new Map<string, string>();
    const order = new Map<string, string[]>(keys.map((k) => [k, []]));
    const overlaps: string[] = [];
    let finished = 0;
    await Promise.all(
      Array.from({ length: 6 }, async (_, i) => {
        const store = stores[i % stores.length];
        const owner = `owner-${i}`;
        for (let rounds = 0; finished < created.length && rounds < 2000; rounds++) {
          const got = await store.claim(owner, LONG_LEASE_MS, 2);
          await Promise.all(
            got.map(async (task) => {
              const key = keys[created.findIndex((c) => c.id === task.id) % 3];
              if (holding.has(key)) overlaps.push(`${task.id} claimed while ${holding.get(key)} held ${key}`);
              holding.set(key, task.id);
              order.get(key)!.push(task.id);
              // Held for i ms, as a run holds it: not a wait for anything, but the window other owners' claims
              // must not get into.
              await new Promise((r) => setTimeout(r, i));
              // Let go before the store does, so that a claim in between is never mistaken for an overlap.
              holding.delete(key);
              await finish(store, owner, task.id);
              finished++;
            }),
          );
          // Nothing to claim: a moment before asking again, as the runner's claim interval does.
          if (got.length === 0) await new Promise((r) => setTimeout(r, 1));
        }
      }),
    );
    t.same(overlaps, [], "never two tasks of one scale set at once");
    for (const [k, ids] of order)
      t.same(
        ids,
        created.filter((_, i) => keys[i % 3] === k).map((c) => c.id),
        `${k}: creation order`,
      );
  });

  t.test(`${name}: update appends history lines in the same commit, in order, only under the lease`, async (t) => {
    const { store } = await fresh(t);
    const [x] = await createMany(store, 1);
    await claimTask(store, "a", x.id);
    const together = [entry("one"), { phase: "OTHER", status: 'two "quoted" ✓', timeMs: 1_700_000_000_123 }];
    t.ok(await store.update("a", x.id, { state: "running", history: together }));
    t.ok(await store.update("a", x.id, { history: [entry("three")] }), "lines alone are a change too");
    t.ok(await store.appendHistory("a", x.id, entry("four")));
    t.equal(await store.update("b", x.id, { history: [entry("not the owner")] }), false);
    t.ok(
      await store.update("a", x.id, {
        state: "succeeded",
        finishedAtMs: Date.now(),
        history: [entry("five"), entry("six")],
      }),
    );
    t.equal(
      await store.update("a", x.id, { history: [entry("after the end")] }),
      false,
      "a finished task has no lease to write under",
    );
    const done = (await store.get(x.id))!;
    t.same(
      done.history.map((h) => h.status),
      ["one", together[1].status, "three", "four", "five", "six"],
    );
    t.same(done.history.slice(0, 2), together, "lines written together come back as written");
    t.equal(done.state, "succeeded");
  });

  t.test(`${name}: renew`, async (t) => {
    const { store } = await fresh(t);
    const [x, y, z] = await createMany(store, 3);
    await claimTask(store, "a", x.id, SHORT_LEASE_MS);
    await claimTask(store, "a", y.id, SHORT_LEASE_MS);
    await claimTask(store, "b", z.id, LONG_LEASE_MS);
    const old = (await store.get(x.id))!.leaseExpiresAtMs!;
    // Renewing keeps the lease well past its first expiry. The renewals ask for a long lease: how often a loaded
    // machine gets round to renewing is not what is tested here (the runner renews at a third of the lease).
    t.same(
      await store.renew("a", [x.id, z.id, y.id, "no-such-task"], LONG_LEASE_MS),
      [x.id, y.id],
      "only the leases a holds, in the order asked",
    );
    await waitPast(old, `${x.id}'s first lease`);
    t.same(await store.renew("a", [y.id, x.id], LONG_LEASE_MS), [y.id, x.id], "past the first expiry, still held");
    t.ok((await store.get(x.id))!.leaseExpiresAtMs! > old, "expiry moved on");
    t.same(await store.claim("c", LONG_LEASE_MS, 10), [], "renewed leases are not claimable");
    t.same(await store.renew("a", [], LONG_LEASE_MS), []);
    // A renewal sets the lease to now + leaseMs: a short one lets both expire.
    t.same(await store.renew("a", [x.id, y.id], SHORT_LEASE_MS), [x.id, y.id]);
    await waitPastLease(store, x.id);
    await waitPastLease(store, y.id);
    t.same(await store.renew("a", [x.id, y.id], LONG_LEASE_MS), [], "an expired lease is not renewed");
    t.same(await store.renew("b", [z.id], LONG_LEASE_MS), [z.id]);
    t.same((await store.claim("c", LONG_LEASE_MS, 10)).map((c) => c.id).sort(), [x.id, y.id].sort());
  });

  t.test(`${name}: release`, async (t) => {
    const { store } = await fresh(t);
    const [x] = await createMany(store, 1);
    await claimTask(store, "a", x.id);
    t.ok(
      await store.update("a", x.id, {
        state: "running",
        operationIndex: 0,
        checkpoint: { operationIndex: 0, attempt: 2 },
      }),
    );
    await store.release("b", x.id);
    t.equal((await store.get(x.id))!.leaseOwner, "a", "another owner cannot release it");
    t.same(await store.claim("b", LONG_LEASE_MS, 10), []);
    await store.release("a", x.id);
    const released = (await store.get(x.id))!;
    t.notOk("leaseOwner" in released, "no owner");
    t.notOk("leaseExpiresAtMs" in released, "no expiry");
    t.equal(released.state, "running", "the task stays as it is");
    t.same(released.checkpoint, { operationIndex: 0, attempt: 2 });
    t.equal(await store.update("a", x.id, { armCalls: 1 }), false, "the releasing owner is fenced out");
    const taken = await store.claim("b", LONG_LEASE_MS, 10);
    t.same(
      taken.map((c) => c.id),
      [x.id],
      "another owner claims it at once",
    );
    await store.release("a", "no-such-task");
  });

  t.test(`${name}: update and appendHistory are fenced by the lease`, async (t) => {
    const { store } = await fresh(t);
    const [x] = await createMany(store, 1);
    t.equal(await store.update("a", x.id, { state: "running" }), false, "not claimed: nobody may update");
    t.equal(await store.appendHistory("a", x.id, entry("no")), false);
    t.equal(await store.update("a", "no-such-task", { state: "running" }), false);
    t.equal(await store.appendHistory("a", "no-such-task", entry("no")), false);
    await claimTask(store, "a", x.id);
    t.equal(await store.update("b", x.id, { state: "running" }), false, "a non-owner may not update");
    t.equal(await store.appendHistory("b", x.id, entry("no")), false, "nor append");
    t.equal((await store.get(x.id))!.state, "queued");

    const before = (await store.get(x.id))!.updatedAtMs;
    await waitFor(() => Date.now() > before, { what: "the clock to move past updatedAtMs", intervalMs: 1 });
    t.equal(await store.update("a", x.id, { state: "running", operationIndex: 1, armCalls: 7 }), true);
    const updated = (await store.get(x.id))!;
    t.equal(updated.state, "running");
    t.equal(updated.operationIndex, 1);
    t.equal(updated.armCalls, 7);
    t.ok(updated.updatedAtMs >= before, "updatedAtMs moves on");
    t.equal(updated.leaseOwner, "a", "a running state keeps the lease");
    t.same(updated.history, [], "update does not touch history");

    const entries = Array.from({ length: 40 }, (_, i) => ({
      phase: i % 2 ? "A" : "B",
      status: `line ${i} "quoted" ünïcode ✓`,
      timeMs: 1_700_000_000_000 + i,
    }));
    for (const e of entries) t.ok(await store.appendHistory("a", x.id, e));
    t.same((await store.get(x.id))!.history, entries, "history in append order, exactly as given");

    // Expiry, on a task of its own under a short lease: the forty appends above are not timed against a lease.
    const [y] = await createMany(store, 1);
    await claimTask(store, "a", y.id, SHORT_LEASE_MS * 2);
    t.ok(await store.update("a", y.id, { state: "running", armCalls: 7 }));
    await waitPastLease(store, y.id);
    t.equal(
      await store.update("a", y.id, { armCalls: 8 }),
      false,
      "after the lease expired, even the owner may not update",
    );
    t.equal(await store.appendHistory("a", y.id, entry("late")), false, "nor append");
    const after = (await store.get(y.id))!;
    t.equal(after.armCalls, 7);
    t.same(after.history, []);
  });

  t.test(`${name}: update fields, and a finished state ends the lease for good`, async (t) => {
    const { store } = await fresh(t);
    for (const finished of ["succeeded", "failed", "canceled"] as const) {
      const x = (await store.create({ operations: [op("resizeServerGroup", "a"), op("scaleDown", "b")] })).task;
      await claimTask(store, "a", x.id);
      t.ok(await store.update("a", x.id, { state: "running" }));
      const resultObjects = [
        {
          type: "serverGroup",
          account: "demo",
          region: "eastus",
          resourceGroup: "rg",
          serverGroupName: "a",
          capacity: { min: 1, max: 3, desired: 2 },
          disabled: false,
          provisioningState: "Succeeded",
          etag: '"3"',
        },
      ] as unknown as Task["resultObjects"];
      const failure = { operation: "scaleDown", code: "Conflict", message: "another write", retryable: true };
      const finishedAtMs = Date.now();
      t.ok(await store.update("a", x.id, { resultObjects, operationIndex: 1, armCalls: 12 }));
      t.ok(await store.update("a", x.id, { state: finished, failure, finishedAtMs, checkpoint: null }), finished);
      const done = (await store.get(x.id))!;
      t.equal(done.state, finished);
      t.same(done.resultObjects, resultObjects);
      t.same(done.failure, failure);
      t.equal(done.operationIndex, 1);
      t.equal(done.armCalls, 12, "fields not in a change stay");
      t.equal(done.finishedAtMs, finishedAtMs);
      t.notOk("leaseOwner" in done, `${finished} clears the lease owner`);
      t.notOk("leaseExpiresAtMs" in done, `${finished} clears the lease expiry`);
      t.equal(await store.update("a", x.id, { state: "running" }), false, "the former owner cannot reopen it");
      t.equal(await store.appendHistory("a", x.id, entry("after")), false);
      t.same(await store.renew("a", [x.id], LONG_LEASE_MS), []);
    }
    t.same(await store.claim("b", LONG_LEASE_MS, 10), [], "finished tasks are never claimed");
    // Not later either: a task leased now, with a short lease, becomes claimable again; the finished ones do not.
    const [later] = await createMany(store, 1);
    await claimTask(store, "c", later.id, SHORT_LEASE_MS);
    await waitPastLease(store, later.id);
    t.same(
      (await store.claim("b", SHORT_LEASE_MS, 10)).map((c) => c.id),
      [later.id],
      "not later either: past a lease's expiry, only the leased task is claimed again",
    );
  });

  t.test(`${name}: refuses a move the state table does not have (task-state.ts), and changes nothing`, async (t) => {
    const { store } = await fresh(t);
    const x = (await store.create({ operations: [op("resizeServerGroup", "a")] })).task;
    await claimTask(store, "a", x.id);
    t.ok(await store.update("a", x.id, { state: "running", armCalls: 1 }));
    const before = (await store.get(x.id))!;
    // A running task is not queued again (its owner changes, not its state), with or without history lines.
    await t.rejects(store.update("a", x.id, { state: "queued" }), {
      name: "IllegalMoveError",
      message: `task ${x.id}: no move from running to queued`,
    });
    await t.rejects(store.update("a", x.id, { state: "queued", armCalls: 2, history: [entry("never written")] }), {
      name: "IllegalMoveError",
    });
    t.same(await store.get(x.id), before, "nothing changed: state, fields, history");
    t.ok(await store.update("a", x.id, { state: "running", armCalls: 3 }), "staying in a state is no move");
    t.ok(await store.update("a", x.id, { state: "succeeded", finishedAtMs: Date.now() }), "a move the table has");
    t.equal(
      await store.update("a", x.id, { state: "running" }),
      false,
      "a finished task's former owner is fenced out, as before: false, not an error",
    );
  });

  t.test(`${name}: requeueRetryable puts back only a failed, retryable task`, async (t) => {
    const { store } = await fresh(t);
    const make = async (state: "succeeded" | "failed" | "canceled", retryable: boolean) => {
      const x = (await store.create({ operations: [op("resizeServerGroup", "a"), op("scaleDown", "b")] })).task;
      await claimTask(store, "a", x.id);
      await store.update("a", x.id, {
        state: "running",
        operationIndex: 1,
        checkpoint: { operationIndex: 1, attempt: 8 },
      });
      await store.appendHistory("a", x.id, entry("attempt 8/8: 409 Conflict; gave up after 8 attempts"));
      const failure = { operation: "scaleDown", code: "Conflict", message: "gave up", retryable };
      await store.update("a", x.id, {
        state,
        failure: state === "succeeded" ? undefined : failure,
        finishedAtMs: Date.now(),
        checkpoint: null,
      });
      return x.id;
    };
    const id = await make("failed", true);
    t.ok(await store.requeueRetryable(id, entry("resumed on request", "ORCHESTRATION"), []));
    const back = (await store.get(id))!;
    t.equal(back.state, "queued");
    t.notOk("failure" in back, "the failure is cleared");
    t.notOk("finishedAtMs" in back);
    t.notOk("checkpoint" in back);
    t.notOk("leaseOwner" in back);
    t.equal(back.operationIndex, 1, "it goes on with the operation that failed");
    t.same(
      back.history.map((h) => h.status),
      ["attempt 8/8: 409 Conflict; gave up after 8 attempts", "resumed on request"],
    );
    t.equal(await store.requeueRetryable(id, entry("again"), []), false, "a queued task is not requeued twice");
    t.equal((await store.get(id))!.history.length, 2, "and gets no history line");
    const claimed = await store.claim("b", LONG_LEASE_MS, 10);
    t.same(
      claimed.map((c) => c.id),
      [id],
      "the requeued task is claimable",
    );
    t.ok(await store.update("b", id, { state: "running" }), "and its new owner can run it");

    for (const [state, retryable] of [
      ["failed", false],
      ["succeeded", false],
      ["canceled", true],
    ] as const) {
      const other = await make(state, retryable);
      t.equal(await store.requeueRetryable(other, entry("no"), []), false, `${state}, retryable ${retryable}: refused`);
      t.equal((await store.get(other))!.state, state, "and left as it was");
    }
    t.equal(await store.requeueRetryable("no-such-task", entry("no"), []), false);
  });

  t.test(`${name}: a requeued task takes its place on its scale sets again, by submission order`, async (t) => {
    const { store } = await fresh(t);
    const failure = { operation: "resizeServerGroup", code: "Conflict", message: "gave up", retryable: true };
    const failOnce = async (id: string) => {
      await claimTask(store, "a", id);
      await store.update("a", id, { state: "failed", failure, finishedAtMs: Date.now() });
    };
    // Requeued while a later task on its scale set has not started: it goes first, and the later one waits for it.
    const first = (await store.create({ operations: [op("resizeServerGroup", "a")], scaleSets: ["k"] })).task;
    await failOnce(first.id);
    const later = (await store.create({ operations: [op("resizeServerGroup", "a")], scaleSets: ["k"] })).task;
    t.ok(await store.requeueRetryable(first.id, entry("resumed"), ["k"]));
    t.same(
      (await store.claim("b", LONG_LEASE_MS, 10)).map((c) => c.id),
      [first.id],
      "the requeued task, submitted first, goes first",
    );
    t.same(await store.claim("c", LONG_LEASE_MS, 10), [], "the later task waits for it");
    t.ok(await store.update("b", first.id, { state: "succeeded", finishedAtMs: Date.now() }));
    t.same(
      (await store.claim("c", LONG_LEASE_MS, 10)).map((c) => c.id),
      [later.id],
      "then the later one runs",
    );

    // Requeued while a later task on its scale set runs: it waits for that one, on every scale set it names.
    const again = (
      await store.create({
        operations: [op("resizeServerGroup", "x"), op("resizeServerGroup", "y")],
        scaleSets: ["x", "y"],
      })
    ).task;
    await failOnce(again.id);
    const running = (await store.create({ operations: [op("resizeServerGroup", "y")], scaleSets: ["y"] })).task;
    await claimTask(store, "d", running.id);
    t.ok(await store.update("d", running.id, { state: "running" }));
    t.ok(await store.requeueRetryable(again.id, entry("resumed"), ["x", "y"]));
    t.same(await store.claim("e", LONG_LEASE_MS, 10), [], "a started task goes before it on y");
    const behind = (await store.create({ operations: [op("resizeServerGroup", "x")], scaleSets: ["x"] })).task;
    t.same(await store.claim("e", LONG_LEASE_MS, 10), [], "and a task submitted after the resume waits for it on x");
    t.ok(await store.update("d", running.id, { state: "succeeded", finishedAtMs: Date.now() }));
    t.same(
      (await store.claim("e", LONG_LEASE_MS, 10)).map((c) => c.id),
      [again.id],
    );
    t.ok(await store.update("e", again.id, { state: "succeeded", finishedAtMs: Date.now() }));
    t.same(
      (await store.claim("e", LONG_LEASE_MS, 10)).map((c) => c.id),
      [behind.id],
    );
  });

  t.test(
    `${name}: requestCancel ends a queued task at once, marks a running one for its lease holder, refuses a finished one`,
    async (t) => {
      const { store } = await fresh(t);
      const lines = {
        canceled: entry("canceled before it started", "ORCHESTRATION"),
        requested: entry("cancel requested"),
      };
      // Queued, nobody holds it: canceled at once, and the next task on its scale set is free to go.
      const queued = (await store.create({ operations: [op("resizeServerGroup", "a")], scaleSets: ["k"] })).task;
      const behind = (await store.create({ operations: [op("resizeServerGroup", "a")], scaleSets: ["k"] })).task;
      const first = await store.requestCancel(queued.id, lines);
      t.equal(first.outcome, "canceled");
      const canceled = (await store.get(queued.id))!;
      t.equal(canceled.state, "canceled");
      t.type(canceled.finishedAtMs, "number");
      t.same(
        canceled.history.map((h) => h.status),
        ["canceled before it started"],
      );
      t.same(
        (await store.claim("a", LONG_LEASE_MS, 10)).map((c) => c.id),
        [behind.id],
        "the task behind it on its scale set is claimable",
      );
      t.same(await store.claim("b", LONG_LEASE_MS, 10), [], "the canceled task is never claimed");

      // Running under a lease: only the request is stored; the holder sees it (cancelRequested) and may still write.
      await store.update("a", behind.id, { state: "running" });
      const asked = await store.requestCancel(behind.id, lines);
      t.equal(asked.outcome, "requested");
      t.equal((await store.get(behind.id))!.state, "running", "it runs until its holder stops it");
      t.type((await store.get(behind.id))!.cancelRequestedAtMs, "number");
      t.equal((await store.requestCancel(behind.id, lines)).outcome, "requested", "asking twice is harmless");
      t.same(
        (await store.get(behind.id))!.history.map((h) => h.status).slice(1),
        ["cancel requested"],
        "after the line saying whom it waited for, one line for both requests",
      );
      t.same(await store.cancelRequested([behind.id, queued.id, "no-such-task"]), [behind.id, queued.id]);
      t.ok(await store.update("a", behind.id, { state: "canceled", finishedAtMs: Date.now() }), "the holder ends it");

      // Finished: nothing changes.
      const again = await store.requestCancel(behind.id, lines);
      t.equal(again.outcome, "finished");
      t.equal(again.outcome === "finished" && again.task.state, "canceled");
      t.equal((await store.get(behind.id))!.history.length, 2, "no line added");
      t.same(await store.requestCancel("no-such-task", lines), { outcome: "missing" });
    },
  );

  t.test(`${name}: a cancel request survives its holder's death: whoever claims the task next finds it`, async (t) => {
    const { store } = await fresh(t);
    const x = (await store.create({ operations: [op("resizeServerGroup", "a")] })).task;
    await claimTask(store, "a", x.id, SHORT_LEASE_MS);
    await store.update("a", x.id, { state: "running" });
    t.equal(
      (await store.requestCancel(x.id, { canceled: entry("no"), requested: entry("cancel requested") })).outcome,
      "requested",
    );
    await waitPastLease(store, x.id);
    const [taken] = await store.claim("b", LONG_LEASE_MS, 10);
    t.equal(taken?.id, x.id);
    t.type(taken?.cancelRequestedAtMs, "number", "the new holder sees the request with the task it claimed");
  });

  t.test(`${name}: a task can start with history lines, after the one saying whom it waits for`, async (t) => {
    const { store } = await fresh(t);
    await store.create({ operations: [op("resizeServerGroup", "a")], scaleSets: ["k"] });
    const lines = [
      entry("a (eastus): kept", "SCALE_DOWN_CLUSTER"),
      entry("b (eastus): scaled down to 0", "SCALE_DOWN_CLUSTER"),
    ];
    const { task } = await store.create({
      operations: [op("resizeServerGroup", "b")],
      scaleSets: ["k"],
      history: lines,
    });
    const expected = [
      waitingEntry([{ taskId: (await store.list({ limit: 2 })).tasks[1].id, scaleSet: "k" }], 0)!.status,
      "a (eastus): kept",
      "b (eastus): scaled down to 0",
    ];
    t.same(
      task.history.map((h) => h.status),
      expected,
      "as created",
    );
    t.same(
      (await store.get(task.id))!.history.map((h) => h.status),
      expected,
      "as stored, in order",
    );
  });

  t.test(`${name}: checkpoints round-trip, and null clears them`, async (t) => {
    const { store } = await fresh(t);
    const [x] = await createMany(store, 1);
    await claimTask(store, "a", x.id);
    const poller = JSON.stringify({
      state: {
        status: "running",
        config: {
          operationLocation:
            "https://management.azure.com/subscriptions/s/providers/Microsoft.Compute/locations/eastus/operations/abc?api-version=2024-07-01&p=%2F",
        },
        blob: "x".repeat(200_000),
        text: 'quotes " and \\ backslashes, tabs\t, newlines\n, unicode ✓ ü 😀',
      },
    });
    const checkpoint: TaskCheckpoint = {
      operationIndex: 1,
      attempt: 3,
      inFlight: {
        step: {
          kind: "deleteInstances",
          summary: "delete instances 3, 4",
          instanceIds: ["3", "4"],
          nested: { a: [1, 2.5, null, true] },
        },
        poller,
      },
    };
    t.ok(await store.update("a", x.id, { checkpoint }));
    const got = (await store.get(x.id))!;
    t.same(got.checkpoint, checkpoint, "round-trips as given");
    t.equal(got.checkpoint!.inFlight!.poller, poller, "the serialized poller byte for byte");
    t.equal(JSON.parse(got.checkpoint!.inFlight!.poller).state.blob.length, 200_000);
    t.ok(await store.update("a", x.id, { armCalls: 4 }));
    t.same((await store.get(x.id))!.checkpoint, checkpoint, "a change without checkpoint keeps it");
    const replaced: TaskCheckpoint = { operationIndex: 2, attempt: 1 };
    t.ok(await store.update("a", x.id, { checkpoint: replaced }));
    t.same((await store.get(x.id))!.checkpoint, replaced, "a new checkpoint replaces the old one entirely");
    t.ok(await store.update("a", x.id, { checkpoint: null }));
    t.notOk("checkpoint" in (await store.get(x.id))!, "null clears it");
  });

  t.test(`${name}: prune deletes finished tasks that finished before the cutoff`, async (t) => {
    const { store } = await fresh(t);
    const now = Date.now();
    const make = async (
      clientRequestId: string,
      state: "succeeded" | "failed" | "canceled" | "running" | "queued",
      finishedAtMs?: number,
    ) => {
      const x = (await store.create({ clientRequestId, operations: [op("scaleDown", clientRequestId)] })).task;
      if (state === "queued") return x;
      await claimTask(store, "a", x.id);
      t.ok(await store.appendHistory("a", x.id, entry("something")));
      t.ok(await store.update("a", x.id, { state, ...(finishedAtMs !== undefined ? { finishedAtMs } : {}) }));
      return x;
    };
    const oldSucceeded = await make("old-succeeded", "succeeded", now - 60_000);
    const oldFailed = await make("old-failed", "failed", now - 50_000);
    const oldCanceled = await make("old-canceled", "canceled", now - 40_000);
    const recent = await make("recent", "succeeded", now + 60_000);
    const running = await make("running", "running");
    const queued = await make("queued", "queued");

    t.equal(await store.prune(now - 100_000), 0, "nothing finished that early");
    t.equal(await store.prune(now), 3);
    for (const gone of [oldSucceeded, oldFailed, oldCanceled]) t.equal(await store.get(gone.id), undefined, "pruned");
    for (const kept of [recent, running, queued]) t.ok(await store.get(kept.id), "kept");
    t.same((await listAll(store, { limit: 10 })).sort(), [recent.id, running.id, queued.id].sort());
    t.equal(await store.prune(now), 0, "idempotent");
    t.equal(
      await store.prune(Date.now() + 3_600_000),
      1,
      "a later cutoff takes the recent one; running and queued never",
    );
    t.ok(await store.get(running.id));
    t.ok(await store.get(queued.id));

    const reused = await store.create({ clientRequestId: "old-succeeded", operations: [op("scaleDown", "x")] });
    t.equal(reused.created, true, "a pruned task's clientRequestId may be used again");
    t.not(reused.task.id, oldSucceeded.id);
    t.same(reused.task.history, [], "no history left over from the pruned task");
  });

  t.test(
    `${name}: revision changes with every change a reader sees, on every replica, and not with a refused write`,
    async (t) => {
      const handle = await fresh(t);
      const { store } = handle;
      const other = handle.replica ? await handle.replica() : store;
      const { task } = await store.create({ operations: [op("resizeServerGroup", "a"), op("scaleDown", "a")] });
      t.type(task.revision, "number");
      t.equal(await store.revision(task.id), task.revision, "as created");
      t.equal((await store.get(task.id))!.revision, task.revision, "get says the same");
      t.equal(await store.revision("no-such-task"), undefined);
      const seen = [task.revision];
      /** The revision now, on both connections; it must be newer than every one seen before. */
      const changed = async (what: string) => {
        const now = await store.revision(task.id);
        t.equal(await other.revision(task.id), now, `${what}: another replica reads the same revision`);
        const { state } = (await store.get(task.id))!;
        t.same(
          [...(await other.revisions(["no-such-task", task.id]))],
          [[task.id, { revision: now, state }]],
          `${what}: revisions() says the same, with its state, and nothing of a task that does not exist`,
        );
        t.equal((await store.get(task.id))!.revision, now, `${what}: get carries it`);
        t.ok(now !== undefined && now > seen.at(-1)!, `${what}: the revision moved on (${seen.at(-1)} → ${now})`);
        seen.push(now!);
      };
      await claimTask(store, "a", task.id, SHORT_LEASE_MS);
      t.ok(await store.update("a", task.id, { state: "running" }));
      await changed("running");
      t.ok(await store.appendHistory("a", task.id, entry("Initializing", "INIT")));
      await changed("a history line");
      t.ok(await store.update("a", task.id, { armCalls: 4, operationIndex: 1 }));
      await changed("an update");
      t.equal(
        (await store.requestCancel(task.id, { canceled: entry("no"), requested: entry("cancel requested") })).outcome,
        "requested",
      );
      await changed("a cancel request");
      await waitPastLease(store, task.id);
      t.equal(await store.update("a", task.id, { armCalls: 99 }), false, "a write after the lease ended is refused");
      t.equal(await store.appendHistory("a", task.id, entry("late")), false);
      t.equal(await store.revision(task.id), seen.at(-1), "and the revision stays");
      await claimTask(other, "b", task.id);
      t.ok(
        await other.update("b", task.id, {
          state: "failed",
          finishedAtMs: Date.now(),
          failure: { operation: "scaleDown", code: "Conflict", message: "gave up", retryable: true },
        }),
      );
      await changed("failed");
      t.ok(await store.requeueRetryable(task.id, entry("resumed on request", "ORCHESTRATION"), []));
      await changed("requeued");
    },
  );

  t.test(`${name}: the lifecycle a runner goes through`, async (t) => {
    const handle = await fresh(t);
    const { store } = handle;
    const other = handle.replica ? await handle.replica() : store;
    const { task } = await store.create({
      clientRequestId: "life",
      operations: [op("resizeServerGroup", "web"), op("scaleDown", "web")],
    });
    const [claimed] = await store.claim("r1", SHORT_LEASE_MS, 1);
    t.equal(claimed.id, task.id);
    t.ok(await store.update("r1", task.id, { state: "running" }));
    t.ok(await store.appendHistory("r1", task.id, entry("Initializing", "INIT")));
    const cp: TaskCheckpoint = {
      operationIndex: 0,
      attempt: 1,
      inFlight: { step: { kind: "update", summary: "capacity 3 → 5" }, poller: '{"state":{}}' },
    };
    t.ok(await store.update("r1", task.id, { checkpoint: cp, armCalls: 3 }));
    // r1 dies (no renew); r2, perhaps another replica, takes over after the lease.
    await waitPastLease(store, task.id);
    const [resumed] = await other.claim("r2", LONG_LEASE_MS, 5);
    t.equal(resumed?.id, task.id);
    t.same(resumed.checkpoint, cp);
    t.equal(resumed.armCalls, 3);
    t.equal(resumed.state, "running");
    t.equal(await store.appendHistory("r1", task.id, entry("late write from r1")), false);
    t.ok(await other.appendHistory("r2", task.id, entry("Resumed")));
    t.ok(await other.update("r2", task.id, { checkpoint: null, operationIndex: 1, armCalls: 5 }));
    t.ok(await other.update("r2", task.id, { state: "succeeded", finishedAtMs: Date.now() }));
    const done = (await store.get(task.id))!;
    t.equal(done.state, "succeeded");
    t.same(
      done.history.map((h) => h.status),
      ["Initializing", "Resumed"],
    );
    t.notOk("leaseOwner" in done);
    t.equal((await store.create({ clientRequestId: "life", operations: [] })).task.id, task.id);
  });

  t.test(
    `${name}: with 10,000 tasks queued behind busy scale sets, claims take what is runnable, in order`,
    async (t) => {
      const handle = await fresh(t);
      const { store } = handle;
      // Created at once: the stores batch them, each as if made alone, in the order asked.
      const QUEUED = 10_000;
      const created = await Promise.all(
        Array.from({ length: QUEUED }, (_, i) =>
          store.create({ operations: [op("resizeServerGroup", `q-${i % 2}`)], scaleSets: [i % 2 === 0 ? S1 : S2] }),
        ),
      );
      const ids = created.map((c) => c.task.id);
      t.equal(new Set(ids).size, QUEUED, "every create made a task");
      const first = await store.claim("r", LONG_LEASE_MS, 50);
      t.same(
        first.map((x) => x.id),
        [ids[0], ids[1]],
        "the first of each scale set, and nothing of the queues behind them",
      );
      t.same(await store.claim("r", LONG_LEASE_MS, 50), [], "nothing else while they run");
      const lone = await createOn(store, [S3], "lone");
      t.same(
        (await store.claim("r", LONG_LEASE_MS, 50)).map((x) => x.id),
        [lone.id],
        "a task on a free scale set is claimable at once",
      );
      // Each task's end wakes the next on its scale set, whichever replica claims.
      const other = handle.replica ? await handle.replica() : store;
      let expected = 2;
      for (const running of first) {
        await finish(store, "r", running.id);
        const next = await other.claim("r2", LONG_LEASE_MS, 50);
        t.same(
          next.map((x) => x.id),
          [ids[expected]],
          `after ${running.id} ends, the next on its scale set`,
        );
        expected++;
      }
      t.same(await other.claim("r2", LONG_LEASE_MS, 50), [], "and only that one");
    },
  );

  /** An audit entry as a route makes it (api/audit-trail.ts). */
  function auditEntry(
    action: NewAuditEntry["action"],
    who = "alice",
    extra: Partial<NewAuditEntry> = {},
  ): NewAuditEntry {
    return {
      action,
      decision: "accepted",
      timeMs: Date.now(),
      actor: {
        name: who,
        via: "oidc",
        subject: `${who}-oid`,
        issuer: "https://login.example/tenant/v2.0",
        application: "ci",
      },
      remoteAddress: "10.1.2.3",
      targets: [{ operation: "resizeServerGroup", account: "demo", region: "eastus", serverGroup: "web-v001" }],
      ...extra,
    };
  }

  /** Every entry, newest first, paging with `limit`. */
  async function allAudit(store: TaskStore, query: Omit<AuditQuery, "cursor" | "limit"> = {}, limit = 500) {
    const entries: AuditEntry[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 1000; pages++) {
      const page = await store.listAudit({ ...query, limit, cursor });
      entries.push(...page.entries);
      if (!page.nextCursor) return entries;
      cursor = page.nextCursor;
    }
    throw new Error("listAudit never ended");
  }

  t.test(
    `${name}: a submission's audit entry is recorded with its task, and the task's end is its outcome`,
    async (t) => {
      const handle = await fresh(t);
      const { store } = handle;
      const audit = auditEntry("submit", "alice", { clientRequestId: "req-audit-1" });
      const { task, created } = await store.create({
        operations: [op("resizeServerGroup", "web-v001")],
        clientRequestId: "req-audit-1",
        audit,
      });
      t.ok(created);
      t.match(task.submittedBy, {
        name: "alice",
        via: "oidc",
        subject: "alice-oid",
        application: "ci",
        timeMs: audit.timeMs,
      });
      t.same((await store.get(task.id))!.submittedBy, task.submittedBy, "get carries who submitted it");
      const [recorded, ...rest] = await allAudit(store);
      t.same(rest, [], "one entry");
      t.match(recorded, { ...audit, taskId: task.id, decision: "accepted" });
      t.notOk("outcome" in recorded, "no outcome while the task runs");

      const again = await store.create({
        operations: [op("resizeServerGroup", "web-v001")],
        clientRequestId: "req-audit-1",
        audit,
      });
      t.equal(again.created, false);
      t.equal((await allAudit(store)).length, 1, "a repeated clientRequestId finds the task and records nothing");

      const without = await store.create({ operations: [op("scaleDown", "b")] });
      t.notOk("submittedBy" in without.task, "a task created without an entry has no submittedBy");

      await claimTask(store, "r", task.id);
      await store.update("r", task.id, { state: "running" });
      t.notOk("outcome" in (await allAudit(store, { taskId: task.id }))[0], "running: still open");
      await store.update("r", task.id, { state: "succeeded", finishedAtMs: Date.now() });
      const [ended] = await allAudit(store, { taskId: task.id });
      t.equal(ended.outcome, "succeeded", "the end state is the outcome, written by the end");
      t.type(ended.outcomeAtMs, "number");
      if (handle.replica) {
        const other = await handle.replica();
        t.match((await allAudit(other))[0], { id: recorded.id, outcome: "succeeded" }, "another replica reads it");
      }
    },
  );

  t.test(
    `${name}: a cancel's audit entry is recorded with the cancel, only when the task was there to cancel`,
    async (t) => {
      const { store } = await fresh(t);
      const lines = { canceled: entry("canceled", "ORCHESTRATION"), requested: entry("stopping") };
      const queued = (await store.create({ operations: [op("resizeServerGroup", "q")], audit: auditEntry("submit") }))
        .task;
      const done = await store.requestCancel(queued.id, lines, auditEntry("cancel", "bob"));
      t.equal(done.outcome, "canceled");
      t.match(done.outcome !== "missing" && done.task, { submittedBy: { name: "alice" }, canceledBy: { name: "bob" } });
      t.match(
        await allAudit(store, { taskId: queued.id }),
        [
          { action: "cancel", actor: { name: "bob" }, outcome: "canceled" },
          { action: "submit", actor: { name: "alice" }, outcome: "canceled" },
        ],
        "a queued task ends at once: both its entries are settled",
      );

      const running = (await store.create({ operations: [op("resizeServerGroup", "r")], audit: auditEntry("submit") }))
        .task;
      await claimTask(store, "o", running.id);
      await store.update("o", running.id, { state: "running" });
      t.equal((await store.requestCancel(running.id, lines, auditEntry("cancel", "carol"))).outcome, "requested");
      t.equal((await store.requestCancel(running.id, lines, auditEntry("cancel", "dave"))).outcome, "requested");
      t.match((await store.get(running.id))!.canceledBy, { name: "carol" }, "canceledBy is who asked first");
      t.notOk(
        "outcome" in (await allAudit(store, { taskId: running.id }))[0],
        "a running task's cancel waits for its end",
      );
      await store.update("o", running.id, { state: "canceled", finishedAtMs: Date.now() });
      t.same(
        (await allAudit(store, { taskId: running.id })).map((e) => [e.actor.name, e.outcome]),
        [
          ["dave", "canceled"],
          ["carol", "canceled"],
          ["alice", "canceled"],
        ],
      );
      const count = (await allAudit(store)).length;
      t.equal((await store.requestCancel(running.id, lines, auditEntry("cancel", "erin"))).outcome, "finished");
      t.equal((await store.requestCancel("no-such-task", lines, auditEntry("cancel", "erin"))).outcome, "missing");
      t.equal((await allAudit(store)).length, count, "a finished or missing task: no change, no entry");
    },
  );

  t.test(
    `${name}: a resume's audit entry is recorded with the requeue; each run's entries get that run's end`,
    async (t) => {
      const { store } = await fresh(t);
      const task = (await store.create({ operations: [op("resizeServerGroup", "a")], audit: auditEntry("submit") }))
        .task;
      const failure = { operation: "resizeServerGroup", code: "Conflict", message: "gave up", retryable: true };
      await claimTask(store, "a", task.id);
      await store.update("a", task.id, { state: "running" });
      await store.update("a", task.id, { state: "failed", failure, finishedAtMs: Date.now() });
      t.equal(await store.requeueRetryable("no-such-task", entry("no"), [], auditEntry("resume", "frank")), false);
      t.ok(await store.requeueRetryable(task.id, entry("resumed"), [], auditEntry("resume", "frank")));
      t.equal(
        await store.requeueRetryable(task.id, entry("again"), [], auditEntry("resume", "grace")),
        false,
        "a queued task is not requeued: no entry either",
      );
      t.match((await store.get(task.id))!, { submittedBy: { name: "alice" }, resumedBy: { name: "frank" } });
      await claimTask(store, "b", task.id);
      await store.update("b", task.id, { state: "running" });
      await store.update("b", task.id, { state: "succeeded", finishedAtMs: Date.now() });
      t.same(
        (await allAudit(store, { taskId: task.id })).map((e) => [e.action, e.actor.name, e.outcome]),
        [
          ["resume", "frank", "succeeded"],
          ["submit", "alice", "failed"],
        ],
      );
    },
  );

  t.test(`${name}: audit entries alone, settled once, filtered, paged newest first`, async (t) => {
    const { store } = await fresh(t);
    const t0 = Date.now() - 10_000;
    const made: AuditEntry[] = [];
    for (let i = 0; i < 7; i++) {
      made.push(
        await store.recordAudit(
          auditEntry(i % 2 === 0 ? "forward" : "submit", i < 3 ? "alice" : "bob", {
            timeMs: t0 + i * 1000,
            decision: i === 6 ? "refused" : "accepted",
            ...(i === 6 ? { status: 403, reason: "Access denied to account Team-A" } : {}),
            targets: [
              {
                operation: i % 3 === 0 ? "scaleDown" : "resizeServerGroup",
                account: i === 5 ? "Team-A" : "demo",
                serverGroup: `sg-${i % 2}`,
              },
            ],
          }),
        ),
      );
    }
    t.match(made[6], { decision: "refused", status: 403, reason: "Access denied to account Team-A" });
    const ids = (entries: AuditEntry[]) => entries.map((e) => made.findIndex((m) => m.id === e.id));
    t.same(ids(await allAudit(store, {}, 2)), [6, 5, 4, 3, 2, 1, 0], "newest first, across pages");
    t.same(ids(await allAudit(store, { sinceMs: t0 + 2000, untilMs: t0 + 5000 })), [4, 3, 2], "[since, until)");
    t.same(ids(await allAudit(store, { principal: "alice" })), [2, 1, 0]);
    t.same(ids(await allAudit(store, { account: "team-a" })), [5], "accounts in any case");
    t.same(ids(await allAudit(store, { serverGroup: "sg-1" })), [5, 3, 1]);
    t.same(ids(await allAudit(store, { operation: "scaleDown" })), [6, 3, 0], "an operation");
    t.same(ids(await allAudit(store, { operation: "forward" })), [6, 4, 2, 0], "an action");
    t.same(ids(await allAudit(store, { principal: "bob", operation: "submit" }, 1)), [5, 3]);

    await store.settleAudit(made[0].id, "clouddriver 200");
    await store.settleAudit(made[0].id, "clouddriver 500");
    t.match((await allAudit(store)).at(-1), { outcome: "clouddriver 200" }, "an outcome is written once");

    t.equal(await store.pruneAudit(t0 + 3000), 3, "entries before the cutoff go");
    t.same(ids(await allAudit(store)), [6, 5, 4, 3]);
  });

  t.test(`${name}: the audit trail and the tasks have retentions of their own`, async (t) => {
    const { store } = await fresh(t);
    const task = (await store.create({ operations: [op("resizeServerGroup", "a")], audit: auditEntry("submit") })).task;
    await claimTask(store, "a", task.id);
    await store.update("a", task.id, { state: "succeeded", finishedAtMs: Date.now() - 60_000 });
    t.equal(await store.prune(Date.now()), 1, "the task is pruned");
    t.equal(await store.get(task.id), undefined);
    t.match(await allAudit(store), [{ taskId: task.id, outcome: "succeeded" }], "its entry stays, with its outcome");
    const kept = (await store.create({ operations: [op("resizeServerGroup", "b")], audit: auditEntry("submit") })).task;
    t.equal(await store.pruneAudit(Date.now() + 1000), 2, "the entries go");
    const after = (await store.get(kept.id))!;
    t.equal(after.state, "queued", "the task stays");
    t.notOk("submittedBy" in after, "without its entry, no submittedBy");
  });
}
