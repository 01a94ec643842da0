// What tracing costs: two services on SQLite, one with tracing off (the default: no OTEL_EXPORTER_OTLP_ENDPOINT, the
// SDK never loaded) and one exporting every span over OTLP/HTTP to a receiver in this process that answers 200 and
// keeps nothing. Each in turn, rounds alternated (the load other work puts on the machine drifts): the CPU per task
// of resizes one at a time (submitted, then waited for with GET /task/{id}?wait=), and GET /task/{id} a second.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { ChildService } from "../../testkit/child-service.ts";
import { loadAverage, UNLIMITED_READS, type Bench } from "../context.ts";
import { median, procStats, readRate } from "../measure.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";

/** On: at most this many times the CPU per task with tracing off. */
export const TRACING_CPU_TARGET = 1.3;
/** On: at least this share of the reads a second with tracing off. */
export const TRACING_READS_TARGET = 0.8;

/** An OTLP/HTTP receiver that takes every export and keeps nothing: the exporter's cost, not a collector's. */
async function sink(): Promise<{ url: string; exports: () => number; server: Server }> {
  let exports = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      exports++;
      res.writeHead(200, { "content-type": "application/json" }).end("{}");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, exports: () => exports, server };
}

/** CPU per task of `n` resizes one at a time on `one`, each waited for as an orchestrator holding the read would. */
async function cpuPerTask(b: Bench, one: ChildService, prefix: string, n: number): Promise<number> {
  for (let i = 0; i < n; i++) await b.scaleSet(`${prefix}-${i}`);
  const cpu0 = procStats(one.child.pid!).cpuMs;
  for (let i = 0; i < n; i++) {
    const id = await b.submit(one, `${prefix}-${i}`, 2);
    let task: TaskView;
    do task = (await one.api<TaskView>("GET", `/task/${id}?wait=60`)).body;
    while (!task.status.completed);
    if (task.status.failed) throw new Error(`${prefix}-${i} failed: ${JSON.stringify(task)}`);
  }
  return (procStats(one.child.pid!).cpuMs - cpu0) / n;
}

export async function measureTracing(b: Bench): Promise<Figure> {
  const receiver = await sink();
  const common = { TASK_STORE: "sqlite", ...UNLIMITED_READS, ...b.fastPolls, LOG_LEVEL: "warn" };
  const off = await b.service({ ...common, DATA_DIR: b.tempDir() });
  const on = await b.service({
    ...common,
    DATA_DIR: b.tempDir(),
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "200",
  });
  try {
    await b.setWriteDuration(b.throughputD);
    const n = b.smoke ? 3 : 40;
    const readS = b.smoke ? 0.5 : 3;
    const cpu = { off: [] as number[], on: [] as number[] };
    const reads = { off: [] as number[], on: [] as number[] };
    const offTask = await b.submit(off, "trace-read-off", 2);
    const onTask = await b.submit(on, "trace-read-on", 2);
    for (let round = 0; round < (b.smoke ? 1 : 5); round++) {
      cpu.off.push(await cpuPerTask(b, off, `trace-off-${round}`, n));
      cpu.on.push(await cpuPerTask(b, on, `trace-on-${round}`, n));
      reads.off.push(await readRate(`${off.url}/task/${offTask}`, readS));
      reads.on.push(await readRate(`${on.url}/task/${onTask}`, readS));
    }
    const tracing = {
      takenAt: new Date().toISOString(),
      loadAverage: loadAverage(),
      tasksPerRound: n,
      cpuMsPerTask: { off: median(cpu.off), on: median(cpu.on), runsOff: cpu.off, runsOn: cpu.on },
      readsPerSecond: { off: median(reads.off), on: median(reads.on) },
      cpuRatio: median(cpu.on) / median(cpu.off),
      readsRatio: median(reads.on) / median(reads.off),
      exports: receiver.exports(),
    };
    const rows: Row[] = [
      {
        figure: "tracing on (every span exported over OTLP/HTTP) / off: CPU per task, one at a time",
        measured: Number(tracing.cpuRatio.toFixed(2)),
        target: `≤ ${TRACING_CPU_TARGET}`,
        met: tracing.cpuRatio <= TRACING_CPU_TARGET && tracing.exports > 0,
        detail: `${tracing.cpuMsPerTask.on.toFixed(2)} ms against ${tracing.cpuMsPerTask.off.toFixed(2)} ms a task (medians of ${cpu.on.length} rounds of ${n}); ${tracing.exports} exports received`,
      },
      {
        figure: "tracing on / off: GET /task/{id} a second",
        measured: Number(tracing.readsRatio.toFixed(2)),
        target: `≥ ${TRACING_READS_TARGET}`,
        met: tracing.readsRatio >= TRACING_READS_TARGET,
        detail: `${tracing.readsPerSecond.on.toFixed(0)}/s against ${tracing.readsPerSecond.off.toFixed(0)}/s`,
      },
    ];
    return { rows, results: { tracing } };
  } finally {
    await b.stop(off);
    await b.stop(on);
    receiver.server.close();
  }
}
