// Standalone simulator: `npm run simulator`. Settings come from the environment through loadConfig()
// (SIMULATOR_PORT, SIMULATOR_HOST, SIMULATOR_WRITE_DURATION_MS, SIMULATOR_POLL_HINT_MS, SIMULATOR_SUBSCRIPTION_ID).
import { ConfigError, loadConfig } from "../config.ts";
import { startSimulator } from "./simulator.ts";
import { SIMULATOR_CERT_PATH } from "./tls.ts";

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(`simulator: ${err.message}`);
      process.exit(2);
    }
    throw err;
  }
  const s = config.simulator;
  const sim = await startSimulator({
    host: s.host,
    port: s.port,
    writeDurationMs: s.writeDurationMs,
    pollHintMs: s.pollHintMs,
    subscriptionId: s.subscriptionId,
    seed: true,
  });
  console.log(`ARM simulator listening on ${sim.url}`);
  console.log(`subscription ${sim.subscriptionId} (resource group demo-rg: web-prod-v001, web-prod-v002, batch-v001)`);
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
