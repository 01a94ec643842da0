// GET /task/{id} of an unchanged task from services started out of several source trees (an A/B of the request
// path), against the bare fastify route with the same body, in alternating rounds on one external simulator.
// Prints each round's rates and the medians' ratios to bare fastify.
//
//   node bench/read-ab.ts [--rounds 5] [--seconds 2] [--store sqlite|postgres] DIR...   (DIR: a source tree; default .)
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { SimulatorControl, startSimulator } from "vmss-simulator";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { entryPointIn, freePort, SIMULATOR_CA_FILE } from "../testkit/child-service.ts";
import { cpuMsOf, readRate } from "./measure.ts";
import type { TaskView } from "./task-view.ts";

const HERE = dirname(fileURLToPath(import.meta.url));
const args = process.argv.slice(2);
const option = (name: string, fallback: string) =>
  args.includes(name) ? args.splice(args.indexOf(name), 2)[1] : fallback;
const rounds = Number(option("--rounds", "5"));
const seconds = Number(option("--seconds", "2"));
const trees = (args.length > 0 ? args : ["."]).map((d) => resolve(d));

const sim = await startSimulator({ port: 0, writeDurationMs: 20, timeScale: 0.001, seed: false });
const control = new SimulatorControl(sim);
// A scale set for each tree: each service's task resizes one from 1 to 2, so that every body read is alike (on one
// set, the first tree's resize changed it and the others' found it done: a longer body for the first tree).
for (let i = 0; i < trees.length; i++)
  await control.putScaleSet("demo-rg", `read-ab-${i}`, { capacity: 1, loadBalanced: false });
const children: ReturnType<typeof spawn>[] = [];
process.on("exit", () => children.forEach((c) => c.kill("SIGKILL")));

async function start(tree: string): Promise<{ url: string; pid: number }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...START_HEAP_FLAGS, entryPointIn(tree)], {
    cwd: tree,
    env: {
      ...process.env,
      SIMULATOR_URL: sim.url,
      SIMULATOR_CA_FILE,
      TASK_STORE: "sqlite",
      DATA_DIR: mkdtempSync(join(tmpdir(), "read-ab-")),
      LOG_LEVEL: "info",
      RATE_LIMIT_READS: "1000000000",
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  await new Promise<void>((ok) => child.stdout.on("data", (d) => String(d).includes("listening on") && ok()));
  return { url: `http://127.0.0.1:${port}`, pid: child.pid! };
}

/** Requests a second, and CPU µs the server process spent per request. */
async function measure(url: string, pid: number, s: number): Promise<{ perSecond: number; cpuUs: number }> {
  const cpu0 = cpuMsOf(pid);
  const perSecond = await readRate(url, s);
  return { perSecond, cpuUs: ((cpuMsOf(pid) - cpu0) * 1000) / (perSecond * s) };
}

const services = [];
for (const tree of trees) {
  const { url, pid } = await start(tree);
  const submitted = await fetch(`${url}/azure/ops/resizeServerGroup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      credentials: "demo",
      region: "eastus",
      serverGroupName: `read-ab-${services.length}`,
      capacity: { min: 0, max: 10, desired: 2 },
    }),
  });
  const { id } = (await submitted.json()) as { id: string };
  let body: string;
  for (;;) {
    body = await (await fetch(`${url}/task/${id}`)).text();
    if ((JSON.parse(body) as TaskView).status.completed) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  services.push({ tree, pid, url: `${url}/task/${id}`, body, rates: [] as number[], cpu: [] as number[] });
}
const bodyFile = join(mkdtempSync(join(tmpdir(), "read-ab-")), "task.json");
writeFileSync(bodyFile, services[0].body);
const bare = spawn(process.execPath, [join(HERE, "bare-fastify.ts"), bodyFile], {
  stdio: ["ignore", "pipe", "inherit"],
});
children.push(bare);
const barePort = await new Promise<number>((ok) =>
  bare.stdout.on("data", (d) => ok(Number(/listening (\d+)/.exec(String(d))![1]))),
);
const bareUrl = `http://127.0.0.1:${barePort}/task/x`;
process.stderr.write(`services: ${services.map((s) => s.url).join(" ")}; bare: ${bareUrl}\n`);
const bareRates: number[] = [];
const bareCpu: number[] = [];

for (const s of services) await readRate(s.url, 1); // warm-up
await readRate(bareUrl, 1);
for (let round = 0; round < rounds; round++) {
  const b = await measure(bareUrl, bare.pid!, seconds);
  bareRates.push(b.perSecond);
  bareCpu.push(b.cpuUs);
  for (const s of services) {
    const m = await measure(s.url, s.pid, seconds);
    s.rates.push(m.perSecond);
    s.cpu.push(m.cpuUs);
  }
  process.stderr.write(
    `round ${round + 1}: bare ${b.perSecond.toFixed(0)}/s ${b.cpuUs.toFixed(0)} µs, ${services.map((s) => `${s.tree} ${s.rates.at(-1)!.toFixed(0)}/s ${s.cpu.at(-1)!.toFixed(0)} µs`).join(", ")} (load ${loadavg()[0].toFixed(1)})\n`,
  );
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const s of services) {
  const ratios = s.rates.map((r, i) => r / bareRates[i]);
  console.log(
    `${s.tree}: median ${median(s.rates).toFixed(0)}/s, bare ${median(bareRates).toFixed(0)}/s, ratio of medians ${(median(s.rates) / median(bareRates)).toFixed(2)}, median per-round ratio ${median(ratios).toFixed(2)}; CPU per request ${median(s.cpu).toFixed(0)} µs against bare ${median(bareCpu).toFixed(0)} µs (${(median(bareCpu) / median(s.cpu)).toFixed(2)}); body ${s.body.length} bytes`,
  );
}
console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(2))
    .join(" ")}`,
);
await sim.close();
process.exit(0);
