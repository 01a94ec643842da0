// Fills Node's compile cache (the directory NODE_COMPILE_CACHE names) with every module of the service, without
// starting it: the image runs this at build time (Dockerfile), so that a container's first start reads its modules
// type-stripped and compiled. On a cold cache a start strips and compiles every module, which takes 250-550 ms
// more, and keeps Node's TypeScript stripper in the process: about 25 MB more RSS after /ready (docs/container.md).
//   NODE_COMPILE_CACHE=<dir> node scripts/warm-compile-cache.ts
// Every module of src/ is imported (so every configuration's, the PostgreSQL store's too), but the status page's
// browser scripts; then the packages the service loads on first use: the Azure SDK, @azure/identity and, where it is
// installed, the embedded simulator's package (vmss-simulator). src/main.js and src/server.ts start nothing when
// imported by another script, nor does the simulator's entry.
import { readdirSync } from "node:fs";
import { flushCompileCache, getCompileCacheDir } from "node:module";
import { join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const SRC = fileURLToPath(new URL("../src/", import.meta.url));
/** Modules that run something when imported, and scripts that never run in Node. */
const LEFT_OUT = [join("ui", "static")];

if (!process.env.NODE_COMPILE_CACHE || !getCompileCacheDir()) {
  process.stderr.write("warm-compile-cache: NODE_COMPILE_CACHE must name a directory this user can write to\n");
  process.exit(2);
}
const modules = readdirSync(SRC, { recursive: true, encoding: "utf8" })
  .filter((f) => /\.(ts|js)$/.test(f) && !f.endsWith(".d.ts") && !LEFT_OUT.some((out) => f.startsWith(out)))
  .sort();
for (const file of modules) await import(pathToFileURL(join(SRC, file)).href);
const { computeSdk, pipelineSdk } = await import("../src/azure/sdk.ts");
computeSdk();
pipelineSdk();
const { loadIdentity } = await import("../src/azure/client.ts");
await loadIdentity();
// The embedded simulator's modules: its entry imports them and starts nothing. The production image has no simulator.
const simulator = await import("vmss-simulator").then(
  () => "the embedded simulator",
  (err: unknown) => {
    if ((err as { code?: unknown }).code === "ERR_MODULE_NOT_FOUND") return "no simulator";
    throw err;
  },
);
flushCompileCache();
const entries = readdirSync(getCompileCacheDir()!).length;
process.stdout.write(
  `warm-compile-cache: ${modules.length} modules of ${relative(process.cwd(), SRC) || "."} and the Azure SDK, ${simulator}, ${entries} entries in ${getCompileCacheDir()}\n`,
);
// Some modules start timers when imported (metrics): nothing here needs to wait for them.
process.exit(0);
