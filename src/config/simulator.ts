// The simulator the service's simulator accounts reach: started here (embedded), already running (external), or none.
// Its own settings (SIMULATOR_HOST, SIMULATOR_PORT, SIMULATOR_TIME_SCALE, …) are the simulator's to read
// (the vmss-simulator package, its settings.ts); the service is told the two it depends on (SimulatorFacts) by whoever starts it.
import { readFileSync } from "node:fs";
import { request } from "node:https";
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
  /**
   * Its time factor (Azure's durations and refill rates × this), as the service knows it now: the service paces its
   * re-reads and its ARM budget by it. An external simulator's is learned from the simulator itself (server.ts).
   */
  clock: SimulatorClock;
}

/** What the simulator's own settings say that the service depends on (read by the vmss-simulator package's settings). */
export interface SimulatorFacts {
  subscriptionId: string;
  timeScale: number;
}

/**
 * Where the service's idea of the simulator's clock comes from: the simulator itself (its control API, then the
 * header on its ARM answers), SIMULATOR_TIME_SCALE (the embedded simulator's setting, or an external one's not
 * reached yet), or nothing at all (an external simulator not reached yet: Azure's own pace, 1).
 */
export type ClockSource = "simulator" | "environment" | "azure";

/**
 * The simulator's time factor as the service knows it, and who follows it (the retry pacing, the ARM budget). A
 * change reaches every follower at once, in the order they started following.
 */
export class SimulatorClock {
  #timeScale: number;
  #source: ClockSource;
  readonly #followers: ((timeScale: number) => void)[] = [];

  constructor(timeScale: number, source: ClockSource) {
    this.#timeScale = timeScale;
    this.#source = source;
  }

  get timeScale(): number {
    return this.#timeScale;
  }

  get source(): ClockSource {
    return this.#source;
  }

  /** The time factor is now `timeScale`, said by `source`; the followers hear of it when it changed. */
  set(timeScale: number, source: ClockSource): void {
    const changed = timeScale !== this.#timeScale;
    this.#timeScale = timeScale;
    this.#source = source;
    if (changed) for (const follow of this.#followers) follow(timeScale);
  }

  /** Calls `follow` with each new time factor from now on. */
  follow(follow: (timeScale: number) => void): void {
    this.#followers.push(follow);
  }
}

/** The header on every ARM answer of the simulator that states its time factor (vmss-simulator's simulator.ts). */
export const TIME_SCALE_HEADER = "x-ms-sim-time-scale";

/** The simulator's largest time factor (its settings refuse more). */
const MAX_TIME_SCALE = 100;

/** A time factor as the simulator states it, or undefined when it is not one. */
export function parseTimeScale(value: unknown): number | undefined {
  const n = typeof value === "string" ? Number(value) : value;
  return typeof n === "number" && Number.isFinite(n) && n > 0 && n <= MAX_TIME_SCALE ? n : undefined;
}

/**
 * The time factor an external simulator states in its control API (GET /_sim/config), over HTTPS with the CA its
 * accounts trust. Throws, with why, when it does not answer within `timeoutMs` or answers something else.
 */
export function readSimulatorTimeScale(sim: ServiceSimulatorConfig, timeoutMs = 2000): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${sim.url}/_sim/config`,
      { ...(sim.caPem ? { ca: sim.caPem } : {}), timeout: timeoutMs, agent: false },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (text += chunk));
        res.on("error", reject);
        res.on("end", () => {
          if (res.statusCode !== 200) return reject(new Error(`GET /_sim/config answered ${res.statusCode}`));
          let timeScale: number | undefined;
          try {
            timeScale = parseTimeScale((JSON.parse(text) as { timeScale?: unknown }).timeScale);
          } catch {
            // not JSON: said below
          }
          if (timeScale === undefined) reject(new Error("GET /_sim/config did not state a timeScale"));
          else resolve(timeScale);
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`no answer from GET /_sim/config within ${timeoutMs} ms`)));
    req.on("error", reject);
    req.end();
  });
}

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
    // An external simulator's clock is its own: until the service has asked it (server.ts), SIMULATOR_TIME_SCALE if
    // set, else Azure's own pace, which never spends faster than the simulator refills.
    clock:
      mode === "external" && !env.SIMULATOR_TIME_SCALE
        ? new SimulatorClock(1, "azure")
        : new SimulatorClock(facts.timeScale, "environment"),
  };
}
