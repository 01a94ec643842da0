// The ARM budget the configuration asks for (ARM_BUDGET, ARM_BUDGET_SHARED, ARM_BUDGET_REFILL_SCALE): shared in
// PostgreSQL when the tasks are (every replica spends one subscription's budget), in this process otherwise.
import { ArmBudget } from "./budget.ts";
import { InProcessLedger } from "./in-process-ledger.ts";

/** The ARM call budget (src/azure/arm-budget/, docs/configuration.md). */
export interface ArmBudgetConfig {
  /**
   * Take from the budget before each call.
   * @env ARM_BUDGET
   * @default `true`
   */
  enabled: boolean;
  /**
   * Multiplies Azure's refill rates (a simulator at a time scale refills faster).
   * @env ARM_BUDGET_REFILL_SCALE
   * @default `1` (against the simulator alone: 1 ÷ its time scale)
   */
  refillScale: number;
  /**
   * Keep the levels in PostgreSQL, shared by every replica.
   * @env ARM_BUDGET_SHARED
   * @default `true` with `TASK_STORE=postgres`
   */
  shared: boolean;
}

/** `store`: the task store's kind and database, where a shared budget keeps its levels (StoreConfig). */
export async function createArmBudget(config: {
  armBudget: ArmBudgetConfig;
  store: { kind: string; databaseUrl?: string; callTimeoutMs?: number; statementTimeoutMs?: number };
  /** The simulator's clock: when it changes, so does armBudget.refillScale (src/config.ts), and the budget follows. */
  simulator?: { clock: { follow(follow: () => void): void } };
}): Promise<ArmBudget | undefined> {
  const budget = await budgetOf(config);
  if (budget) config.simulator?.clock.follow(() => budget.setRefillScale(config.armBudget.refillScale));
  return budget;
}

async function budgetOf(config: Parameters<typeof createArmBudget>[0]): Promise<ArmBudget | undefined> {
  const { armBudget, store } = config;
  if (!armBudget.enabled) return undefined;
  const options = { refillScale: armBudget.refillScale };
  if (armBudget.shared && store.kind === "postgres" && store.databaseUrl) {
    // The table comes with the task store's migrations, which ran when the store was opened.
    const { PostgresLedger } = await import("./postgres-ledger.ts");
    // The ledger's statements have the task store's bounds: a stalled database holds a call no longer than a request.
    const ledger = new PostgresLedger({
      connectionString: store.databaseUrl,
      ...(store.callTimeoutMs ? { timeoutMs: store.callTimeoutMs } : {}),
      ...(store.statementTimeoutMs ? { statementTimeoutMs: store.statementTimeoutMs } : {}),
    });
    return new ArmBudget(ledger, options);
  }
  return new ArmBudget(new InProcessLedger(), options);
}
