// The shared ARM budget's ledger (PostgreSQL) that stalls holds no call past the task store's bounds: a statement that
// waits in the database is canceled there (statement_timeout), one on a black-holed link by the client's bound. The
// calls then go without the budget, and not silently: each task whose call went says so in its history (the wait
// callback a task's calls have), and the budget counts them (vmssops_arm_budget_unbudgeted_calls_total).
import t from "tap";
import pg from "pg";
import { ArmBudget, armWaitLine, type ArmCall, type ArmWait } from "../src/azure/arm-budget.ts";
import { PostgresLedger } from "../src/azure/arm-budget-postgres.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { ServiceMetrics } from "../src/observability/metrics.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";

t.setTimeout(120_000);

const db = await linkedDatabase(t, "vmss_ops_budget_stall");
// The task store's migrations make the ledger's table and its take function.
await (await PostgresTaskStore.open({ connectionString: db.directUrl })).close();

const STATEMENT_TIMEOUT_MS = 500;
const CLIENT_TIMEOUT_MS = 1500;
const ledger = new PostgresLedger({
  connectionString: db.linkedUrl,
  timeoutMs: CLIENT_TIMEOUT_MS,
  statementTimeoutMs: STATEMENT_TIMEOUT_MS,
});
const budget = new ArmBudget(ledger);
t.teardown(() => budget.close());

const call: ArmCall = {
  method: "PUT",
  subscriptionId: "sub",
  buckets: [
    {
      key: "sub:writes",
      figures: { burst: 100, refillPerMinute: 100 },
      label: "subscription write budget",
      azureName: "x-ms-ratelimit-remaining-subscription-writes",
    },
  ],
};

/** A task's call: how long the budget held it, and what the task was told. */
async function taskCall(): Promise<{ heldMs: number; told: ArmWait[] }> {
  const told: ArmWait[] = [];
  const started = Date.now();
  await budget.acquire(call, "task", (w) => told.push(w));
  return { heldMs: Date.now() - started, told };
}

void t.test("a well ledger: the call takes a token and the task is told nothing", async (t) => {
  const { told } = await taskCall();
  t.same(told, []);
  t.equal(budget.counts.unbudgeted, 0);
});

void t.test("a take that waits on a lock in the database is canceled at the statement timeout", async (t) => {
  const holder = new pg.Client({ connectionString: db.directUrl });
  await holder.connect();
  t.teardown(() => holder.end());
  await holder.query("BEGIN");
  await holder.query("LOCK TABLE arm_budget IN ACCESS EXCLUSIVE MODE");
  const { heldMs, told } = await taskCall();
  await holder.query("ROLLBACK");
  t.ok(heldMs < CLIENT_TIMEOUT_MS, `held ${heldMs} ms: the server's bound (${STATEMENT_TIMEOUT_MS} ms) ended it`);
  t.equal(told.length, 1, "the task is told");
  t.match(armWaitLine(told[0]), /^Sent an Azure call without the ARM budget: its ledger did not answer \(57014: /);
  t.equal(budget.counts.unbudgeted, 1, "and it is counted");
});

void t.test("a black-holed ledger holds the call no longer than the client's bound, then says so", async (t) => {
  db.link.blackHole();
  const { heldMs, told } = await taskCall();
  t.ok(heldMs >= CLIENT_TIMEOUT_MS - 50, `held ${heldMs} ms: until the bound`);
  t.ok(heldMs < CLIENT_TIMEOUT_MS + 3000, "and not much longer");
  t.equal(told.length, 1, "the task is told");
  t.match(told[0], { ledgerUnavailable: /timeout/i });
  t.equal(budget.counts.unbudgeted, 2);
  db.link.heal();

  const metrics = new ServiceMetrics({
    tasksInFlight: () => 0,
    throttlingBudget: () => [],
    armCallsUnbudgeted: () => budget.counts.unbudgeted,
  });
  t.match(await metrics.registry.metrics(), /^vmssops_arm_budget_unbudgeted_calls_total 2$/m, "in the metrics");

  // Healed: the budget is taken again (new connections go through).
  const again = await taskCall();
  t.same(again.told, [], "once the link is well, the call takes from the budget again");
  t.equal(budget.counts.unbudgeted, 2);
});
