// The package's entry ("."): its TypeScript sources (src/index.ts) in a checkout, where Node strips their types; the
// JavaScript compiled from them (dist/, built by `npm pack`) once installed, because Node strips no types under
// node_modules. Types come from src/index.ts (the `types` condition); a test holds these names to its exports.
const compiled = new URL(import.meta.url).pathname.split("/").includes("node_modules");
const entry = compiled ? "./dist/index.js" : "./src/index.ts";
// eslint-disable-next-line @typescript-eslint/no-unsafe-assignment -- a path known at run time only; typed by the cast
const m = /** @type {typeof import("./src/index.ts")} */ (await import(entry));
export const {
  startSimulator,
  SimulatorControl,
  SimulatorControlError,
  SIMULATOR_SUBSCRIPTION_ID,
  SettingsError,
  simulatorConfigFromEnv,
  SIMULATOR_CERT_PATH,
  loadTlsMaterial,
  runSimulator,
  armRoutePatterns,
  observeExchanges,
  autoscaleEvaluations,
  evaluateAutoscale,
  setAutoscaleMetric,
  setAutoscalePeriodic,
  FAULT_SPECS,
} = m;
