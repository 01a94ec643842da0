// `npm run bench` with tiny sizes, so that the benchmark cannot rot: it must run to the end and write its results
// and chart. Its figures mean nothing at these sizes and are not asserted.
import t from "tap";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "../testkit/child-service.ts";

t.setTimeout(360_000);

t.test("the benchmark runs end to end at smoke sizes", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = spawnSync(process.execPath, ["bench/run.ts", "--smoke", "--out", out], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 220_000,
  });
  t.equal(run.status, 0, `bench exits 0\n${run.stderr}`);
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(results.smoke, true);
  t.equal(results.table.length, 20, "one row per figure");
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

t.test("the soak and the slow store run at smoke sizes and merge their figures", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  for (const part of ["--only-soak", "--only-store-latency"]) {
    const run = spawnSync(process.execPath, ["bench/run.ts", "--smoke", part, "--out", out], {
      cwd: REPO,
      encoding: "utf8",
      timeout: 120_000,
    });
    t.equal(run.status, 0, `bench ${part} exits 0\n${run.stderr}`);
  }
  const results = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  t.equal(results.table.length, 2, "one row each");
  t.ok(results.soak.rssPerMinute[0].aMb > 0, "the soak read replica A's RSS");
  t.ok(results.soak.accepted > 0, "the soak's submissions were accepted");
  t.equal(results.soak.lost, 0, "no accepted task missing from the store");
  t.ok(results.storeLatency.slow.all.requests > 0, "the slow store's load was sent");
});

t.test("the fleet at ten times runs at smoke sizes over several subscriptions and merges its figure", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = spawnSync(process.execPath, ["bench/run.ts", "--smoke", "--only-fleet10", "--out", out], {
    cwd: REPO,
    encoding: "utf8",
    timeout: 120_000,
  });
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
