// How the service's Node.js process is set up: V8's heap settings, which src/server.ts applies before it loads
// anything else (and the heap's growing factor once it listens). Node's compile cache is src/compile-cache.js. Each
// was measured with `npm run bench`; docs/configuration.md says how to change them.
import { setFlagsFromString } from "node:v8";

/**
 * V8's heap settings for the service. By default V8 lets the young generation grow to 64 MB semi-spaces under a
 * burst of submissions, and collects the old generation only once it holds up to four times what is live: the
 * service peaked near 350 MB with some 60 MB live. Semi-spaces of at most 8 MB, and an old generation that may grow
 * by a quarter of what is live before it is collected, keep it under 200 MB. The price is a few more collections:
 * about 0.1 ms of CPU per task, within the benchmark's noise.
 *
 * V8 reads the semi-space size only when the process starts (v8.setFlagsFromString later changes nothing, nor
 * does --scavenger-max-new-space-capacity-mb: both measured): `npm start` and the image's CMD give it to node, and a
 * process started without it restarts itself with it (see restartWithHeapFlags). It reads the growing factor at
 * every major collection: that one is set once the service listens, since start-up, which grows the heap from
 * nothing, would pay for collections it does not need.
 */
export const START_HEAP_FLAGS = ["--max-semi-space-size=8"];
export const RUNTIME_HEAP_FLAGS = ["--heap-growing-percent=25"];

/** A flag's name as V8 reads it (it takes - and _ alike). */
function flagName(arg: string): string {
  return arg.split("=")[0].replaceAll("_", "-");
}

/** Which of flags the process was not started with: a flag given to node, or in NODE_OPTIONS, wins. */
export function missingFlags(
  flags: readonly string[],
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? "",
): string[] {
  const given = new Set([...execArgv, ...nodeOptions.split(/\s+/)].filter((a) => a.startsWith("--")).map(flagName));
  return flags.filter((f) => !given.has(flagName(f)));
}

/**
 * Starts this script again in the same process with START_HEAP_FLAGS, when they are missing: a plain
 * `node src/main.js` gives none (npm start and the image's CMD do). process.execve keeps the pid, the open
 * descriptors and the environment, so a supervisor, a signal or a log pipe sees no difference. The price is a second
 * start of Node: about 25 ms (measured with bench/startup.ts). Where execve is not available, the process goes on
 * with V8's defaults.
 */
export function restartWithHeapFlags(env: NodeJS.ProcessEnv = process.env): void {
  const missing = missingFlags(START_HEAP_FLAGS);
  if (missing.length === 0 || typeof process.execve !== "function") return;
  try {
    process.execve(
      process.execPath,
      [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
      env,
    );
  } catch {
    // Not allowed here: V8's defaults.
  }
}

/** RUNTIME_HEAP_FLAGS, unless the process was started with its own. */
export function applyRuntimeHeapFlags(): void {
  for (const flag of missingFlags(RUNTIME_HEAP_FLAGS)) setFlagsFromString(flag);
}
