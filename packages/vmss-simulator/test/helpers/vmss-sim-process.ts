// `vmss-sim` (bin/vmss-sim.js) as a child process, as a developer or a CI job runs it: started, its URL read from what
// it prints, stopped by a signal. For the tests of what survives a restart (--state).
import { spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { waitForLog } from "./wait-for.ts";

const BIN = fileURLToPath(new URL("../../bin/vmss-sim.js", import.meta.url));

export interface SimProcess {
  url: string;
  child: ChildProcess;
  /** What it printed so far (stdout and stderr). */
  output(): string;
  /** Sends the signal and waits for the exit; resolves with the exit code (null when killed by the signal). */
  stop(signal: "SIGTERM" | "SIGKILL"): Promise<number | null>;
}

/** Starts vmss-sim with these arguments (--port 0 unless given) and waits until it listens. */
export async function startSimProcess(args: string[], env: Record<string, string> = {}): Promise<SimProcess> {
  const child = spawn(process.execPath, [BIN, "--port", "0", ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr.on("data", (d: Buffer) => (out += d.toString()));
  const exited = once(child, "exit");
  const listening = waitForLog(() => out, /listening on (https:\/\/[^\s]+)[\s\S]*control API/, { timeoutMs: 60_000 });
  const first = await Promise.race([listening, exited.then(() => undefined)]);
  if (!first) throw new Error(`vmss-sim exited before it listened: ${out}`);
  return {
    url: first[1],
    child,
    output: () => out,
    async stop(signal) {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
