// The scaling model of docs/scaling.md as a pure function: from a fleet's shape (operations, scale sets,
// subscriptions, replicas, cores) and the costs measured per ARM call, what the run will take: its ARM calls, the
// busiest subscription's writes and the bound its write budget sets, the CPU of the replicas, of the simulators and
// of PostgreSQL, PostgreSQL's statements, and the makespan (the larger of the budget's bound and the CPU's). The fleet
// figures report it beside what they measured, so that docs/scaling.md quotes a model that was checked.

/** ARM's per-subscription write budget (src/azure/arm-budget/figures.ts AZURE_ARM_BUDGETS.writes): 1,200 at once, 20 a minute back. */
export const ARM_WRITES = { burst: 1200, refillPerMinute: 20 } as const;

/**
 * ARM calls per operation, as counted in the fleet runs (the calls of each kind in the simulator's log): a resize
 * that writes reads the scale set and its VMs before (the plan) and after (the confirmation), writes once and polls
 * once (the write lasts less than a poll interval): 6 calls; a disable or enable that writes lists the VMs once: 5;
 * an operation with nothing to write (a resize to the capacity the set has) stops after its reads.
 */
export const CALLS_PER_OPERATION = { writingResize: 6, writingToggle: 5, idle: 4 } as const;

/** Per subscription: the operations of each kind, as the fleet's mix gives them (see subscriptionMix). */
export interface SubscriptionMix {
  writingResizes: number;
  writingToggles: number;
  idle: number;
}

export interface PerCallCosts {
  replicaCpuMs: number;
  simulatorCpuMs: number;
  postgresCpuMs: number;
  postgresTransactions: number;
}

export interface FleetShapeInput {
  operations: number;
  scaleSets: number;
  subscriptions: number;
  /** Wall ms per Azure ms: the simulator's time scale (1 against Azure itself). */
  timeScale: number;
  /** The cores the run has (all of them: replicas, simulators and PostgreSQL share them here). */
  cores: number;
}

/**
 * The fleet's mix, as bench/figures/fleet.ts submits it: operation i acts on scale set i mod sets (in subscription
 * (i mod sets) mod subscriptions), round floor(i / sets) picks resize (to 2 or 3 by i's parity), disable or enable in
 * turn; a scale set starts at capacity 1, enabled. Answers each subscription's operations by kind.
 */
export function subscriptionMix(
  shape: Pick<FleetShapeInput, "operations" | "scaleSets" | "subscriptions">,
): SubscriptionMix[] {
  const capacity = new Array<number>(shape.scaleSets).fill(1);
  const enabled = new Array<boolean>(shape.scaleSets).fill(true);
  const mix = Array.from({ length: shape.subscriptions }, () => ({ writingResizes: 0, writingToggles: 0, idle: 0 }));
  for (let i = 0; i < shape.operations; i++) {
    const s = i % shape.scaleSets;
    const kind = Math.floor(i / shape.scaleSets) % 3;
    const m = mix[s % shape.subscriptions];
    if (kind === 0) {
      const desired = 2 + (i % 2);
      if (capacity[s] !== desired) m.writingResizes++;
      else m.idle++;
      capacity[s] = desired;
    } else {
      if (enabled[s] !== (kind === 2)) m.writingToggles++;
      else m.idle++;
      enabled[s] = kind === 2;
    }
  }
  return mix;
}

const writesOf = (m: SubscriptionMix) => m.writingResizes + m.writingToggles;
const callsOf = (m: SubscriptionMix) =>
  m.writingResizes * CALLS_PER_OPERATION.writingResize +
  m.writingToggles * CALLS_PER_OPERATION.writingToggle +
  m.idle * CALLS_PER_OPERATION.idle;

/** The bound a subscription's write budget sets on `writes` writes, in wall ms at `timeScale`. */
export function budgetBoundMs(writes: number, timeScale: number): number {
  return ((Math.max(0, writes - ARM_WRITES.burst) * 60_000) / ARM_WRITES.refillPerMinute) * timeScale;
}

/** The time scale at which the busiest subscription's write budget bounds the fleet at `boundS` wall seconds. */
export function timeScaleForBound(
  shape: Pick<FleetShapeInput, "operations" | "scaleSets" | "subscriptions">,
  boundS: number,
): number {
  const azureMs = budgetBoundMs(Math.max(...subscriptionMix(shape).map(writesOf)), 1);
  return azureMs > 0 ? (boundS * 1000) / azureMs : 0.001;
}

export interface FleetPrediction {
  armCalls: number;
  busiestSubscriptionWrites: number;
  budgetBoundMs: number;
  replicaCpuMs: number;
  simulatorCpuMs: number;
  postgresCpuMs: number;
  postgresTransactions: number;
  /** All the CPU over the cores: the makespan if the machine, not the budget, bounded the run. */
  cpuBoundMs: number;
  /** The larger bound. */
  makespanMs: number;
  boundedBy: "budget" | "cpu";
}

/** What a fleet of `shape` will take, from the calls its mix makes and the costs measured per call. */
export function predictFleet(shape: FleetShapeInput, costs: PerCallCosts): FleetPrediction {
  const mix = subscriptionMix(shape);
  const armCalls = mix.reduce((sum, m) => sum + callsOf(m), 0);
  const busiest = Math.max(...mix.map(writesOf));
  const bound = budgetBoundMs(busiest, shape.timeScale);
  const replicaCpuMs = armCalls * costs.replicaCpuMs;
  const simulatorCpuMs = armCalls * costs.simulatorCpuMs;
  const postgresCpuMs = armCalls * costs.postgresCpuMs;
  const cpuBoundMs = (replicaCpuMs + simulatorCpuMs + postgresCpuMs) / shape.cores;
  return {
    armCalls,
    busiestSubscriptionWrites: busiest,
    budgetBoundMs: bound,
    replicaCpuMs,
    simulatorCpuMs,
    postgresCpuMs,
    postgresTransactions: armCalls * costs.postgresTransactions,
    cpuBoundMs,
    makespanMs: Math.max(bound, cpuBoundMs),
    boundedBy: bound >= cpuBoundMs ? "budget" : "cpu",
  };
}
