// `vmss-sim` (bin/vmss-sim.js; `npm run simulator` at the repository's root), run as a child process: it prints its
// URL, serves the seeded demo data, takes its settings from its options over the environment, and exits cleanly on
// SIGTERM.
import t from "tap";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { SimulatorControl } from "vmss-simulator";

const BIN = fileURLToPath(new URL("../bin/vmss-sim.js", import.meta.url));
const CA_PEM = readFileSync(new URL(import.meta.resolve("vmss-simulator/ca-cert.pem")), "utf8");

t.test("vmss-sim starts a seeded simulator from its own settings only, and stops on SIGTERM", async (t) => {
  const child = spawn(process.execPath, [BIN, "--port", "0", "--host", "127.0.0.1", "--time-scale", "0.5"], {
    env: {
      ...process.env,
      // the options win over the environment
      SIMULATOR_PORT: "7003",
      SIMULATOR_TIME_SCALE: "2",
      SIMULATOR_SUBSCRIPTION_ID: "22222222-2222-4222-8222-222222222222",
      SIMULATOR_CONCURRENT_WRITES: "preempt",
      // the service's configuration is not read: settings it would refuse do not stop the simulator
      SIMULATOR: "nonsense",
      TASK_STORE: "nonsense",
      ACCOUNTS: "not json",
      RETRY_MAX_ATTEMPTS: "many",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; stdout: ${out} stderr: ${err}`)), 15_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && out.includes("control API")) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}; stderr: ${err}`)));
  });
  t.match(out, /22222222-2222-4222-8222-222222222222/, "prints the subscription id");
  t.match(out, /_sim\/health/, "prints a hint for the control API");

  const control = new SimulatorControl({ url, caPem: CA_PEM });
  t.same(await control.health(), { status: "ok" });
  const config = await control.getConfig();
  t.equal(config.timeScale, 0.5, "--time-scale");
  t.equal(config.concurrentWrites, "preempt", "SIMULATOR_CONCURRENT_WRITES");
  t.equal(config.throttling.enabled, true, "throttling on by default");
  const web = await control.getScaleSet("demo-rg", "web-prod-v002");
  t.equal(web.vms.length, 3);
  t.equal(
    web.vmss.id,
    "/subscriptions/22222222-2222-4222-8222-222222222222/resourceGroups/demo-rg/providers/Microsoft.Compute/virtualMachineScaleSets/web-prod-v002",
  );
  await control.close();

  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  t.equal(code, 0, "exit code 0");
});

/** Runs vmss-sim to its exit: its exit code and what it wrote to stderr. */
async function refusal(args: string[], env: Record<string, string> = {}): Promise<{ code: unknown; err: string }> {
  const child = spawn(process.execPath, [BIN, ...args], {
    env: { ...process.env, SIMULATOR_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const [code] = await once(child, "exit");
  return { code, err };
}

t.test("vmss-sim refuses a bad setting, naming the option or the variable it came from", async (t) => {
  t.match(await refusal(["--time-scale", "fast"]), { code: 2, err: /--time-scale must be a number above 0/ });
  t.match(await refusal([], { SIMULATOR_TIME_SCALE: "fast" }), {
    code: 2,
    err: /SIMULATOR_TIME_SCALE must be a number above 0/,
  });
  t.match(await refusal(["--port", "70000"]), { code: 2, err: /--port must be a whole number from 0 to 65535/ });
  t.match(await refusal(["--prot", "7003"]), { code: 2, err: /Unknown option '--prot'[^]*usage: vmss-sim/ });
});

t.test("node src/main.ts (npm start) starts the simulator too; it exits 0 on SIGTERM", async (t) => {
  const main = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  const child = spawn(process.execPath, [main, "--port", "0", "--no-seed"], {
    env: { ...process.env, SIMULATOR_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  t.teardown(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  let out = "";
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no URL printed; stdout: ${out}`)), 15_000);
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (https:\/\/127\.0\.0\.1:\d+)/.exec(out);
      if (m && out.includes("control API")) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code} having started nothing; stdout: ${out}`)));
  });
  const control = new SimulatorControl({ url, caPem: CA_PEM });
  t.same(await control.health(), { status: "ok" });
  await control.close();
  child.kill("SIGTERM");
  const [code] = await once(child, "exit");
  t.equal(code, 0, "exit code 0");
});
