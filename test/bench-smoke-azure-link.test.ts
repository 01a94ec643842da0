// The benchmark's Azure-link fault at smoke size: two replicas on PostgreSQL, one's link to Azure black-holed through
// a CONNECT proxy for a few seconds. The figure means nothing at this size; what is asserted is that the run ends,
// every task submitted ends, and the latencies are published.
import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "./helpers/bench-child.ts";

t.setTimeout(200_000);

t.test("one replica cut from Azure at smoke size: every task ends, its latencies published", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench(t, ["--smoke", "--only-azure-link", "--out", out], 150_000);
  t.equal(run.status, 0, `bench --only-azure-link exits 0\n${run.stderr}`);
  const { azureLink, table } = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(table.length, 1, "one row");
  t.ok(azureLink.submitted > 0, "tasks were submitted");
  const ended = Object.values(azureLink.states as Record<string, number>).reduce((x, y) => x + y, 0);
  t.equal(ended, azureLink.submitted, "every task submitted is in the store");
  t.equal(azureLink.states.succeeded, azureLink.submitted, `and succeeded: ${JSON.stringify(azureLink.failures)}`);
  t.ok(Number.isFinite(azureLink.p99Ms), "p99 published");
});
