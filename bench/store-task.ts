// The SQLite store's part of a resize, measured alone in this process: the calls the service makes for one resize
// run one at a time (create, claim, the first checkpoint with its opening lines, the end with its last lines, and
// the claim that follows an end), in a loop, and the CPU they take per resize from process.cpuUsage(). No HTTP, no
// simulator, no timers: a measure of the store's own cost that the machine's load hardly moves, for A/B runs of
// two trees (docs/benchmarks.md's CPU section).
//
//   node bench/store-task.ts [--tasks N] [--tree DIR]
//     N resizes measured (default 2000) after 300 not measured; --tree: the store of another checkout (an A/B).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { HistoryEntry } from "../src/tasks/task.ts";
import type { SqliteTaskStore as Store } from "../src/tasks/sqlite-task-store.ts";

const args = process.argv.slice(2);
const TASKS = args.includes("--tasks") ? Number(args[args.indexOf("--tasks") + 1]) : 2000;
const TREE = args.includes("--tree") ? args[args.indexOf("--tree") + 1] : join(import.meta.dirname, "..");
const WARM = 300;

const { SqliteTaskStore } = (await import(join(TREE, "src/tasks/sqlite-task-store.ts"))) as {
  SqliteTaskStore: typeof Store;
};
const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-store-task-"));
const store = await SqliteTaskStore.open({ dataDir });
const line = (status: string): HistoryEntry => ({ phase: "RESIZE", status, timeMs: Date.now() });

/** One resize's store calls, as the runner and the journal make them (lines grouped as the journal groups them). */
async function resize(i: number): Promise<void> {
  const description = { credentials: "demo", region: "eastus", serverGroupName: `sg-${i}`, capacity: { desired: 3 } };
  const { task } = await store.create({
    operations: [{ name: "resizeServerGroup", description }],
    scaleSets: [`sub/rg/sg-${i % 50}`],
  });
  const [claimed] = await store.claim("r", 60_000, 32);
  if (claimed?.id !== task.id) throw new Error(`claimed ${claimed?.id}, not ${task.id}`);
  await store.update("r", task.id, {
    state: "running",
    checkpoint: { operationIndex: 0, attempt: 1 },
    armCalls: 2,
    history: [
      line("Orchestration started by replica r"),
      line(`Starting: resize sg-${i} to 3 (account demo, region eastus, resource group rg)`),
      line("Attempt 1: capacity 2 → 3"),
      line("Attempt 1: the write was accepted"),
    ],
  });
  await store.update("r", task.id, {
    state: "succeeded",
    operationIndex: 1,
    resultObjects: [
      {
        type: "serverGroup",
        account: "demo",
        region: "eastus",
        resourceGroup: "rg",
        serverGroupName: `sg-${i}`,
        capacity: { min: 0, max: 10, desired: 3 },
        disabled: false,
        instanceCount: 3,
        instanceIds: ["0", "1", "2"],
        provisioningState: "Succeeded",
        etag: '"3"',
      },
    ],
    armCalls: 6,
    finishedAtMs: Date.now(),
    checkpoint: null,
    history: [line(`Done: sg-${i} at capacity 3`), line("Orchestration completed")],
  });
  await store.claim("r", 60_000, 32);
}

try {
  for (let i = 0; i < WARM; i++) await resize(i);
  const start = process.cpuUsage();
  for (let i = WARM; i < WARM + TASKS; i++) await resize(i);
  const used = process.cpuUsage(start);
  const ms = (used.user + used.system) / 1000 / TASKS;
  process.stdout.write(`${TASKS} resizes, the SQLite store's calls alone: ${ms.toFixed(3)} ms of CPU each\n`);
} finally {
  await store.close();
  rmSync(dataDir, { recursive: true, force: true });
}
