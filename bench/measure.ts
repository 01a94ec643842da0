// What the benchmark scripts measure a process and a route by: CPU time and memory from /proc, reads per second
// from 16 keep-alive connections, the median of rounds, and the share of a core a busy process gets. One copy, so
// every figure is measured the same way.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { Agent, request } from "undici";

export const CLK_TCK = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;

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

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/**
 * How much of a core a busy process gets right now: CPU time over wall time of a 300 ms spin. On a quiet machine
 * about 1; well below 1, other work is competing and every absolute figure here is inflated.
 */
export function cpuShare(): number {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  while (performance.now() - t0 < 300);
  const cpu = process.cpuUsage(cpu0);
  return (cpu.user + cpu.system) / 1000 / (performance.now() - t0);
}
