// The service's pacing follows the simulator's clock as it learns it: its re-reads of a busy scale set and its ARM
// budget's refill change with the clock, unless AZURE_SCALE_SET_READS_PER_MINUTE or ARM_BUDGET_REFILL_SCALE says.
import t from "tap";
import { loadConfig } from "../src/startup-config.ts";
import { readRetry } from "../src/azure/retry-policy.ts";
import { createArmBudget } from "../src/azure/arm-budget/create-arm-budget.ts";
import { AZURE_ARM_BUDGETS } from "../src/azure/arm-budget/figures.ts";
import { parseTimeScale } from "../src/config/simulator.ts";

const EXTERNAL = { SIMULATOR_URL: "https://127.0.0.1:1", SIMULATOR_TIME_SCALE: "" };

t.test("an external simulator not heard from yet: Azure's own pace", async (t) => {
  const c = loadConfig(EXTERNAL);
  t.same(
    { timeScale: c.simulator.clock.timeScale, source: c.simulator.clock.source },
    { timeScale: 1, source: "azure" },
  );
  t.equal(c.retry.scaleSetReadsPerMinute, 12);
  t.equal(c.armBudget.refillScale, 1);
});

t.test("SIMULATOR_TIME_SCALE here paces until the simulator states its own", async (t) => {
  const c = loadConfig({ ...EXTERNAL, SIMULATOR_TIME_SCALE: "0.01" });
  t.same(
    { timeScale: c.simulator.clock.timeScale, source: c.simulator.clock.source },
    { timeScale: 0.01, source: "environment" },
  );
  t.equal(c.armBudget.refillScale, 100);
});

t.test("the clock the simulator states re-paces the re-reads and the budget, at once", async (t) => {
  const c = loadConfig(EXTERNAL);
  const reads = readRetry(c.retry, c.readRetry);
  const budget = await createArmBudget(c);
  c.simulator.clock.set(0.002, "simulator");
  t.equal(c.retry.scaleSetReadsPerMinute, 6000, "Azure's 12 a minute, 500 times faster");
  t.equal(reads.scaleSetReadsPerMinute, 6000, "the reads' retry profile too");
  t.equal({ ...reads }.scaleSetReadsPerMinute, 6000, "and each copy made of it from then on");
  t.equal(c.armBudget.refillScale, 500);
  t.equal(budget?.figures.arm.writes.refillPerMinute, AZURE_ARM_BUDGETS.writes.refillPerMinute * 500);
  c.simulator.clock.set(0.004, "simulator");
  t.equal(c.retry.scaleSetReadsPerMinute, 3000);
  t.equal(budget?.figures.arm.writes.refillPerMinute, AZURE_ARM_BUDGETS.writes.refillPerMinute * 250);
});

t.test("an explicit refill scale or read refill wins over the clock", async (t) => {
  const c = loadConfig({ ...EXTERNAL, ARM_BUDGET_REFILL_SCALE: "2", AZURE_SCALE_SET_READS_PER_MINUTE: "30" });
  const budget = await createArmBudget(c);
  c.simulator.clock.set(0.002, "simulator");
  t.equal(c.retry.scaleSetReadsPerMinute, 30);
  t.equal(c.armBudget.refillScale, 2);
  t.equal(budget?.figures.arm.writes.refillPerMinute, AZURE_ARM_BUDGETS.writes.refillPerMinute * 2);
});

t.test("with a real account beside the simulator's, Azure's pace holds whatever the clock", async (t) => {
  const c = loadConfig({
    ...EXTERNAL,
    TRUSTED_NETWORK: "true",
    ACCOUNTS: JSON.stringify([
      { name: "prod", subscriptionId: "11111111-2222-3333-4444-555555555555", credential: "default" },
    ]),
  });
  c.simulator.clock.set(0.002, "simulator");
  t.equal(c.retry.scaleSetReadsPerMinute, 12);
  t.equal(c.armBudget.refillScale, 1);
});

t.test("a time scale as the simulator states it", async (t) => {
  t.equal(parseTimeScale("0.001"), 0.001);
  t.equal(parseTimeScale(0.5), 0.5);
  for (const bad of ["", "fast", "0", "-1", "101", undefined, null])
    t.equal(parseTimeScale(bad), undefined, String(bad));
});
