// The service's Node.js process: it runs with its heap settings however it is started (in the same process, pid
// and all), flags given by whoever starts it win, the compile cache is kept only where nobody else can write, and
// started as npm start and the image start it, Node never loads its TypeScript stripper once that cache is warm.
import t, { type Test } from "tap";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compileCacheDir } from "../src/compile-cache.js";
import { missingFlags, RUNTIME_HEAP_FLAGS, START_HEAP_FLAGS } from "../src/node-process.ts";
import { startSimulator } from "vmss-simulator";
import { REPO, SIMULATOR_CA_FILE, startChildService } from "../testkit/child-service.ts";

t.test("missingFlags: a flag given to node or in NODE_OPTIONS wins, in either spelling", async (t) => {
  t.same(missingFlags(["--max-semi-space-size=8"], [], ""), ["--max-semi-space-size=8"]);
  t.same(missingFlags(["--max-semi-space-size=8"], ["--max-semi-space-size=32"], ""), []);
  t.same(missingFlags(["--max-semi-space-size=8"], ["--max_semi_space_size=32"], ""), [], "V8 reads _ as -");
  t.same(
    missingFlags(["--max-semi-space-size=8"], [], "--enable-source-maps  --max-semi-space-size=4"),
    [],
    "NODE_OPTIONS",
  );
  t.same(
    missingFlags(["--max-semi-space-size=8", "--heap-growing-percent=50"], ["--heap-growing-percent=0"], ""),
    ["--max-semi-space-size=8"],
    "each flag on its own",
  );
  t.same(
    missingFlags(["--max-semi-space-size=8"], ["--max-old-space-size=512", "--inspect"], ""),
    ["--max-semi-space-size=8"],
    "other flags are not it",
  );
});

t.test("npm start gives node the start flags, so the service starts once, without restarting itself", async (t) => {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  t.same(pkg.scripts.start.split(" "), ["node", ...START_HEAP_FLAGS, "src/main.js"]);
});

t.test("the start and runtime settings are V8 flags node knows", async (t) => {
  for (const flag of [...START_HEAP_FLAGS, ...RUNTIME_HEAP_FLAGS]) t.match(flag, /^--[a-z-]+=\d+$/);
});

const sim = await startSimulator({ port: 0, writeDurationMs: 0, timeScale: 0.001, seed: true });
t.teardown(() => sim.close());

/** The command line the service's process runs with now, as the kernel has it. */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);

async function serviceWith(t: Test, nodeArgs: string[] = [], env: Record<string, string> = {}, script?: string) {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-process-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const service = await startChildService(
    { SIMULATOR_URL: sim.url, SIMULATOR_CA_FILE, TASK_STORE: "sqlite", DATA_DIR: dataDir, ...env },
    { nodeArgs, script },
  );
  t.teardown(() => service.child.kill("SIGKILL"));
  return service;
}

for (const script of ["src/main.js", "src/server.ts"]) {
  t.test(
    `\`node ${script}\` runs with the start flags, in the process that was started`,
    { skip: process.platform !== "linux" && "reads /proc" },
    async (t) => {
      const service = await serviceWith(t, [], {}, script);
      const argv = commandLine(service.child.pid!);
      for (const flag of START_HEAP_FLAGS) t.ok(argv.includes(flag), `${flag} in ${argv.join(" ")}`);
      t.equal(argv.at(-1)?.endsWith(script), true, "still the service's script");
      t.equal((await service.api("GET", "/health")).status, 200, "and it answers");
      service.child.kill("SIGTERM");
      t.same(await service.exited, { code: 0, signal: null }, "a signal to the pid that was started stops it cleanly");
    },
  );
}

t.test(
  "flags given by whoever starts it are kept, and not doubled",
  { skip: process.platform !== "linux" && "reads /proc" },
  async (t) => {
    const service = await serviceWith(t, ["--max-semi-space-size=4"]);
    const argv = commandLine(service.child.pid!);
    t.same(
      argv.filter((a) => a.startsWith("--max-semi-space-size")),
      ["--max-semi-space-size=4"],
    );
    t.equal((await service.api("GET", "/health")).status, 200);
  },
);

t.test("the compile cache directory is the user's own, or none", async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), "vmss-ops-cache-"));
  t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
  const saved = { TMPDIR: process.env.TMPDIR, NODE_COMPILE_CACHE: process.env.NODE_COMPILE_CACHE };
  t.teardown(() => {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  });
  delete process.env.NODE_COMPILE_CACHE;
  process.env.TMPDIR = tmp;
  const dir = compileCacheDir();
  t.ok(dir?.startsWith(tmp), `made under the temp dir: ${dir}`);
  t.equal(statSync(dir!).mode & 0o777, 0o700, "private");
  chmodSync(dir!, 0o777);
  t.equal(compileCacheDir(), undefined, "one that others can write to is not used");
  rmSync(dir!, { recursive: true });
  mkdirSync(dir!, { recursive: true });
  chmodSync(dir!, 0o755);
  t.equal(compileCacheDir(), dir, "one that only its owner can write to is");
  process.env.NODE_COMPILE_CACHE = join(tmp, "node's own");
  t.equal(compileCacheDir(), undefined, "NODE_COMPILE_CACHE is Node's to apply");
});

t.test(
  "a started service leaves its modules in the cache",
  { skip: process.platform !== "linux" && "reads /proc" },
  async (t) => {
    const tmp = mkdtempSync(join(tmpdir(), "vmss-ops-cache-"));
    t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
    const service = await serviceWith(t, [], { TMPDIR: tmp });
    // The cache is written as soon as it listens, before it answers anything.
    t.equal((await service.api("GET", "/health")).status, 200);
    const dirs = readdirSync(tmp).filter((d) => d.startsWith("vmss-ops-compile-cache"));
    t.equal(dirs.length, 1, "one cache directory");
    const entries = readdirSync(join(tmp, dirs[0]), { recursive: true });
    t.ok(entries.length > 100, `with the modules' entries (${entries.length})`);
  },
);

t.test(
  "started as npm start and the image start it, Node's TypeScript stripper is not loaded once the cache is warm",
  { skip: process.platform !== "linux" && "the cache is per user" },
  async (t) => {
    // A private temp dir: the cache starts cold, as on a new machine or in a new container.
    const tmp = mkdtempSync(join(tmpdir(), "vmss-ops-cache-"));
    t.teardown(() => rmSync(tmp, { recursive: true, force: true }));
    const env = { TMPDIR: tmp, NODE_OPTIONS: `--import=${join(REPO, "test", "fixtures", "report-type-stripper.mjs")}` };
    /** What the fixture says of the stripper when the service listens: "loaded" or "not loaded". */
    const stripper = async (script: string) => {
      const service = await serviceWith(t, START_HEAP_FLAGS, env, script);
      t.equal((await service.api("GET", "/health")).status, 200);
      service.child.kill("SIGKILL");
      await service.exited;
      const line = service
        .output()
        .split("\n")
        .find((l) => l.startsWith("type-stripper "));
      t.ok(line, `the fixture reports the stripper (${script})`);
      return line?.slice("type-stripper ".length);
    };
    // The first start strips every module and leaves them in the cache (it is written once the service listens).
    t.equal(await stripper("src/main.js"), "loaded", "a cold cache: the first start strips the modules' types");
    t.equal(
      await stripper("src/main.js"),
      "not loaded",
      "a warm one: src/main.js turns it on before any TypeScript is read",
    );
    // The same cache, a TypeScript entry point: Node strips its types before a line of it can turn the cache on.
    t.equal(await stripper("src/server.ts"), "loaded", "`node src/server.ts` loads it for its own file");
  },
);
