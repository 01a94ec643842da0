// The simulator alone: `vmss-sim` (bin/vmss-sim.js), `npm run simulator` at the repository's root. Settings come from
// the command line (--port, --host, --time-scale, --state, --seed/--no-seed) over the environment (SIMULATOR_HOST,
// SIMULATOR_PORT, SIMULATOR_SUBSCRIPTION_ID, SIMULATOR_TIME_SCALE, SIMULATOR_WRITE_DURATION_MS,
// SIMULATOR_CONCURRENT_WRITES, SIMULATOR_THROTTLING, SIMULATOR_STATE_DIR), read by simulatorConfigFromEnv().
import { parseArgs } from "node:util";
import { SettingsError, simulatorConfigFromEnv, type SimulatorConfig } from "./settings.ts";
import { startSimulator, type RunningSimulator } from "./simulator.ts";
import { StateDirError } from "./state-dir.ts";
import { SIMULATOR_CERT_PATH } from "./tls.ts";

const USAGE = `usage: vmss-sim [--port N] [--host H] [--time-scale X] [--state DIR] [--seed | --no-seed]
  --port N          where it listens (SIMULATOR_PORT, default 7003; 0 = any free port)
  --host H          the address it listens on (SIMULATOR_HOST, default 127.0.0.1)
  --time-scale X    Azure's durations × X (SIMULATOR_TIME_SCALE, default 0.1; 1 = Azure's real timing)
  --state DIR       keep every resource in DIR across restarts (SIMULATOR_STATE_DIR, default: in memory only)
  --seed, --no-seed the demo scale sets in demo-rg, into an empty state only (default: seeded)`;

/** Each option and the variable it stands for: the settings are checked once, by simulatorConfigFromEnv. */
const FLAG_VARIABLES = {
  port: "SIMULATOR_PORT",
  host: "SIMULATOR_HOST",
  "time-scale": "SIMULATOR_TIME_SCALE",
  state: "SIMULATOR_STATE_DIR",
} as const;

function fail(message: string): never {
  console.error(`vmss-sim: ${message}`);
  process.exit(2);
}

function subscriptionLine(sim: RunningSimulator, seed: boolean): string {
  if (sim.stateDir?.restored) return `subscription ${sim.subscriptionId} (as the state directory kept it)`;
  return seed
    ? `subscription ${sim.subscriptionId} (resource group demo-rg: web-prod-v001, web-prod-v002, batch-v001)`
    : `subscription ${sim.subscriptionId} (no scale sets: --no-seed)`;
}

function stateLine(state: NonNullable<RunningSimulator["stateDir"]>): string {
  if (!state.restored) return `state kept in ${state.dir} (it was empty)`;
  return `state kept in ${state.dir}: ${state.scaleSets} scale sets, ${state.inFlight} operations in flight resumed (written ${new Date(state.savedAt!).toISOString()})`;
}

/** Starts the simulator from a command line and the environment; stops it on SIGTERM or SIGINT. */
export async function runSimulator(argv: readonly string[], env: NodeJS.ProcessEnv): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: {
        port: { type: "string" },
        host: { type: "string" },
        "time-scale": { type: "string" },
        state: { type: "string" },
        seed: { type: "boolean", default: true },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
      allowNegative: true,
    }));
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`);
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const overrides: Record<string, string> = {};
  for (const [flag, variable] of Object.entries(FLAG_VARIABLES)) {
    const value = values[flag as keyof typeof FLAG_VARIABLES];
    if (value !== undefined) overrides[variable] = value;
  }
  let config: SimulatorConfig;
  try {
    config = simulatorConfigFromEnv({ ...env, ...overrides });
  } catch (err) {
    if (!(err instanceof SettingsError)) throw err;
    // Name what was typed: the option when it came from the command line, else the variable.
    const flag = Object.entries(FLAG_VARIABLES).find(([, v]) => v in overrides && err.message.startsWith(v))?.[0];
    fail(flag ? err.message.replace(FLAG_VARIABLES[flag as keyof typeof FLAG_VARIABLES], `--${flag}`) : err.message);
  }
  const seed = values.seed;
  let sim: RunningSimulator;
  try {
    sim = await startSimulator({
      ...config.settings,
      host: config.host,
      port: config.port,
      subscriptionId: config.subscriptionId,
      throttling: config.throttling.enabled,
      seed,
      ...(config.stateDir !== undefined ? { stateDir: config.stateDir } : {}),
    });
  } catch (err) {
    if (err instanceof StateDirError) fail(err.message);
    throw err;
  }
  console.log(`ARM simulator listening on ${sim.url}`);
  console.log(subscriptionLine(sim, seed));
  if (sim.stateDir) console.log(stateLine(sim.stateDir));
  console.log(
    `time scale ${config.settings.timeScale} (1 = Azure's real timing), throttling ${config.throttling.enabled ? "on" : "off"}`,
  );
  console.log(`control API: curl --cacert ${SIMULATOR_CERT_PATH} ${sim.url}/_sim/health   (see its README.md)`);

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

// Run as a file (`node src/main.ts`, `npm start` in this folder) it starts the simulator, as bin/vmss-sim.js does;
// imported (the bin, the package's entry), it starts nothing.
if (import.meta.main) await runSimulator(process.argv.slice(2), process.env);
