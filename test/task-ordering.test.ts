// The per-scale-set order (src/tasks/ordering.ts) is one rule written three ways: the memory store's comparator
// (goesBefore) and the SQL that PostgreSQL's and SQLite's claims are built from. Here the comparator is checked on
// its own, and the three stores are driven through the same random walk of creates, claims, starts, ends, releases,
// cancels and resumes: every claim must take the same tasks, in the same order, on all three. The rule is also in
// the store contract suite (test/task-store-suite.ts) and, with real processes, in test/ordering-processes.test.ts.
import t from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { goesBefore, type OrderedTask, scaleSetKey, waitingEntry, WAITING_PHASE } from "../src/tasks/ordering.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import type { TaskStore } from "../src/tasks/task-store.ts";
import type { HistoryEntry } from "../src/tasks/task.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

t.test("keys ignore case, as ARM names do", async (t) => {
  t.equal(
    scaleSetKey({ subscriptionId: "S", resourceGroup: "Demo-RG", name: "Web-Prod-v001" }),
    scaleSetKey({ subscriptionId: "s", resourceGroup: "demo-rg", name: "web-prod-v001" }),
  );
  t.not(
    scaleSetKey({ subscriptionId: "s", resourceGroup: "a", name: "b" }),
    scaleSetKey({ subscriptionId: "s", resourceGroup: "b", name: "b" }),
  );
});

t.test("the waiting line names each task ahead, by scale set", async (t) => {
  t.equal(waitingEntry([], 1), undefined, "nobody ahead: no line");
  const line = waitingEntry(
    [
      { taskId: "t-2", scaleSet: "s/rg/b" },
      { taskId: "t-1", scaleSet: "s/rg/a" },
    ],
    42,
  )!;
  t.equal(line.phase, WAITING_PHASE);
  t.equal(line.timeMs, 42);
  t.equal(
    line.status,
    "Waiting for task t-1 on scale set s/rg/a, task t-2 on scale set s/rg/b to finish: one operation at a time per scale set, in submission order",
  );
});

t.test("goesBefore: a started task before one that has not started, otherwise the earlier submitted", async (t) => {
  const queued = (seq: number): OrderedTask => ({ seq, state: "queued" });
  const leased = (seq: number): OrderedTask => ({ seq, state: "queued", leaseOwner: "r" });
  const running = (seq: number): OrderedTask => ({ seq, state: "running" });
  t.ok(goesBefore(queued(1), queued(2)) && !goesBefore(queued(2), queued(1)), "neither started: submission order");
  t.ok(
    goesBefore(running(2), queued(1)) && goesBefore(leased(2), queued(1)),
    "started (running, or leased) first, whatever its seq",
  );
  t.ok(!goesBefore(queued(1), leased(2)), "one that has not started never goes before a started one");
  t.ok(goesBefore(running(1), leased(2)) && !goesBefore(leased(2), running(1)), "both started: submission order");
  t.notOk(goesBefore(queued(1), queued(1)), "a task does not go before itself");
});

/** A small deterministic generator (mulberry32), so that a failing walk can be replayed from its seed. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALE_SETS = ["s/rg/a", "s/rg/b"];
const LEASE_MS = 600_000;
const line = (status: string): HistoryEntry => ({ phase: "TEST", status, timeMs: Date.now() });
const op = {
  name: "resizeServerGroup",
  description: { credentials: "demo", region: "eastus", serverGroupName: "web" },
};

/** What the walk knows of a task it created, by its place in submission order (the same on every store). */
interface Known {
  scaleSets: string[];
  state: "queued" | "running" | "failed" | "done";
  leased: boolean;
}

t.test("the three stores claim the same tasks in the same order through a random walk", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-order-"));
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const stores: [string, TaskStore][] = [
    ["memory", new MemoryTaskStore()],
    ["sqlite", await SqliteTaskStore.open({ dataDir })],
    ["postgres", await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema })],
  ];
  t.teardown(async () => {
    for (const [, store] of stores) await store.close();
    rmSync(dataDir, { recursive: true, force: true });
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const seed = Number(process.env.ORDER_WALK_SEED ?? 20261125);
  const next = random(seed);
  const pick = <T>(xs: T[]): T | undefined => (xs.length ? xs[Math.floor(next() * xs.length)] : undefined);
  const known: Known[] = [];
  /** Per store, the task ids by place in submission order. */
  const ids = stores.map(() => [] as string[]);
  const onAll = async (act: (store: TaskStore, ids: string[]) => Promise<unknown>) => {
    const out = [];
    for (const [i, [, store]] of stores.entries()) out.push(await act(store, ids[i]));
    return out;
  };
  const places = (which: (k: Known) => boolean) => known.flatMap((k, i) => (which(k) ? [i] : []));
  let claims = 0;
  for (let step = 0; step < 400; step++) {
    const roll = next();
    if (roll < 0.3) {
      const scaleSets = SCALE_SETS.filter(() => next() < 0.5);
      known.push({ scaleSets, state: "queued", leased: false });
      await onAll(async (store, own) => own.push((await store.create({ operations: [op], scaleSets })).task.id));
    } else if (roll < 0.55) {
      const limit = 1 + Math.floor(next() * 3);
      const taken = (await onAll(async (store, own) =>
        (await store.claim("r", LEASE_MS, limit)).map((task) => own.indexOf(task.id)),
      )) as number[][];
      claims++;
      t.same(taken[1], taken[0], `step ${step} (seed ${seed}): SQLite claims what the memory store claims`);
      t.same(taken[2], taken[0], `step ${step} (seed ${seed}): PostgreSQL claims what the memory store claims`);
      for (const i of taken[0]) known[i].leased = true;
    } else if (roll < 0.63) {
      const i = pick(places((k) => k.leased && k.state === "queued"));
      if (i === undefined) continue;
      known[i].state = "running";
      await onAll((store, own) => store.update("r", own[i], { state: "running" }));
    } else if (roll < 0.79) {
      const i = pick(places((k) => k.leased && (k.state === "queued" || k.state === "running")));
      if (i === undefined) continue;
      const failed = next() < 0.6;
      Object.assign(known[i], { state: failed ? "failed" : "done", leased: false });
      const failure = { operation: "resizeServerGroup", code: "Throttled", message: "try again", retryable: true };
      await onAll((store, own) =>
        store.update(
          "r",
          own[i],
          failed
            ? { state: "failed", failure, finishedAtMs: Date.now() }
            : { state: "succeeded", finishedAtMs: Date.now() },
        ),
      );
    } else if (roll < 0.84) {
      const i = pick(places((k) => k.leased));
      if (i === undefined) continue;
      known[i].leased = false;
      await onAll((store, own) => store.release("r", own[i]));
    } else if (roll < 0.97) {
      const i = pick(places((k) => k.state === "failed"));
      if (i === undefined) continue;
      known[i].state = "queued";
      const done = await onAll((store, own) => store.requeueRetryable(own[i], line("resumed"), known[i].scaleSets));
      t.same(done, [true, true, true], `step ${step}: resumed on every store`);
    } else {
      const i = pick(places((k) => k.state === "queued" && !k.leased));
      if (i === undefined) continue;
      known[i].state = "done";
      const outcomes = await onAll(
        async (store, own) =>
          (await store.requestCancel(own[i], { canceled: line("canceled"), requested: line("asked") })).outcome,
      );
      t.same(
        outcomes,
        ["canceled", "canceled", "canceled"],
        `step ${step}: a queued task nobody holds ends at once on every store`,
      );
    }
  }
  t.ok(claims > 30, `the walk claimed ${claims} times`);
  t.ok(
    known.filter((k) => k.state === "running").length > 0 || known.some((k) => k.state === "done"),
    "tasks started and ended on the way",
  );
  const listed = await onAll(async (store, own) =>
    (await store.list({ limit: 500 })).tasks.map((task) => own.indexOf(task.id)),
  );
  t.same(listed[1], listed[0], "SQLite lists in the memory store's order");
  t.same(listed[2], listed[0], "PostgreSQL lists in the memory store's order");
  t.same(listed[0], known.map((_, i) => i).reverse(), "newest first");
});
