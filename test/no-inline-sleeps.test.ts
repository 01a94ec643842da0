// No test sleeps and hopes: a test waits for the event it needs with testkit/wait-for.ts, which fails naming what
// it waited for. A pause on a timer is allowed only where the time is itself what is tested or modelled, file by file
// below, each with its reason and the number of lines it may hold (so that a new one is seen, and a stale entry too).
import t from "tap";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const TEST_DIR = import.meta.dirname;
const REPO = join(TEST_DIR, "..");

/** The one place that pauses on a timer for the tests, and this file, which names the shapes it looks for. */
const EXEMPT = [
  "testkit/wait-for.ts",
  // the simulator package's copy of it, so that the package is tested on its own files
  "packages/vmss-simulator/test/helpers/wait-for.ts",
  "test/no-inline-sleeps.test.ts",
];

/** Where tests (and benchmarks) live: test/, testkit/, which both share, and the simulator package's own tests. */
const SCANNED = [TEST_DIR, join(REPO, "testkit"), join(REPO, "packages", "vmss-simulator", "test")];

/** Where a timed pause is what is tested or modelled: file → how many lines, and why. */
const ALLOWED: Record<string, { lines: number; reason: string }> = {
  "test/retry-deadline.test.ts": {
    lines: 1,
    reason: "the burst's length is what is tested: the task must still be retrying BURST_MS on, bounded by a deadline",
  },
  "test/randomized-concurrency.test.ts": {
    lines: 4,
    reason:
      "the drawn schedule: each actor acts at its random moment and, like another tool, pauses before trying again",
  },
  "test/task-store-suite.ts": {
    lines: 2,
    reason:
      "concurrent owners: a task held for i ms as a run holds it, and an idle owner's pause before claiming again",
  },
  "test/arm-budget-lease.test.ts": {
    lines: 1,
    reason:
      "calls arriving a couple of ms apart, one a turn, are what is tested: a replica whose calls come at that pace spaces its takes",
  },
  "test/task-store-sqlite.test.ts": {
    lines: 1,
    reason: "a child process's moment off the file between claims, so the other processes' claims come in between",
  },
  "testkit/orca.ts": {
    lines: 2,
    reason: "Orca's RetryableTask as Orca runs it: polls at its backoff and ends the stage TERMINAL at its timeout",
  },
  "test/generated-client.test.ts": {
    lines: 1,
    reason:
      "the source of a client program compiled and run on its own: its poll loop is what a user of the client writes",
  },
  "test/python/vmss_client.py": {
    lines: 1,
    reason: "a Python SDK user's program: it retries a 409 after a pause, as a client of Azure does",
  },
};

/** The shapes of an inline sleep, one line each. */
const SLEEPS: RegExp[] = [
  /setTimeout\(\s*(?:r|res|resolve|done|next|wake|go)\s*,/, // new Promise((r) => setTimeout(r, ms))
  /setTimeout\(\s*\(\)\s*=>\s*(?:r|res|resolve|done|next|wake|go)\(\s*\)\s*,/, // setTimeout(() => r(), ms)
  /\bawait\s+(?:sleep|sleepUntil|delay|pause|wait)\s*\(/, // a sleep by another name
  /\bimport\b[^;]*\bsetTimeout\b[^;]*timers\/promises/, // import { setTimeout } from "node:timers/promises"
  /\bscheduler\.wait\(/,
  /promisify\(\s*setTimeout\s*\)/,
  /\bAtomics\.wait\(/,
  /\bsetInterval\(/, // a poll on a timer
  /while\s*\(\s*Date\.now\(\)\s*<[^)]*\)\s*;/, // a busy wait
  /\b(?:time|asyncio)\.sleep\(/, // Python
];

const isSleep = (line: string) => SLEEPS.some((p) => p.test(line));

function files(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === "node_modules" || e.name.startsWith(".") ? [] : files(path);
    return /\.(?:[mc]?[jt]s|py)$/.test(e.name) ? [path] : [];
  });
}

t.test("the shapes it looks for: sleeps are found, timers that are not sleeps are not", async (t) => {
  for (const line of [
    "await new Promise((r) => setTimeout(r, 20));",
    "await new Promise((resolve) => setTimeout(resolve, 50));",
    "const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));",
    "await new Promise<void>((r) => setTimeout(() => r(), 10));",
    "if (!healthy) await sleep(100);",
    'import { setTimeout as wait } from "node:timers/promises";',
    "while (Date.now() < at);",
    "        time.sleep(0.3)",
    "const check = setInterval(() => {",
  ])
    t.ok(isSleep(line), `a sleep: ${line}`);
  for (const line of [
    "t.setTimeout(240_000);",
    "link.delay(0, 0);",
    'const timer = setTimeout(() => reject(new Error("did not start")), 30_000);',
    'new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))',
    "await waitFor(() => Date.now() > created, { what: 'the clock to move on', intervalMs: 1 });",
    "await new Promise((r) => res.write(chunk, r));",
  ])
    t.notOk(isSleep(line), `not a sleep: ${line}`);
});

t.test("no inline sleep in test/ or testkit/ outside wait-for.ts and the allowed time tests", async (t) => {
  const found = new Map<string, string[]>();
  for (const path of SCANNED.flatMap(files)) {
    const name = relative(REPO, path).split("\\").join("/");
    if (EXEMPT.includes(name)) continue;
    const lines = readFileSync(path, "utf8")
      .split("\n")
      .flatMap((line, i) => (isSleep(line) ? [`${name}:${i + 1}: ${line.trim()}`] : []));
    if (lines.length > 0) found.set(name, lines);
  }
  for (const [name, lines] of found) {
    const allowed = ALLOWED[name];
    if (!allowed)
      t.fail(`${name}: wait for the event with testkit/wait-for.ts instead of sleeping:\n${lines.join("\n")}`);
    else if (lines.length !== allowed.lines)
      t.fail(
        `${name}: ${lines.length} timed pauses where ${allowed.lines} are allowed (${allowed.reason}); a new one ` +
          `waits for its event with testkit/wait-for.ts, and a removed one lowers the count here:\n${lines.join("\n")}`,
      );
  }
  // An allowed file that has moved out of test/ leaves a harmless entry behind; one still here must still pause.
  for (const [name, allowed] of Object.entries(ALLOWED))
    if (!found.has(name) && existsSync(join(REPO, name)))
      t.fail(`${name} is allowed ${allowed.lines} timed pause(s) but has none: remove it from ALLOWED`);
  t.pass(`${found.size} file(s) with a timed pause, each allowed: ${[...found.keys()].join(", ")}`);
});
