// Preloaded (--import) into the service by bench/memory.ts: samples the process's memory every 50 ms and, on
// SIGUSR2, prints the sample with the highest RSS as one JSON line on stderr (`memory-peak {...}`).
import { readFileSync } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";

const mb = (/** @type {number} */ n) => Math.round((n / 2 ** 20) * 10) / 10;
/** @type {{ rss: number } & Record<string, unknown> | undefined} */
let peak;
function sample() {
  const usage = process.memoryUsage();
  if (peak && usage.rss <= peak.rss) return;
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, { size: mb(s.space_size), used: mb(s.space_used_size) }]),
  );
  // The kernel's split of the RSS: anonymous memory (V8's heap, malloc's) and mapped files (Node's binary, libraries).
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (/** @type {string} */ key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  peak = {
    atMs: Math.round(performance.now()),
    rss: usage.rss,
    rssMb: mb(usage.rss),
    rssAnonMb: mb(kb("RssAnon")),
    rssFileMb: mb(kb("RssFile")),
    heapTotalMb: mb(usage.heapTotal),
    heapUsedMb: mb(usage.heapUsed),
    externalMb: mb(usage.external),
    arrayBuffersMb: mb(usage.arrayBuffers),
    spaces,
  };
}
setInterval(sample, 50).unref();
process.on("SIGUSR2", () => {
  sample();
  process.stderr.write(`memory-peak ${JSON.stringify(peak)}\n`);
});
