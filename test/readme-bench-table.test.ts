// The README's benchmark table is bench/results.json's (npm run bench:table), and the generator reads whatever that
// file holds: a figure it lacks is "not measured", a target missed is "no", a run at other sizes says neither.
import t from "tap";
import { readFileSync } from "node:fs";
import { benchTable, README, RESULTS, ROWS, withBenchTable } from "../scripts/write-bench-table.ts";

/** The table's rows by figure: [measured, target, met]. */
function rows(table: string): Map<string, string[]> {
  const lines = table
    .split("\n")
    .filter((l) => l.startsWith("| ") && !l.startsWith("| figure") && !l.startsWith("| ---"));
  return new Map(lines.map((l) => l.slice(2, -2).split(" | ")).map(([figure, ...rest]) => [figure, rest]));
}

t.test("README.md's benchmark table is bench/results.json's (npm run bench:table)", async (t) => {
  const readme = readFileSync(README, "utf8");
  const results = JSON.parse(readFileSync(RESULTS, "utf8"));
  t.equal(
    readme,
    withBenchTable(readme, results),
    "README.md's benchmark table differs from bench/results.json: run npm run bench:table and commit the result",
  );
  t.equal(rows(benchTable(results)).size, ROWS.length, "one row per target");
});

t.test("a file that holds nothing measured: every row says so", async (t) => {
  const table = rows(benchTable({ machine: { cores: 2 } }));
  t.equal(table.size, ROWS.length);
  for (const [figure, [measured, , met]] of table) {
    t.equal(measured, "not measured", figure);
    t.equal(met, "—", figure);
  }
});

t.test("a figure read against its target: met, missed, or measured at other sizes", async (t) => {
  const run = (ratio: number, extra = {}) => ({
    k: 20,
    ratio,
    writes: 20,
    refused: 0,
    lastSubmittedWins: true,
    ...extra,
  });
  const table = rows(
    benchTable({
      makespan: {
        oneReplicaSqlite: [run(1.04)],
        replicasPostgres: { replicas: 3, runs: [run(1.05, { lastSubmittedWins: false })] },
      },
      fleet: { shared: { ratio: 1.2, throttled: 0, operations: 500, scaleSets: 100 } },
      fleet10: {
        ratio: 1.04,
        throttled: 0,
        failedTasks: 0,
        operations: 50_000,
        scaleSets: 10_000,
        subscriptions: 10,
        replicas: 4,
      },
      startup: { fullStoreMs: 390 },
      throughput: { peakRssMb: 151 },
    }),
  );
  t.same(table.get("K = 20 resizes of one scale set, 1 replica: makespan / K·D"), [
    "1.04",
    "≤ 1.1, K writes, 0 refused",
    "yes",
  ]);
  t.same(
    table.get("the same, 3 replicas on PostgreSQL"),
    ["1.05, 20 writes, 0 refused, last lost", "≤ 1.1, K writes, 0 refused, last wins", "**no**"],
    "the last submitted lost: missed whatever the time",
  );
  t.same(table.get("start to first `/health`, 10,000 tasks stored"), ["0.39 s", "≤ 0.4 s", "yes"]);
  t.same(table.get("peak RSS, 5,000 tasks, 8 MB semi-spaces"), ["151 MB", "≤ 165 MB (guard)", "yes"]);
  t.same(
    rows(benchTable({ throughput: { peakRssMb: 170 } })).get("peak RSS, 5,000 tasks, 8 MB semi-spaces"),
    ["170 MB", "≤ 165 MB (guard)", "**no**"],
    "past the guard",
  );
  const fleet = [...table.entries()].find(([f]) => f.startsWith("fleet"))![1];
  t.same(
    fleet,
    ["1.20, 0 × 429 (500 operations, 100 scale sets)", "≤ 1.1, 0 × 429", "—"],
    "a scaled-down fleet is shown, not judged",
  );
  const fleet10 = [...table.entries()].find(([f]) => f.startsWith("fleet ×10"))![1];
  t.same(fleet10, ["1.04, 0 × 429", "≤ 1.1, 0 × 429, none failed", "yes"], "the fleet at ten times, met");
  const smaller = rows(
    benchTable({
      fleet10: {
        ratio: 1.02,
        throttled: 0,
        failedTasks: 1,
        operations: 5000,
        scaleSets: 1000,
        subscriptions: 1,
        replicas: 4,
      },
    }),
  );
  t.same(
    [...smaller.entries()].find(([f]) => f.startsWith("fleet ×10"))![1],
    [
      "1.02, 0 × 429, 1 failed (5,000 operations, 1,000 scale sets, 1 subscription, 4 replicas)",
      "≤ 1.1, 0 × 429, none failed",
      "—",
    ],
    "one subscription of the shape is shown, not judged",
  );
});

t.test(
  "an older layout of the file (2 replicas for the makespans) is not read as the 3 the target names",
  async (t) => {
    const table = rows(
      benchTable({
        makespan: { twoReplicasPostgres: [{ k: 20, ratio: 1.06, writes: 20, refused: 0, lastSubmittedWins: true }] },
      }),
    );
    t.same(table.get("the same, 3 replicas on PostgreSQL"), [
      "not measured",
      "≤ 1.1, K writes, 0 refused, last wins",
      "—",
    ]);
  },
);

t.test(
  "the CPU rows hold the ratio to the script making the same ARM calls to their guards (2.5 at once, 2.0 one at a time), with the runs and the service-only cost beside it, and the note under the table the machine's yardstick",
  async (t) => {
    const results = {
      machine: { cores: 2 },
      cpu: { ratio: 3.1, ratioToConfirming: 2.68, serviceOnlyMsPerTask: 2.5, plainSdkMsPerTask: 4.17 },
      cpuSerial: { ratio: 1.6, ratioToConfirming: 1.45, runs: [1.5, 1.45, 1.2, 1.9, 1.3] },
    };
    const table = rows(benchTable(results));
    t.same(table.get("the same, 300 resizes 32 at a time"), [
      "2.68 (one run; service-only 2.50 ms a task)",
      "≤ 2.5 (guard)",
      "**no**",
    ]);
    t.same(
      table.get("CPU per task / the script making the same ARM calls, one at a time"),
      ["1.45 (median of 5)", "≤ 2 (guard)", "yes"],
      "without the service-only cost, the ratio and its runs",
    );
    t.same(
      rows(benchTable({ cpuSerial: { ratio: 1.6, ratioToConfirming: 1.45, failed: 3 } })).get(
        "CPU per task / the script making the same ARM calls, one at a time",
      ),
      ["1.45 (one run)", "≤ 2 (guard)", "**no**"],
      "a run whose resizes failed is not met, as the benchmark judges it",
    );
    t.same(
      rows(benchTable({ machine: { cores: 2 }, cpuSerial: { ratio: 1.2 } })).get(
        "CPU per task / the script making the same ARM calls, one at a time",
      ),
      ["not measured", "≤ 2 (guard)", "—"],
      "a file from before the script making the same calls: not comparable",
    );
    t.match(benchTable(results), /^On 2 cores, where the plain SDK script spent 4\.17 ms of CPU per resize; /m);
    t.notMatch(
      benchTable({ machine: { cores: 2 } }),
      /plain SDK script spent/,
      "no yardstick when it was not measured",
    );
    t.match(
      benchTable({
        ...results,
        takenAt: "2026-11-27T01:00:00Z",
        fleet: { takenAt: "2026-11-27T05:00:00Z" },
        makespan: { takenAt: "2026-11-25T05:00:00Z" },
      }),
      /^On 2 cores \(most figures 2026-11-27, the makespans 2026-11-25\),/m,
      "a part measured on the day of the whole run is not named again",
    );
  },
);

t.test("the soak is judged at its full length only", async (t) => {
  const soak = (durationS: number, growth: number, bare = 0) => ({
    takenAt: "2026-11-27T12:00:00Z",
    settings: { durationS },
    secondHalfGrowthMbPerMin: growth,
    lost: 0,
    acceptedTwice: 0,
    submissions: { unavailableBare: bare },
    reads: { unavailableBare: 0 },
  });
  const figure = "overload soak, 10 min, 2 replicas: RSS growth, second half";
  t.same(rows(benchTable({ soak: soak(600, 0) })).get(figure), [
    "0.0 MB/min, 0 lost, 0 bare 503",
    "≤ 2 MB/min, 0 lost, 0 bare 503",
    "yes",
  ]);
  t.equal(rows(benchTable({ soak: soak(600, 33) })).get(figure)?.[2], "**no**", "RSS still growing");
  t.equal(rows(benchTable({ soak: soak(600, 0, 3) })).get(figure)?.[2], "**no**", "a 503 without Retry-After");
  t.equal(rows(benchTable({ soak: soak(60, 0) })).get(figure)?.[2], "—", "a minute proves nothing of levelling off");
});
