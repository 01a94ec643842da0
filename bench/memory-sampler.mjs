// Preloaded (--import) into the service by bench/memory.ts: samples the process's memory every 50 ms and, on
// SIGUSR2, prints the sample with the highest RSS as one JSON line on stderr (`memory-peak {...}`). A new peak, at
// most once a second, also reads /proc/self/smaps for malloc's share: its main arena ([heap]) and the arenas of
// other threads (glibc maps each at a 64 MB boundary).
import { readFileSync } from "node:fs";
import { getHeapSpaceStatistics } from "node:v8";

const mb = (/** @type {number} */ n) => Math.round((n / 2 ** 20) * 10) / 10;
/** @type {{ rss: number } & Record<string, unknown> | undefined} */
let peak;
let smapsAtMs = -Infinity;
/** @type {Record<string, number>} */
let malloc = {};

/** Malloc's resident memory: the main arena, and the other threads' arenas (how many, and their sum). */
function mallocShare() {
  const out = { mainArenaMb: 0, threadArenas: 0, threadArenasMb: 0 };
  let kind = "";
  for (const line of readFileSync("/proc/self/smaps", "utf8").split("\n")) {
    const m = /^([0-9a-f]+)-[0-9a-f]+ (\S+) \S+ \S+ (\S+)\s*(\S*)/.exec(line);
    if (m) {
      const anon = m[3] === "0" && m[4] === "";
      kind =
        m[4] === "[heap]"
          ? "main"
          : anon && m[2] === "rw-p" && BigInt(`0x${m[1]}`) % (64n << 20n) === 0n
            ? "thread"
            : "";
      if (kind === "thread") out.threadArenas++;
      continue;
    }
    const rss = kind && /^Rss:\s+(\d+)/.exec(line);
    if (rss) out[kind === "main" ? "mainArenaMb" : "threadArenasMb"] += Number(rss[1]) * 1024;
  }
  return { ...out, mainArenaMb: mb(out.mainArenaMb), threadArenasMb: mb(out.threadArenasMb) };
}
function sample() {
  const usage = process.memoryUsage();
  if (peak && usage.rss <= peak.rss) return;
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, { size: mb(s.space_size), used: mb(s.space_used_size) }]),
  );
  // The kernel's split of the RSS: anonymous memory (V8's heap, malloc's) and mapped files (Node's binary, libraries).
  const status = readFileSync("/proc/self/status", "utf8");
  const kb = (/** @type {string} */ key) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) * 1024;
  if (performance.now() - smapsAtMs > 1000) {
    malloc = mallocShare();
    smapsAtMs = performance.now();
  }
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
    malloc,
  };
}
setInterval(sample, 50).unref();
process.on("SIGUSR2", () => {
  sample();
  process.stderr.write(`memory-peak ${JSON.stringify(peak)}\n`);
});
