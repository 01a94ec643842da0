// Start to first /health with sizes.storeTasks finished tasks in the store, and with an empty one, alternated start
// by start (sizes.startRounds of each, the order swapped every round, after one unmeasured start of each that leaves
// Node's compile cache as later starts find it): the service started as npm start starts it, on SQLite, polled for
// /health every 5 ms. The figures are the medians; every start's own time is kept beside them, and the CPU the
// process had spent when /health answered (all its threads, from /proc: a loaded machine stretches it less than the
// wall time).
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../testkit/child-service.ts";
import { SqliteTaskStore } from "../../src/tasks/sqlite-task-store.ts";
import { resize, type Bench } from "../context.ts";
import { median, procStats } from "../measure.ts";
import type { Figure, Row } from "../table.ts";

async function startToHealth(b: Bench, dataDir: string): Promise<{ ms: number; cpuMs: number }> {
  const port = await freePort();
  const t0 = performance.now();
  const s = await b.child({ TASK_STORE: "sqlite", DATA_DIR: dataDir, PORT: String(port) }, { waitForListen: false });
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await sleep(5);
  }
  const ms = performance.now() - t0;
  const { cpuMs } = procStats(s.child.pid!);
  await b.stop(s);
  return { ms, cpuMs };
}

/** A SQLite store in a fresh folder holding `n` tasks, every one finished; returns the folder. */
async function fullStore(b: Bench, n: number): Promise<string> {
  const dir = b.tempDir();
  const store = await SqliteTaskStore.open({ dataDir: dir });
  for (let i = 0; i < n; i++)
    await store.create({ operations: [{ name: "resizeServerGroup", description: resize(`old-${i}`, 1) }] });
  for (;;) {
    const claimed = await store.claim("bench", 60_000, 500);
    if (claimed.length === 0) break;
    for (const c of claimed) await store.update("bench", c.id, { state: "succeeded", finishedAtMs: Date.now() });
  }
  await store.close();
  return dir;
}

export async function measureStartup(b: Bench) {
  const fullDir = await fullStore(b, b.sizes.storeTasks);
  const emptyDir = b.tempDir();
  const startFull: number[] = [];
  const startEmpty: number[] = [];
  const cpuFull: number[] = [];
  const cpuEmpty: number[] = [];
  await startToHealth(b, emptyDir);
  await startToHealth(b, fullDir);
  const rounds = b.sizes.startRounds;
  for (let i = 0; i < rounds; i++) {
    const [first, second] = i % 2 ? ([fullDir, emptyDir] as const) : ([emptyDir, fullDir] as const);
    for (const dir of [first, second]) {
      const { ms, cpuMs } = await startToHealth(b, dir);
      (dir === fullDir ? startFull : startEmpty).push(ms);
      (dir === fullDir ? cpuFull : cpuEmpty).push(cpuMs);
    }
  }
  const startup = {
    fullStoreMs: median(startFull),
    emptyStoreMs: median(startEmpty),
    fullStoreRunsMs: startFull,
    emptyStoreRunsMs: startEmpty,
    fullStoreCpuMs: median(cpuFull),
    emptyStoreCpuMs: median(cpuEmpty),
    rounds,
    tasksInStore: b.sizes.storeTasks,
    ratio: median(startFull) / 400,
  };
  const list = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
  b.log(
    `start to /health: ${startup.fullStoreMs.toFixed(0)} ms with ${b.sizes.storeTasks} tasks (${list(startFull)}), ${startup.emptyStoreMs.toFixed(0)} ms empty (${list(startEmpty)})`,
  );
  const row: Row = {
    figure: `start to first /health, ${b.sizes.storeTasks} tasks in the store (/ 0.4 s)`,
    measured: startup.ratio,
    target: "≤ 1",
    met: startup.ratio <= 1,
    detail: `median of ${rounds}: ${startup.fullStoreMs.toFixed(0)} ms (runs: ${list(startFull)}); empty store, alternated: median ${startup.emptyStoreMs.toFixed(0)} ms (runs: ${list(startEmpty)}); CPU to /health ${startup.fullStoreCpuMs.toFixed(0)} ms (empty ${startup.emptyStoreCpuMs.toFixed(0)})`,
  };
  return { rows: [row], results: { startup } } satisfies Figure;
}
