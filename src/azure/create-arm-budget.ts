// The ARM budget the configuration asks for (ARM_BUDGET, ARM_BUDGET_SHARED, ARM_BUDGET_REFILL_SCALE): shared in
// PostgreSQL when the tasks are (every replica spends one subscription's budget), in this process otherwise.
import type { Config } from "../config.ts";
import { ArmBudget, InProcessLedger } from "./arm-budget.ts";

export async function createArmBudget(config: Pick<Config, "armBudget" | "store">): Promise<ArmBudget | undefined> {
  const { armBudget, store } = config;
  if (!armBudget.enabled) return undefined;
  const options = { refillScale: armBudget.refillScale };
  if (armBudget.shared && store.kind === "postgres" && store.databaseUrl) {
    // The table comes with the task store's migrations, which ran when the store was opened.
    const { PostgresLedger } = await import("./arm-budget-postgres.ts");
    return new ArmBudget(new PostgresLedger({ connectionString: store.databaseUrl }), options);
  }
  return new ArmBudget(new InProcessLedger(), options);
}
