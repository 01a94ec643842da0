// Start to the first 200 from /health, as bench/run.ts measures it (`node --max-semi-space-size=8 src/main.js`, an
// external simulator in this process, SQLite with finished tasks in the store), for several ways of starting,
// alternated round by round so that each sees the same load. Prints each way's median and every start.
//
//   node bench/startup.ts [--rounds N] [--tasks N] [--way "label=node args…"]… [--repo DIR]…
//     --way: node's arguments before the script (repeatable; default: none, and --max-semi-space-size=8 given);
//     --repo: another checkout to start the same way (e.g. an earlier commit's `git archive` with node_modules
//     linked), to compare code A/B.
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { startSimulator } from "vmss-simulator";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { entryPointIn, freePort, REPO, SIMULATOR_CA_FILE } from "../testkit/child-service.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: number) =>
  args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback;
const ROUNDS = option("--rounds", 7);
const TASKS = option("--tasks", 10_000);
const values = (name: string) => args.flatMap((a, i) => (a === name ? [args[i + 1]] : []));
const repos = [REPO, ...values("--repo")];
const wayArgs = values("--way");
const ways = (wayArgs.length ? wayArgs : ["default=", "semi8=--max-semi-space-size=8"]).map((w) => {
  const [label, rest] = w.split(/=(.*)/s);
  return { label, nodeArgs: rest ? rest.split(" ").filter(Boolean) : [] };
});

const sim = await startSimulator({ port: 0, writeDurationMs: 0, timeScale: 0.001, seed: true });
const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-startup-"));
const store = await SqliteTaskStore.open({ dataDir });
const resize = (name: string) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: name,
  capacity: { min: 0, max: 10, desired: 1 },
});
for (let i = 0; i < TASKS; i += 500)
  await Promise.all(
    Array.from({ length: Math.min(500, TASKS - i) }, (_, j) =>
      store.create({ operations: [{ name: "resizeServerGroup", description: resize(`old-${i + j}`) }] }),
    ),
  );
for (;;) {
  const claimed = await store.claim("bench", 60_000, 500);
  if (claimed.length === 0) break;
  for (const c of claimed) await store.update("bench", c.id, { state: "succeeded", finishedAtMs: Date.now() });
}
await store.close();

async function startToHealth(repo: string, nodeArgs: string[]): Promise<number> {
  const port = await freePort();
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, entryPointIn(repo)], {
    cwd: repo,
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "sqlite",
      DATA_DIR: dataDir,
      PORT: String(port),
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
  const exited = new Promise((resolve) => child.on("exit", resolve));
  for (;;) {
    try {
      const res = await fetch(`http://127.0.0.1:${port}/health`);
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 5));
  }
  const ms = performance.now() - t0;
  child.kill("SIGKILL");
  await exited;
  return ms;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const runs = repos.flatMap((repo) =>
  ways.map((way) => ({ name: `${repos.length > 1 ? `${repo} ` : ""}${way.label}`, repo, way, ms: [] as number[] })),
);
const load0 = loadavg()[0];
// One start of each first, unmeasured: the compile cache is then as a second start finds it.
for (const run of runs) await startToHealth(run.repo, run.way.nodeArgs);
for (let i = 0; i < ROUNDS; i++)
  for (const run of i % 2 ? [...runs].reverse() : runs) run.ms.push(await startToHealth(run.repo, run.way.nodeArgs));
process.stdout.write(
  `load average ${load0.toFixed(2)} → ${loadavg()[0].toFixed(2)}; ${TASKS} finished tasks in the store; ${ROUNDS} rounds\n`,
);
for (const run of runs)
  process.stdout.write(
    `${run.name.padEnd(40)} median ${median(run.ms).toFixed(0)} ms  (${run.ms.map((m) => m.toFixed(0)).join(" ")})\n`,
  );
rmSync(dataDir, { recursive: true, force: true });
await sim.close();
