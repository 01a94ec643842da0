// Microsoft.Insights/autoscaleSettings as the simulator keeps them (api-version 2022-10-01, autoscale_API.json): each
// setting's location, tags and properties as written, and what the evaluator needs besides: the metric values the
// control API sets, when autoscale last changed a scale set's capacity, and the evaluations it made.
//
// The resource has no ETag in the specification (AutoscaleSettingResource is a TrackedResource: id, name, type,
// location, tags, systemData), and @azure/arm-monitor's createOrUpdate/update take no If-Match: none is kept here.
// One AutoscaleState per simulator world, made on first use (as the network's).
import type { SimulatorContext } from "../context.ts";
import type { JsonObject } from "../json.ts";
import type { SimState } from "../state.ts";

export const AUTOSCALE_TYPE = "Microsoft.Insights/autoscaleSettings";
export const AUTOSCALE_API_VERSIONS: readonly string[] = ["2015-04-01", "2021-05-01-preview", "2022-10-01"];

export interface AutoscaleSetting {
  resourceGroup: string;
  name: string;
  location: string;
  tags: Record<string, string>;
  /** profiles, notifications, enabled, predictiveAutoscalePolicy, targetResourceUri, targetResourceLocation. */
  properties: JsonObject;
}

/** One evaluation of one setting, as the control API lists them. */
export interface EvaluationRecord {
  time: number;
  setting: string;
  targetResourceUri: string;
  profile: string | null;
  capacityBefore: number | null;
  capacityAfter: number | null;
  /** changed: a write of the capacity; unchanged; skipped: disabled, no target, a write in flight. */
  outcome: "changed" | "unchanged" | "skipped";
  reason: string;
}

const MAX_EVALUATIONS = 1000;

function key(resourceGroup: string, name: string): string {
  return `${resourceGroup.toLowerCase()}/${name.toLowerCase()}`;
}

export class AutoscaleState {
  readonly #settings = new Map<string, AutoscaleSetting>();
  /** `${resourceUri}|${metricName}` in lower case → the metric as set. */
  readonly #metrics = new Map<string, { resourceUri: string; metricName: string; value: number }>();
  /** Target resource id (lower case) → when autoscale last changed its capacity. */
  readonly lastScaleAction = new Map<string, number>();
  readonly evaluations: EvaluationRecord[] = [];
  /** When the periodic evaluation last ran (simulator clock); undefined: not yet. */
  lastEvaluationAt: number | undefined;

  get(resourceGroup: string, name: string): AutoscaleSetting | undefined {
    return this.#settings.get(key(resourceGroup, name));
  }

  list(resourceGroup?: string): AutoscaleSetting[] {
    return [...this.#settings.values()].filter(
      (s) => resourceGroup === undefined || s.resourceGroup.toLowerCase() === resourceGroup.toLowerCase(),
    );
  }

  /** Creates or replaces; the name keeps the spelling it was created with. */
  put(setting: AutoscaleSetting): { setting: AutoscaleSetting; created: boolean } {
    const k = key(setting.resourceGroup, setting.name);
    const existing = this.#settings.get(k);
    const kept = existing ? { ...setting, name: existing.name, resourceGroup: existing.resourceGroup } : setting;
    this.#settings.set(k, kept);
    return { setting: kept, created: existing === undefined };
  }

  delete(resourceGroup: string, name: string): boolean {
    return this.#settings.delete(key(resourceGroup, name));
  }

  setMetric(resourceUri: string, metricName: string, value: number | null): void {
    const k = `${resourceUri.toLowerCase()}|${metricName.toLowerCase()}`;
    if (value === null) this.#metrics.delete(k);
    else this.#metrics.set(k, { resourceUri, metricName, value });
  }

  metric(resourceUri: string, metricName: string): number | undefined {
    return this.#metrics.get(`${resourceUri.toLowerCase()}|${metricName.toLowerCase()}`)?.value;
  }

  metrics(): { resourceUri: string; metricName: string; value: number }[] {
    return [...this.#metrics.values()].map((m) => ({ ...m }));
  }

  record(evaluation: EvaluationRecord): void {
    this.evaluations.push(evaluation);
    if (this.evaluations.length > MAX_EVALUATIONS)
      this.evaluations.splice(0, this.evaluations.length - MAX_EVALUATIONS);
  }

  clear(): void {
    this.#settings.clear();
    this.#metrics.clear();
    this.lastScaleAction.clear();
    this.evaluations.length = 0;
    this.lastEvaluationAt = undefined;
  }
}

const worlds = new WeakMap<SimState, AutoscaleState>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const autoscaleWorlds = worlds;

export function autoscaleOf(sim: Pick<SimulatorContext, "state">): AutoscaleState {
  let state = worlds.get(sim.state);
  if (!state) {
    state = new AutoscaleState();
    worlds.set(sim.state, state);
  }
  return state;
}
