// A burst of submissions while tasks run, from services started out of several source trees (an A/B of the accept
// path), in alternating rounds on one external simulator: accepted per second, p50/p99 accept latency and the
// service's CPU per submission. Tasks are not waited for (test/submission-burst.test.ts checks that they all run).
//
//   node bench/burst-ab.ts [--rounds 3] [--n 3000] [--store sqlite|postgres] DIR...   (DIR: a source tree; default .)
import { spawn } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { Agent, request } from "undici";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { entryPointIn, freePort, SIMULATOR_CA_FILE } from "../testkit/child-service.ts";
import { cpuMsOf } from "./measure.ts";

const args = process.argv.slice(2);
const option = (name: string, fallback: string) =>
  args.includes(name) ? args.splice(args.indexOf(name), 2)[1] : fallback;
const rounds = Number(option("--rounds", "3"));
const n = Number(option("--n", "3000"));
const store = option("--store", "sqlite");
const trees = (args.length > 0 ? args : ["."]).map((d) => resolve(d));
const CALLERS = 32;
const SETS = 1000;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: 25 / 30_000, seed: false });
const control = new SimulatorControl(sim);
for (let i = 0; i < SETS; i++) await control.putScaleSet("demo-rg", `burst-${i}`, { capacity: 1, loadBalanced: false });
const admin = new pg.Client({ connectionString: ADMIN_URL });
if (store === "postgres") await admin.connect();
const databases: string[] = [];
const children: ReturnType<typeof spawn>[] = [];
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));

async function storeEnv(): Promise<Record<string, string>> {
  if (store === "sqlite") return { TASK_STORE: "sqlite", DATA_DIR: mkdtempSync(join(tmpdir(), "burst-ab-")) };
  const name = `vmss_ops_burst_ab_${randomBytes(4).toString("hex")}`;
  await admin.query(`CREATE DATABASE ${name}`);
  databases.push(name);
  return {
    TASK_STORE: "postgres",
    DATABASE_URL: Object.assign(new URL(ADMIN_URL), { pathname: `/${name}` }).toString(),
    REPLICA_ID: "burst",
  };
}

async function start(tree: string): Promise<{ url: string; child: ReturnType<typeof spawn> }> {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [...(process.env.BURST_NODE_ARGS?.split(" ") ?? START_HEAP_FLAGS), entryPointIn(tree)],
    {
      cwd: tree,
      env: {
        ...process.env,
        SIMULATOR_URL: sim.url,
        SIMULATOR_CA_FILE,
        LOG_LEVEL: "info",
        RATE_LIMIT_SUBMISSIONS: "0",
        SHUTDOWN_TIMEOUT_MS: "1000",
        ...(await storeEnv()),
        PORT: String(port),
      },
      stdio: ["ignore", "pipe", process.env.BURST_STDERR ? "inherit" : "ignore"],
    },
  );
  children.push(child);
  child.stdout.on(
    "data",
    (d) =>
      process.env.BURST_STDOUT &&
      process.stderr.write(
        String(d)
          .split("\n")
          .filter((l) => new RegExp(process.env.BURST_STDOUT!).test(l))
          .map((l) => `${l}\n`)
          .join(""),
      ),
  );
  await new Promise<void>((ok) => child.stdout.on("data", (d) => String(d).includes("listening on") && ok()));
  const url = `http://127.0.0.1:${port}`;
  // Warmed up as bench/run.ts warms its services: one submission, run to its end.
  await control.putScaleSet("demo-rg", "burst-warm", { capacity: 1, loadBalanced: false });
  const warm = await fetch(`${url}/azure/ops/resizeServerGroup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(resize("burst-warm", 2)),
  });
  const { id } = (await warm.json()) as { id: string };
  while (!((await (await fetch(`${url}/task/${id}`)).json()) as { status: { completed: boolean } }).status.completed)
    await new Promise((r) => setTimeout(r, 20));
  return { url, child };
}

const resize = (name: string, desired: number) => ({
  credentials: "demo",
  region: "eastus",
  serverGroupName: name,
  capacity: { min: 0, max: 10, desired },
});

async function burst(tree: string) {
  const { url, child } = await start(tree);
  const agent = new Agent({ connections: CALLERS });
  const latencies: number[] = [];
  /** When each slow answer (over 50 ms) was sent, ms from the start. */
  const slow: number[] = [];
  let accepted = 0;
  let other = 0;
  let next = 0;
  const cpu0 = cpuMsOf(child.pid!);
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < n) {
        const i = next++;
        const sent = performance.now();
        const res = await request(`${url}/azure/ops/resizeServerGroup`, {
          dispatcher: agent,
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(resize(`burst-${i % SETS}`, 2 + (Math.floor(i / SETS) % 3))),
        });
        await res.body.text();
        latencies.push(performance.now() - sent);
        if (performance.now() - sent > 50) slow.push(Math.round(sent - t0));
        if (res.statusCode === 202) accepted++;
        else other++;
      }
    }),
  );
  const seconds = (performance.now() - t0) / 1000;
  const cpu = cpuMsOf(child.pid!) - cpu0;
  await agent.close();
  // A profiled service (BURST_NODE_ARGS=--cpu-prof …) writes its profile as it exits: stop it as a signal does.
  if (process.env.BURST_NODE_ARGS?.includes("--cpu-prof")) {
    child.kill("SIGTERM");
    await new Promise((r) => child.on("exit", r));
  } else child.kill("SIGKILL");
  const sorted = latencies.sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  const slowBy100ms = new Map<number, number>();
  for (const at of slow)
    slowBy100ms.set(Math.floor(at / 100) * 100, (slowBy100ms.get(Math.floor(at / 100) * 100) ?? 0) + 1);
  return {
    perSecond: accepted / seconds,
    p50: pct(50),
    p99: pct(99),
    max: sorted.at(-1)!,
    other,
    cpuMsPerSubmission: cpu / n,
    slow: [...slowBy100ms].map(([at, k]) => `${at}ms:${k}`).join(" "),
  };
}

for (let round = 0; round < rounds; round++) {
  for (const tree of trees) {
    const r = await burst(tree);
    console.log(
      `round ${round + 1} ${store} ${tree}: ${r.perSecond.toFixed(0)}/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, max ${r.max.toFixed(0)} ms, ${r.other} not 202, CPU ${r.cpuMsPerSubmission.toFixed(3)} ms each (load ${loadavg()[0].toFixed(1)})${process.env.BURST_SLOW ? `\n  over 50 ms, by when sent: ${r.slow}` : ""}`,
    );
  }
}
for (const name of databases) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
if (store === "postgres") await admin.end();
await sim.close();
process.exit(0);
