// `node bench/run.ts …` as a child of a test, in a process group of its own: the services and scripts it starts are
// in that group, so a time-out, or the test's end however it ends, kills all of them (a killed run left two service
// replicas running once). Its databases are dropped by the next run (bench/context.ts).
import { spawn } from "node:child_process";
import type { Test } from "tap";
import { REPO } from "../../testkit/child-service.ts";

export interface BenchChildRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the benchmark with `args`, killed with its whole group after `timeoutMs` or at the test's teardown. */
export function runBench(t: Test, args: string[], timeoutMs: number): Promise<BenchChildRun> {
  const child = spawn(process.execPath, ["bench/run.ts", ...args], { cwd: REPO, detached: true });
  const killGroup = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {
      // The group has ended.
    }
  };
  t.teardown(killGroup);
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  const timer = setTimeout(() => {
    stderr += `\n(killed after ${timeoutMs} ms)`;
    killGroup();
  }, timeoutMs);
  return new Promise((resolve) =>
    child.on("close", (status) => {
      clearTimeout(timer);
      // What the run started and left (it ended by a signal, or its close() failed) goes with it.
      killGroup();
      resolve({ status, stdout, stderr });
    }),
  );
}
