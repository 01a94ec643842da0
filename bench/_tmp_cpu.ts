// CPU per task: service (sqlite) running N resizes at D=50ms in batches of 32; REPO=... node cpu.ts [--prof]
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const REPO = process.env.REPO!;
const N = Number(process.env.N ?? 300);
const { startSimulator } = await import(REPO + "/src/simulator/simulator.ts");
const { SimulatorControl } = await import(REPO + "/src/simulator/control-client.ts");
const sim = await startSimulator({ port: 0, writeDurationMs: 50, timeScale: 25 / 30000, seed: false });
const control = new SimulatorControl(sim);
for (let i = 0; i < N + 1; i++) await control.putScaleSet("demo-rg", `c-${i}`, { capacity: 1, loadBalanced: false });
const prof = process.argv.includes("--prof");
const port = 18000 + Math.floor(Math.random() * 1000);
const child = spawn(process.execPath, [...(prof ? ["--cpu-prof", "--cpu-prof-dir=/tmp/prof/cpuout"] : []), "src/server.ts"], {
  cwd: REPO,
  env: { ...process.env, SIMULATOR_URL: sim.url, SIMULATOR_CA_FILE: REPO + "/src/simulator/tls/simulator-cert.pem", TASK_STORE: process.env.STORE ?? "sqlite", DATA_DIR: mkdtempSync(join(tmpdir(), "p-")), PORT: String(port), LOG_LEVEL: "info" },
  stdio: ["ignore", process.env.LOGFILE ? (await import("node:fs")).openSync(process.env.LOGFILE, "w") : "ignore", "inherit"],
});
const url = `http://127.0.0.1:${port}`;
for (;;) { try { const r = await fetch(url + "/health"); if (r.ok) break; } catch {} await new Promise((r) => setTimeout(r, 5)); }
function cpuMs(pid: number) { const st = readFileSync(`/proc/${pid}/stat`, "utf8"); const f = st.slice(st.lastIndexOf(")") + 2).split(" "); return (Number(f[11]) + Number(f[12])) * 10; }
const submit = async (name: string) => { const r = await fetch(url + "/azure/ops/resizeServerGroup", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ credentials: "demo", region: "eastus", serverGroupName: name, capacity: { min: 0, max: 10, desired: 2 } }) }); return ((await r.json()) as any).id; };
const wait = async (ids: string[]) => { for (const id of ids) for (;;) { const b = (await (await fetch(`${url}/task/${id}`)).json()) as any; if (b.status.completed) { if (b.status.failed) console.log("FAILED", JSON.stringify(b.history)); break; } await new Promise((r) => setTimeout(r, 50)); } };
await wait([await submit(`c-${N}`)]);
const c0 = cpuMs(child.pid!); const t0 = Date.now();
const ids: string[] = [];
for (let i = 0; i < N; i += 32) ids.push(...(await Promise.all(Array.from({ length: Math.min(32, N - i) }, (_, j) => submit(`c-${i + j}`)))));
await wait(ids);
console.log(`service CPU per task ${((cpuMs(child.pid!) - c0) / N).toFixed(2)} ms over ${((Date.now() - t0) / 1000).toFixed(1)} s`);
child.kill("SIGINT"); await new Promise((r) => child.on("exit", r)); await sim.close();
