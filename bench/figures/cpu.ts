// CPU per task: the service (1 replica, SQLite) against the plain SDK script that makes the same ARM calls: it reads
// each scale set, resizes it with If-Match, polls the write every sizes.pollHint ms as the service does, and then
// lists the VMs, as the service confirms what it did (the "confirming" script). D = throughputD; 32 at once, then
// one at a time, each task waited for with GET /task/{id}?wait=. The target is the ratio to the confirming script;
// beside it, the ratio to the script without the VM list, and the service-only cost: the service's CPU per task
// minus the confirming script's, what accepting a task over HTTP, storing it and answering its read cost. The ARM
// calls each side made are counted from the simulator's call log in the same run, so that "the same calls" is
// measured, not assumed.
import type { SimulatorControl } from "vmss-simulator";
import type { ChildService } from "../../testkit/child-service.ts";
import type { Bench, PlainSdkRun } from "../context.ts";
import { loadAverage } from "../context.ts";
import { procStats } from "../measure.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";
import { CPU_GUARD_AT_ONCE, CPU_GUARD_ONE_AT_A_TIME, CPU_RUNS } from "../guards.ts";

/** The rows of the CPU figure as earlier runs named them, which --only-cpu replaces. */
export const CPU_ROWS = /^service CPU per task|^the same, one (task )?at a time, each/;

type CallRecord = Awaited<ReturnType<SimulatorControl["calls"]>>[number];

/** ARM calls of a run, by kind, per task. */
export interface ArmCalls {
  total: number;
  perTask: number;
  read: number;
  write: number;
  poll: number;
  vmList: number;
  /** Calls answered anything but 2xx (a 412 or a 429 would make the two sides unlike). */
  refused: number;
}

function armCallsOf(calls: CallRecord[], tasks: number): ArmCalls {
  const c: ArmCalls = {
    total: calls.length,
    perTask: calls.length / tasks,
    read: 0,
    write: 0,
    poll: 0,
    vmList: 0,
    refused: 0,
  };
  for (const call of calls) {
    if (call.method === "PATCH" || call.method === "PUT") c.write++;
    else if (/\/operations\//i.test(call.path)) c.poll++;
    else if (/\/virtualMachines$/i.test(call.path)) c.vmList++;
    else c.read++;
    if (call.status === null || call.status < 200 || call.status >= 300) c.refused++;
  }
  return c;
}

const callsText = (c: ArmCalls) =>
  `${c.perTask.toFixed(2)} a task (${c.read} reads, ${c.write} writes, ${c.poll} polls, ${c.vmList} VM lists${c.refused ? `, ${c.refused} not 2xx` : ""})`;

/** Runs `work` with the simulator's call log cleared first; returns what it returned and the calls it made. */
async function counted<T>(b: Bench, tasks: number, work: () => Promise<T>): Promise<{ value: T; calls: ArmCalls }> {
  await b.control.clearCalls();
  const value = await work();
  return { value, calls: armCallsOf(await b.control.calls(), tasks) };
}

/** The plain script's CPU per resize of `n` scale sets `prefix`0… (`atOnce` at a time), without and with the VM list. */
async function scripts(b: Bench, prefix: string, n: number, atOnce: number) {
  const args = [prefix, String(n), String(atOnce), String(b.sizes.pollHint)];
  const plain = await counted(b, n, () => b.plainSdk<PlainSdkRun>("resizes", ...args));
  for (let i = 0; i < n; i++) await b.scaleSet(`${prefix}${i}`);
  const confirming = await counted(b, n, () => b.plainSdk<PlainSdkRun>("resizes", ...args, "confirm"));
  return { plain, confirming };
}

/** The figures of one mode, from the service's CPU and calls and the two scripts'. */
function figures(
  n: number,
  service: { cpuMs: number; failed: number; calls: ArmCalls },
  s: Awaited<ReturnType<typeof scripts>>,
) {
  const serviceMsPerTask = service.cpuMs / n;
  const plainSdkMsPerTask = s.plain.value.cpuMs / n;
  const confirmingSdkMsPerTask = s.confirming.value.cpuMs / n;
  return {
    tasks: n,
    serviceMsPerTask,
    confirmingSdkMsPerTask,
    ratioToConfirming: serviceMsPerTask / confirmingSdkMsPerTask,
    /** What the service spends beyond the script making the same calls: accepting, storing, answering. */
    serviceOnlyMsPerTask: serviceMsPerTask - confirmingSdkMsPerTask,
    plainSdkMsPerTask,
    ratio: serviceMsPerTask / plainSdkMsPerTask,
    armCalls: { service: service.calls, confirming: s.confirming.calls, plain: s.plain.calls },
    /**
     * The calls a resize is made of, the same on both sides: reads, writes, VM lists, all answered 2xx. Polls are as
     * many as the write's end takes to be seen, which each side's timers decide (both poll every pollHint ms at most).
     */
    sameArmCalls:
      service.calls.read === s.confirming.calls.read &&
      service.calls.write === s.confirming.calls.write &&
      service.calls.vmList === s.confirming.calls.vmList &&
      service.calls.refused === 0 &&
      s.confirming.calls.refused === 0,
    failed: service.failed + s.plain.value.failed + s.confirming.value.failed,
    loadAverage: loadAverage(),
  };
}

/**
 * The service's CPU over `n` resizes of scale sets `prefix`0…, submitted 32 at a time and waited for by polling
 * (bench/figures/growth.ts measures the previous release's service so too); the tasks' ids and how many failed.
 */
export async function serviceAtOnce(b: Bench, svc: ChildService, prefix: string, n: number) {
  const ids: string[] = [];
  const cpu0 = procStats(svc.child.pid!).cpuMs;
  for (let i = 0; i < n; i += 32) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(32, n - i) }, (_, j) => b.submit(svc, `${prefix}${i + j}`, 2)),
    );
    ids.push(...batch);
  }
  const tasks = await b.waitAll(svc, ids, 50);
  return { cpuMs: procStats(svc.child.pid!).cpuMs - cpu0, failed: tasks.filter((t) => t.status.failed).length, ids };
}

/**
 * The service's CPU over `n` resizes of scale sets `prefix`0…, one at a time, each waited for with one
 * GET /task/{id}?wait= as an orchestrator holding the read would; and how many failed.
 */
export async function serviceOneAtATime(b: Bench, svc: ChildService, prefix: string, n: number) {
  const cpu0 = procStats(svc.child.pid!).cpuMs;
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const id = await b.submit(svc, `${prefix}${i}`, 2);
    let task: TaskView;
    do task = (await svc.api<TaskView>("GET", `/task/${id}?wait=60`)).body;
    while (!task.status.completed);
    if (task.status.failed) failed++;
  }
  return { cpuMs: procStats(svc.child.pid!).cpuMs - cpu0, failed };
}

/** 32 resizes at a time on `one`; returns the figures and the tasks' ids. */
async function atOnce(b: Bench, one: ChildService, run: number) {
  const n = b.sizes.cpuTasks;
  for (let i = 0; i < n; i++) {
    await b.scaleSet(`cpu-svc-${run}-${i}`);
    await b.scaleSet(`cpu-sdk-${run}-${i}`);
  }
  let ids: string[] = [];
  const service = await counted(b, n, async () => {
    const r = await serviceAtOnce(b, one, `cpu-svc-${run}-`, n);
    ids = r.ids;
    return { cpuMs: r.cpuMs, failed: r.failed };
  });
  const cpu = figures(n, { ...service.value, calls: service.calls }, await scripts(b, `cpu-sdk-${run}-`, n, 32));
  b.log(
    `CPU per task, 32 at once: service ${cpu.serviceMsPerTask.toFixed(2)} ms, confirming script ${cpu.confirmingSdkMsPerTask.toFixed(2)} ms, plain ${cpu.plainSdkMsPerTask.toFixed(2)} ms`,
  );
  return { cpu, ids };
}

/**
 * One task at a time: what a task costs that concurrency does not share out (timers, commits, its submission and the
 * one GET /task/{id}?wait= that waits for it, as an orchestrator holding the read would).
 */
async function oneAtATime(b: Bench, one: ChildService, run: number) {
  const n = b.sizes.serialTasks;
  for (let i = 0; i < n; i++) {
    await b.scaleSet(`one-svc-${run}-${i}`);
    await b.scaleSet(`one-sdk-${run}-${i}`);
  }
  const service = await counted(b, n, () => serviceOneAtATime(b, one, `one-svc-${run}-`, n));
  const cpuSerial = figures(n, { ...service.value, calls: service.calls }, await scripts(b, `one-sdk-${run}-`, n, 1));
  b.log(
    `CPU per task, one at a time: service ${cpuSerial.serviceMsPerTask.toFixed(2)} ms, confirming script ${cpuSerial.confirmingSdkMsPerTask.toFixed(2)} ms, plain ${cpuSerial.plainSdkMsPerTask.toFixed(2)} ms`,
  );
  return cpuSerial;
}

type CpuFigures = ReturnType<typeof figures>;

/** The run whose ratio is the median of `runs` (the lower middle of an even count), with every run's ratio. */
function median(runs: CpuFigures[]): CpuFigures & { runs: number[] } {
  const sorted = [...runs].sort((x, y) => x.ratioToConfirming - y.ratioToConfirming);
  return { ...sorted[Math.floor((sorted.length - 1) / 2)], runs: runs.map((r) => r.ratioToConfirming) };
}

function row(figure: string, f: CpuFigures & { runs: number[] }, D: number, guard: number): Row {
  const runs = f.runs.length > 1 ? `median of ${f.runs.length} (${f.runs.map((r) => r.toFixed(2)).join(", ")}): ` : "";
  return {
    figure,
    measured: f.ratioToConfirming,
    target: `≤ ${guard} (guard)`,
    met: f.ratioToConfirming <= guard && f.sameArmCalls && f.failed === 0,
    detail:
      runs +
      `${f.serviceMsPerTask.toFixed(2)} ms against ${f.confirmingSdkMsPerTask.toFixed(2)} ms (${f.tasks} resizes, D = ${D} ms); ` +
      `service-only ${f.serviceOnlyMsPerTask.toFixed(2)} ms a task; ` +
      `${f.ratio.toFixed(2)} × the script without the VM list (${f.plainSdkMsPerTask.toFixed(2)} ms); ` +
      `ARM calls: service ${callsText(f.armCalls.service)}, script ${callsText(f.armCalls.confirming)}` +
      (f.sameArmCalls ? "" : " (not the same calls: the ratio compares unlike work)") +
      (f.failed ? `; ${f.failed} failed` : ""),
  };
}

/** Both on `one`, CPU_RUNS times alternated (once at smoke sizes); `readTaskId` is a task of `one` that the reads then fetch. */
export async function measureCpu(b: Bench, one: ChildService) {
  await b.setWriteDuration(b.throughputD);
  const together: CpuFigures[] = [];
  const serial: CpuFigures[] = [];
  let readTaskId = "";
  for (let run = 0; run < (b.smoke ? 1 : CPU_RUNS); run++) {
    const { cpu, ids } = await atOnce(b, one, run);
    readTaskId ||= ids[0];
    together.push(cpu);
    serial.push(await oneAtATime(b, one, run));
  }
  const cpu = median(together);
  const cpuSerial = median(serial);
  const rows: Row[] = [
    row(
      "service CPU per task / the plain SDK script making the same ARM calls (the VMs listed after each write), 32 at once",
      cpu,
      b.throughputD,
      CPU_GUARD_AT_ONCE,
    ),
    row(
      "the same, one at a time, each task waited for with GET /task/{id}?wait=",
      cpuSerial,
      b.throughputD,
      CPU_GUARD_ONE_AT_A_TIME,
    ),
  ];
  return { rows, results: { cpu, cpuSerial }, readTaskId } satisfies Figure & { readTaskId: string };
}
