// A burst of submissions while tasks run, into a fresh replica on SQLite and one on PostgreSQL: accepted first, none
// lost, every task run.
import { setTimeout as sleep } from "node:timers/promises";
import { Agent, request } from "undici";
import { loadAverage, resize, type Bench } from "../context.ts";
import { procStats } from "../measure.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";
import type { ChildService } from "../../testkit/child-service.ts";

/** Callers sending the burst, each its next submission as soon as the last is answered. */
const BURST_CALLERS = 32;
/** Refusals that lose nothing: the caller is told when to come back. */
const REFUSALS = new Set([429, 503]);

/** sizes.burst submissions from BURST_CALLERS callers into `s`: the answers' latencies, and what each answer was. */
async function send(b: Bench, s: ChildService, agent: Agent) {
  const n = b.sizes.burst;
  const latencies: number[] = [];
  const ids: string[] = [];
  const refused: { status: number; retryAfter: string | undefined }[] = [];
  const lost: string[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: BURST_CALLERS }, async () => {
      while (next < n) {
        const i = next++;
        const sent = performance.now();
        try {
          const res = await request(`${s.url}/azure/ops/resizeServerGroup`, {
            dispatcher: agent,
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(resize(`burst-${i % b.sizes.sets}`, 2 + (Math.floor(i / b.sizes.sets) % 3))),
          });
          const body = (await res.body.json()) as { id?: string };
          latencies.push(performance.now() - sent);
          const retryAfter = res.headers["retry-after"] as string | undefined;
          if (res.statusCode === 202 && body.id) ids.push(body.id);
          else if (REFUSALS.has(res.statusCode) && retryAfter) refused.push({ status: res.statusCode, retryAfter });
          else lost.push(`${res.statusCode} ${JSON.stringify(body)}`);
        } catch (err) {
          lost.push(String(err));
        }
      }
    }),
  );
  return { latencies, ids, refused, lost };
}

/**
 * Every accepted task must end; one that has not after a minute without any task ending is reported, not waited for
 * (a task left in the queue would hang the benchmark).
 */
async function ended(s: ChildService, ids: string[]): Promise<TaskView[]> {
  const tasks: TaskView[] = [];
  let lastProgress = performance.now();
  for (const id of ids) {
    for (;;) {
      const { body } = await s.api<TaskView>("GET", `/task/${id}`);
      if (body.status.completed) {
        tasks.push(body);
        lastProgress = performance.now();
        break;
      }
      if (performance.now() - lastProgress > 60_000) break;
      await sleep(20);
    }
  }
  return tasks;
}

/**
 * sizes.burst submissions from BURST_CALLERS callers onto sizes.sets scale sets (created here when missing), into a
 * fresh replica whose tasks run meanwhile, at D = throughputD: the rate they are accepted at, each answer's latency,
 * that none is lost (each 202, or 429/503 with Retry-After; a refused one is not sent again) and that every accepted
 * task then runs to its end. The per-caller submission limit is off: a burst this size comes from many pipelines,
 * not one caller.
 */
async function burst(b: Bench, env: Record<string, string>) {
  for (let i = 0; i < b.sizes.sets; i++) await b.scaleSet(`burst-${i}`);
  const s = await b.service({ ...env, RATE_LIMIT_SUBMISSIONS: "0" });
  const agent = new Agent({ connections: BURST_CALLERS });
  const cpu0 = procStats(s.child.pid!).cpuMs;
  const t0 = performance.now();
  const { latencies, ids, refused, lost } = await send(b, s, agent);
  const burstS = (performance.now() - t0) / 1000;
  const acceptCpuMs = procStats(s.child.pid!).cpuMs - cpu0;
  await agent.close();
  const tasks = await ended(s, ids);
  const ranS = (performance.now() - t0) / 1000;
  await b.stop(s);
  const sorted = [...latencies].sort((a, b) => a - b);
  const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
  return {
    submissions: b.sizes.burst,
    callers: BURST_CALLERS,
    acceptedPerSecond: ids.length / burstS,
    answeredPerSecond: latencies.length / burstS,
    burstSeconds: burstS,
    p50Ms: pct(50),
    p99Ms: pct(99),
    maxMs: sorted.at(-1) ?? 0,
    accepted: ids.length,
    refusedWithRetryAfter: refused.length,
    lost: lost.length,
    lostExamples: lost.slice(0, 3),
    tasksRun: tasks.length,
    tasksNeverRun: ids.length - tasks.length,
    tasksFailed: tasks.filter((t) => t.status.failed).length,
    secondsToRunAll: ranS,
    serviceCpuMsDuringBurst: acceptCpuMs,
  };
}

function burstRow(store: string, target: number, r: Awaited<ReturnType<typeof burst>>): Row {
  const met =
    r.acceptedPerSecond >= target && r.p99Ms <= 50 && r.lost === 0 && r.tasksRun === r.accepted && r.tasksFailed === 0;
  return {
    figure: `a burst of ${r.submissions} submissions while tasks run, 1 replica, ${store}: accepted per second (/ ${target.toLocaleString("en")})`,
    measured: r.acceptedPerSecond / target,
    target: "≥ 1, p99 ≤ 50 ms, none lost, every task run",
    met,
    detail: `${r.acceptedPerSecond.toFixed(0)}/s from ${r.callers} callers, p50 ${r.p50Ms.toFixed(1)} ms, p99 ${r.p99Ms.toFixed(1)} ms; ${r.accepted} accepted, ${r.refusedWithRetryAfter} refused with Retry-After, ${r.lost} lost; ${r.tasksRun} run (${r.tasksFailed} failed)${r.tasksNeverRun ? `, ${r.tasksNeverRun} NEVER RAN` : ""} ${r.secondsToRunAll.toFixed(0)} s after the first`,
  };
}

export async function measureBursts(b: Bench) {
  await b.setWriteDuration(b.throughputD);
  const sqlite = await burst(b, { TASK_STORE: "sqlite", DATA_DIR: b.tempDir() });
  b.log(`burst, SQLite: ${burstRow("SQLite", 2000, sqlite).detail}`);
  const postgres = await burst(b, { TASK_STORE: "postgres", DATABASE_URL: await b.database(), REPLICA_ID: "burst" });
  b.log(`burst, PostgreSQL: ${burstRow("PostgreSQL", 1000, postgres).detail}`);
  const rows = [burstRow("SQLite", 2000, sqlite), burstRow("PostgreSQL", 1000, postgres)];
  return { rows, results: { bursts: { sqlite, postgres, loadAverage: loadAverage() } } } satisfies Figure;
}
