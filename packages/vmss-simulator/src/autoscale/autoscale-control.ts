// The control API of autoscale (/_sim/autoscale), for tests and tools: set a metric's value, evaluate every setting
// now (instead of waiting for the minute), turn the periodic evaluation off or on, read the evaluations made.
import { SimulatorControlError, type SimulatorControl } from "../control-client.ts";
import type { EvaluationRecord } from "./autoscale-state.ts";

export type AutoscaleEvaluation = EvaluationRecord;

async function call<T>(control: SimulatorControl, method: string, path: string, body?: unknown): Promise<T> {
  const res = await control.request(method, path, body === undefined ? {} : { body });
  if (res.status < 200 || res.status > 299) throw new SimulatorControlError(method, path, res);
  return res.body as T;
}

/** Every setting evaluated now, as Azure Monitor does once a minute: what each did. */
export async function evaluateAutoscale(control: SimulatorControl): Promise<AutoscaleEvaluation[]> {
  return (await call<{ evaluations: AutoscaleEvaluation[] }>(control, "POST", "/_sim/autoscale/evaluate")).evaluations;
}

/** A metric's value as a rule's trigger reads it (null: no data). */
export async function setAutoscaleMetric(
  control: SimulatorControl,
  metric: { resourceUri: string; metricName: string; value: number | null },
): Promise<void> {
  await call(control, "PUT", "/_sim/autoscale/metrics", metric);
}

/** The evaluation once a minute of the simulator's clock, on (the default) or off. */
export async function setAutoscalePeriodic(control: SimulatorControl, periodic: boolean): Promise<void> {
  await call(control, "PUT", "/_sim/autoscale/config", { periodic });
}

export function autoscaleEvaluations(control: SimulatorControl): Promise<AutoscaleEvaluation[]> {
  return call(control, "GET", "/_sim/autoscale/evaluations");
}
