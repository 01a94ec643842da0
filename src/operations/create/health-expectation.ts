// When the instances a create waits on can first be reported healthy, and how often their health can change after:
// from when they started running (their instance views' ProvisioningState time) and what probes them (the load
// balancer's probe, read with the balancer before the create; the Application Health extension in the model). The
// health wait re-reads there (src/azure/health-read.ts); undefined where either is unknown (the busy pace then).
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import type { HealthExpectation } from "../../azure/health-read.ts";
import { isActionableInstance, isRunningInstance } from "../../azure/scale-set-state.ts";
import type { ScaleSetSnapshot } from "../../azure/vmss-gateway.ts";

/** A probe's pace: it answers every `intervalSeconds`, and reports healthy after `probes` answers in a row. */
export interface ProbePace {
  intervalSeconds: number;
  probes: number;
}

const positive = (v: unknown): number | undefined =>
  typeof v === "number" && Number.isFinite(v) && v > 0 ? v : undefined;

/**
 * The quickest of a load balancer's probes (its read body, `properties.probes`): the earliest any of them reports a
 * VM healthy. Undefined when it has none, or none with an interval (Azure's newer `probeThreshold` stands for
 * `numberOfProbes`; one answer when neither is given).
 */
export function balancerProbePace(balancer: unknown): ProbePace | undefined {
  const probes = (balancer as { properties?: { probes?: unknown } } | undefined)?.properties?.probes;
  if (!Array.isArray(probes)) return undefined;
  let best: ProbePace | undefined;
  for (const probe of probes) {
    const p = (probe as { properties?: Record<string, unknown> } | undefined)?.properties ?? {};
    const intervalSeconds = positive(p.intervalInSeconds);
    if (intervalSeconds === undefined) continue;
    const pace = { intervalSeconds, probes: positive(p.numberOfProbes) ?? positive(p.probeThreshold) ?? 1 };
    if (!best || pace.intervalSeconds * pace.probes < best.intervalSeconds * best.probes) best = pace;
  }
  return best;
}

const HEALTH_EXTENSIONS = new Set(["applicationhealthlinux", "applicationhealthwindows"]);

/**
 * The Application Health extension's pace in the scale set's model: its `intervalInSeconds` (Azure's default 5) and
 * `numberOfProbes` (default 1). Undefined when the model has no such extension.
 */
export function extensionProbePace(snapshot: ScaleSetSnapshot): ProbePace | undefined {
  const extensions = snapshot.vmss.virtualMachineProfile?.extensionProfile?.extensions ?? [];
  const ext = extensions.find((e) => HEALTH_EXTENSIONS.has((e.typePropertiesType ?? "").toLowerCase()));
  if (!ext) return undefined;
  const settings = (ext.settings ?? {}) as Record<string, unknown>;
  return { intervalSeconds: positive(settings.intervalInSeconds) ?? 5, probes: positive(settings.numberOfProbes) ?? 1 };
}

/** When Azure says the VM's last operation (its create, a start) ended: its ProvisioningState status's time. */
function provisionedAtMs(vm: VirtualMachineScaleSetVM): number | undefined {
  const status = vm.instanceView?.statuses?.find((s) => (s.code ?? "").toLowerCase() === "provisioningstate/succeeded");
  const at = status?.time === undefined ? Number.NaN : new Date(status.time).getTime();
  return Number.isFinite(at) ? at : undefined;
}

/**
 * The expectation for the VMs not ready yet (`waitedOn`): undefined unless each runs and says since when, and a probe's
 * pace is known (the quicker of the balancer's and the extension's).
 */
export function healthExpectation(
  waitedOn: VirtualMachineScaleSetVM[],
  paces: (ProbePace | undefined)[],
): HealthExpectation | undefined {
  const known = paces.filter((p): p is ProbePace => p !== undefined);
  if (known.length === 0 || waitedOn.length === 0) return undefined;
  let runningSinceMs = Number.NEGATIVE_INFINITY;
  for (const vm of waitedOn) {
    const at = isActionableInstance(vm) && isRunningInstance(vm) ? provisionedAtMs(vm) : undefined;
    if (at === undefined) return undefined;
    runningSinceMs = Math.max(runningSinceMs, at);
  }
  const pace = known.reduce((a, b) => (b.intervalSeconds * b.probes < a.intervalSeconds * a.probes ? b : a));
  return {
    runningSinceMs,
    firstHealthSeconds: pace.intervalSeconds * pace.probes,
    probeIntervalSeconds: pace.intervalSeconds,
  };
}
