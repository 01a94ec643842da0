// Standalone simulator: `npm run simulator`. Settings come from the environment through simulatorConfigFromEnv()
// (SIMULATOR_HOST, SIMULATOR_PORT, SIMULATOR_SUBSCRIPTION_ID, SIMULATOR_TIME_SCALE, SIMULATOR_WRITE_DURATION_MS,
// SIMULATOR_CONCURRENT_WRITES, SIMULATOR_THROTTLING); the service's configuration is not read.
import { SettingsError, simulatorConfigFromEnv, type SimulatorConfig } from "./settings.ts";
import { startSimulator } from "./simulator.ts";
import { SIMULATOR_CERT_PATH } from "./tls.ts";

async function main(): Promise<void> {
  let config: SimulatorConfig;
  try {
    config = simulatorConfigFromEnv(process.env);
  } catch (err) {
    if (err instanceof SettingsError) {
      console.error(`simulator: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const sim = await startSimulator({
    ...config.settings,
    host: config.host,
    port: config.port,
    subscriptionId: config.subscriptionId,
    throttling: config.throttling.enabled,
    seed: true,
  });
  console.log(`ARM simulator listening on ${sim.url}`);
  console.log(`subscription ${sim.subscriptionId} (resource group demo-rg: web-prod-v001, web-prod-v002, batch-v001)`);
  console.log(
    `time scale ${config.settings.timeScale} (1 = Azure's real timing), throttling ${config.throttling.enabled ? "on" : "off"}`,
  );
  console.log(`control API: curl --cacert ${SIMULATOR_CERT_PATH} ${sim.url}/_sim/health   (see docs/simulator.md)`);

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping the simulator`);
    sim.close().then(
      () => process.exit(0),
      (err: unknown) => {
        console.error(err);
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
}

await main();
