// What the benchmark scripts measure a process and a route by: CPU time and memory from /proc, and reads per
// second from 16 keep-alive connections. One copy, so every figure is measured the same way.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";

const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

/** CPU ms (user + system) and peak and current RSS of a process, from /proc. */
export function procStats(pid: number): { cpuMs: number; peakRssMb: number; rssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { cpuMs: (ticks * 1000) / CLK_TCK, peakRssMb: kb("VmHWM") / 1024, rssMb: kb("VmRSS") / 1024 };
}

/** CPU ms (user + system) of a process, from /proc. */
export function cpuMsOf(pid: number): number {
  return procStats(pid).cpuMs;
}

/** GETs of url per second, 16 connections each sending the next when the last is answered, for `seconds`. */
export async function readRate(url: string, seconds: number): Promise<number> {
  const agent = new Agent({ connections: 16, pipelining: 1 });
  let n = 0;
  const until = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (Date.now() < until) {
        const res = await request(url, { dispatcher: agent });
        await res.body.text();
        if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode}`);
        n++;
      }
    }),
  );
  await agent.close();
  return n / seconds;
}
