// The simulator the service's simulator accounts reach: started here (embedded), already running (external), or none.
// Its own settings (SIMULATOR_HOST, SIMULATOR_PORT, SIMULATOR_TIME_SCALE, …) are the simulator's to read
// (the vmss-simulator package, its settings.ts); the service is told the two it depends on (SimulatorFacts) by whoever starts it.
import { readFileSync } from "node:fs";
import { ConfigError, readFileVar, type Env } from "./env-vars.ts";

/** The simulator as the service uses it. */
export interface ServiceSimulatorConfig {
  /** embedded: start one in this process; external: use SIMULATOR_URL; off: real Azure accounts only. */
  mode: "embedded" | "external" | "off";
  /** Where it answers: SIMULATOR_URL, or, when embedded, its address once it listens (server.ts). */
  url?: string;
  /** The CA its certificate is trusted with, for the simulator accounts' clients only. */
  caPem?: string;
  /** Its subscription, the demo account's. */
  subscriptionId: string;
  /** Its time factor: Azure's durations and refill rates × this. The service paces its reads and its budget by it. */
  timeScale: number;
}

/** What the simulator's own settings say that the service depends on (read by the vmss-simulator package's settings). */
export type SimulatorFacts = Pick<ServiceSimulatorConfig, "subscriptionId" | "timeScale">;

/** The simulator package's certificate (its export ./ca-cert.pem), or undefined where the package is not installed. */
function simulatorPackageCa(): string | undefined {
  let url: string;
  try {
    url = import.meta.resolve("vmss-simulator/ca-cert.pem");
  } catch {
    return undefined; // the production image: no simulator
  }
  return readFileSync(new URL(url), "utf8");
}

/** SIMULATOR, SIMULATOR_URL and SIMULATOR_CA_FILE: which simulator, and how to reach it. */
export function loadSimulator(env: Env, facts: SimulatorFacts): ServiceSimulatorConfig {
  const simulatorUrl = env.SIMULATOR_URL || undefined;
  const mode = env.SIMULATOR ?? (simulatorUrl ? "external" : "embedded");
  if (mode !== "embedded" && mode !== "external" && mode !== "off") {
    throw new ConfigError(`SIMULATOR must be embedded, external or off, got "${mode}"`);
  }
  if (mode === "external" && !simulatorUrl) throw new ConfigError("SIMULATOR=external needs SIMULATOR_URL");
  if (simulatorUrl && !/^https:\/\//.test(simulatorUrl)) {
    throw new ConfigError(
      `SIMULATOR_URL must be an https:// URL (the Azure SDK refuses plain HTTP), got "${simulatorUrl}"`,
    );
  }
  return {
    mode,
    url: mode === "external" ? simulatorUrl!.replace(/\/+$/, "") : undefined,
    // The simulator's own certificate unless told otherwise: `npm run simulator` and an external SIMULATOR_URL then
    // work without extra settings. It is trusted for the simulator accounts' client only.
    caPem: readFileVar(env, "SIMULATOR_CA_FILE") ?? simulatorPackageCa(),
    subscriptionId: facts.subscriptionId,
    timeScale: facts.timeScale,
  };
}
