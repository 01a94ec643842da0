// What `node bench/run.ts` was asked to do, decided before any work starts: an unknown option, a missing --out
// value, two partial runs at once, or --skip-fleet without the results it keeps are refused at once, never after
// minutes of measuring.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { parseArgs } from "node:util";

export const USAGE = `node bench/run.ts [--smoke] [--out DIR] [--only-fleet | --only-fleet10 | --only-burst | --only-makespan |
                    --only-cpu | --only-growth | --only-reads | --only-soak | --only-azure-link | --only-tracing |
                    --only-store-latency | --only-memory | --only-wal [--tree REF] | --only-deploy | --skip-fleet]
  --smoke          tiny sizes (what npm test runs; figures mean nothing)
  --out DIR        where results.json and makespan.svg go (default bench/)
  --only-fleet     only the fleet and claim figures, merged into DIR/results.json (a fresh one if DIR has none)
  --only-fleet10   only the fleet at ten times the size (10 subscriptions, 10,000 scale sets, 50,000 operations,
                   4 replicas on PostgreSQL; FLEET10_* to shape it), merged into DIR/results.json
  --skip-fleet     every figure but the fleet and the claims, which are kept from DIR/results.json (which must exist)
  --only-burst     only the burst of submissions (SQLite and PostgreSQL), merged into DIR/results.json
  --only-makespan  only the makespans (1 replica, 3 replicas), the plain script's burst and the ARM calls per
                   resize, merged into DIR/results.json; makespan.svg is written again
  --only-cpu       only the CPU per task (32 at once, then one at a time): the service against the plain SDK script
                   and the script that confirms as the service does, with the ARM calls each side made, then the
                   growth since the previous release (as --only-growth); merged into DIR/results.json
  --only-growth    only the growth since the previous release (bench/previous-release): CPU per task (32 at once,
                   one at a time) and GET /task/{id} a second, this tree's service against that release's, 5 rounds
                   alternated; skipped, with the reason, where the clone lacks that commit (a shallow clone);
                   merged into DIR/results.json
  --only-reads     only GET /task/{id} against bare fastify serving the same body (and on a replica keeping no
                   answers), and with ?wait= requests held against none; merged into DIR/results.json
  --only-soak      only the overload soak (2 replicas on PostgreSQL, 10 minutes; SOAK_SECONDS to change it): RSS
                   per minute, nothing lost, every 503 with Retry-After; merged into DIR/results.json
  --only-azure-link only one of two replicas on PostgreSQL cut from Azure (its link black-holed 60 s of 100, 5
                   submissions a second, the default lease and deadlines): task p50 and p99; merged into
                   DIR/results.json
  --only-tracing   only what tracing costs: CPU per task one at a time and GET /task/{id} a second, with every span
                   exported over OTLP/HTTP against tracing off (5 rounds alternated); merged into DIR/results.json
  --only-store-latency
                   only the slow store (every packet to PostgreSQL held 300-500 ms for 30 s): p99, the share
                   answered 503 and the share timed out; merged into DIR/results.json
  --only-memory    only the throughput figure's peak RSS (median of 5 runs of 5,000 tasks) and start to first
                   /health (median of 5 starts, full and empty store alternated), merged into DIR/results.json
  --only-wal       only PostgreSQL's WAL and statements per resize through the service (1 replica), this tree
                   against the tree before (the previous release's, bench/previous-release, or --tree REF) beside it,
                   rounds alternated; WAL_DATABASE_URL: a PostgreSQL server nothing else writes to (default
                   TEST_DATABASE_URL's); merged into DIR/results.json
  --tree REF       with --only-wal: the commit to compare against instead of the previous release (bench/previous-release)
  --only-deploy    only a deploy's overhead: Orca's red/black and rolling red/black 10/50/100 of 10 and 100 instances
                   (1 replica on SQLite, 3 on PostgreSQL) against Azure's critical path read from the same run's
                   call log, and the red/black of 10 on 3 again at time scale 0.1; merged into DIR/results.json
`;

export interface BenchArgs {
  help: boolean;
  smoke: boolean;
  out: string;
  part: BenchPart;
  /** --only-wal's tree before (--tree), when given. */
  tree?: string;
}

export type BenchArgsResult = { ok: true; args: BenchArgs } | { ok: false; message: string };

/** The partial runs, each an option of its own (--only-…, --skip-fleet). */
const PARTS = [
  "only-fleet",
  "only-fleet10",
  "skip-fleet",
  "only-burst",
  "only-makespan",
  "only-cpu",
  "only-growth",
  "only-reads",
  "only-soak",
  "only-azure-link",
  "only-tracing",
  "only-store-latency",
  "only-memory",
  "only-wal",
  "only-deploy",
] as const;

export type BenchPart = "all" | (typeof PARTS)[number];

const PART_OPTIONS = Object.fromEntries(PARTS.map((part) => [part, { type: "boolean" }])) as Record<
  (typeof PARTS)[number],
  { type: "boolean" }
>;

/** Reads the arguments; `defaultOut` is where results go without --out. Checks the file system only for --skip-fleet. */
export function parseBenchArgs(argv: string[], defaultOut: string): BenchArgsResult {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: "boolean" },
        smoke: { type: "boolean" },
        out: { type: "string" },
        tree: { type: "string" },
        ...PART_OPTIONS,
      },
    }));
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
  const chosen = PARTS.filter((p) => values[p] === true);
  if (chosen.length > 1)
    return { ok: false, message: `--${chosen.join(" and --")} cannot be combined: choose one part of the run` };
  if (values.out !== undefined && values.out.trim() === "")
    return { ok: false, message: "--out needs a directory, got an empty value" };
  const out = values.out ?? defaultOut;
  const part: BenchPart = chosen[0] ?? "all";
  if (part === "skip-fleet" && !existsSync(join(out, "results.json")))
    return {
      ok: false,
      message: `--skip-fleet keeps the fleet and claim figures of ${join(out, "results.json")}, which does not exist: run without --skip-fleet, or --only-fleet first`,
    };
  if (values.tree !== undefined && part !== "only-wal")
    return { ok: false, message: "--tree names the tree before of --only-wal: use it with --only-wal" };
  if (values.tree !== undefined && values.tree.trim() === "")
    return { ok: false, message: "--tree needs a commit, got an empty value" };
  const tree = values.tree === undefined ? {} : { tree: values.tree };
  return { ok: true, args: { help: values.help === true, smoke: values.smoke === true, out, part, ...tree } };
}
