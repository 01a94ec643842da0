// `npm run bench` with tiny sizes, so that the benchmark cannot rot: it must run to the end and write its results
// and chart. Its figures mean nothing at these sizes and are not asserted. The partial runs are in
// bench-smoke-parts.test.ts: each file stays well inside tap's time-out on a loaded machine.
import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "./helpers/bench-child.ts";

t.setTimeout(290_000);

t.test("the benchmark runs end to end at smoke sizes", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench(t, ["--smoke", "--out", out], 260_000);
  t.equal(run.status, 0, `bench exits 0\n${run.stderr}`);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(results.smoke, true);
  // The growth since the previous release is skipped, with its reason, in a clone without that commit (a shallow one).
  const growthRows = results.growth.skipped === undefined ? 4 : 0;
  t.equal(results.table.length, 20 + growthRows, "one row per figure");
  if (growthRows === 0) t.match(run.stderr, /growth since the previous release: SKIPPED, /, "the skip is said");
  else
    for (const key of ["atOnceRatio", "oneAtATimeRatio", "readCpuRatio", "readsRatio"])
      t.ok(Number.isFinite(results.growth[key]), `growth: ${key} is published`);
  for (const row of results.table) {
    t.type(row.figure, "string");
    t.type(row.target, "string");
    t.ok(Number.isFinite(row.measured), `${row.figure}: a figure was measured`);
  }
  for (const key of ["cpu", "cpuSerial"]) {
    t.ok(
      Number.isFinite(results[key].confirmingSdkMsPerTask) && Number.isFinite(results[key].ratioToConfirming),
      `${key}: the script that also lists the VMs was measured beside the plain one`,
    );
    t.equal(results[key].failed, 0, `${key}: every resize of the service and of both scripts succeeded`);
  }
  t.match(
    readFileSync(join(out, "makespan.svg"), "utf8"),
    /^<svg [^>]*>[\s\S]*<\/svg>\n$/,
    "the chart is an SVG document",
  );
  t.match(run.stdout, /^\| figure \| measured \| target \| met \| detail \|/m, "the table is printed");
});
