// The benchmark driver refuses what it cannot do before it measures anything, and a partial run into a folder that
// holds no results yet writes a fresh results file instead of dying at the end of the run. The benchmarks reach into
// test/ for nothing: what they share with the tests is testkit/.
import t, { type Test } from "tap";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseBenchArgs } from "../bench/run-args.ts";
import { mergeResults } from "../bench/results-file.ts";

function freshDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), "vmss-ops-bench-args-"));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test("arguments", async (t) => {
  const dir = freshDir(t);
  t.same(parseBenchArgs([], "/default"), {
    ok: true,
    args: { help: false, smoke: false, out: "/default", part: "all" },
  });
  t.same(parseBenchArgs(["--only-fleet", "--out", dir], "/default"), {
    ok: true,
    args: { help: false, smoke: false, out: dir, part: "only-fleet" },
  });
  t.same(parseBenchArgs(["--only-wal", "--tree", "e51a1af"], "/default"), {
    ok: true,
    args: { help: false, smoke: false, out: "/default", part: "only-wal", tree: "e51a1af" },
  });
  for (const part of [
    "only-cpu",
    "only-growth",
    "only-soak",
    "only-store-latency",
    "only-memory",
    "only-fleet10",
    "only-wal",
    "only-deploy",
  ] as const)
    t.same(parseBenchArgs([`--${part}`, "--smoke"], "/default"), {
      ok: true,
      args: { help: false, smoke: true, out: "/default", part },
    });
  const refused: [string[], RegExp][] = [
    [["--only-soak", "--only-store-latency"], /--only-soak and --only-store-latency cannot be combined/],
    [["--only-flet"], /Unknown option '--only-flet'/],
    [["--out"], /--out/],
    [["--out", ""], /--out needs a directory/],
    [["--only-fleet", "--only-burst"], /--only-fleet and --only-burst cannot be combined/],
    [["--only-makespan", "--only-cpu"], /--only-makespan and --only-cpu cannot be combined/],
    [["--only-fleet", "--only-fleet10"], /--only-fleet and --only-fleet10 cannot be combined/],
    [["--skip-fleet", "--out", dir], /results\.json, which does not exist/],
    [["extra"], /positional/i],
    [["--only-cpu", "--tree", "e51a1af"], /--tree names the tree before of --only-wal/],
    [["--tree", "e51a1af"], /--tree names the tree before of --only-wal/],
    [["--only-wal", "--tree", ""], /--tree needs a commit/],
  ];
  for (const [argv, message] of refused) {
    const result = parseBenchArgs(argv, "/default");
    t.equal(result.ok, false, argv.join(" "));
    if (!result.ok) t.match(result.message, message, argv.join(" "));
  }
});

t.test("a bad argument is refused at once, with the usage, exit status 2", async (t) => {
  const run = spawnSync(process.execPath, ["bench/run.ts", "--only-flet"], { encoding: "utf8", timeout: 60_000 });
  t.equal(run.status, 2);
  t.match(run.stderr, /Unknown option '--only-flet'/);
  t.match(run.stderr, /--only-fleet/);
  t.notMatch(run.stderr, /machine:/, "no figure was started");
});

t.test("a partial run into a fresh folder writes a fresh results file", async (t) => {
  const dir = freshDir(t);
  const path = mergeResults(dir, [{ figure: "claim with 100 queued" }], { fleet: { ratio: 1 } });
  t.same(JSON.parse(readFileSync(path, "utf8")), { table: [{ figure: "claim with 100 queued" }], fleet: { ratio: 1 } });
});

t.test("merged rows replace rows of the same figure, numbers aside, where they stood", async (t) => {
  const dir = freshDir(t);
  writeFileSync(
    join(dir, "results.json"),
    JSON.stringify({ table: [{ figure: "a 1" }, { figure: "b 10,000", old: true }, { figure: "c" }], smoke: false }),
  );
  mergeResults(dir, [{ figure: "b 20,000" }, { figure: "d" }], { extra: 1 }, (f) => f === "c");
  t.same(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")), {
    table: [{ figure: "a 1" }, { figure: "b 20,000" }, { figure: "d" }],
    smoke: false,
    extra: 1,
  });
});

t.test(
  "a partial run's rows that differ only by their numbers are all kept, where the earlier ones of that shape stood",
  async (t) => {
    const dir = freshDir(t);
    const earlier = [{ figure: "a" }, { figure: "deploy of 10", old: true }, { figure: "deploy of 100", old: true }];
    writeFileSync(join(dir, "results.json"), JSON.stringify({ table: [...earlier, { figure: "z" }] }));
    mergeResults(
      dir,
      [{ figure: "deploy of 10" }, { figure: "deploy of 100" }, { figure: "new 1" }, { figure: "new 2" }],
      {},
    );
    t.same(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")).table, [
      { figure: "a" },
      { figure: "deploy of 10" },
      { figure: "deploy of 100" },
      { figure: "z" },
      { figure: "new 1" },
      { figure: "new 2" },
    ]);
  },
);

t.test("the benchmarks, and testkit/ that they share with the tests, import nothing of test/", async (t) => {
  const repo = join(import.meta.dirname, "..");
  const sources = ["bench", "testkit"].flatMap((dir) =>
    readdirSync(join(repo, dir), { recursive: true, encoding: "utf8" })
      .filter((f) => /\.(ts|mjs)$/.test(f))
      .map((f) => join(dir, f)),
  );
  t.ok(
    sources.includes(join("bench", "figures", "fleet.ts")),
    `bench/ and testkit/ were read (${sources.length} files)`,
  );
  const intoTest = sources.flatMap((file) =>
    [...readFileSync(join(repo, file), "utf8").matchAll(/(?:from\s+|import\()\s*"([^"]+)"/g)]
      .map((m) => m[1])
      .filter((spec) => spec.startsWith(".") && join(file, "..", spec).split("/")[0] === "test")
      .map((spec) => `${file} → ${spec}`),
  );
  t.same(intoTest, [], "what both need lives in testkit/");
});
