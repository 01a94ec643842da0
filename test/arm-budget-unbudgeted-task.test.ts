// The shared ARM budget never fails open silently: a task whose Azure calls go without the budget, because the
// budget's ledger (PostgreSQL) does not answer, says so in its history, and /metrics counts those calls
// (vmssops_arm_budget_unbudgeted_calls_total). The whole service (buildApp) against the simulator, its ledger a
// server that accepts connections and never answers.
import t from "tap";
import { createServer, type AddressInfo, type Socket } from "node:net";
import { startSimulator, SimulatorControl } from "vmss-simulator";
import { loadConfig } from "../src/startup-config.ts";
import { ArmBudget } from "../src/azure/arm-budget/budget.ts";
import { PostgresLedger } from "../src/azure/arm-budget/postgres-ledger.ts";
import { createComputeClient } from "../src/azure/client.ts";
import { AccountRegistry } from "../src/azure/accounts.ts";
import { buildApp } from "../src/app.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { waitFor } from "../testkit/wait-for.ts";

t.setTimeout(120_000);

const sim = await startSimulator({ port: 0, timeScale: 0.001, writeDurationMs: 50, seed: false });
t.teardown(() => sim.close());
await new SimulatorControl(sim).putScaleSet("demo-rg", "unbudgeted", { capacity: 1, loadBalanced: false });

const silent: Socket[] = [];
const server = createServer((socket) => silent.push(socket));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
t.teardown(() => {
  for (const s of silent) s.destroy();
  server.close();
});
const port = (server.address() as AddressInfo).port;

void t.test("a task whose calls went without the budget says so, and the metric counts them", async (t) => {
  const budget = new ArmBudget(
    new PostgresLedger({ connectionString: `postgres://postgres@127.0.0.1:${port}/test`, timeoutMs: 300 }),
  );
  const config = loadConfig({
    SIMULATOR_URL: sim.url,
    SIMULATOR_TIME_SCALE: "0.001",
    LRO_POLL_INTERVAL_MS: "20",
    LRO_MAX_POLL_INTERVAL_MS: "20",
    LOG_LEVEL: "silent",
  });
  for (const a of config.accounts) a.caPem = sim.caPem;
  const accounts = await AccountRegistry.open(config.accounts, (a) => createComputeClient(a, undefined, budget));
  const service = await buildApp({ config, store: new MemoryTaskStore(), accounts, armBudget: budget, logger: false });
  service.runner.start();
  t.teardown(async () => {
    await service.close();
    await budget.close();
  });
  const submitted = await service.app.inject({
    method: "POST",
    url: "/azure/ops",
    payload: [
      {
        resizeServerGroup: {
          credentials: "demo",
          region: "eastus",
          serverGroupName: "unbudgeted",
          capacity: { min: 0, max: 5, desired: 2 },
        },
      },
    ],
  });
  t.ok(submitted.statusCode >= 200 && submitted.statusCode < 300, submitted.body);
  const id = submitted.json().id as string;
  let task: { status: { completed: boolean; failed: boolean }; history: { status: string }[] } | undefined;
  await waitFor(
    async () => {
      task = (await service.app.inject({ method: "GET", url: `/task/${id}` })).json();
      return task!.status.completed;
    },
    { what: "the task to end" },
  );
  t.equal(task!.status.failed, false, "the operation went on without the budget");
  const lines = task!.history.map((h) => h.status);
  t.ok(
    lines.some((l) => /^Sent an Azure call without the ARM budget: its ledger did not answer \(.*timeout/i.test(l)),
    `its history says so: ${lines.join(" | ")}`,
  );
  const metrics = (await service.app.inject({ method: "GET", url: "/metrics" })).body;
  const counted = Number(/^vmssops_arm_budget_unbudgeted_calls_total (\d+)$/m.exec(metrics)?.[1]);
  t.ok(counted >= 1, `vmssops_arm_budget_unbudgeted_calls_total ${counted}`);
  t.equal(counted, budget.counts.unbudgeted, "the metric is the budget's count");
  t.match(metrics, /^vmssops_arm_budget_ledger_statements_total \d+$/m, "and the statements the ledger was sent");
  t.match(metrics, /^vmssops_arm_budget_calls_total [1-9]\d*$/m, "beside the calls that took from the budget");
});
