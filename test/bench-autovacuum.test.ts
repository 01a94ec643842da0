// The benchmark's stand-in for autovacuum decides as autovacuum does: a table is vacuumed once its dead rows pass
// threshold + scale factor × rows, analyzed once its changes pass the analyze threshold, each by the table's own
// settings where it has them.
import t from "tap";
import { autovacuumDue, tableSettings, type VacuumSettings } from "../bench/autovacuum.ts";

// PostgreSQL's defaults.
const server: VacuumSettings = {
  vacuumThreshold: 50,
  vacuumScaleFactor: 0.2,
  analyzeThreshold: 50,
  analyzeScaleFactor: 0.1,
};

t.test("dead rows past threshold + scale factor × rows: vacuum", async (t) => {
  t.equal(
    autovacuumDue({ deadRows: 2_050, rows: 10_000, changedSinceAnalyze: 0 }, server),
    undefined,
    "2,050 is not past 2,050",
  );
  t.equal(autovacuumDue({ deadRows: 2_051, rows: 10_000, changedSinceAnalyze: 0 }, server), "vacuum");
  t.equal(
    autovacuumDue({ deadRows: 51, rows: -1, changedSinceAnalyze: 0 }, server),
    "vacuum",
    "never analyzed: rows -1 count as none",
  );
});

t.test("changes past the analyze threshold, dead rows not: analyze", async (t) => {
  t.equal(autovacuumDue({ deadRows: 0, rows: 10_000, changedSinceAnalyze: 1_051 }, server), "analyze");
  t.equal(autovacuumDue({ deadRows: 0, rows: 10_000, changedSinceAnalyze: 1_050 }, server), undefined);
});

t.test("a table's own settings win over the server's", async (t) => {
  const own = tableSettings(server, ["autovacuum_vacuum_scale_factor=0", "autovacuum_vacuum_threshold=1000"]);
  t.same(own, { vacuumThreshold: 1000, vacuumScaleFactor: 0, analyzeThreshold: 50, analyzeScaleFactor: 0.1 });
  t.equal(autovacuumDue({ deadRows: 1_001, rows: 1_000_000, changedSinceAnalyze: 0 }, own), "vacuum");
  t.same(tableSettings(server, null), server, "no reloptions: the server's");
});
