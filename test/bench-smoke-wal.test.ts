// The benchmark's WAL per resize at smoke size: this tree's service against the tree before (the previous release's,
// bench/previous-release), one round each. The figures mean nothing at this size; what is asserted is
// that the run ends and publishes both ratios, or says why the tree before could not be made (a shallow clone).
import t from "tap";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runBench } from "./helpers/bench-child.ts";

t.setTimeout(200_000);

t.test("WAL and statements per resize, this tree against the tree before, at smoke size", async (t) => {
  const out = mkdtempSync(join(tmpdir(), "vmss-ops-bench-smoke-"));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  const run = await runBench(t, ["--smoke", "--only-wal", "--out", out], 150_000);
  t.equal(run.status, 0, `bench --only-wal exits 0\n${run.stderr}`);
  const { wal, table } = JSON.parse(readFileSync(join(out, "results.json"), "utf8"));
  if (wal.skipped) {
    t.match(run.stderr, /wal: skipped, the tree before cannot be made/, "the run says why it measured nothing");
    t.equal(table.length, 0, "no row");
    return;
  }
  t.equal(table.length, 2, "the WAL's row and the statements'");
  t.same(
    wal.rounds.map((r: { side: string }) => r.side),
    ["before", "after"],
    "one round a side, the tree before first",
  );
  t.equal(wal.failedTasks, 0, "every resize succeeded on both trees");
  t.ok(Number.isFinite(wal.walRatio) && wal.walRatio > 0, "the WAL ratio is published");
  t.ok(Number.isFinite(wal.statementsRatio) && wal.statementsRatio > 0, "the statements ratio is published");
  t.match(readFileSync(join(out, "results.json"), "utf8"), /"baseline": "[0-9a-f]{40}"/, "the commit compared against");
});
