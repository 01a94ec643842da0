// What the simulator's own HTTP layer costs against fastify's, measured where a switch would show: routing an ARM
// request (its Router vs find-my-way, fastify's router, on the simulator's real route table), a whole request over
// HTTPS, the start of a process, and what each brings to an image. Prints a Markdown table (README.md quotes it).
//   node bench/http-layer.ts
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import FindMyWay from "find-my-way";
import { Agent, request } from "undici";
import { buildArmRouter } from "../src/arm-routes.ts";
import { Router } from "../src/router.ts";
import { startSimulator } from "../src/simulator.ts";

const SUB = "/subscriptions/00000000-0000-4000-8000-000000000001";
const VMSS = `${SUB}/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-prod-v002`;
const PATHS: [string, string][] = [
  ["GET", VMSS],
  ["GET", `${VMSS}/virtualMachines/0`],
  ["POST", `${VMSS}/manualupgrade`],
  ["GET", `${SUB}/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/demo-lb`],
];

/** Mean nanoseconds per call of f over n calls, after a warm-up. */
function nsPerCall(n: number, f: () => void): number {
  for (let i = 0; i < n / 10; i++) f();
  const start = performance.now();
  for (let i = 0; i < n; i++) f();
  return ((performance.now() - start) * 1e6) / n;
}

// The simulator's route table, as buildArmRouter adds it.
const table: [string, string][] = [];
const add = Router.prototype.add; // eslint-disable-line @typescript-eslint/unbound-method -- called with its router below
Router.prototype.add = function (this: Router<unknown>, method: string, pattern: string, handler: unknown) {
  table.push([method, pattern]);
  return add.call(this, method, pattern, handler) as Router<unknown>;
};
const own = buildArmRouter();
const fmw = FindMyWay({ caseSensitive: false });
let refused = 0;
for (const [method, pattern] of table) {
  try {
    fmw.on(method as "GET", pattern, () => undefined);
  } catch {
    refused++;
  }
}
let i = 0;
const ownNs = nsPerCall(200_000, () => own.match(...PATHS[i++ % PATHS.length]));
const fmwNs = nsPerCall(200_000, () => fmw.find(...(PATHS[i++ % PATHS.length] as ["GET", string])));

// A whole ARM read, over HTTPS with keep-alive, one at a time.
const sim = await startSimulator({ port: 0, seed: true, throttling: false });
const agent = new Agent({ connect: { ca: sim.caPem } });
const get = async () => {
  const res = await request(`${sim.url}${VMSS}?api-version=2024-03-01`, {
    dispatcher: agent,
    headers: { authorization: "Bearer bench" },
  });
  await res.body.dump();
};
for (let n = 0; n < 500; n++) await get();
const requests = 3000;
const started = performance.now();
for (let n = 0; n < requests; n++) await get();
const requestUs = ((performance.now() - started) * 1000) / requests;
await agent.close();
await sim.close();

// A process's start: bare Node, Node importing fastify (what the simulator would add), the simulator's own start.
const node = process.execPath;
const startMs = (code: string) => {
  const runs = 7;
  const times: number[] = [];
  for (let n = 0; n < runs; n++) {
    const t0 = performance.now();
    execFileSync(node, ["--input-type=module", "-e", code], { cwd: import.meta.dirname });
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b)[Math.floor(runs / 2)];
};
const bareMs = startMs("0");
const fastifyMs = startMs('await import("fastify")');
const simMs = startMs(
  'const { startSimulator } = await import("../src/simulator.ts"); const s = await startSimulator(); await s.close();',
);

// What fastify would bring to the vmss-sim image: its production dependency closure, from the lockfile.
const lock = JSON.parse(readFileSync(new URL("../../../package-lock.json", import.meta.url), "utf8")) as {
  packages: Record<string, { dependencies?: Record<string, string> }>;
};
const closure = new Set<string>();
const visit = (name: string) => {
  if (closure.has(name)) return;
  closure.add(name);
  for (const dep of Object.keys(lock.packages[`node_modules/${name}`]?.dependencies ?? {})) visit(dep);
};
visit("fastify");
const modules = new URL("../../../node_modules/", import.meta.url).pathname;
const du = execFileSync("du", ["-sck", ...[...closure].map((name) => join(modules, name)).filter((d) => existsSync(d))])
  .toString()
  .trim()
  .split("\n")
  .at(-1)!
  .split("\t")[0];

const f = (x: number, digits = 0) => x.toFixed(digits);
console.log(`| measured (Node ${process.version}, this machine) | own HTTP layer | fastify |`);
console.log("| --- | --- | --- |");
console.log(
  `| routing one ARM request (${table.length} routes; ${refused} refused by find-my-way) | ${f(ownNs)} ns | ${f(fmwNs)} ns |`,
);
console.log(`| a whole GET of a scale set over HTTPS, keep-alive | ${f(requestUs)} µs | (same handlers) |`);
console.log(
  `| a process that starts and stops a simulator (bare Node: ${f(bareMs)} ms) | ${f(simMs)} ms | + ${f(fastifyMs - bareMs)} ms to import fastify |`,
);
console.log(
  `| npm packages at run time (vmss-sim) | 0 | ${closure.size} packages, ${Math.round(Number(du) / 1024)} MB |`,
);
