// A fresh replica met by a burst the moment it listens, as the soak's replica B is after its restart: a backlog of
// queued tasks in PostgreSQL (made by replica A, then killed), replica B started on it, and BURST requests (a third
// held reads, half plain reads, the rest submissions) sent as soon as B's port accepts a connection. Prints how long
// each kind took from when it was sent (the moment B accepted a connection), and the slowest. CPU_PROF=DIR runs B under
// --cpu-prof (written when it stops); B_NODE_OPTIONS is B's NODE_OPTIONS (e.g. test/fixtures/log-module-loads.mjs);
// B_TREE runs B from another checkout (an A/B run).
// Not part of bench/run.ts: a diagnosis (docs/faults.md, "A replica restarted while its clients wait").
//
//   ./node_modules/.bin/node bench/restart-burst.ts        (BACKLOG=1500 BURST=330 by default)
import { connect } from "node:net";
import { setTimeout as sleep } from "node:timers/promises";
import pg from "pg";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import {
  entryPointIn,
  freePort,
  SIMULATOR_CA_FILE,
  startChildService,
  type ChildService,
} from "../testkit/child-service.ts";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { loadAverage, resize } from "./context.ts";

const BACKLOG = Number(process.env.BACKLOG ?? 1500);
const BURST = Number(process.env.BURST ?? 330);
const SETS = 20;
const ADMIN_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

const sim = await startSimulator({ port: 0, writeDurationMs: 1000, timeScale: 20 / 30_000, seed: false });
const control = new SimulatorControl(sim);
for (let i = 0; i < SETS; i++) await control.putScaleSet("demo-rg", `burst-${i}`, { capacity: 1, loadBalanced: false });
const admin = new pg.Client({ connectionString: ADMIN_URL });
await admin.connect();
const dbName = `vmss_ops_burst_${process.pid}`;
await admin.query(`CREATE DATABASE ${dbName}`);
const databaseUrl = Object.assign(new URL(ADMIN_URL), { pathname: `/${dbName}` }).toString();

const env = (name: string) => ({
  SIMULATOR_URL: sim.url,
  SIMULATOR_CA_FILE,
  SIMULATOR_TIME_SCALE: "",
  TASK_STORE: "postgres",
  DATABASE_URL: databaseUrl,
  REPLICA_ID: `burst-${name}`,
  TASK_LEASE_MS: "6000",
  TASK_CLAIM_INTERVAL_MS: "1000",
  OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "3000",
  LOG_LEVEL: "info",
});

const children: ChildService[] = [];
try {
  const a = await startChildService(env("a"), { nodeArgs: START_HEAP_FLAGS });
  children.push(a);
  const ids: string[] = [];
  for (let i = 0; i < BACKLOG; i += 50) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(50, BACKLOG - i) }, (_, k) =>
        a.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(`burst-${(i + k) % SETS}`, 1 + (k % 3))),
      ),
    );
    for (const r of batch) if (r.status === 202) ids.push(r.body.id);
  }
  a.child.kill("SIGKILL");
  await a.exited;
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  const states = await db.query<{ state: string; n: string }>("SELECT state, count(*) AS n FROM tasks GROUP BY state");
  await db.end();
  console.log(`backlog: ${states.rows.map((r) => `${r.state} ${r.n}`).join(", ")}; load ${loadAverage().join(" ")}`);

  const port = await freePort();
  const cpuProf = process.env.CPU_PROF;
  const tree = process.env.B_TREE;
  const t0 = performance.now();
  const b = await startChildService(
    {
      ...env("b"),
      PORT: String(port),
      ...(process.env.B_NODE_OPTIONS ? { NODE_OPTIONS: process.env.B_NODE_OPTIONS } : {}),
    },
    {
      waitForListen: false,
      nodeArgs: [...START_HEAP_FLAGS, ...(cpuProf ? ["--cpu-prof", `--cpu-prof-dir=${cpuProf}`] : [])],
      ...(tree ? { cwd: tree, script: entryPointIn(tree) } : {}),
    },
  );
  children.push(b);
  // The moment the port accepts a connection.
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => (s.destroy(), resolve(true)));
      s.once("error", () => resolve(false));
    });
    if (ok) break;
    await sleep(5);
  }
  const listenAt = performance.now();
  console.log(`B accepts connections ${(listenAt - t0).toFixed(0)} ms after spawn`);
  const kinds = ["held read", "read", "submission"] as const;
  const results = await Promise.all(
    Array.from({ length: BURST }, async (_, i) => {
      const kind = i % 6 < 2 ? kinds[0] : i % 6 < 5 ? kinds[1] : kinds[2];
      const id = ids[i % ids.length];
      const sent = performance.now();
      try {
        const res = await fetch(
          `${b.url}${kind === "submission" ? "/azure/ops/resizeServerGroup" : `/task/${id}${kind === "held read" ? "?wait=3" : ""}`}`,
          {
            method: kind === "submission" ? "POST" : "GET",
            headers: kind === "submission" ? { "content-type": "application/json" } : {},
            body: kind === "submission" ? JSON.stringify(resize(`burst-${i % SETS}`, 2)) : undefined,
            signal: AbortSignal.timeout(30_000),
          },
        );
        await res.text();
        return { kind, status: res.status, ms: performance.now() - sent, at: performance.now() - listenAt };
      } catch (err) {
        return { kind, status: 0, ms: performance.now() - sent, at: performance.now() - listenAt, err: String(err) };
      }
    }),
  );
  for (const kind of kinds) {
    const of = results.filter((r) => r.kind === kind).sort((x, y) => x.ms - y.ms);
    const statuses: Record<string, number> = {};
    for (const r of of) statuses[r.status] = (statuses[r.status] ?? 0) + 1;
    console.log(
      `${kind}: ${of.length}, first ${of[0].ms.toFixed(0)} ms, median ${of[Math.floor(of.length / 2)].ms.toFixed(0)} ms, slowest ${of[of.length - 1].ms.toFixed(0)} ms, past 5 s ${of.filter((r) => r.ms > 5000).length}; ${JSON.stringify(statuses)}`,
    );
  }
  const out = b.output();
  const listening = out.split("\n").find((l) => l.includes("vmss-ops listening"));
  console.log(`load ${loadAverage().join(" ")}; listening line: ${listening?.slice(0, 120)}`);
  b.child.kill("SIGTERM");
  await b.exited;
  if (process.env.SHOW_LOG) console.log(out);
} finally {
  for (const c of children) c.child.kill("SIGKILL");
  await Promise.all(children.map((c) => c.exited));
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.end();
  await sim.close();
}
