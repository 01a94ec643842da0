// The package's public entry: start and stop a simulator, drive it through its control API, trust its certificate.
// Everything else in src/ is the simulator's own and may change without notice; the package's `exports` allow
// nothing else but the settings (./settings, which loads no server) and the certificate (./ca-cert.pem).
export { startSimulator, type RunningSimulator, type SimulatorOptions, type StateDirAtStart } from "./simulator.ts";
export {
  SimulatorControl,
  SimulatorControlError,
  type ControlScaleSetSpec,
  type OperationRecord,
  type RawResponse,
  type ScaleSetSnapshot,
  type SimulatorConfigUpdate,
  type SimulatorConfigView,
} from "./control-client.ts";
// A fault as POST /_sim/faults takes it: derived from its action's schema, which the route validates with.
export type { CallRecord } from "./calls.ts";
export { FAULT_SPECS, type FaultAction, type FaultSpec, type ScaleSetChange } from "./fault-specs.ts";
export {
  SIMULATOR_SUBSCRIPTION_ID,
  SettingsError,
  simulatorConfigFromEnv,
  type SimulatorConfig,
  type SimulatorSettings,
} from "./settings.ts";
export { SIMULATOR_CERT_PATH, loadTlsMaterial, type TlsMaterial } from "./tls.ts";
export { runSimulator } from "./main.ts";
// For checking the simulator against Azure's specification: the ARM routes it serves, and each request and answer
// as it is sent (off unless something observes).
export { armRoutePatterns } from "./arm-routes.ts";
export { observeExchanges, type ArmExchange } from "./exchanges.ts";
// Azure Monitor autoscale's control API.
export {
  autoscaleEvaluations,
  evaluateAutoscale,
  setAutoscaleMetric,
  setAutoscalePeriodic,
  type AutoscaleEvaluation,
} from "./autoscale/autoscale-control.ts";
