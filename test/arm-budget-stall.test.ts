// The shared ARM budget's ledger (PostgreSQL) that stalls holds no call past the task store's bounds: a statement that
// waits in the database is canceled there (statement_timeout), one on a black-holed link by the client's bound. The
// calls then go without the budget (for a while without asking the ledger, so that one call pays the bound, not
// each), and not silently: each task whose call went says so in its history (the wait
// callback a task's calls have), and the budget counts them (vmssops_arm_budget_unbudgeted_calls_total).
import t from "tap";
import pg from "pg";
import { ArmBudget, armWaitLine, type ArmWait } from "../src/azure/arm-budget/budget.ts";
import type { ArmCall } from "../src/azure/arm-budget/routes.ts";
import { PostgresLedger } from "../src/azure/arm-budget/postgres-ledger.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { ServiceMetrics } from "../src/observability/metrics.ts";
import { linkedDatabase } from "./helpers/linked-database.ts";
import { waitFor } from "../testkit/wait-for.ts";

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
const LEDGER_RETRY_MS = 300;
// No slices: each call here asks the ledger (a call its replica's slice covers is sent without a statement).
const budget = new ArmBudget(ledger, { ledgerRetryMs: LEDGER_RETRY_MS, leaseMs: 0 });
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
  // The ledger is asked again after LEDGER_RETRY_MS, not by every call meanwhile.
  await waitFor(async () => (await taskCall()).told.length === 0, { what: "the ledger asked again, and answering" });
});

void t.test("a black-holed ledger holds the call no longer than the client's bound, then says so", async (t) => {
  db.link.blackHole();
  const { heldMs, told } = await taskCall();
  t.ok(heldMs >= CLIENT_TIMEOUT_MS - 50, `held ${heldMs} ms: until the bound`);
  t.ok(heldMs < CLIENT_TIMEOUT_MS + 3000, "and not much longer");
  t.equal(told.length, 1, "the task is told");
  t.match(told[0], { ledgerUnavailable: /timeout/i });
  const next = await taskCall();
  t.ok(next.heldMs < CLIENT_TIMEOUT_MS / 2, `the next call is not held again (${next.heldMs} ms)`);
  t.equal(next.told.length, 1, "and its task is told too");
  const unbudgeted = budget.counts.unbudgeted;
  t.ok(unbudgeted >= 3, `each counted (${unbudgeted})`);
  db.link.heal();

  const metrics = new ServiceMetrics({
    tasksInFlight: () => 0,
    throttlingBudget: () => [],
    armCallsUnbudgeted: () => budget.counts.unbudgeted,
  });
  t.match(
    await metrics.registry.metrics(),
    new RegExp(`^vmssops_arm_budget_unbudgeted_calls_total ${unbudgeted}$`, "m"),
    "in the metrics",
  );

  // Healed: the budget is taken again (new connections go through) once the ledger is asked again.
  await waitFor(async () => (await taskCall()).told.length === 0, {
    what: "once the link is well, a call that takes from the budget again",
  });
});
