// The runner's takeover paths, made deterministic with the memory store (no Azure call is needed for them).
import t from "tap";
import { AccountRegistry } from "../src/azure/accounts.ts";
import { loadConfig } from "../src/startup-config.ts";
import { operations } from "../src/operations/registry.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { leaseIsDue, TaskRunner } from "../src/tasks/task-runner.ts";
import type { AnyOperation } from "../src/operations/operation.ts";
import { afterQueuedImmediates, waitFor } from "../testkit/wait-for.ts";

const config = loadConfig({
  SIMULATOR_URL: "https://127.0.0.1:1",
  TASK_STORE: "memory",
  TASK_LEASE_MS: "1000",
  TASK_CLAIM_INTERVAL_MS: "50",
  REPLICA_ID: "survivor",
});
const request = {
  name: "scaleDown",
  description: { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001" },
};
const result = {
  type: "serverGroup" as const,
  account: "demo",
  region: "eastus",
  resourceGroup: "demo-rg",
  serverGroupName: "web-prod-v001",
  capacity: { min: 0, max: 0, desired: 0 },
  disabled: false,
};

t.test(
  "a replica died after its last history line but before marking the task done: finished once, not twice",
  async (t) => {
    // The store's clock, which decides when a lease has expired, is moved on by hand.
    let ahead = 0;
    const store = new MemoryTaskStore(undefined, () => Date.now() + ahead);
    const { task } = await store.create({ operations: [request] });
    // The dead replica: claimed it, ran the only operation, wrote the completion line, then died.
    t.equal((await store.claim("dead", 100, 10)).length, 1);
    t.ok(await store.update("dead", task.id, { state: "running", operationIndex: 1, resultObjects: [result] }));
    t.ok(
      await store.appendHistory("dead", task.id, {
        phase: "ORCHESTRATION",
        status: "Orchestration completed.",
        timeMs: Date.now(),
      }),
    );
    ahead += 150; // its lease (100 ms) expires

    const runner = new TaskRunner({ store, accounts: new AccountRegistry(config.accounts), operations, config });
    runner.start();
    await waitFor(async () => (await store.get(task.id))?.state === "succeeded", {
      what: "the survivor to finish the task",
    });
    await runner.stop(1000);
    const done = (await store.get(task.id))!;
    t.equal(done.state, "succeeded");
    t.equal(
      done.history.filter((h) => h.status === "Orchestration completed.").length,
      1,
      JSON.stringify(done.history),
    );
    t.match(done.history.at(-1)?.status, /Resumed by replica survivor/);
    t.same(done.resultObjects, [result], "the result the dead replica recorded stands");
  },
);

t.test(
  "a task whose lease is still held by a live replica is not taken, while the runner does take free work",
  async (t) => {
    let ahead = 0;
    const store = new MemoryTaskStore(undefined, () => Date.now() + ahead);
    const { task } = await store.create({ operations: [request] });
    await store.claim("alive", 60_000, 10);
    // Free work on another scale set, which the runner can finish without Azure (its last step was recorded): it
    // shows that the runner did claim during the test, so the held task was passed over, not merely never looked at.
    const other = { name: "scaleDown", description: { ...request.description, serverGroupName: "web-prod-v002" } };
    const { task: free } = await store.create({ operations: [other] });
    t.equal((await store.claim("dead", 100, 10)).length, 1);
    t.ok(
      await store.update("dead", free.id, {
        state: "running",
        operationIndex: 1,
        resultObjects: [{ ...result, serverGroupName: "web-prod-v002" }],
      }),
    );
    ahead += 150; // the dead replica's lease (100 ms) expires; the live one's (60 s) does not

    const runner = new TaskRunner({ store, accounts: new AccountRegistry(config.accounts), operations, config });
    runner.start();
    await waitFor(async () => (await store.get(free.id))?.state === "succeeded", {
      what: "the runner to finish the free task",
    });
    await runner.stop(1000);
    t.equal((await store.get(free.id))!.state, "succeeded", "the runner ran");
    const still = (await store.get(task.id))!;
    t.equal(still.leaseOwner, "alive");
    t.equal(still.state, "queued");
    t.same(still.history, []);
  },
);

t.test(
  "tasks on one scale set: the runner runs them one after another, each as soon as the previous ends",
  async (t) => {
    // Three tasks on one scale set, each left by a dead replica with its only step done: the runner finishes them
    // in creation order, one at a time, each claimed when the one before finished (not a timer tick later: the
    // timer here is an hour).
    const slow = loadConfig({
      SIMULATOR_URL: "https://127.0.0.1:1",
      TASK_STORE: "memory",
      TASK_LEASE_MS: "36000000",
      TASK_CLAIM_INTERVAL_MS: "3600000",
      REPLICA_ID: "r",
    });
    const store = new MemoryTaskStore();
    const accounts = new AccountRegistry(slow.accounts);
    const runner = new TaskRunner({ store, accounts, operations, config: slow });
    const scaleSets = runner.scaleSetsOf([request]);
    t.equal(scaleSets.length, 1);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await store.create({ operations: [request], scaleSets })).task.id);
    const claimed: string[] = [];
    const claim = store.claim.bind(store);
    store.claim = async (owner, leaseMs, limit) => {
      const got = await claim(owner, leaseMs, limit);
      for (const x of got) {
        claimed.push(x.id);
        // As a dead replica would have left it: its step done, so finishing it needs no Azure call.
        await store.update(owner, x.id, { state: "running", operationIndex: 1, resultObjects: [result] });
      }
      return got.map((x) => ({ ...x, state: "running" as const, operationIndex: 1, resultObjects: [result] }));
    };
    runner.start();
    await waitFor(async () => (await store.get(ids[2]))?.state === "succeeded", { what: "the third task to finish" });
    await runner.stop(1000);
    t.same(claimed, ids, "each claimed once, in creation order");
    for (const id of ids) t.equal((await store.get(id))!.state, "succeeded");
    const first = (await store.get(ids[0]))!;
    const second = (await store.get(ids[1]))!;
    t.match(second.history[0]?.status, new RegExp(`Waiting for task ${ids[0]}`), "the second said whom it waited for");
    t.ok(second.history.findIndex((h) => /Resumed/.test(h.status)) > 0);
    t.ok(
      first.finishedAtMs! <= Math.min(...second.history.slice(1).map((h) => h.timeMs)),
      "the second started after the first finished",
    );
  },
);

t.test("submissions that arrive together are claimed together: one claim, not one per wake-up", async (t) => {
  // An operation that waits until the runner stops, so that no task ends (and wakes the runner) during the test.
  const hold: AnyOperation = {
    ...operations.get("scaleDown")!,
    name: "hold",
    prepare: (_d, { signal }) =>
      new Promise((_resolve, reject) => signal?.addEventListener("abort", () => reject(signal.reason as Error))),
  };
  const store = new MemoryTaskStore();
  const claims: number[] = [];
  // Claims under way: a claim starts synchronously when a wake-up fires, so "none under way after the queued
  // wake-ups ran" is the event that ends the test, not a time.
  let claiming = 0;
  const counting = new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (prop === "claim")
        return async (...args: Parameters<MemoryTaskStore["claim"]>) => {
          claiming++;
          try {
            const got = await target.claim(...args);
            claims.push(got.length);
            return got;
          } finally {
            claiming--;
          }
        };
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  /** Every wake-up queued so far has fired, and every claim it started (and any claim-again) has ended. */
  async function quiet(): Promise<void> {
    for (;;) {
      await afterQueuedImmediates();
      if (claiming > 0) {
        await waitFor(() => claiming === 0, { what: "the claim under way to end" });
        continue;
      }
      await afterQueuedImmediates();
      if (claiming === 0) return;
    }
  }
  const quietConfig = loadConfig({
    SIMULATOR_URL: "https://127.0.0.1:1",
    TASK_STORE: "memory",
    TASK_LEASE_MS: "36000000",
    TASK_CLAIM_INTERVAL_MS: "3600000",
  });
  const runner = new TaskRunner({
    store: counting,
    accounts: new AccountRegistry(quietConfig.accounts),
    operations: new Map([["hold", hold]]),
    config: quietConfig,
  });
  runner.start();
  t.teardown(() => runner.stop(1000));
  await waitFor(() => claims.length > 0, { what: "the start's claim" });
  await quiet();
  t.same(claims, [0], "the start's claim, with nothing to do");

  // Every submit has woken the runner by the time it resolves; the claim waits until the submissions are quiet
  // (accept first: src/tasks/accept-first.ts), then quiet() lets any claim-again end.
  await Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      runner.submit([{ name: "hold", description: { ...request.description, serverGroupName: `web-prod-v${i}` } }]),
    ),
  );
  await waitFor(() => runner.active === 10, { what: "the ten to run" });
  await quiet();
  t.equal(runner.active, 10, "all ten run");
  t.same(claims, [0, 10], "ten wake-ups, one claim that took all ten");
});

t.test(
  "a lease is renewed once a third of it has passed, so two thirds stay when the timer comes late by a tick",
  async (t) => {
    t.notOk(leaseIsDue(0, 9_999, 30_000), "a task of a few seconds never renews its 30 s lease");
    t.ok(leaseIsDue(0, 10_000, 30_000));
    t.ok(leaseIsDue(0, 400, 1000), "a 1 s lease with a timer of a third of it: every tick");
  },
);

t.test("a long task keeps its lease: renewed while it runs, never lost", async (t) => {
  const store = new MemoryTaskStore();
  const renewals: string[][] = [];
  const renew = store.renew.bind(store);
  store.renew = async (owner, ids, leaseMs) => {
    renewals.push(ids);
    return renew(owner, ids, leaseMs);
  };
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  // An operation that holds the task until the test lets it go, with its lease of 1 s renewed meanwhile.
  const slow = {
    ...operations.get("scaleDown")!,
    prepare: async () => {
      await held;
      throw new Error("let go");
    },
  } as unknown as AnyOperation;
  const runner = new TaskRunner({
    store,
    accounts: new AccountRegistry(config.accounts),
    operations: new Map([["scaleDown", slow]]),
    config,
  });
  runner.start();
  t.teardown(() => runner.stop(1000));
  const { task } = await runner.submit([request]);
  await waitFor(() => renewals.length >= 3, { what: "three renewals of the running task's lease" });
  t.ok(renewals.every((ids) => ids.length === 1 && ids[0] === task.id));
  t.equal((await store.get(task.id))?.leaseOwner, "survivor", "still this replica's");
  release();
  await waitFor(async () => (await store.get(task.id))?.state === "failed", { what: "the task to end" });
});

t.test("a task naming an operation this replica does not have fails classified, without a write", async (t) => {
  const store = new MemoryTaskStore();
  const { task } = await store.create({ operations: [request] });
  // A replica of an older version, which has no scaleDown, claims a task a newer one accepted.
  const older: ReadonlyMap<string, AnyOperation> = new Map([...operations].filter(([name]) => name !== "scaleDown"));
  const runner = new TaskRunner({ store, accounts: new AccountRegistry(config.accounts), operations: older, config });
  runner.start();
  const ended = await waitFor(
    async () => ((await store.get(task.id))?.state === "failed" ? store.get(task.id) : undefined),
    {
      what: "the task to fail",
    },
  );
  await runner.stop(1000);
  t.match(ended?.failure, { code: "UnknownOperation", message: /no operation scaleDown/, retryable: false });
});
