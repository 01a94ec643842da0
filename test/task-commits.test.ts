// What one uncontended resize costs the task store: its writes (each a commit in the durable stores), counted on a
// memory store. One commit per step: the history lines ride along with the change that follows them.
import t from "tap";
import { AccountRegistry } from "../src/azure/accounts.ts";
import { loadConfig } from "../src/startup-config.ts";
import { operations } from "../src/operations/registry.ts";
import { startSimulator } from "vmss-simulator";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { TaskRunner } from "../src/tasks/task-runner.ts";
import type { TaskChange } from "../src/tasks/task-store.ts";
import type { HistoryEntry } from "../src/tasks/task.ts";
import { waitFor } from "../testkit/wait-for.ts";

const sim = await startSimulator({ port: 0, writeDurationMs: 100, timeScale: 25 / 30_000, seed: true });
t.teardown(() => sim.close());

class CountingStore extends MemoryTaskStore {
  writes: string[] = [];
  override async update(owner: string, id: string, change: TaskChange): Promise<boolean> {
    this.writes.push(`update ${Object.keys(change).sort().join(",")}`);
    return super.update(owner, id, change);
  }
  override async appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean> {
    this.writes.push("appendHistory");
    return super.appendHistory(owner, id, entry);
  }
}

t.test("an uncontended resize: one write for the result and the end, none per history line", async (t) => {
  const config = loadConfig({
    SIMULATOR_URL: sim.url,
    TASK_STORE: "memory",
    LRO_POLL_INTERVAL_MS: "25",
    LRO_MAX_POLL_INTERVAL_MS: "25",
  });
  for (const a of config.accounts) if (a.credential.kind === "simulator") a.caPem = sim.caPem;
  const store = new CountingStore();
  const runner = new TaskRunner({ store, accounts: new AccountRegistry(config.accounts), operations, config });
  runner.start();
  t.teardown(() => runner.stop(1000));
  const { task } = await runner.submit([
    {
      name: "resizeServerGroup",
      description: {
        credentials: "demo",
        region: "eastus",
        serverGroupName: "web-prod-v001",
        capacity: { min: 1, max: 10, desired: 4 },
      },
    },
  ]);
  await waitFor(async () => (await store.get(task.id))?.state === "succeeded", {
    what: `task ${task.id} to succeed`,
    seen: () => store.writes,
  });
  const done = (await store.get(task.id))!;
  t.equal(done.state, "succeeded", JSON.stringify(done.history));
  t.equal(store.writes.filter((w) => w === "appendHistory").length, 0, "no history line is a write of its own");
  t.equal(
    store.writes.at(-1),
    "update armCalls,checkpoint,finishedAtMs,history,operationIndex,resultObjects,state",
    "the result, the last lines and the end: one write",
  );
  t.ok(
    store.writes.length < done.history.length,
    `fewer writes (${store.writes.length}: ${store.writes.join("; ")}) than history lines (${done.history.length})`,
  );
  t.comment(`${store.writes.length} store writes for ${done.history.length} history lines`);
});
