// The benchmark's partial runs at smoke sizes (the whole run is bench-smoke.test.ts): the soak and the slow store,
// and the fleet at ten times. Figures mean nothing at these sizes and are not asserted.
import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "./helpers/bench-child.ts";

t.setTimeout(280_000);

t.test("the soak and the slow store run at smoke sizes and merge their figures", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  for (const part of ["--only-soak", "--only-store-latency"]) {
    const run = await runBench(t, ["--smoke", part, "--out", out], 120_000);
    t.equal(run.status, 0, `bench ${part} exits 0\n${run.stderr}`);
  }
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(results.table.length, 3, "the soak's two rows and the slow store's one");
  t.ok(results.soak.rssPerMinute[0].aMb > 0, "the soak read replica A's RSS");
  t.ok(results.soak.accepted > 0, "the soak's submissions were accepted");
  t.equal(results.soak.lost, 0, "no accepted task missing from the store");
  t.type(results.soak.pastPatience, "number", "the share of requests past the client's patience is published");
  t.ok(results.storeLatency.slow.all.requests > 0, "the slow store's load was sent");
});

t.test("the fleet at ten times runs at smoke sizes over several subscriptions and merges its figure", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench(t, ["--smoke", "--only-fleet10", "--out", out], 120_000);
  t.equal(run.status, 0, `bench --only-fleet10 exits 0\n${run.stderr}`);
  const { fleet10, table } = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.same(
    table.map((row: { figure: string }) => row.figure.replace(/:.*/, "")),
    ["fleet ×10", "fleet ×10", "fleet ×10", "fleet ×10"],
    "the fleet, its two claim rows and the model's row, named as the fleet ×10's",
  );
  t.equal(fleet10.subscriptions, 2, "the operations spread over two subscriptions");
  for (const key of ["operations", "scaleSets", "replicas", "throttled", "ratio", "armCalls"])
    t.ok(Number.isFinite(fleet10[key]), `${key} at the figure's top level`);
  t.equal(fleet10.shared, true);
  t.equal(fleet10.failedTasks, 0, "every task succeeded");
  t.ok(fleet10.postgres.transactions > 0, "PostgreSQL's own count of the run's statements was read");
  t.ok(fleet10.tables.some((r: { table: string; rows: number }) => r.table === "tasks" && r.rows > 0));
});
