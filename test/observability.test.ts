// Metrics, structured logs and readiness: /metrics is scraped and parsed as Prometheus would, and its figures move
// as operations run; every task log line is JSON with the task id, operation, scale set, attempt and principal.
import t from "tap";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildApp } from "../src/app.ts";
import { loadConfig } from "../src/startup-config.ts";
import { createTaskStore } from "../src/tasks/create-task-store.ts";
import { demo, startTestEnv } from "./helpers/service.ts";
import { jsonLogLines } from "./helpers/log-lines.ts";
import { waitFor } from "../testkit/wait-for.ts";

/** Prometheus text exposition → { "name{label="v",…}": value }, labels in the order they were written. */
function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    out.set(`${m[1]}${m[2] ?? ""}`, Number(m[3]));
  }
  return out;
}

/** The sum of a metric's samples whose labels include all of `labels`. */
function sum(metrics: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const [key, value] of metrics) {
    const m = /^([^{]+)(?:\{(.*)\})?$/.exec(key)!;
    if (m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) total += value;
  }
  return total;
}

t.test("/metrics moves as operations run, retries are counted by status, logs carry the task's fields", async (t) => {
  const { stream, lines } = jsonLogLines();
  const TOKEN = "observer-token-0123456789abcdef";
  const env = await startTestEnv({
    logger: { level: "info", stream },
    headers: { authorization: `Bearer ${TOKEN}` },
    env: { AUTH_TOKENS: JSON.stringify([{ name: "pipeline-a", token: TOKEN, accounts: ["demo"] }]) },
  });
  t.teardown(() => env.close());

  const scrape = async () => {
    // Scraped with a token, as /metrics needs one once principals are configured.
    const res = await fetch(`${env.baseUrl}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
    t.equal(res.status, 200);
    t.match(res.headers.get("content-type"), /^text\/plain/);
    return parseMetrics(await res.text());
  };
  const before = await scrape();
  t.equal(sum(before, "vmssops_tasks_total"), 0);
  t.ok(before.has('vmssops_read_cache_total{result="hit"}'), "the read-cache counter is exported");

  // Throttling reported by the simulator feeds the budget gauge; a 500 on the first PATCH forces a retry.
  await env.simControl("PUT", "/_sim/config", { throttling: { enabled: true } });
  await env.simControl("POST", "/_sim/faults", {
    method: "PATCH",
    pathContains: "virtualMachineScaleSets/web-prod-v001",
    status: 500,
    code: "InternalServerError",
    count: 1,
  });
  const submitted = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("web-prod-v001", { capacity: { min: 1, max: 6, desired: 4 } }),
  );
  t.equal(submitted.status, 202);
  const task = await env.waitForTask(submitted.body.id);
  t.equal(task.state, "succeeded", JSON.stringify(task.history));
  const failing = await env.api(
    "POST",
    "/azure/ops/resizeServerGroup",
    demo("no-such-scale-set", { capacity: { min: 1, max: 2, desired: 1 } }),
  );
  t.equal((await env.waitForTask(failing.body.id)).state, "failed");

  const after = await scrape();
  t.equal(sum(after, "vmssops_tasks_total", { operation: "resizeServerGroup", outcome: "succeeded" }), 1);
  t.equal(sum(after, "vmssops_tasks_total", { operation: "resizeServerGroup", outcome: "failed" }), 1);
  t.equal(sum(after, "vmssops_tasks_submitted_total"), 2);
  t.equal(sum(after, "vmssops_retries_total", { status: "500" }), 1, "the 500 led to one retry");
  t.equal(sum(after, "vmssops_attempts_total", { outcome: "retry" }), 1);
  t.ok(sum(after, "vmssops_attempts_total", { outcome: "succeeded" }) >= 1);
  t.equal(sum(after, "vmssops_arm_calls_total", { method: "PATCH", status: "500" }), 1);
  t.ok(sum(after, "vmssops_arm_calls_total", { method: "PATCH", status: "200" }) >= 1);
  t.ok(sum(after, "vmssops_arm_calls_total", { method: "GET", status: "404" }) >= 1, "the missing scale set's 404");
  t.equal(sum(after, "vmssops_lro_duration_seconds_count", { kind: "update" }), 1);
  t.ok(sum(after, "vmssops_lro_duration_seconds_sum", { kind: "update" }) > 0);
  t.ok(sum(after, "vmssops_queue_wait_seconds_count", { account: "demo" }) >= 1);
  t.notOk(
    [...after.keys()].some((k) => k.startsWith("vmssops_queue_wait_seconds") && k.includes("scale_set=")),
    "no series per scale set: a fleet would make thousands",
  );
  t.ok(
    [...after.keys()].some((k) => k.startsWith("vmssops_throttling_budget_remaining{")),
    "the throttling budget Azure reported",
  );
  t.ok(sum(after, "vmssops_http_responses_total", { route: "/azure/ops/resizeServerGroup", status: "202" }) === 2);
  t.equal(sum(after, "vmssops_tasks_in_flight"), 0);

  // The read cache: two reads of one server group, the second within READ_CACHE_TTL_MS, cost Azure one read.
  for (let i = 0; i < 2; i++) t.equal((await env.api("GET", "/serverGroups/demo/eastus/web-prod-v002")).status, 200);
  const reads = await scrape();
  t.equal(
    sum(reads, "vmssops_read_cache_total", { result: "miss" }) -
      sum(after, "vmssops_read_cache_total", { result: "miss" }),
    1,
    "the first read asks Azure",
  );
  t.equal(
    sum(reads, "vmssops_read_cache_total", { result: "hit" }) -
      sum(after, "vmssops_read_cache_total", { result: "hit" }),
    1,
    "the second is served from the cache",
  );

  // Logs: JSON lines with the task's fields.
  const taskLines = lines.filter((l) => l.taskId === submitted.body.id);
  const submittedLine = taskLines.find((l) => l.msg === "task submitted");
  t.equal(submittedLine?.principal, "pipeline-a");
  const retryLine = taskLines.find((l) => l.outcome === "retry");
  t.match(retryLine, {
    operation: "resizeServerGroup",
    scaleSet: "demo/demo-rg/web-prod-v001",
    account: "demo",
    attempt: 1,
    status: 500,
    principal: "pipeline-a",
  });
  const later = taskLines.filter((l) => l.phase === "RESIZE_SERVER_GROUP" && l.attempt === 2);
  t.ok(later.length > 0, "lines of the second attempt say so");
  t.ok(taskLines.some((l) => l.msg === "task succeeded"));
  const authLines = lines.filter((l) => JSON.stringify(l).includes(TOKEN));
  t.same(authLines, [], "the token is never logged");
});

t.test(
  "/ready: 503 when the store does not answer; an account out of reach is shown, not unready; /health stays up",
  async (t) => {
    const env = await startTestEnv({
      env: {
        READY_CACHE_MS: "0",
        READY_TIMEOUT_MS: "2000",
        // An account whose ARM endpoint does not answer (nothing listens on port 9 here).
        ACCOUNTS: JSON.stringify([
          {
            name: "unreachable",
            subscriptionId: "00000000-0000-4000-8000-000000000009",
            endpoint: "https://127.0.0.1:9",
            credential: "simulator",
          },
        ]),
      },
    });
    t.teardown(() => env.close());
    // The accounts are checked in the background: the answer shows the last check that ended.
    const res = await waitFor(
      async () => {
        const r = await env.api("GET", "/ready");
        const checks = Object.values<{ problem?: string }>(r.body?.accounts ?? {});
        return checks.length === 2 && !checks.some((c) => c.problem?.startsWith("not checked yet")) && r;
      },
      { what: "a check of the accounts that ended" },
    );
    t.equal(res.status, 200, "Azure, shared by every replica, does not make this one unready");
    t.equal(res.body.status, "ready");
    t.same(res.body.store, { ok: true });
    t.same(res.body.accounts.demo, { ok: true });
    t.equal(res.body.accounts.unreachable.ok, false);
    t.type(res.body.accounts.unreachable.problem, "string");
    t.equal((await env.api("GET", "/health")).status, 200, "liveness is separate");

    // A real SQLite store that is then closed: the store check fails.
    const dir = await mkdtemp(join(tmpdir(), "vmss-ops-ready-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const config = loadConfig({ SIMULATOR_URL: env.sim.url, TASK_STORE: "sqlite", DATA_DIR: dir, READY_CACHE_MS: "0" });
    const store = await createTaskStore(config);
    const service = await buildApp({ config, store, logger: false });
    t.teardown(() => service.app.close());
    const ok = await service.app.inject({ method: "GET", url: "/ready" });
    t.equal(ok.statusCode, 200, ok.body);
    t.equal(ok.json().status, "ready");
    await store.close();
    const down = await service.app.inject({ method: "GET", url: "/ready" });
    t.equal(down.statusCode, 503, "a closed store is not ready");
    t.match(down.headers["retry-after"], /^\d+$/);
    t.equal(down.json().store.ok, false);
    await service.runner.stop(1000);
  },
);
