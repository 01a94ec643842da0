// SQLite creates alone, as a burst of submissions makes them: K at once, so that they share a commit (sqlite/create.ts),
// each with its clientRequestId, target and audit entry as a route gives them. Prints, per create, the CPU this
// process took and what it wrote (write calls and bytes, from /proc/self/io): the pages each commit writes to the WAL,
// which ids in time order (src/tasks/ids.ts) keep few. No HTTP and no timers: an A/B of two trees moves only with
// what the store does.
//
//   node bench/store-creates.ts [--creates N] [--at-once K] [--tree DIR]
//     N creates measured (default 10000) after 2000 not measured, K at once (default 20); --tree: the store of
//     another checkout.
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SqliteTaskStore as Store } from "../src/tasks/sqlite-task-store.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const CREATES = option("--creates", 10_000);
const AT_ONCE = option("--at-once", 20);
const WARM = 2000;
const TREE = args.includes("--tree") ? args[args.indexOf("--tree") + 1] : join(import.meta.dirname, "..");

const { SqliteTaskStore } = (await import(join(TREE, "src/tasks/sqlite-task-store.ts"))) as {
  SqliteTaskStore: typeof Store;
};
const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-store-creates-"));
const store = await SqliteTaskStore.open({ dataDir });

/** This process's write calls and bytes written so far (sockets, files, pipes alike: here, the database). */
function written(): { calls: number; bytes: number } {
  const io = Object.fromEntries(
    readFileSync("/proc/self/io", "utf8")
      .trim()
      .split("\n")
      .map((l) => l.split(": ") as [string, string]),
  );
  return { calls: Number(io.syscw), bytes: Number(io.wchar) };
}

/** K creates at once, numbered from `from`, as K submissions in flight ask for them. */
async function batch(from: number): Promise<void> {
  await Promise.all(
    Array.from({ length: AT_ONCE }, (_, j) => {
      const serverGroup = `sg-${from + j}`;
      const target = { operation: "resizeServerGroup", account: "demo", region: "eastus", serverGroup };
      return store.create({
        clientRequestId: `generated-${from + j}-${process.pid}`,
        operations: [
          {
            name: "resizeServerGroup",
            description: {
              credentials: "demo",
              region: "eastus",
              serverGroupName: serverGroup,
              capacity: { desired: 3 },
            },
          },
        ],
        targets: [
          { account: "demo", subscriptionId: "sub", resourceGroup: "demo-rg", name: serverGroup, region: "eastus" },
        ],
        scaleSets: [`sub/demo-rg/${serverGroup}`],
        audit: {
          action: "submit",
          decision: "accepted",
          timeMs: Date.now(),
          actor: { name: "anonymous", via: "open" },
          remoteAddress: "127.0.0.1",
          targets: [target],
        },
      });
    }),
  );
}

for (let i = 0; i < WARM; i += AT_ONCE) await batch(i);
const cpu0 = process.cpuUsage();
const io0 = written();
for (let i = WARM; i < WARM + CREATES; i += AT_ONCE) await batch(i);
const cpu = process.cpuUsage(cpu0);
const io = written();
await store.close();
rmSync(dataDir, { recursive: true, force: true });
console.log(
  `${CREATES} creates, ${AT_ONCE} at once (${TREE}): ${((cpu.user + cpu.system) / 1000 / CREATES).toFixed(4)} ms of CPU ` +
    `each (system ${(cpu.system / 1000 / CREATES).toFixed(4)}), ${((io.calls - io0.calls) / CREATES).toFixed(2)} writes ` +
    `and ${((io.bytes - io0.bytes) / CREATES / 1024).toFixed(1)} KB written each`,
);
