// `npm install` on a fresh machine, as a newcomer runs it: a fresh clone of the repository (with the working tree's
// package.json files, lockfile and .npmrc over it), installed by `npm ci` under the system's Node (the one on PATH
// outside node_modules/.bin, not the project's Node 24), from npm's cache. Its output must hold no notice a newcomer
// must act on: no install-scripts notice (package.json's allowScripts decides each package's script) and no
// EBADENGINE warning but those README.md explains in its one line about them.
// `--dry-run`: npm checks engines and install scripts as it builds the tree, before it writes anything, and prints the
// same warnings and notice; the writing (40 s quiet, over 300 s at a load of 20 on two cores) would only slow it.
import t from "tap";
import { spawn, spawnSync } from "node:child_process";
import { copyFile, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";

const REPO = resolve(import.meta.dirname, "..");
// npm ci --dry-run takes about 10 s here; a busy machine several times that. The test's own bound is tap's (300 s).
const INSTALL_DEADLINE_MS = 200_000;
// What npm reads to decide what to install and how: taken from the working tree, so an uncommitted change is tested.
const INSTALL_FILES = ["package.json", "package-lock.json", ".npmrc", "packages/vmss-simulator/package.json"];

/** PATH without the node_modules/.bin folders npm and tap put first, so that `node` is the system's. */
function systemPath(): string {
  return (process.env.PATH ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "" && !dir.split(/[\\/]/).includes("node_modules"))
    .join(delimiter);
}

/** The packages README.md names in its line about EBADENGINE (in backticks, beside the word). */
async function explainedEngineWarnings(): Promise<Set<string>> {
  const readme = await readFile(join(REPO, "README.md"), "utf8");
  const line = readme.split("\n").find((l) => l.includes("EBADENGINE")) ?? "";
  return new Set([...line.matchAll(/`(@?[a-z0-9][\w./-]*)`/g)].map((m) => m[1]).filter((n) => n !== "EBADENGINE"));
}

/** Each EBADENGINE warning's package name (npm prints `package: 'name@version'`). */
export function engineWarnings(output: string): string[] {
  return [...output.matchAll(/EBADENGINE\s+package: '(@?[^@']+)@[^']*'/g)].map((m) => m[1]);
}

/** npm's lines that ask something of the reader: warnings and notices, EBADENGINE's blocks apart. */
export function otherNotices(output: string): string[] {
  return output.split("\n").filter((l) => /^npm (warn|notice|error)/.test(l) && !l.startsWith("npm warn EBADENGINE"));
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; signal: string | null; output: string }>((done, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"], timeout: INSTALL_DEADLINE_MS });
    let output = "";
    child.stdout.on("data", (b: Buffer) => (output += b.toString()));
    child.stderr.on("data", (b: Buffer) => (output += b.toString()));
    child.on("error", fail);
    child.on("close", (code, signal) => done({ code, signal, output }));
  });
}

const PATH = systemPath();
const env: NodeJS.ProcessEnv = { ...process.env, PATH, npm_config_update_notifier: "false" };
for (const key of Object.keys(env)) if (/^npm_(?!config_update_notifier)/i.test(key)) delete env[key];
const npmFound = spawnSync("npm", ["--version"], { env, encoding: "utf8" });
const nodeFound = spawnSync("node", ["--version"], { env, encoding: "utf8" });

t.test(
  "npm ci (dry run) in a fresh clone, under the system's Node: no install-scripts notice, only the EBADENGINE README explains",
  { skip: npmFound.status === 0 ? false : "no npm on PATH outside node_modules/.bin" },
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), "vmss-clean-install-"));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const clone = spawnSync("git", ["clone", "--quiet", "--no-hardlinks", REPO, dir], { encoding: "utf8" });
    t.equal(clone.status, 0, `git clone: ${clone.stderr}`);
    for (const file of INSTALL_FILES) await copyFile(join(REPO, file), join(dir, file));

    const { code, signal, output } = await run(
      "npm",
      ["ci", "--dry-run", "--offline", "--no-audit", "--no-fund"],
      dir,
      env,
    );
    t.comment(`npm ${npmFound.stdout.trim()} under Node ${nodeFound.stdout.trim()}`);
    t.equal(signal, null, `npm ci ended within ${INSTALL_DEADLINE_MS / 1000} s`);
    t.equal(code, 0, code === 0 ? "npm ci succeeded" : `npm ci failed:\n${output}`);
    t.same(otherNotices(output), [], "no warning or notice beside EBADENGINE (install-scripts: allowScripts)");
    const explained = await explainedEngineWarnings();
    const unexplained = [...new Set(engineWarnings(output))].filter((name) => !explained.has(name));
    t.same(unexplained, [], `every EBADENGINE names a package README.md explains (${[...explained].join(", ")})`);
  },
);

t.test("the output's parts are told apart", async (t) => {
  const sample = [
    "npm warn EBADENGINE Unsupported engine {",
    "npm warn EBADENGINE   package: '@azure/arm-compute@25.1.1',",
    "npm warn EBADENGINE   required: { node: '>=22.0.0' },",
    "npm warn EBADENGINE }",
    "npm warn EBADENGINE   package: 'cookie@2.0.2',",
    "added 769 packages in 40s",
    "npm warn install-scripts 2 packages have install scripts not yet covered by allowScripts:",
  ].join("\n");
  t.same(engineWarnings(sample), ["@azure/arm-compute", "cookie"]);
  t.same(otherNotices(sample), [sample.split("\n")[6]]);
});
