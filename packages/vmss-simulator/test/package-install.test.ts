// The package stands alone: `npm pack` of this folder, installed with npm into an empty folder (nothing of this
// repository around it), runs there: `npx vmss-sim` starts a seeded simulator that answers ARM, and a script of
// that folder imports `vmss-simulator` and starts one. Installed, it runs the JavaScript `npm pack` compiled
// (dist/): Node strips no types under node_modules.
import t from "tap";
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { SimulatorControl } from "../src/index.ts";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));
const work = mkdtempSync(join(tmpdir(), "vmss-sim-pack-"));
t.teardown(() => rmSync(work, { recursive: true, force: true }));
const app = join(work, "app");

/** This run's environment without what npm set for it: the install must not see this repository's workspace. */
function cleanEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
}

/** Runs a command to its end within `ms`; its output, or a failure naming what it printed. */
async function run(cmd: string, args: string[], cwd: string, ms: number): Promise<string> {
  const child = spawn(cmd, args, { cwd, env: cleanEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const timer = setTimeout(() => child.kill("SIGKILL"), ms);
  const [code, signal] = (await once(child, "exit")) as [number | null, string | null];
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${cmd} ${args.join(" ")} exited ${code ?? signal}:\n${out}`);
  return out;
}

/** The URL a starting simulator prints, within `ms`. */
function printedUrl(child: ChildProcess, ms: number): Promise<string> {
  let out = "";
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed in ${ms} ms: ${out}`)), ms);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
}

t.before(async () => {
  await run("npm", ["pack", "--pack-destination", work], PACKAGE_DIR, 240_000);
  const tarball = readdirSync(work).find((f) => f.endsWith(".tgz"));
  if (!tarball) throw new Error(`npm pack left no tarball in ${work}`);
  await run("mkdir", [app], work, 10_000);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "empty", private: true, type: "module" }));
  // The registry is reachable, but what is cached is enough: undici, the one dependency.
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", join(work, tarball)], app, 240_000);
});

t.test("installed, it ships compiled JavaScript and no tests", async (t) => {
  const installed = join(app, "node_modules", "vmss-simulator");
  const files = readdirSync(installed);
  t.ok(files.includes("dist"), "dist/");
  t.notOk(files.includes("test"), "no test/");
  t.ok(readdirSync(join(installed, "dist")).includes("main.js"), "dist/main.js");
  t.notOk(existsSync(join(PACKAGE_DIR, "dist")), "npm pack left no dist/ in the checkout (postpack)");
});

t.test("npx vmss-sim starts in the empty folder, answers ARM, and stops on SIGTERM", async (t) => {
  const child = spawn("npx", ["vmss-sim", "--port", "0", "--time-scale", "0.01"], {
    cwd: app,
    env: cleanEnv(),
    stdio: ["ignore", "pipe", "pipe"],
    // its own process group: npx runs vmss-sim as a child of its own, and both are stopped together
    detached: true,
  });
  const closed = once(child, "close");
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // the group has ended
    }
  };
  t.teardown(() => signalGroup("SIGKILL"));
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  const url = await printedUrl(child, 60_000);
  const caPem = readFileSync(join(app, "node_modules", "vmss-simulator", "src", "tls", "simulator-cert.pem"), "utf8");
  const control = new SimulatorControl({ url, caPem });
  const res = await control.request(
    "GET",
    "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets?api-version=2024-11-01",
    { headers: { authorization: "Bearer any" } },
  );
  await control.close();
  t.equal(res.status, 200);
  t.same(
    (res.body as { value: { name: string }[] }).value.map((v) => v.name).sort(),
    ["batch-v001", "web-prod-v001", "web-prod-v002"],
    "the seeded scale sets",
  );
  signalGroup("SIGTERM");
  // "close": every process writing to its output has ended, vmss-sim included
  await closed;
  t.match(out, /SIGTERM: stopping the simulator/, "vmss-sim stopped on SIGTERM");
});

t.test("a script of the empty folder imports vmss-simulator and starts one", async (t) => {
  writeFileSync(
    join(app, "start.js"),
    [
      'import { startSimulator, SimulatorControl } from "vmss-simulator";',
      "const sim = await startSimulator({ seed: false });",
      "const control = new SimulatorControl(sim);",
      "console.log(JSON.stringify(await control.health()));",
      "await control.close();",
      "await sim.close();",
    ].join("\n"),
  );
  const out = await run(process.execPath, ["start.js"], app, 60_000);
  t.match(out, /"status":"ok"/);
});
