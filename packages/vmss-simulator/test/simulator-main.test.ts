// `npm run simulator`: the standalone entry prints its URL, serves the seeded demo data and exits cleanly on SIGTERM.
import t from "tap";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { readFileSync } from "node:fs";
import { SimulatorControl } from "../src/simulator/control-client.ts";
import { SIMULATOR_CERT_PATH } from "../src/simulator/tls.ts";

t.test("main.ts starts a seeded simulator from its own settings only, and stops on SIGTERM", async (t) => {
  const child = spawn(process.execPath, ["src/simulator/main.ts"], {
    cwd: new URL("..", import.meta.url).pathname,
    env: {
      ...process.env,
      SIMULATOR_PORT: "0",
      SIMULATOR_HOST: "127.0.0.1",
      SIMULATOR_SUBSCRIPTION_ID: "22222222-2222-4222-8222-222222222222",
      SIMULATOR_TIME_SCALE: "0.5",
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

  const control = new SimulatorControl({ url, caPem: readFileSync(SIMULATOR_CERT_PATH, "utf8") });
  t.same(await control.health(), { status: "ok" });
  const config = await control.getConfig();
  t.equal(config.timeScale, 0.5, "SIMULATOR_TIME_SCALE");
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

t.test("main.ts refuses a bad simulator setting, naming it", async (t) => {
  const child = spawn(process.execPath, ["src/simulator/main.ts"], {
    cwd: new URL("..", import.meta.url).pathname,
    env: { ...process.env, SIMULATOR_PORT: "0", SIMULATOR_TIME_SCALE: "fast" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d: Buffer) => (err += d.toString()));
  const [code] = await once(child, "exit");
  t.equal(code, 2);
  t.match(err, /SIMULATOR_TIME_SCALE must be a number above 0/);
});
