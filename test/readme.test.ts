// A newcomer's path through the README, exactly: the quickstart (`npm start`, on free ports), the Try it blocks as
// written (a resize, a failing task, a refused request), a restart, then the same blocks again, which must print
// the same (task ids and clock times aside). Then the helpers' own promises: they stop on errors, never wait
// forever, and say why in their exit status.
import t, { type Test } from "tap";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { REPO } from "../testkit/child-service.ts";
import { fences, normalizeRun, runBlocks, section, startDemo } from "./helpers/doc-commands.ts";

// npm start twice and the README's blocks twice, with three-second writes as npm start has them.
t.setTimeout(10 * 60_000);
const readme = readFileSync(join(REPO, "README.md"), "utf8");
const quickstart = section(readme, "Quickstart");
const tryIt = section(readme, "Try it");
const blocks = fences(tryIt)
  .filter((f) => f.lang === "sh")
  .map((f) => f.body);

t.test("the quickstart says what to run, which ports, and where the page is", async (t) => {
  const commands = fences(quickstart).find((f) => f.lang === "shell")?.body ?? "";
  t.match(commands, /npm install && npm start .*7002.*7003/, "npm start, with its two ports");
  t.match(commands, /npm install && npm test/, "npm test");
  t.match(quickstart, /http:\/\/127\.0\.0\.1:7002\/ui/, "the status page");
  t.match(quickstart, /clean slate/, "what a restart keeps is said");
  t.ok(blocks.length >= 3, `Try it has its blocks (${blocks.length})`);
  // What is written by hand and the benchmark table generated from bench/results.json (whose cells grow and shrink
  // with the figures measured, a "not measured" becoming a rate), each held: a target more is a row, not a page.
  const tableStart = readme.indexOf("<!-- benchmark table");
  const table = readme.slice(tableStart, readme.indexOf("<!-- end of benchmark table -->"));
  t.ok(
    readme.length - table.length < 11_000,
    `the README fits on a few screens (${readme.length - table.length} characters by hand)`,
  );
  t.ok(table.length < 2_600, `its benchmark table too (${table.length} characters)`);
  // Shown, not run as written: the quickstart (its npm start is started below; npm test is this suite) and the
  // development commands. Every other command block is ```sh and runs below.
  t.equal(
    fences(readme).filter((f) => f.lang === "shell").length,
    2,
    "two blocks fenced shell: quickstart and development",
  );
  t.same(
    fences(readme).filter((f) => f.lang === "sh").length,
    blocks.length,
    "every sh block of the README is in Try it, and runs",
  );
});

const demo = await startDemo({ npm: true });
t.teardown(() => demo.stop());

t.test("npm start prints what the README shows", async (t) => {
  const shown = fences(quickstart).find((f) => f.lang === "" && f.body.includes("listening on"))!.body;
  for (const line of shown.split("\n").filter((l) => l && l !== "…")) {
    const pattern = line
      .replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
      .replaceAll("7002", String(demo.apiPort))
      .replaceAll("7003", String(demo.simPort))
      .replaceAll("…", ".*");
    t.match(demo.output(), new RegExp(pattern), `prints: ${line}`);
  }
});

t.test("the page the quickstart points to: / leads to /ui, which answers", async (t) => {
  const root = await fetch(`http://127.0.0.1:${demo.apiPort}/`, { redirect: "manual" });
  t.equal(root.headers.get("location"), "/ui");
  const page = await fetch(`http://127.0.0.1:${demo.apiPort}/ui`);
  t.equal(page.status, 200);
  t.match(page.headers.get("content-type"), /text\/html/);
});

function expectOutputShown(t: Test, out: string) {
  const json = fences(tryIt).find((f) => f.lang === "json")!.body;
  for (const status of json.matchAll(/"status":"((?:[^"\\]|\\.)*)"/g))
    t.ok(out.includes(`"status":"${status[1]}"`), `the history line is printed: ${status[1]}`);
  const calls = json.match(/"armCalls":\d+/)![0];
  t.ok(out.includes(calls), `the run makes as many ARM calls as shown (${calls})`);
  const shownOutputs = fences(tryIt).filter((f) => f.lang === "" && f.body.includes("exit status"));
  t.equal(shownOutputs.length, 2, "the failing examples show their output, with curl and with the command");
  for (const block of shownOutputs) {
    // The lines, in the order shown, each matched after the one before ("…" stands for what varies or is left out).
    const pattern = block.body
      .split("\n")
      .filter((l) => l && l !== "…")
      .map((l) => l.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replaceAll("…", ".*"))
      .join("[\\s\\S]*");
    t.match(out, new RegExp(pattern), `prints, in order: ${block.body.split("\n")[0].slice(0, 60)} …`);
  }
}

let first = "";
t.test("the Try it blocks, as written", async (t) => {
  const run = runBlocks(blocks, demo);
  first = run.out;
  if (run.status !== 0) t.comment(run.out);
  t.equal(run.status, 0, "the script exits 0: the failing examples say so in their output, not by stopping it");
  t.notMatch(run.out, /"statusCode":5\d\d/, "no 5xx");
  t.match(run.out, /"state":"succeeded","operations":\["resizeServerGroup"\]/, "the resize succeeded");
  t.match(run.out, /"capacity":\{"min":1,"max":10,"desired":5\}/, "and Azure reports the new capacity");
  t.match(run.out, /task [0-9a-f-]+: succeeded \(resizeServerGroup\)\n/, "the command waited for its resize");
  expectOutputShown(t, run.out);
});

t.test("after a restart of npm start, the same blocks print the same", async (t) => {
  await demo.stop();
  t.notMatch(demo.output(), /shutdown took too long|failed to start|Error:/, "npm start stops cleanly on SIGTERM");
  const again = await startDemo({ npm: true, ports: { apiPort: demo.apiPort, simPort: demo.simPort } });
  t.teardown(() => again.stop());
  const run = runBlocks(blocks, again);
  t.equal(run.status, 0);
  t.equal(normalizeRun(run.out), normalizeRun(first), "the same output, ids and times aside");
  t.notOk(
    /[0-9a-f]{8}-[0-9a-f]{4}-/.test(normalizeRun(first)),
    "every id was normalized, so the comparison is of the rest",
  );

  const helpers = blocks[0];
  const unknown = runBlocks([helpers, `wait_task no-such-task || echo "exit status $?"`], again);
  t.match(unknown.out, /"statusCode":404/, "an unknown task prints the error");
  t.match(unknown.out, /exit status 2/, "and the helper stops with 2");
  const refused = runBlocks(
    [helpers, `run resizeServerGroup '{"credentials":"demo"}' || echo "exit status $?"`],
    again,
  );
  t.match(refused.out, /region: is required/);
  t.match(refused.out, /exit status 2/);
  await again.stop();
  const unreachable = runBlocks([helpers, `run resizeServerGroup '{}' || echo "exit status $?"`], again, 60_000);
  t.match(unreachable.out, /exit status 3/, "a service that is not there: 3, at once");
});
