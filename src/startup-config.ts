// What a start of the service reads: the simulator's settings, by the simulator's own rules, then the service's
// configuration, told the two of them it depends on (the simulator's subscription and its time factor). Only here
// do the two meet: the service's code never reads the simulator's settings, and the simulator none of the service's.
import { configFromEnv, ConfigError, type Config } from "./config.ts";
import { SettingsError, simulatorConfigFromEnv, type SimulatorConfig } from "./simulator/settings.ts";

type Env = Record<string, string | undefined>;

export interface StartupConfig {
  config: Config;
  /** What an embedded simulator is started with (SIMULATOR_HOST, SIMULATOR_PORT, SIMULATOR_TIME_SCALE, …). */
  simulator: SimulatorConfig;
}

/** Both configurations; a bad value of either is a ConfigError naming the variable. */
export function loadStartupConfig(env: Env = process.env): StartupConfig {
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
