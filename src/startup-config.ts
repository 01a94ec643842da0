// What a start of the service reads: the simulator's settings, by the simulator's own rules, then the service's
// configuration, told the two of them it depends on (the simulator's subscription and its time factor). Only here
// do the two meet: the service's code never reads the simulator's settings, and the simulator none of the service's.
// An external simulator's time factor is its own: the service asks the simulator for it (server.ts), and uses
// SIMULATOR_TIME_SCALE, if set here, only until the simulator answers.
import { configFromEnv, ConfigError, type Config } from "./config.ts";
import type { SimulatorConfig } from "vmss-simulator/settings";

type Env = Record<string, string | undefined>;

/**
 * The simulator's settings module, from its package (vmss-simulator), or undefined where that package is not
 * installed: the production image (the Dockerfile's `production` target) leaves the simulator out.
 */
const simulatorSettings = await import("vmss-simulator/settings").catch((err: unknown) => {
  if ((err as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") return undefined;
  throw err;
});

export interface StartupConfig {
  config: Config;
  /**
   * What an embedded simulator is started with (SIMULATOR_HOST, SIMULATOR_PORT, SIMULATOR_TIME_SCALE, …); absent
   * where the simulator is not installed.
   */
  simulator?: SimulatorConfig;
}

/** Both configurations; a bad value of either is a ConfigError naming the variable. */
export function loadStartupConfig(env: Env = process.env): StartupConfig {
  if (!simulatorSettings) {
    if (env.SIMULATOR !== "off") {
      throw new ConfigError(
        `SIMULATOR must be off: this installation has no simulator (the vmss-simulator package is not installed), got "${env.SIMULATOR ?? ""}"`,
      );
    }
    // Real Azure accounts only: Azure's own timing, and no simulator subscription.
    return { config: configFromEnv(env, { subscriptionId: "", timeScale: 1 }) };
  }
  const { SettingsError, simulatorConfigFromEnv } = simulatorSettings;
  let simulator: SimulatorConfig;
  try {
    simulator = simulatorConfigFromEnv(env);
  } catch (err) {
    if (err instanceof SettingsError) throw new ConfigError(err.message);
    throw err;
  }
  const config = configFromEnv(env, {
    subscriptionId: simulator.subscriptionId,
    timeScale: simulator.settings.timeScale,
  });
  return { config, simulator };
}

/** The service's configuration, as a start reads it (tests build the service from this). */
export function loadConfig(env: Env = process.env): Config {
  return loadStartupConfig(env).config;
}
