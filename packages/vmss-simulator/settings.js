// The package's "./settings" (the simulator's settings, loading no server): src/settings.ts in a checkout, the
// JavaScript compiled from it once installed (see index.js). A test holds these names to its exports.
const compiled = new URL(import.meta.url).pathname.split("/").includes("node_modules");
const entry = compiled ? "./dist/settings.js" : "./src/settings.ts";
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- a path known at run time only; typed by the cast
const m = /** @type {typeof import("./src/settings.ts")} */ (await import(entry));
export const {
  AZURE_RETRY_AFTER,
  AZURE_WRITE_SECONDS,
  CONCURRENT_WRITE_MODES,
  DEFAULT_HEALTH_PROBE_SECONDS,
  DEFAULT_TIME_SCALE,
  MAX_TIME_SCALE,
  MAX_WRITE_DURATION_MS,
  SETTINGS_FIELDS,
  SIMULATOR_SUBSCRIPTION_ID,
  SettingsError,
  TIME_SCALE_HEADER,
  WRITE_KINDS,
  defaultSettings,
  parseSettingsUpdate,
  scaledMs,
  scaledRetryAfter,
  simulatorConfigFromEnv,
  writeDurationOf,
} = m;
