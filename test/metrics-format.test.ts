// What operators' tools read: /metrics as `promtool check metrics` judges it (Prometheus's own linter), with the
// standard process_* and nodejs_* names dashboards look for, an HTTP latency histogram by route and status, and the
// account on task metrics; and a replica's output, every line of which is JSON at a level that matches its severity.
import t from "tap";
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { demo, startTestEnv } from "./helpers/service.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import { freePort, startChildService } from "../testkit/child-service.ts";

const PROMTOOL = process.env.PROMTOOL_PATH ?? "/usr/bin/promtool";

/** promtool's verdict on a scrape: its exit code and what it printed (empty when clean). */
function promtoolCheck(text: string): { status: number | null; output: string } {
  const run = spawnSync(PROMTOOL, ["check", "metrics"], { input: text, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}`.trim() };
}

t.test(
  "/metrics: promtool-clean, standard names, latency by route and status, the account on task metrics",
  async (t) => {
    const { stream, lines } = jsonLogLines();
    const env = await startTestEnv({ logger: { level: "info", stream } });
    t.teardown(() => env.close());

    // One retry, one success and one failure, so every task series has samples.
    await env.simControl("POST", "/_sim/faults", {
      method: "PATCH",
      pathContains: "virtualMachineScaleSets/web-prod-v001",
      status: 500,
      code: "InternalServerError",
      count: 1,
    });
    const ok = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("web-prod-v001", { capacity: { min: 1, max: 6, desired: 3 } }),
    );
    t.equal((await env.waitForTask(ok.body.id)).state, "succeeded");
    const failing = await env.api(
      "POST",
      "/azure/ops/resizeServerGroup",
      demo("no-such-scale-set", { capacity: { min: 1, max: 2, desired: 1 } }),
    );
    t.equal((await env.waitForTask(failing.body.id)).state, "failed");
    t.equal((await env.api("GET", "/task/no-such-task")).status, 404);

    const res = await fetch(`${env.baseUrl}/metrics`);
    t.equal(res.status, 200);
    const text = await res.text();

    if (existsSync(PROMTOOL)) {
      const verdict = promtoolCheck(text);
      t.equal(verdict.output, "", "promtool check metrics finds nothing to say");
      t.equal(verdict.status, 0, "and exits 0");
    } else if (process.env.CI) t.fail(`no promtool at ${PROMTOOL}: .ci/run installs Debian's prometheus`);
    else t.comment(`not checked: no promtool at ${PROMTOOL} (apt-get install prometheus, or set PROMTOOL_PATH)`);

    // The standard process and Node.js metrics under their standard names, never the service's prefix.
    for (const name of [
      "process_cpu_seconds_total",
      "process_resident_memory_bytes",
      "process_start_time_seconds",
      "nodejs_heap_size_used_bytes",
      "nodejs_eventloop_lag_seconds",
      "nodejs_version_info",
    ]) {
      t.match(text, new RegExp(`^${name}(\\{| )`, "m"), `${name} is exported`);
    }
    t.notMatch(text, /^vmssops_(process|nodejs)_/m, "no standard metric carries the service prefix");

    // Latency by route template and status: the 404 of an unknown task is its route's, not its URL's.
    t.match(text, /^# TYPE vmssops_http_request_duration_seconds histogram$/m);
    t.match(
      text,
      /^vmssops_http_request_duration_seconds_count\{method="POST",route="\/azure\/ops\/resizeServerGroup",status="202"\} 2$/m,
    );
    t.match(
      text,
      /^vmssops_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/task\/:id",status="404"\} 1$/m,
    );
    t.notMatch(text, /route="\/task\/no-such-task"/, "raw URLs never become labels");

    // The account on task metrics.
    t.match(text, /^vmssops_tasks_total\{operation="resizeServerGroup",account="demo",outcome="succeeded"\} 1$/m);
    t.match(text, /^vmssops_tasks_total\{operation="resizeServerGroup",account="demo",outcome="failed"\} 1$/m);
    t.match(text, /^vmssops_attempts_total\{operation="resizeServerGroup",account="demo",outcome="retry"\} 1$/m);
    t.match(text, /^vmssops_retries_total\{account="demo",status="500"\} 1$/m);

    // Levels by severity: the failed task is an error; the retry a warning; the success information.
    const failedLine = lines.find((l) => l.taskId === failing.body.id && l.msg === "task failed");
    t.equal(failedLine?.level, 50, "a failed task is logged at error");
    t.equal(
      lines.find((l) => l.taskId === ok.body.id && l.outcome === "retry")?.level,
      40,
      "a retry is logged at warn",
    );
    t.equal(lines.find((l) => l.taskId === ok.body.id && l.msg === "task succeeded")?.level, 30, "a success at info");
  },
);

t.test("a replica's output is JSON, line by line, from the banner to the shutdown", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "vmss-ops-json-lines-"));
  t.teardown(() => rm(dataDir, { recursive: true, force: true }));
  const service = await startChildService({
    LOG_LEVEL: "info",
    SIMULATOR_PORT: String(await freePort()),
    DATA_DIR: dataDir,
  });
  t.teardown(() => {
    if (service.child.exitCode === null) service.child.kill("SIGKILL");
  });
  const failing = await service.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("no-such-scale-set", { capacity: { min: 1, max: 2, desired: 1 } }),
  );
  t.equal(failing.status, 202);
  t.equal((await service.waitForTask(failing.body.id)).status.failed, true);
  service.child.kill("SIGTERM");
  t.equal((await service.exited).code, 0, "a clean shutdown");

  const lines = service
    .output()
    .split("\n")
    .filter((l) => l.trim() !== "");
  const notJson = lines.filter((l) => {
    try {
      return typeof JSON.parse(l) !== "object";
    } catch {
      return true;
    }
  });
  t.same(notJson, [], "every line parses as a JSON object");
  const parsed = lines.flatMap((l) => (notJson.includes(l) ? [] : [JSON.parse(l) as Record<string, unknown>]));
  const banner = parsed.find(
    (l) => typeof l.msg === "string" && l.msg.startsWith("vmss-ops listening on http://127.0.0.1:"),
  );
  t.ok(Array.isArray(banner?.banner), "the start-up banner is one line that carries all of its lines");
  t.equal(
    parsed.find((l) => l.taskId === failing.body.id && l.msg === "task failed")?.level,
    50,
    "the failed task at error",
  );
  t.ok(
    parsed.some((l) => l.msg === "shutting down"),
    "the shutdown is logged",
  );
});

// A terminal gets the banner as text (a person reads it); the JSON form is for everything else.
t.test("the banner at a terminal stays text", async (t) => {
  const script = `import { printBanner } from "./src/observability/log-line.ts"; printBanner(["vmss-ops listening on http://x", "second line"], true); printBanner(["vmss-ops listening on http://y"], false);`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
    cwd: join(import.meta.dirname, ".."),
    stdio: ["ignore", "pipe", "inherit"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  await new Promise((resolve) => child.on("exit", resolve));
  const [first, second, third] = out.trimEnd().split("\n");
  t.equal(first, "vmss-ops listening on http://x");
  t.equal(second, "second line");
  t.match(JSON.parse(third), {
    level: 30,
    msg: "vmss-ops listening on http://y",
    banner: ["vmss-ops listening on http://y"],
  });
});
