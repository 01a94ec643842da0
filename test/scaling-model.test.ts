// The scaling model of docs/scaling.md (bench/scaling-model.ts): the fleet's mix counted as bench/figures/fleet.ts
// submits it, the ARM calls and the write budget's bound it predicts, and which bound it names.
import t from "tap";
import {
  budgetBoundMs,
  predictFleet,
  subscriptionMix,
  timeScaleForBound,
  type PerCallCosts,
} from "../bench/scaling-model.ts";

const FLEET_1X = { operations: 5000, scaleSets: 1000, subscriptions: 1 };
const FLEET_10X = { operations: 50_000, scaleSets: 10_000, subscriptions: 10 };
const costs: PerCallCosts = { replicaCpuMs: 2, simulatorCpuMs: 1, postgresCpuMs: 1, postgresTransactions: 0.5 };

t.test(
  "the fleet's five rounds: a resize, a disable, an enable, a resize to the same capacity, a disable",
  async (t) => {
    t.same(subscriptionMix(FLEET_1X), [{ writingResizes: 1000, writingToggles: 3000, idle: 1000 }]);
    const tenfold = subscriptionMix(FLEET_10X);
    t.equal(tenfold.length, 10);
    for (const m of tenfold) t.same(m, { writingResizes: 1000, writingToggles: 3000, idle: 1000 }, "spread evenly");
  },
);

t.test("the 1× fleet: 25,000 ARM calls and the bound its 4,000 writes set, as it measured them", async (t) => {
  // bench/results.json, fleet.shared: 25,000 ARM calls, 193,846 ms bound at time scale 0.0230769….
  const p = predictFleet({ ...FLEET_1X, timeScale: 0.023076923076923078, cores: 2 }, costs);
  t.equal(p.armCalls, 25_000);
  t.equal(p.busiestSubscriptionWrites, 4000);
  t.equal(Math.round(p.budgetBoundMs), 193_846);
  t.equal(p.postgresTransactions, 12_500);
});

t.test("subscriptions spend in parallel: ten times the fleet in ten subscriptions has the same bound", async (t) => {
  const one = predictFleet({ ...FLEET_1X, timeScale: 0.01, cores: 2 }, costs);
  const ten = predictFleet({ ...FLEET_10X, timeScale: 0.01, cores: 2 }, costs);
  t.equal(ten.budgetBoundMs, one.budgetBoundMs);
  t.equal(ten.armCalls, 10 * one.armCalls);
  t.equal(ten.cpuBoundMs, 10 * one.cpuBoundMs);
});

t.test("the makespan is the larger bound, and the model says which", async (t) => {
  const fast = predictFleet({ ...FLEET_10X, timeScale: 0.001, cores: 2 }, costs);
  t.equal(fast.boundedBy, "cpu", "at a fast clock the cores bound the run");
  t.equal(fast.makespanMs, fast.cpuBoundMs);
  const slow = predictFleet({ ...FLEET_10X, timeScale: 1, cores: 2 }, costs);
  t.equal(slow.boundedBy, "budget", "at Azure's own clock the budget does");
  t.equal(slow.makespanMs, slow.budgetBoundMs);
});

t.test("the time scale that makes the busiest subscription's budget bound a run at the seconds asked", async (t) => {
  const scale = timeScaleForBound(FLEET_10X, 600);
  t.equal(Math.round(budgetBoundMs(4000, scale)), 600_000);
  t.equal(budgetBoundMs(1200, 1), 0, "a burst's worth of writes has no bound");
});
