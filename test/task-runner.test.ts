// The runner's takeover paths, made deterministic with the memory store (no Azure call is needed for them).
import t from "tap";
import { AccountRegistry } from "../src/azure/accounts.ts";
import { loadConfig } from "../src/config.ts";
import { operations } from "../src/operations/registry.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { TaskRunner } from "../src/tasks/task-runner.ts";

const config = loadConfig({ SIMULATOR_URL: "https://127.0.0.1:1", TASK_STORE: "memory", TASK_LEASE_MS: "1000", TASK_CLAIM_INTERVAL_MS: "50", REPLICA_ID: "survivor" });
const request = { name: "scaleDown", description: { credentials: "demo", region: "eastus", serverGroupName: "web-prod-v001" } };
const result = {
  type: "serverGroup" as const, account: "demo", region: "eastus", resourceGroup: "demo-rg", serverGroupName: "web-prod-v001",
  capacity: { min: 0, max: 0, desired: 0 }, disabled: false,
};

t.test("a replica died after its last history line but before marking the task done: finished once, not twice", async (t) => {
  const store = new MemoryTaskStore();
  const { task } = await store.create({ operations: [request] });
  // The dead replica: claimed it, ran the only operation, wrote the completion line, then died.
  t.equal((await store.claim("dead", 100, 10)).length, 1);
  t.ok(await store.update("dead", task.id, { state: "running", operationIndex: 1, resultObjects: [result] }));
  t.ok(await store.appendHistory("dead", task.id, { phase: "ORCHESTRATION", status: "Orchestration completed.", timeMs: Date.now() }));
  await new Promise((r) => setTimeout(r, 150)); // its lease expires

  const runner = new TaskRunner({ store, accounts: new AccountRegistry(config.accounts), operations, config });
  runner.start();
  for (let i = 0; i < 100 && (await store.get(task.id))?.state !== "succeeded"; i++) await new Promise((r) => setTimeout(r, 20));
  await runner.stop(1000);
  const done = (await store.get(task.id))!;
  t.equal(done.state, "succeeded");
  t.equal(done.history.filter((h) => h.status === "Orchestration completed.").length, 1, JSON.stringify(done.history));
  t.match(done.history.at(-1)?.status, /Resumed by replica survivor/);
  t.same(done.resultObjects, [result], "the result the dead replica recorded stands");
});

t.test("a task whose lease is still held by a live replica is not taken", async (t) => {
  const store = new MemoryTaskStore();
  const { task } = await store.create({ operations: [request] });
  await store.claim("alive", 60_000, 10);
  const runner = new TaskRunner({ store, accounts: new AccountRegistry(config.accounts), operations, config });
  runner.start();
  await new Promise((r) => setTimeout(r, 200));
  await runner.stop(1000);
  const still = (await store.get(task.id))!;
  t.equal(still.leaseOwner, "alive");
  t.equal(still.state, "queued");
  t.same(still.history, []);
});
