// The fleet: fleetSizes.ops operations (resize, disable, enable) on fleetSizes.sets scale sets of one subscription,
// fleetSizes.replicas replicas on PostgreSQL, the simulator at Azure's throttling figures, at a time scale that makes
// the subscription's ARM write budget (1,200 a burst, 20 a minute) bound the run at about fleetSizes.boundS seconds:
// the makespan against that bound, with the budget shared by the replicas and with each replica its own.
import { AZURE_ARM_BUDGETS, budgetFigures, chargeOf } from "../../src/azure/arm-budget.ts";
import type { ChildService } from "../../testkit/child-service.ts";
import { resize, type Bench } from "../context.ts";
import type { Figure, Row } from "../table.ts";

/** The bound a subscription's budget sets on a run: per bucket, the calls beyond its burst over its refill rate. */
function budgetBoundMs(
  calls: { method: string; path: string; ifMatch: string | null }[],
  refillScale: number,
): { boundMs: number; bucket: string; perBucket: Record<string, number> } {
  const figures = budgetFigures({ refillScale });
  const counts = new Map<string, { n: number; burst: number; perMinute: number }>();
  for (const c of calls) {
    const request = {
      url: `https://arm.invalid${c.path}`,
      method: c.method,
      headers: { get: (h: string) => (h === "if-match" ? (c.ifMatch ?? undefined) : undefined) },
    };
    const charge = chargeOf(request as never, figures);
    for (const b of charge?.buckets ?? []) {
      const entry = counts.get(b.key) ?? { n: 0, burst: b.figures.burst, perMinute: b.figures.refillPerMinute };
      entry.n++;
      counts.set(b.key, entry);
    }
  }
  let boundMs = 0;
  let bucket = "";
  const perBucket: Record<string, number> = {};
  for (const [key, { n, burst, perMinute }] of counts) {
    const ms = (Math.max(0, n - burst) * 60_000) / perMinute;
    if (!key.includes("/", key.indexOf("/") + 1) || key.includes("arm:"))
      perBucket[key.slice(key.indexOf("/") + 1)] = n;
    if (ms > boundMs) [boundMs, bucket] = [ms, key.slice(key.indexOf("/") + 1)];
  }
  return { boundMs, bucket, perBucket };
}

/**
 * The statements the replicas' ARM budgets have sent their shared ledger (PostgreSQL) since they started: the sum of
 * vmssops_arm_budget_ledger_statements_total over their /metrics.
 */
async function ledgerStatements(replicas: ChildService[]): Promise<number> {
  let statements = 0;
  for (const r of replicas) {
    const text = await (await fetch(`${r.url}/metrics`)).text();
    statements += Number(/^vmssops_arm_budget_ledger_statements_total (\S+)$/m.exec(text)?.[1] ?? 0);
  }
  return statements;
}

/** Submits the fleet's operations round-robin over `replicas`, 16 at a time; returns the tasks' ids. */
async function submitAll(b: Bench, replicas: ChildService[]): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < b.fleetSizes.ops) {
        const i = next++;
        const via = replicas[i % replicas.length];
        const name = `fleet-${i % b.fleetSizes.sets}`;
        const kind = Math.floor(i / b.fleetSizes.sets) % 3;
        const body = { credentials: "demo", region: "eastus", serverGroupName: name };
        const res =
          kind === 0
            ? await via.api<{ id: string }>("POST", "/azure/ops/resizeServerGroup", resize(name, 2 + (i % 2)))
            : await via.api<{ id: string }>(
                "POST",
                `/azure/ops/${kind === 1 ? "disableServerGroup" : "enableServerGroup"}`,
                body,
              );
        if (res.status !== 202) throw new Error(`fleet submit ${name}: ${res.status} ${JSON.stringify(res.body)}`);
        ids[i] = res.body.id;
      }
    }),
  );
  return ids;
}

async function fleet(b: Bench, shared: boolean, timeScale: number) {
  const databaseUrl = await b.database();
  const env = {
    TASK_STORE: "postgres",
    DATABASE_URL: databaseUrl,
    // No clock: the services learn the simulator's time scale from its answers, and refill as fast as its buckets.
    ARM_BUDGET_SHARED: String(shared),
    LOG_LEVEL: "warn",
  };
  const { sets, ops, replicas: count } = b.fleetSizes;
  const replicas = await Promise.all(
    Array.from({ length: count }, (_, i) =>
      b.service({ ...env, REPLICA_ID: `fleet-${shared ? "shared" : "apart"}-${i}` }),
    ),
  );
  for (let i = 0; i < sets; i++) await b.scaleSet(`fleet-${i}`);
  // Full buckets, Azure's figures, at the fleet's time scale; only this run's calls in the log.
  await b.control.setConfig({ timeScale });
  await b.control.setThrottling({ enabled: true, scale: 1, policies: {} });
  await b.control.clearCalls();
  // The replicas' warm-up took from the budget too: only this run's statements count.
  const statementsBefore = await ledgerStatements(replicas);
  const t0 = Date.now();
  const ids = await submitAll(b, replicas);
  const tasks = await b.waitAll(replicas[0], ids, 100);
  const end = Math.max(...tasks.map((t) => t.endTimeMs ?? 0));
  const calls = await b.control.calls();
  const bound = budgetBoundMs(calls, 1 / timeScale);
  const budgetStatements = (await ledgerStatements(replicas)) - statementsBefore;
  for (const r of replicas) await b.stop(r);
  await b.control.setThrottling({ enabled: false });
  return {
    shared,
    scaleSets: sets,
    operations: ops,
    replicas: count,
    makespanMs: end - t0,
    budgetBoundMs: Math.round(bound.boundMs),
    boundingBucket: bound.bucket,
    // A run that fits in the buckets' bursts has no bound from the budget (at smoke sizes): 0.
    ratio: bound.boundMs > 0 ? (end - t0) / bound.boundMs : 0,
    armCalls: calls.length,
    throttled: calls.filter((c) => c.status === 429).length,
    failedTasks: tasks.filter((t) => t.status.failed).length,
    callsPerSubscriptionBucket: bound.perBucket,
    // What the shared budget cost PostgreSQL per ARM call Azure saw.
    budgetStatements,
    statementsPerArmCall: calls.length > 0 ? budgetStatements / calls.length : 0,
  };
}

export async function measureFleet(b: Bench) {
  const timeScaleBefore = ((await b.control.getConfig()) as unknown as { timeScale: number }).timeScale;
  await b.setWriteDuration(b.throughputD);
  // About one write per two operations in this mix (an enable of an enabled scale set writes nothing).
  const azureBoundMs =
    (Math.max(0, b.fleetSizes.ops / 2 - AZURE_ARM_BUDGETS.writes.burst) * 60_000) /
    AZURE_ARM_BUDGETS.writes.refillPerMinute;
  const timeScale = azureBoundMs > 0 ? (b.fleetSizes.boundS * 1000) / azureBoundMs : 0.001;
  const shared = await fleet(b, true, timeScale);
  b.log(
    `fleet, budget shared: ${shared.makespanMs} ms against a bound of ${shared.budgetBoundMs} ms (${shared.boundingBucket}), ${shared.throttled} × 429, ${shared.statementsPerArmCall.toFixed(3)} budget statements per ARM call`,
  );
  const apart = await fleet(b, false, timeScale);
  b.log(`fleet, each replica its own budget: ${apart.makespanMs} ms, ${apart.throttled} × 429`);
  await b.control.setConfig({ timeScale: timeScaleBefore });
  await b.control.setThrottling({ enabled: true });
  const rows: Row[] = [
    {
      figure: `fleet: ${shared.operations} operations on ${shared.scaleSets} scale sets, ${shared.replicas} replicas on PostgreSQL, Azure's limits: makespan / budget bound`,
      measured: shared.ratio,
      target: "≤ 1.1, 0 × 429",
      met: shared.ratio <= 1.1 && shared.throttled === 0,
      detail: `${(shared.makespanMs / 1000).toFixed(1)} s against ${(shared.budgetBoundMs / 1000).toFixed(1)} s (${shared.boundingBucket}); ${shared.throttled} × 429, ${shared.armCalls} ARM calls, ${shared.failedTasks} failed`,
    },
    {
      figure: "the same with each replica its own budget (ARM_BUDGET_SHARED=false)",
      measured: apart.ratio,
      target: "reported beside it",
      met: null,
      detail: `${(apart.makespanMs / 1000).toFixed(1)} s; ${apart.throttled} × 429, ${apart.armCalls} ARM calls, ${apart.failedTasks} failed`,
    },
  ];
  return { rows, results: { fleet: { timeScale, shared, apart } } } satisfies Figure;
}
