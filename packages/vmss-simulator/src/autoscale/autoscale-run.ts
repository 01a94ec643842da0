// Autoscale acting on the simulator's world: every enabled setting evaluated (autoscale-evaluator.ts decides), and
// the capacity it decides written to its scale set as Azure's own write: a long-running update of the scale set (new
// ETag, `Updating`, VMs Creating/Deleting) in its version history as `autoscale`, and in the call log as a PATCH
// with `origin: "autoscale"` (a request nobody sent to the simulator, as the activity log shows Azure's).
//
// Azure evaluates about once a minute: here once every 60 s of the simulator's clock (scaled by timeScale), when the
// simulator is next asked anything (there are no timers, as in state.ts); the control API evaluates at once.
import type { SimulatorContext } from "../context.ts";
import { isObject } from "../json.ts";
import { capacityOf, scaleSetId, type ScaleSet } from "../vmss-model.ts";
import { decide } from "./autoscale-evaluator.ts";
import { autoscaleOf, type AutoscaleSetting, type EvaluationRecord } from "./autoscale-state.ts";

/** Azure Monitor's evaluation period, in Azure seconds. */
export const EVALUATION_SECONDS = 60;

/** Whether the evaluation runs by itself on the clock (the control API can turn it off for a test). */
const periodicOff = new WeakSet<object>();
/** Read and restored by a state directory (world-snapshot.ts). */
export { periodicOff as autoscalePeriodicOff };

export function setPeriodicEvaluation(sim: SimulatorContext, on: boolean): void {
  if (on) periodicOff.delete(sim.state);
  else periodicOff.add(sim.state);
}

export function periodicEvaluation(sim: SimulatorContext): boolean {
  return !periodicOff.has(sim.state);
}

const SCALE_SET_URI =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/([^/]+)\/?$/i;

/** The scale set a targetResourceUri names, if the simulator holds it. */
export function targetScaleSet(sim: SimulatorContext, uri: string): ScaleSet | undefined {
  const m = SCALE_SET_URI.exec(uri);
  if (!m || !sim.state.isSubscription(m[1])) return undefined;
  return sim.state.getScaleSet(m[2], m[3]);
}

/** Runs the periodic evaluation when one is due. Called before each request is handled, after state.settle(). */
export function settleAutoscale(sim: SimulatorContext): void {
  const as = autoscaleOf(sim);
  const now = sim.state.now();
  if (as.lastEvaluationAt === undefined) {
    as.lastEvaluationAt = now;
    return;
  }
  const interval = EVALUATION_SECONDS * 1000 * sim.state.settings.timeScale;
  if (!periodicEvaluation(sim) || now - as.lastEvaluationAt < interval) return;
  evaluateAll(sim);
}

/** One evaluation of every setting now (the periodic one, or the control API's). */
export function evaluateAll(sim: SimulatorContext): EvaluationRecord[] {
  const as = autoscaleOf(sim);
  as.lastEvaluationAt = sim.state.now();
  const records = as.list().map((setting) => evaluateSetting(sim, setting));
  for (const r of records) as.record(r);
  return records;
}

function evaluateSetting(sim: SimulatorContext, setting: AutoscaleSetting): EvaluationRecord {
  const now = sim.state.now();
  const uri = String(setting.properties.targetResourceUri);
  const base = { time: now, setting: setting.name, targetResourceUri: uri };
  const skipped = (reason: string, ss?: ScaleSet): EvaluationRecord => ({
    ...base,
    profile: null,
    capacityBefore: ss ? capacityOf(ss.model) : null,
    capacityAfter: ss ? capacityOf(ss.model) : null,
    outcome: "skipped",
    reason,
  });
  if (setting.properties.enabled !== true) return skipped("disabled");
  const ss = targetScaleSet(sim, uri);
  if (!ss) return skipped("the target scale set does not exist");
  if (ss.inFlight) return skipped("a write is in flight on the scale set", ss);
  const as = autoscaleOf(sim);
  const targetKey = uri.toLowerCase();
  const capacity = capacityOf(ss.model);
  const decision = decide({
    properties: setting.properties,
    capacity,
    now,
    lastScaleActionAt: as.lastScaleAction.get(targetKey),
    metric: (resourceUri, metricName) => as.metric(resourceUri, metricName),
  });
  if (!decision) return skipped("no profile in force", ss);
  const record = { ...base, profile: decision.profile, capacityBefore: capacity, reason: decision.reason };
  if (decision.target === capacity) return { ...record, capacityAfter: capacity, outcome: "unchanged" };
  writeCapacity(sim, ss, decision.target);
  as.lastScaleAction.set(targetKey, now);
  return { ...record, capacityAfter: decision.target, outcome: "changed" };
}

/** Azure's own write of the capacity: accepted as any update is, logged as a PATCH from autoscale. */
function writeCapacity(sim: SimulatorContext, ss: ScaleSet, capacity: number): void {
  const sku = isObject(ss.model.sku) ? ss.model.sku : {};
  sim.state.acceptWrite(ss, {
    kind: "update",
    newModel: { ...ss.model, sku: { ...sku, capacity } },
    source: "autoscale",
    ifMatch: null,
  });
  sim.calls.add({
    method: "PATCH",
    path: scaleSetId(ss),
    status: 202,
    ifMatch: null,
    userAgent: "Azure Monitor autoscale",
    origin: "autoscale",
    time: Date.now(),
  });
}
