// The simulator's settings: what it is started with (address, subscription) and what can change while it runs
// (PUT /_sim/config). Azure's own durations and Retry-After values live here, with the recording each comes from;
// one time factor (`timeScale`) scales all of them. Nothing here reads the service's configuration.
import type { ThrottlingConfig } from "./throttling.ts";

export const SIMULATOR_SUBSCRIPTION_ID = "00000000-0000-4000-8000-000000000001";

/** The long-running writes the simulator knows, by what they do. */
export const WRITE_KINDS = ["create", "update", "deleteInstances", "updateInstances", "delete", "powerAction"] as const;
export type WriteKind = (typeof WRITE_KINDS)[number];

/**
 * How long each write takes in Azure, in seconds (startTime → endTime of the recorded operations): a create 29–35 s
 * (update[2], delete[2], get[2]), a scale-set delete 38 s (delete[7]), a scale-set action such as deallocate 90 s
 * (update[5]→[9]), a power action 30 s (poweroff[4]→[12]). Updates and instance actions use the create's figure: no
 * recording scales or deletes instances.
 */
export const AZURE_WRITE_SECONDS: Readonly<Record<WriteKind, number>> = {
  create: 30,
  update: 30,
  deleteInstances: 30,
  updateInstances: 30,
  delete: 40,
  powerAction: 30,
};

/** Retry-After Azure sends for a write (seconds; null = no Retry-After header). */
export interface RetryAfterFigures {
  /** On the write's first response. */
  initial: number | null;
  /** On the first status poll that is still InProgress. */
  firstPoll: number | null;
  /** On later InProgress polls. */
  poll: number | null;
}

/**
 * As recorded: create 10, then 61 on the first poll, then 30 (update[0], [1]; get[1]; delete[1]; py[2]–[12]); PATCH
 * 10 (update[11]; its polls were not recorded, so a scale-set action's 30 from update[6]–[8]); scale-set delete 10,
 * then 10, then 30 (delete[4]–[6]); deleteInstances and manualupgrade send none, on the 202 or on their polls
 * (py[39]–[40], py[48]–[49]). Finished polls never carry one.
 */
export const AZURE_RETRY_AFTER: Readonly<Record<WriteKind, RetryAfterFigures>> = {
  create: { initial: 10, firstPoll: 61, poll: 30 },
  update: { initial: 10, firstPoll: 30, poll: 30 },
  delete: { initial: 10, firstPoll: 10, poll: 30 },
  deleteInstances: { initial: null, firstPoll: null, poll: null },
  updateInstances: { initial: null, firstPoll: null, poll: null },
  // poweroff[4]–[12]: none on the 202, none on the polls
  powerAction: { initial: null, firstPoll: null, poll: null },
};

/**
 * What a write that arrives while another write is in flight on the same scale set gets. Public sources do not say,
 * so it is a mode:
 * - `conflict` (default): 409 ConflictingConcurrentWriteNotAllowed for as long as the other write runs;
 * - `preempt`: the new write is accepted and the one in flight ends `Canceled` (OperationPreempted);
 * - `conflictThenPreempt`: 409 during the first `conflictWindowSeconds` of the write in flight, preempt after.
 */
export const CONCURRENT_WRITE_MODES = ["conflict", "preempt", "conflictThenPreempt"] as const;
export type ConcurrentWriteMode = (typeof CONCURRENT_WRITE_MODES)[number];

/** The settings PUT /_sim/config changes (throttling has its own section, see throttling.ts). */
export interface SimulatorSettings {
  /**
   * Multiplies every Azure duration: write durations, Retry-After values (scaledRetryAfter) and the throttling
   * buckets' refill (a bucket refills 1/timeScale times faster). 1 = Azure's real timing.
   */
  timeScale: number;
  /** One duration for every write, in ms of real time, instead of Azure's durations × timeScale; null = Azure's. */
  writeDurationMs: number | null;
  /** Per-kind durations in ms of real time; win over writeDurationMs. */
  writeDurationsMs: Partial<Record<WriteKind, number>>;
  /** VMs per page of `GET …/virtualMachines`. */
  vmPageSize: number;
  /** Items per page of every other list (scale sets, resources, deployments, locks, …; paging.ts). */
  listPageSize: number;
  concurrentWrites: ConcurrentWriteMode;
  /** `conflictThenPreempt` only: Azure seconds (scaled by timeScale) during which a write in flight answers 409. */
  conflictWindowSeconds: number;
  /**
   * The load balancer's health probe (health-probe.ts): Azure seconds (scaled by timeScale) from a VM running to its
   * probe reporting it healthy; null = no probe, VMs report no vmHealth.
   */
  healthProbeSeconds: number | null;
}

/**
 * Azure seconds from running to healthy: the probe's default 5 s interval times 2 consecutive answers (Azure Load
 * Balancer's defaults), plus an application start of about 20 s.
 */
export const DEFAULT_HEALTH_PROBE_SECONDS = 30;

/** Realistic for a person trying it: Azure's timing ten times faster (a 30 s write takes 3 s, Retry-After 1 / 3 / 7). */
export const DEFAULT_TIME_SCALE = 0.1;
/** The header on every ARM answer that states the current timeScale (a client paced by the simulator's clock reads it). */
export const TIME_SCALE_HEADER = "x-ms-sim-time-scale";
export const MAX_TIME_SCALE = 100;
export const MAX_WRITE_DURATION_MS = 3_600_000;

export function defaultSettings(): SimulatorSettings {
  return {
    timeScale: DEFAULT_TIME_SCALE,
    writeDurationMs: null,
    writeDurationsMs: {},
    vmPageSize: 50,
    listPageSize: 100,
    concurrentWrites: "conflict",
    conflictWindowSeconds: 10,
    healthProbeSeconds: DEFAULT_HEALTH_PROBE_SECONDS,
  };
}

/** How long a write of this kind takes, in ms of the simulator's clock. */
export function writeDurationOf(settings: SimulatorSettings, kind: WriteKind): number {
  return (
    settings.writeDurationsMs[kind] ??
    settings.writeDurationMs ??
    Math.round(AZURE_WRITE_SECONDS[kind] * 1000 * settings.timeScale)
  );
}

/**
 * An Azure Retry-After scaled by the time factor, as the header's text: whole seconds, at least 1 ("10" at 1, "1" at
 * 0.1, "7" for a 61 at 0.1, "1" at 0.001). RFC 9110 allows only whole seconds (`delay-seconds = 1*DIGIT`), Azure sends
 * only whole numbers, and Python's azure-core reads the header with int(): a fraction would break that client. Tests
 * that want fast writes shorten the work (writeDurationMs, timeScale), not the header.
 */
export function scaledRetryAfter(settings: SimulatorSettings, azureSeconds: number): string {
  // The small epsilon keeps 30 × 0.1 (3.0000000000000004 in floating point) at 3.
  return String(Math.max(1, Math.ceil(azureSeconds * settings.timeScale - 1e-9)));
}

/** Milliseconds of the simulator's clock for Azure seconds. */
export function scaledMs(settings: Pick<SimulatorSettings, "timeScale">, azureSeconds: number): number {
  return azureSeconds * 1000 * settings.timeScale;
}

export class SettingsError extends Error {
  override name = "SettingsError";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function wholeMs(name: string, value: unknown): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0 || value > MAX_WRITE_DURATION_MS) {
    throw new SettingsError(`"${name}" must be a whole number of ms from 0 to ${MAX_WRITE_DURATION_MS}`);
  }
  return value;
}

/**
 * Validates the simulator fields of a PUT /_sim/config body (others are left to the caller) and returns the change.
 * Omitted fields keep their value; `writeDurationsMs` replaces as a whole.
 */
export function parseSettingsUpdate(body: Record<string, unknown>): Partial<SimulatorSettings> {
  const out: Partial<SimulatorSettings> = {};
  if (body.timeScale !== undefined) {
    const v = body.timeScale;
    if (typeof v !== "number" || !Number.isFinite(v) || v <= 0 || v > MAX_TIME_SCALE) {
      throw new SettingsError(`"timeScale" must be a number above 0, at most ${MAX_TIME_SCALE}`);
    }
    out.timeScale = v;
  }
  if (body.writeDurationMs !== undefined)
    out.writeDurationMs = body.writeDurationMs === null ? null : wholeMs("writeDurationMs", body.writeDurationMs);
  if (body.writeDurationsMs !== undefined) {
    const v = body.writeDurationsMs;
    if (!isPlainObject(v))
      throw new SettingsError(`"writeDurationsMs" must be an object keyed by ${WRITE_KINDS.join(", ")}`);
    const durations: Partial<Record<WriteKind, number>> = {};
    for (const [key, ms] of Object.entries(v)) {
      if (!(WRITE_KINDS as readonly string[]).includes(key))
        throw new SettingsError(`unknown write kind "${key}" (known: ${WRITE_KINDS.join(", ")})`);
      durations[key as WriteKind] = wholeMs(`writeDurationsMs.${key}`, ms);
    }
    out.writeDurationsMs = durations;
  }
  if (body.vmPageSize !== undefined) {
    const v = body.vmPageSize;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 1000)
      throw new SettingsError('"vmPageSize" must be a whole number from 1 to 1000');
    out.vmPageSize = v;
  }
  if (body.listPageSize !== undefined) {
    const v = body.listPageSize;
    if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 1000)
      throw new SettingsError('"listPageSize" must be a whole number from 1 to 1000');
    out.listPageSize = v;
  }
  if (body.concurrentWrites !== undefined) {
    const v = body.concurrentWrites;
    if (typeof v !== "string" || !(CONCURRENT_WRITE_MODES as readonly string[]).includes(v)) {
      throw new SettingsError(`"concurrentWrites" must be one of ${CONCURRENT_WRITE_MODES.join(", ")}`);
    }
    out.concurrentWrites = v as ConcurrentWriteMode;
  }
  if (body.conflictWindowSeconds !== undefined) {
    const v = body.conflictWindowSeconds;
    if (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 3600)
      throw new SettingsError('"conflictWindowSeconds" must be a number from 0 to 3600');
    out.conflictWindowSeconds = v;
  }
  if (body.healthProbeSeconds !== undefined) {
    const v = body.healthProbeSeconds;
    if (v !== null && (typeof v !== "number" || !Number.isFinite(v) || v < 0 || v > 3600)) {
      throw new SettingsError('"healthProbeSeconds" must be a number from 0 to 3600, or null for no health probe');
    }
    out.healthProbeSeconds = v;
  }
  return out;
}

export const SETTINGS_FIELDS = [
  "timeScale",
  "writeDurationMs",
  "writeDurationsMs",
  "vmPageSize",
  "listPageSize",
  "concurrentWrites",
  "conflictWindowSeconds",
  "healthProbeSeconds",
] as const;

/** How the simulator is started: `npm run simulator`, the service's embedded simulator, or a test. */
export interface SimulatorConfig {
  host: string;
  port: number;
  subscriptionId: string;
  settings: SimulatorSettings;
  /** Throttling on (Azure's figures) unless switched off; SIMULATOR_THROTTLING=off. */
  throttling: Pick<ThrottlingConfig, "enabled">;
  /** Where the world is kept across restarts (SIMULATOR_STATE_DIR); undefined: in memory only. */
  stateDir?: string;
}

type Env = Record<string, string | undefined>;

function envNumber(env: Env, name: string, check: (v: number) => boolean, rule: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === "") return undefined;
  const value = Number(raw.trim());
  if (!Number.isFinite(value) || !check(value)) throw new SettingsError(`${name} must be ${rule}, got "${raw}"`);
  return value;
}

/**
 * The simulator's configuration from the environment: SIMULATOR_HOST (127.0.0.1), SIMULATOR_PORT (7003),
 * SIMULATOR_SUBSCRIPTION_ID, SIMULATOR_TIME_SCALE (0.1), SIMULATOR_WRITE_DURATION_MS (Azure's × time scale),
 * SIMULATOR_CONCURRENT_WRITES (conflict), SIMULATOR_THROTTLING (on), SIMULATOR_STATE_DIR (none). Throws SettingsError
 * naming the variable.
 */
export function simulatorConfigFromEnv(env: Env): SimulatorConfig {
  const settings = defaultSettings();
  const timeScale = envNumber(
    env,
    "SIMULATOR_TIME_SCALE",
    (v) => v > 0 && v <= MAX_TIME_SCALE,
    `a number above 0, at most ${MAX_TIME_SCALE}`,
  );
  if (timeScale !== undefined) settings.timeScale = timeScale;
  const writeMs = envNumber(
    env,
    "SIMULATOR_WRITE_DURATION_MS",
    (v) => Number.isInteger(v) && v >= 0 && v <= MAX_WRITE_DURATION_MS,
    `a whole number from 0 to ${MAX_WRITE_DURATION_MS}`,
  );
  if (writeMs !== undefined) settings.writeDurationMs = writeMs;
  const mode = env.SIMULATOR_CONCURRENT_WRITES;
  if (mode !== undefined && mode !== "") {
    if (!(CONCURRENT_WRITE_MODES as readonly string[]).includes(mode)) {
      throw new SettingsError(
        `SIMULATOR_CONCURRENT_WRITES must be one of ${CONCURRENT_WRITE_MODES.join(", ")}, got "${mode}"`,
      );
    }
    settings.concurrentWrites = mode as ConcurrentWriteMode;
  }
  const throttling = env.SIMULATOR_THROTTLING;
  if (throttling !== undefined && throttling !== "" && throttling !== "on" && throttling !== "off") {
    throw new SettingsError(`SIMULATOR_THROTTLING must be on or off, got "${throttling}"`);
  }
  const port = envNumber(
    env,
    "SIMULATOR_PORT",
    (v) => Number.isInteger(v) && v >= 0 && v <= 65535,
    "a whole number from 0 to 65535",
  );
  return {
    host: env.SIMULATOR_HOST || "127.0.0.1",
    port: port ?? 7003,
    subscriptionId: env.SIMULATOR_SUBSCRIPTION_ID || SIMULATOR_SUBSCRIPTION_ID,
    settings,
    throttling: { enabled: throttling !== "off" },
    ...(env.SIMULATOR_STATE_DIR ? { stateDir: env.SIMULATOR_STATE_DIR } : {}),
  };
}
