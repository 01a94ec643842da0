// The benchmark's tracing cost at smoke size: a service with tracing off beside one exporting every span over
// OTLP/HTTP to a receiver in the benchmark. The figures mean nothing at this size; what is asserted is that the run
// ends, the traced service exported, and both ratios are published.
import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "./helpers/bench-child.ts";

t.setTimeout(200_000);

t.test("tracing on against off at smoke size: both ratios published, spans exported", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench(t, ["--smoke", "--only-tracing", "--out", out], 150_000);
  t.equal(run.status, 0, `bench --only-tracing exits 0\n${run.stderr}`);
  const { tracing, table } = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(table.length, 2, "two rows");
  t.ok(tracing.exports > 0, "the traced service exported its spans to the receiver");
  t.ok(Number.isFinite(tracing.cpuRatio) && tracing.cpuRatio > 0, "the CPU ratio is published");
  t.ok(Number.isFinite(tracing.readsRatio) && tracing.readsRatio > 0, "the reads ratio is published");
});
