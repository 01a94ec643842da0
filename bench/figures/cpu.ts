// CPU per task: the service (1 replica, SQLite) against the plain SDK script, same resizes, D = throughputD, both
// polling a write every sizes.pollHint ms (the same calls on both sides); 32 at once, then one at a time. Beside each,
// the script that also lists the VMs after each write, as the service confirms what it did: the part of the
// difference that is the confirming read, and the part that is the service.
import type { ChildService } from "../../testkit/child-service.ts";
import type { Bench, PlainSdkRun } from "../context.ts";
import { procStats } from "../measure.ts";
import type { TaskView } from "../task-view.ts";
import type { Figure, Row } from "../table.ts";

/** The plain script's CPU per resize of `n` scale sets `prefix`0… (`atOnce` at a time), without and with the VM list. */
async function scripts(b: Bench, prefix: string, n: number, atOnce: number) {
  const args = [prefix, String(n), String(atOnce), String(b.sizes.pollHint)];
  const plain = await b.plainSdk<PlainSdkRun>("resizes", ...args);
  for (let i = 0; i < n; i++) await b.scaleSet(`${prefix}${i}`);
  const confirming = await b.plainSdk<PlainSdkRun>("resizes", ...args, "confirm");
  return { plain, confirming };
}

/** 32 resizes at a time on `one`; returns the figures and the tasks' ids. */
async function atOnce(b: Bench, one: ChildService) {
  const n = b.sizes.cpuTasks;
  for (let i = 0; i < n; i++) {
    await b.scaleSet(`cpu-svc-${i}`);
    await b.scaleSet(`cpu-sdk-${i}`);
  }
  const cpu0 = procStats(one.child.pid!).cpuMs;
  const ids: string[] = [];
  for (let i = 0; i < n; i += 32) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(32, n - i) }, (_, j) => b.submit(one, `cpu-svc-${i + j}`, 2)),
    );
    ids.push(...batch);
  }
  const tasks = await b.waitAll(one, ids, 50);
  const serviceMsPerTask = (procStats(one.child.pid!).cpuMs - cpu0) / n;
  const { plain, confirming } = await scripts(b, "cpu-sdk-", n, 32);
  const cpu = {
    serviceMsPerTask,
    plainSdkMsPerTask: plain.cpuMs / n,
    ratio: serviceMsPerTask / (plain.cpuMs / n),
    confirmingSdkMsPerTask: confirming.cpuMs / n,
    ratioToConfirming: serviceMsPerTask / (confirming.cpuMs / n),
    failed: tasks.filter((t) => t.status.failed).length + plain.failed + confirming.failed,
  };
  b.log(`CPU per task: service ${serviceMsPerTask.toFixed(2)} ms, plain SDK ${cpu.plainSdkMsPerTask.toFixed(2)} ms`);
  return { cpu, ids };
}

/**
 * One task at a time: what a task costs that concurrency does not share out (timers, commits, its submission and the
 * one GET /task/{id}?wait= that waits for it, as an orchestrator holding the read would).
 */
async function oneAtATime(b: Bench, one: ChildService) {
  const n = b.sizes.serialTasks;
  for (let i = 0; i < n; i++) {
    await b.scaleSet(`one-svc-${i}`);
    await b.scaleSet(`one-sdk-${i}`);
  }
  const cpu0 = procStats(one.child.pid!).cpuMs;
  let failed = 0;
  for (let i = 0; i < n; i++) {
    const id = await b.submit(one, `one-svc-${i}`, 2);
    let task: TaskView;
    do task = (await one.api<TaskView>("GET", `/task/${id}?wait=60`)).body;
    while (!task.status.completed);
    if (task.status.failed) failed++;
  }
  const serviceMsPerTask = (procStats(one.child.pid!).cpuMs - cpu0) / n;
  const { plain, confirming } = await scripts(b, "one-sdk-", n, 1);
  const cpuSerial = {
    tasks: n,
    serviceMsPerTask,
    plainSdkMsPerTask: plain.cpuMs / n,
    ratio: serviceMsPerTask / (plain.cpuMs / n),
    confirmingSdkMsPerTask: confirming.cpuMs / n,
    ratioToConfirming: serviceMsPerTask / (confirming.cpuMs / n),
    failed: failed + plain.failed + confirming.failed,
  };
  b.log(
    `CPU per task, one at a time: service ${serviceMsPerTask.toFixed(2)} ms, plain SDK ${cpuSerial.plainSdkMsPerTask.toFixed(2)} ms`,
  );
  return cpuSerial;
}

/** Both on `one`; `readTaskId` is a task of `one` that the reads then fetch. */
export async function measureCpu(b: Bench, one: ChildService) {
  await b.setWriteDuration(b.throughputD);
  const { cpu, ids } = await atOnce(b, one);
  const cpuSerial = await oneAtATime(b, one);
  const resizes = (n: number) => `${n} resizes, D = ${b.throughputD} ms`;
  const rows: Row[] = [
    {
      figure: "service CPU per task / plain SDK script CPU per task",
      measured: cpu.ratio,
      target: "≤ 1.25",
      met: cpu.ratio <= 1.25,
      detail: `${cpu.serviceMsPerTask.toFixed(2)} ms against ${cpu.plainSdkMsPerTask.toFixed(2)} ms (${resizes(b.sizes.cpuTasks)}); ${cpu.ratioToConfirming.toFixed(2)} × the script listing the VMs after each write (${cpu.confirmingSdkMsPerTask.toFixed(2)} ms)`,
    },
    {
      figure: "the same, one task at a time, each waited for with GET /task/{id}?wait=",
      measured: cpuSerial.ratio,
      target: "≤ 1.25",
      met: cpuSerial.ratio <= 1.25,
      detail: `${cpuSerial.serviceMsPerTask.toFixed(2)} ms against ${cpuSerial.plainSdkMsPerTask.toFixed(2)} ms (${resizes(cpuSerial.tasks)}); ${cpuSerial.ratioToConfirming.toFixed(2)} × the script listing the VMs after each write (${cpuSerial.confirmingSdkMsPerTask.toFixed(2)} ms)`,
    },
  ];
  return { rows, results: { cpu, cpuSerial }, readTaskId: ids[0] } satisfies Figure & { readTaskId: string };
}
