// The benchmark's deploy figure at smoke size: Orca's red/black and rolling red/black of 2 instances, on 1 replica
// (SQLite) and on 2 replicas (PostgreSQL), against Azure's critical path read from the run's call log. The figures
// mean nothing at this size; what is asserted is that every deploy ran through, and that the run's time is accounted
// for: the critical path, what the service added and Orca's own time.
import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "./helpers/bench-child.ts";

t.setTimeout(240_000);

t.test("the deploy figure at smoke size: both strategies on both setups, their time accounted for", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench(t, ["--smoke", "--only-deploy", "--out", out], 200_000);
  t.equal(run.status, 0, `bench --only-deploy exits 0\n${run.stderr}`);
  const { deploy, table } = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(table.length, 4, "a row per strategy and setup");
  for (const r of deploy.runs) {
    const what = `${r.strategy} on ${r.setup}`;
    t.ok(r.criticalPathMs > 0 && r.chain.length > 0, `${what}: a critical path was read from the call log`);
    t.ok(r.serviceMs >= r.criticalPathMs, `${what}: the service's makespan is no shorter than Azure's path`);
    const shares = Object.values(r.gaps as Record<string, number>).reduce((x, y) => x + y, 0);
    t.ok(
      Math.abs(shares + r.criticalPathMs - r.makespanMs) <= 2,
      `${what}: the path and the shares add up to the makespan`,
    );
    t.ok(r.tasks >= 3, `${what}: Orca ran its tasks`);
  }
});
