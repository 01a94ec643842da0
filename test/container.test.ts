// The Dockerfile, .dockerignore and docker-compose.yml, checked without a Docker engine (there is none here):
// they are parsed and checked for what matters (Node ≥ 24, production dependencies only, non-root, exec-form CMD,
// EXPOSE, HEALTHCHECK, compose agreeing with the image), and then the image's commands are run natively: the
// runtime files are copied as the Dockerfile COPYs them (honouring .dockerignore) into a temp dir standing for
// WORKDIR, node_modules holds only the lockfile's production packages, the CMD is started with the image's ENV
// (and compose's environment; ports made free) as a non-root user when we can, the HEALTHCHECK command is run,
// an operation is driven through the embedded simulator, and SIGTERM must stop it promptly with exit code 0. The two
// other targets are rehearsed likewise: production (the service without the simulator's package) and vmss-sim (the
// simulator alone).
import t from "tap";
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import {
  chmod,
  chown,
  copyFile,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  realpath,
  rm,
  stat,
  symlink,
} from "node:fs/promises";
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import { tmpdir } from "node:os";
import { dirname, join, posix, resolve } from "node:path";
import { Agent, request } from "undici";
import { parse as parseYaml } from "yaml";
import { loadConfig } from "../src/startup-config.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { START_HEAP_FLAGS } from "../src/node-process.ts";
import { freePort } from "../testkit/child-service.ts";
import type { Json } from "../testkit/json.ts";

const REPO = resolve(import.meta.dirname, "..");

// ---------------------------------------------------------------------------------------------------------------
// A Dockerfile parser: enough of the reference syntax for this file (directives, comments, line continuations,
// stages, global ARGs, ENV, exec/shell forms, HEALTHCHECK options, COPY flags).

interface Instruction {
  keyword: string;
  args: string;
  line: number;
}

interface Stage {
  index: number;
  name?: string;
  /** The FROM image with global ARGs substituted. */
  image: string;
  instructions: Instruction[];
}

interface Dockerfile {
  directives: Record<string, string>;
  globalArgs: Record<string, string>;
  instructions: Instruction[];
  stages: Stage[];
}

function parseDockerfile(text: string): Dockerfile {
  const lines = text.split(/\r?\n/);
  const directives: Record<string, string> = {};
  let i = 0;
  for (; i < lines.length; i++) {
    const m = /^#\s*([A-Za-z]+)\s*=\s*(\S+)\s*$/.exec(lines[i]);
    if (!m) break;
    directives[m[1].toLowerCase()] = m[2];
  }
  const instructions: Instruction[] = [];
  let current: { text: string; line: number } | undefined;
  for (; i < lines.length; i++) {
    const raw = lines[i];
    if (/^\s*#/.test(raw)) continue; // comments, also inside a continuation
    if (!current && raw.trim() === "") continue;
    const continues = /\\\s*$/.test(raw);
    const piece = continues ? raw.replace(/\\\s*$/, "") : raw;
    current = current
      ? { text: `${current.text} ${piece.trim()}`, line: current.line }
      : { text: piece.trim(), line: i + 1 };
    if (continues) continue;
    const m = /^([A-Za-z]+)(?:\s+([\s\S]*))?$/.exec(current.text);
    if (!m) throw new Error(`Dockerfile line ${current.line}: cannot parse "${current.text}"`);
    instructions.push({ keyword: m[1].toUpperCase(), args: (m[2] ?? "").trim(), line: current.line });
    current = undefined;
  }
  if (current) throw new Error(`Dockerfile line ${current.line}: a continuation runs off the end of the file`);

  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === "FROM") {
      const [image, as, name] = tokenize(ins.args).filter((w) => !w.startsWith("--platform="));
      if (as !== undefined && as.toUpperCase() !== "AS") throw new Error(`line ${ins.line}: FROM image [AS name]`);
      stages.push({ index: stages.length, name, image: substitute(image, globalArgs), instructions: [] });
    } else if (stages.length === 0) {
      if (ins.keyword !== "ARG") throw new Error(`line ${ins.line}: only ARG may come before the first FROM`);
      const [key, value = ""] = splitAssignment(tokenize(ins.args)[0]);
      globalArgs[key] = value;
    } else stages[stages.length - 1].instructions.push(ins);
  }
  return { directives, globalArgs, instructions, stages };
}

/** Words, as the Dockerfile's shell-less forms split them: whitespace outside quotes, backslash escapes. */
function tokenize(s: string): string[] {
  const out: string[] = [];
  let word = "";
  let inWord = false;
  let quote: string | undefined;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === "\\" && quote === '"' && i + 1 < s.length) word += s[++i];
      else word += c;
    } else if (c === '"' || c === "'") {
      quote = c;
      inWord = true;
    } else if (c === "\\" && i + 1 < s.length) {
      word += s[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) out.push(word);
      word = "";
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unterminated quote in: ${s}`);
  if (inWord) out.push(word);
  return out;
}

function splitAssignment(word: string): [string, string | undefined] {
  const eq = word.indexOf("=");
  return eq < 0 ? [word, undefined] : [word.slice(0, eq), word.slice(eq + 1)];
}

function substitute(s: string, vars: Record<string, string>): string {
  return s.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}|\$([A-Za-z_][A-Za-z0-9_]*)/g,
    (_m, a: string, dflt: string | undefined, b: string) => {
      const name = a ?? b;
      return vars[name] ?? dflt ?? "";
    },
  );
}

function parseEnv(args: string): Record<string, string> {
  const words = tokenize(args);
  if (words.length > 0 && !words[0].includes("=")) return { [words[0]]: args.trim().slice(words[0].length).trim() }; // ENV key value
  const out: Record<string, string> = {};
  for (const w of words) {
    const [k, v] = splitAssignment(w);
    if (v === undefined) throw new Error(`ENV ${w}: expected key=value`);
    out[k] = v;
  }
  return out;
}

/** The exec (JSON) form, or undefined for the shell form. */
function execForm(args: string): string[] | undefined {
  if (!args.trim().startsWith("[")) return undefined;
  const parsed: unknown = JSON.parse(args);
  if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === "string"))
    throw new Error(`not a JSON array of strings: ${args}`);
  return parsed;
}

function parseHealthcheck(args: string): { options: Record<string, string>; cmd?: string[]; none: boolean } {
  if (/^NONE$/i.test(args.trim())) return { options: {}, none: true };
  const m = /^((?:--[a-z-]+=\S+\s+)*)CMD\s+([\s\S]+)$/.exec(args);
  if (!m) throw new Error(`HEALTHCHECK [options] CMD ...: ${args}`);
  const options = Object.fromEntries(
    tokenize(m[1]).map((w) => splitAssignment(w.replace(/^--/, "")) as [string, string]),
  );
  return { options, cmd: execForm(m[2]), none: false };
}

function parseCopy(args: string): { flags: Record<string, string>; sources: string[]; dest: string } {
  const words = tokenize(args);
  const flags: Record<string, string> = {};
  while (words[0]?.startsWith("--")) {
    const [k, v] = splitAssignment(words.shift()!.slice(2));
    flags[k] = v ?? "true";
  }
  const rest = words.join(" ").trim().startsWith("[") ? execForm(words.join(" "))! : words;
  if (rest.length < 2) throw new Error(`COPY needs a source and a destination: ${args}`);
  return { flags, sources: rest.slice(0, -1), dest: rest[rest.length - 1] };
}

/** "15s", "1m30s", "500ms" → milliseconds. */
function durationMs(s: string): number {
  let total = 0;
  const re = /(\d+(?:\.\d+)?)(ms|s|m|h)/g;
  let consumed = "";
  for (const m of s.matchAll(re)) {
    total += Number(m[1]) * { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[m[2] as "ms"];
    consumed += m[0];
  }
  if (consumed !== s || s === "") throw new Error(`not a duration: ${s}`);
  return total;
}

// ---------------------------------------------------------------------------------------------------------------
// .dockerignore, with Docker's rules: paths relative to the context, `*`, `?`, `**`, `!` re-includes, last match
// wins, and a pattern that matches a directory excludes everything under it.

function dockerignoreMatcher(text: string): (relPath: string) => boolean {
  const rules = text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#"))
    .map((l) => {
      const negate = l.startsWith("!");
      const pattern = posix.normalize((negate ? l.slice(1) : l).trim().replace(/^\/+/, "")).replace(/\/+$/, "");
      let re = "";
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i];
        if (c === "*" && pattern[i + 1] === "*") {
          i++;
          if (pattern[i + 1] === "/") {
            i++;
            re += "(?:.*/)?";
          } else re += ".*";
        } else if (c === "*") re += "[^/]*";
        else if (c === "?") re += "[^/]";
        else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
      }
      return { negate, pattern, re: new RegExp(`^${re}$`) };
    });
  return (relPath) => {
    const parts = relPath.split("/");
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
    let excluded = false;
    for (const rule of rules) if (candidates.some((c) => rule.re.test(c))) excluded = !rule.negate;
    return excluded;
  };
}

interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
}

function exitOf(child: ChildProcess): Promise<Exited> {
  if (child.exitCode !== null || child.signalCode !== null)
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  return new Promise((done) => child.once("exit", (code, signal) => done({ code, signal })));
}

function within<T>(ms: number, p: Promise<T>): Promise<T | "timeout"> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([p, new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/**
 * Spawns argv with exactly `env` and nothing else, like a container process: through `env -i`, because the test
 * runner adds NODE_OPTIONS (its process-info hooks) to every child it sees spawned.
 */
function spawnClean(
  argv: string[],
  opts: { cwd: string; env: Record<string, string>; uid?: number; gid?: number },
): ChildProcess {
  const assignments = Object.entries(opts.env).map(([k, v]) => `${k}=${v}`);
  return spawn("/usr/bin/env", ["-i", ...assignments, ...argv], {
    cwd: opts.cwd,
    env: {},
    uid: opts.uid,
    gid: opts.gid,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs a command to completion, killing it after timeoutMs (as Docker does with HEALTHCHECK --timeout). */
async function run(
  cmd: string[],
  opts: { cwd: string; env: Record<string, string>; timeoutMs: number; uid?: number; gid?: number },
) {
  const child = spawnClean(cmd, opts);
  let output = "";
  child.stdout!.on("data", (b) => (output += b));
  child.stderr!.on("data", (b) => (output += b));
  const started = Date.now();
  const result = await within(opts.timeoutMs, exitOf(child));
  if (result === "timeout") {
    child.kill("SIGKILL");
    await exitOf(child);
    return { code: null, timedOut: true, output, ms: Date.now() - started };
  }
  return { code: result.code, timedOut: false, output, ms: Date.now() - started };
}

/** Whether `uid` (not root, in no special group) can reach and read `path`: every directory above it is o+x. */
async function othersCanReach(path: string, needExec: boolean): Promise<boolean> {
  const real = await realpath(path);
  const mode = (await stat(real)).mode;
  if (needExec ? (mode & 0o001) === 0 : (mode & 0o004) === 0) return false;
  for (let dir = dirname(real); ; dir = dirname(dir)) {
    if (((await stat(dir)).mode & 0o001) === 0) return false;
    if (dir === dirname(dir)) return true;
  }
}

async function listFiles(root: string, rel = ""): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, rel), { withFileTypes: true })) {
    const path = rel ? `${rel}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await listFiles(root, path)));
    else out.push(path);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------------

const dockerfileText = await readFile(join(REPO, "Dockerfile"), "utf8");
const dockerignoreText = await readFile(join(REPO, ".dockerignore"), "utf8");
const composeText = await readFile(join(REPO, "docker-compose.yml"), "utf8");
const pkg = JSON.parse(await readFile(join(REPO, "package.json"), "utf8"));
const lock = JSON.parse(await readFile(join(REPO, "package-lock.json"), "utf8"));

const dockerfile = parseDockerfile(dockerfileText);

/** A stage's instructions after those of the stage it is built FROM, if any (`FROM service AS runtime`). */
function imageInstructions(stage: Stage): Instruction[] {
  const parent = dockerfile.stages.find((s) => s.name === stage.image && s.index < stage.index);
  return [...(parent ? imageInstructions(parent) : []), ...stage.instructions];
}

/** An image built from a base image, not from another stage. */
const fromImage = (stage: Stage) => !dockerfile.stages.some((s) => s.name === stage.image && s.index < stage.index);

// `docker build .` builds the last stage: the default image, the service with its embedded simulator.
const final = dockerfile.stages[dockerfile.stages.length - 1];
const finalInstructions = imageInstructions(final);
const finalOf = (keyword: string) => finalInstructions.filter((ins) => ins.keyword === keyword);
const lastOf = (keyword: string) => finalOf(keyword).at(-1);
const imageEnv: Record<string, string> = Object.assign({}, ...finalOf("ENV").map((ins) => parseEnv(ins.args)));
const workdir = lastOf("WORKDIR")?.args ?? "/";
const cmd = execForm(lastOf("CMD")?.args ?? "");
const healthcheck = parseHealthcheck(lastOf("HEALTHCHECK")?.args ?? "NONE");
const ignored = dockerignoreMatcher(dockerignoreText);
// The yaml package (a production dependency): anchors and merge keys as compose resolves them.
const compose = parseYaml(composeText, { merge: true }) as Record<string, Json>;
const service = compose?.services?.["vmss-ops"] as Record<string, Json> | undefined;

/** COPY from the build context, as Docker does: a directory source copies its contents; .dockerignore applies. */
async function copyTree(fromRel: string, to: string): Promise<number> {
  const from = join(REPO, fromRel);
  if (!(await stat(from)).isDirectory()) {
    await mkdir(dirname(to), { recursive: true });
    await copyFile(from, to);
    return 1;
  }
  let n = 0;
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const rel = posix.join(fromRel, entry.name);
    if (ignored(rel)) continue;
    n += await copyTree(rel, join(to, entry.name));
  }
  return n;
}

/** A build target: its instructions (its base stages' first), ENV, WORKDIR, CMD and HEALTHCHECK. */
function target(name: string) {
  const stage = dockerfile.stages.find((s) => s.name === name);
  const instructions = stage ? imageInstructions(stage) : [];
  const of = (keyword: string) => instructions.filter((i) => i.keyword === keyword);
  return {
    stage,
    of,
    env: Object.assign({}, ...of("ENV").map((i) => parseEnv(i.args))) as Record<string, string>,
    workdir: of("WORKDIR").at(-1)?.args ?? "/",
    cmd: execForm(of("CMD").at(-1)?.args ?? ""),
    healthcheck: parseHealthcheck(of("HEALTHCHECK").at(-1)?.args ?? "NONE"),
    user: of("USER").at(-1)?.args ?? "root",
  };
}
const composeEnv: Record<string, string> = service?.environment ?? {};

t.test("the parsers", async (t) => {
  const df = parseDockerfile(
    '# syntax=docker/dockerfile:1\nARG V=24\n# c\nFROM node:${V}-slim AS a\nENV A=1 \\\n  # inside\n  B="x y"\nCMD ["node", "x.ts"]\n',
  );
  t.same(df.directives, { syntax: "docker/dockerfile:1" });
  t.equal(df.stages[0].image, "node:24-slim");
  t.equal(df.stages[0].name, "a");
  t.same(
    parseEnv(df.stages[0].instructions[0].args),
    { A: "1", B: "x y" },
    "continuations, comments inside them, quotes",
  );
  t.same(execForm(df.stages[0].instructions[1].args), ["node", "x.ts"]);
  t.equal(execForm("node x.ts"), undefined, "shell form is not exec form");
  t.same(parseHealthcheck('--interval=5s --retries=2 CMD ["true"]'), {
    options: { interval: "5s", retries: "2" },
    cmd: ["true"],
    none: false,
  });
  t.equal(durationMs("1m30s"), 90_000);
  t.throws(() => durationMs("10"), "a duration needs a unit");

  const ig = dockerignoreMatcher("node_modules\n**/*.log\ndocs\n!docs/keep.md\n/data\n");
  t.ok(ig("node_modules/x/index.js"), "a directory pattern excludes its contents");
  t.ok(ig("a/b/c.log"));
  t.ok(ig("c.log"), "**/ also matches at the root");
  t.ok(ig("docs/a.md"));
  t.notOk(ig("docs/keep.md"), "! re-includes");
  t.ok(ig("data/x"));
  t.notOk(ig("src/data.ts"));
});

t.test("Dockerfile", async (t) => {
  t.equal(dockerfile.directives.syntax, "docker/dockerfile:1", "pins the Dockerfile frontend");
  t.ok(dockerfile.stages.length >= 1, "has a FROM");
  for (const stage of dockerfile.stages.filter(fromImage)) {
    const m = /^node:(\d+)(?:[.-]|$)/.exec(stage.image);
    t.ok(m, `stage ${stage.name ?? stage.index} is an official node image: ${stage.image}`);
    t.ok(
      m && Number(m[1]) >= 24,
      `stage ${stage.name ?? stage.index}: Node ≥ 24 (${stage.image}), as Node type stripping requires`,
    );
    t.match(stage.image, /-(slim|alpine)/, "a slim or alpine variant");
  }
  // engines says what `npm install` needs, as README.md does, not the Node the scripts run on: that one is the node
  // package's, the images' major.
  const installNode = /any Node ≥ (\d+) for `npm install`/.exec(await readFile(join(REPO, "README.md"), "utf8"))?.[1];
  t.equal(pkg.engines?.node, `>=${installNode}`, "package.json engines: what README.md says npm install needs");
  t.match(pkg.devDependencies?.node, /^\^24\./, "the scripts run on the node package's Node 24, as the images do");

  // Production dependencies only: a stage runs `npm ci --omit=dev` from the lockfile, and the final stage takes
  // its node_modules and nothing that was installed with dev dependencies.
  const depsCopies = finalOf("COPY")
    .map((c) => parseCopy(c.args))
    .filter((c) => c.flags.from);
  t.equal(depsCopies.length, 1, "the final stage copies one thing from another stage");
  const depsStage = dockerfile.stages.find((s) => s.name === depsCopies[0]?.flags.from);
  t.ok(depsStage, `stage ${depsCopies[0]?.flags.from} exists`);
  t.same(
    depsCopies[0]?.sources,
    [posix.join(depsStage?.instructions.find((i) => i.keyword === "WORKDIR")?.args ?? "/", "node_modules")],
    "and that is its node_modules",
  );
  const install =
    depsStage?.instructions
      .filter((i) => i.keyword === "RUN")
      .map((i) => i.args)
      .join("\n") ?? "";
  t.match(install, /\bnpm ci\b/, "dependencies come from the lockfile (npm ci)");
  t.match(install, /--omit=dev\b/, "without dev dependencies");
  const depsCopied =
    depsStage?.instructions.filter((i) => i.keyword === "COPY").flatMap((i) => parseCopy(i.args).sources) ?? [];
  t.ok(
    depsCopied.includes("package.json") && depsCopied.includes("package-lock.json"),
    "the deps stage has package.json and the lockfile",
  );
  const scripted = Object.entries<Json>(lock.packages)
    .filter(([k, v]) => k && !v.dev && v.hasInstallScript)
    .map(([k]) => k);
  if (/--ignore-scripts/.test(install))
    t.same(scripted, [], "--ignore-scripts is safe: no production package has an install script");
  t.notOk(
    finalOf("RUN").some((r) => /\bnpm (ci|install|i)\b/.test(r.args)),
    "no npm install in the final stage",
  );

  const user = lastOf("USER")?.args;
  t.ok(user, "sets a USER");
  t.notMatch(user ?? "root", /^(root|0)(:|$)/, `runs as a non-root user (${user})`);
  const userAt = lastOf("USER")!.line;
  t.ok(
    finalOf("COPY").every((c) => c.line < userAt && !parseCopy(c.args).flags.chown),
    "app files are copied before USER and stay root-owned (read-only for the runtime user)",
  );
  t.ok(
    finalOf("RUN").every((r) => r.line < userAt),
    "every RUN in the final stage happens before USER",
  );

  t.same(
    cmd,
    ["node", ...START_HEAP_FLAGS, "src/main.js"],
    "CMD is exec form (so SIGTERM reaches node) and runs src/main.js with V8's start-up heap flags (no restart to add them)",
  );
  t.equal(pkg.scripts?.start, cmd?.join(" "), "the same command as npm start");
  t.equal(finalOf("ENTRYPOINT").length, 0, "no ENTRYPOINT wraps it");
  t.equal(imageEnv.HOST, "0.0.0.0", "listens on every interface in the container");
  t.equal(imageEnv.NODE_ENV, "production");
  const exposed = finalOf("EXPOSE")
    .flatMap((e) => tokenize(e.args))
    .map((p) => p.replace(/\/tcp$/, ""))
    .sort();
  t.same(exposed, ["7002", "7003"], "EXPOSE 7002 7003");
  t.equal(imageEnv.PORT ?? "7002", "7002", "the service port is the exposed one");
  t.equal(imageEnv.SIMULATOR_PORT ?? "7003", "7003", "the simulator port is the exposed one");
  t.equal(
    imageEnv.SIMULATOR_HOST,
    "0.0.0.0",
    "the simulator listens beyond the container's loopback, so 7003 is reachable",
  );

  t.notOk(healthcheck.none, "has a HEALTHCHECK");
  t.ok(healthcheck.cmd, "HEALTHCHECK CMD is exec form (no shell in the way)");
  t.equal(healthcheck.cmd?.[0], "node", "with node (the slim image has no curl or wget)");
  t.match(healthcheck.cmd?.join(" ") ?? "", /fetch\(.*\/health/, "fetching /health");
  for (const key of ["interval", "timeout", "start-period"])
    t.doesNotThrow(() => durationMs(healthcheck.options[key]), `HEALTHCHECK --${key} is a duration`);
  t.ok(durationMs(healthcheck.options.timeout) < durationMs(healthcheck.options.interval), "timeout < interval");
  t.match(healthcheck.options.retries, /^\d+$/);
  const stopSignal = lastOf("STOPSIGNAL")?.args ?? "SIGTERM";
  t.equal(stopSignal, "SIGTERM", "stops with SIGTERM, which the service handles (src/server.ts)");

  const known = new Set([
    "FROM",
    "RUN",
    "CMD",
    "LABEL",
    "EXPOSE",
    "ENV",
    "ADD",
    "COPY",
    "ENTRYPOINT",
    "VOLUME",
    "USER",
    "WORKDIR",
    "ARG",
    "ONBUILD",
    "STOPSIGNAL",
    "HEALTHCHECK",
    "SHELL",
  ]);
  t.same(
    dockerfile.instructions.filter((i) => !known.has(i.keyword)).map((i) => `${i.line}: ${i.keyword}`),
    [],
    "only known instructions",
  );
  t.equal(dockerfile.instructions.filter((i) => i.keyword === "ADD").length, 0, "COPY, not ADD");
});

t.test("the production target: the service alone, no simulator in the image", async (t) => {
  const production = target("production");
  if (!production.stage) return t.fail("the Dockerfile has a production stage");
  t.equal(production.env.SIMULATOR, "off", "real Azure accounts only (SIMULATOR=off)");
  t.same(
    Object.keys(production.env).filter((k) => k.startsWith("SIMULATOR_")),
    [],
    "no simulator settings",
  );
  const sources = production.of("COPY").flatMap((c) => parseCopy(c.args).sources);
  t.same(
    sources.filter((source) => source.startsWith("packages/")),
    [],
    "nothing of packages/ is copied",
  );
  t.ok(
    production.of("RUN").some((r) => r.args === "rm node_modules/vmss-simulator"),
    "npm ci's link to the simulator's package is removed (it would point at nothing)",
  );
  const exposed = production.of("EXPOSE").flatMap((e) => tokenize(e.args));
  t.same(exposed, ["7002"], "EXPOSE 7002 only");
  t.same(production.cmd, cmd, "the same command as the default image");
  t.same(production.healthcheck, healthcheck, "and the same health check");
  t.notMatch(production.user, /^(root|0)(:|$)/, `runs as a non-root user (${production.user})`);
  t.same(production.env.NODE_COMPILE_CACHE, imageEnv.NODE_COMPILE_CACHE, "with its own compile cache, filled alike");
});

t.test(
  "the production target, run natively: without the simulator's package, every module loads and SIMULATOR=off starts",
  async (t) => {
    const production = target("production");
    if (!production.stage) return t.fail("the Dockerfile has a production stage");
    const root = await mkdtemp(join(tmpdir(), "vmss-production-image-"));
    t.teardown(() => rm(root, { recursive: true, force: true }));
    const app = join(root, production.workdir.replace(/^\/+/, ""));
    await mkdir(app, { recursive: true });
    for (const ins of production.of("COPY")) {
      const copy = parseCopy(ins.args);
      const dest = join(app, copy.dest);
      if (copy.flags.from) {
        // npm ci's node_modules after `RUN rm node_modules/vmss-simulator`: the registry's packages, no workspace link.
        for (const [key, entry] of Object.entries<Json>(lock.packages)) {
          if (!/^node_modules\/(@[^/]+\/)?[^/]+$/.test(key) || entry.dev || entry.link) continue;
          const name = key.slice("node_modules/".length);
          await mkdir(dirname(join(dest, name)), { recursive: true });
          await symlink(join(REPO, "node_modules", name), join(dest, name), "dir");
        }
        continue;
      }
      for (const source of copy.sources)
        await copyTree(source, copy.dest.endsWith("/") ? join(dest, posix.basename(source)) : dest);
    }
    t.notOk(existsSync(join(app, "node_modules", "vmss-simulator")), "no simulator in the image");
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", ...production.env };
    const node = (argv: string[]) => (argv[0] === "node" ? [process.execPath, ...argv.slice(1)] : argv);
    const cache = await mkdtemp(join(tmpdir(), "vmss-production-cache-"));
    t.teardown(() => rm(cache, { recursive: true, force: true }));
    const warm = production.of("RUN").find((r) => /scripts\/warm-compile-cache\.ts$/.test(r.args));
    const warmed = await run(node(tokenize(warm?.args ?? "node scripts/warm-compile-cache.ts")), {
      cwd: app,
      env: { ...env, NODE_COMPILE_CACHE: cache },
      timeoutMs: 60_000,
    });
    t.equal(warmed.code, 0, `every module of src/ loads (the build's warm-up) ${warmed.output}`);
    t.match(warmed.output, /no simulator/, "and it finds no simulator");
    const account = { name: "prod", subscriptionId: "11111111-2222-3333-4444-555555555555", credential: "default" };
    const startup = (settings: Record<string, string>) =>
      run(
        [
          process.execPath,
          "--input-type=module",
          "-e",
          `const { loadStartupConfig } = await import("./src/startup-config.ts");
         try { const c = loadStartupConfig(process.env); console.log("started", c.config.simulator.mode, c.simulator === undefined); }
         catch (err) { console.log("refused", err.message); }`,
        ],
        { cwd: app, env: { ...env, ...settings }, timeoutMs: 30_000 },
      );
    const off = await startup({
      ACCOUNTS: JSON.stringify([{ ...account, regions: ["eastus"] }]),
      TRUSTED_NETWORK: "true",
    });
    t.match(off.output, /^started off true$/m, `the image's SIMULATOR=off with a real account starts ${off.output}`);
    const embedded = await startup({ SIMULATOR: "embedded" });
    t.match(
      embedded.output,
      /^refused SIMULATOR must be off: this installation has no simulator/m,
      "SIMULATOR=embedded is refused, saying why",
    );
  },
);

t.test("the vmss-sim target, run natively: the simulator alone, healthy, stopped by SIGTERM", async (t) => {
  const sim = target("vmss-sim");
  if (!sim.stage || !sim.cmd || !sim.healthcheck.cmd)
    return t.fail("a vmss-sim stage with exec-form CMD and HEALTHCHECK");
  // Its run-time packages only, as npm ci locked them: each a dependency of the simulator's package.
  const simPackage = JSON.parse(await readFile(join(REPO, "packages/vmss-simulator/package.json"), "utf8"));
  const fromDeps = sim
    .of("COPY")
    .map((c) => parseCopy(c.args))
    .filter((c) => c.flags.from);
  for (const copy of fromDeps) {
    t.equal(copy.flags.from, "deps", `${copy.sources.join(" ")}: from the locked production dependencies`);
    for (const source of copy.sources) {
      const name = /^\/app\/node_modules\/((?:@[^/]+\/)?[^/]+)$/.exec(source)?.[1];
      t.ok(name && name in (simPackage.dependencies ?? {}), `${source} is a dependency of vmss-simulator`);
    }
  }
  t.same(sim.cmd, ["node", "bin/vmss-sim.js"], "its command is the package's bin, vmss-sim");
  t.same(
    sim.of("EXPOSE").flatMap((e) => tokenize(e.args)),
    [sim.env.SIMULATOR_PORT],
    "EXPOSE is the port it listens on",
  );
  t.equal(sim.env.SIMULATOR_HOST, "0.0.0.0", "on every interface");
  t.notMatch(sim.user, /^(root|0)(:|$)/, `runs as a non-root user (${sim.user})`);
  const root = await mkdtemp(join(tmpdir(), "vmss-sim-image-"));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const app = join(root, sim.workdir.replace(/^\/+/, ""));
  await mkdir(app, { recursive: true });
  for (const ins of sim.of("COPY")) {
    const copy = parseCopy(ins.args);
    const dest = join(app, copy.dest);
    if (copy.flags.from) {
      // From the deps stage's npm ci: this checkout's node_modules holds the same locked packages.
      for (const source of copy.sources) {
        await mkdir(dirname(dest), { recursive: true });
        await symlink(join(REPO, source.replace(/^\/app\//, "")), dest, "dir");
      }
      continue;
    }
    for (const source of copy.sources)
      await copyTree(source, copy.dest.endsWith("/") ? join(dest, posix.basename(source)) : dest);
  }
  const node = (argv: string[]) => (argv[0] === "node" ? [process.execPath, ...argv.slice(1)] : argv);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    ...sim.env,
    SIMULATOR_PORT: String(await freePort()),
    // The image's absolute path, under the temp root that stands for /.
    NODE_EXTRA_CA_CERTS: join(root, sim.env.NODE_EXTRA_CA_CERTS ?? "/nowhere"),
  };
  t.ok(existsSync(env.NODE_EXTRA_CA_CERTS), "NODE_EXTRA_CA_CERTS names the certificate the image holds");
  const child = spawnClean(node(sim.cmd), { cwd: app, env });
  let output = "";
  child.stdout!.on("data", (b) => (output += b));
  child.stderr!.on("data", (b) => (output += b));
  const exited = exitOf(child);
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  });
  await waitFor(() => /listening on https:/.test(output) || child.exitCode !== null, {
    what: "vmss-sim to listen, or to exit",
    timeoutMs: 20_000,
    intervalMs: 50,
    seen: () => output,
  });
  t.match(output, /ARM simulator listening on https:\/\/127\.0\.0\.1:\d+/, "it says where it listens");
  const hcTimeout = durationMs(sim.healthcheck.options.timeout);
  const probe = await run(node(sim.healthcheck.cmd), { cwd: app, env, timeoutMs: hcTimeout });
  t.equal(probe.code, 0, `the HEALTHCHECK command passes over HTTPS (${probe.ms} ms) ${probe.output}`);
  child.kill("SIGTERM");
  const result = await within(5_000, exited);
  t.same(result, { code: 0, signal: null }, "SIGTERM stops it with exit code 0");
});

t.test(".dockerignore", async (t) => {
  for (const path of [
    "node_modules/fastify/package.json",
    ".git/HEAD",
    ".tap/x",
    "coverage/x",
    "data/tasks.db",
    "npm-debug.log",
    "test/openapi.test.ts",
    "packages/vmss-simulator/test/simulator.test.ts",
  ]) {
    t.ok(ignored(path), `excludes ${path}`);
  }
  for (const copy of dockerfile.stages
    .flatMap((s) => s.instructions)
    .filter((i) => i.keyword === "COPY")
    .map((i) => parseCopy(i.args))) {
    if (copy.flags.from) continue;
    for (const source of copy.sources) {
      t.ok(existsSync(join(REPO, source)), `COPY source ${source} exists in the build context`);
      t.notOk(ignored(source), `COPY source ${source} is not excluded by .dockerignore`);
    }
  }
  for (const needed of [
    "src/main.js",
    "src/compile-cache.js",
    "src/server.ts",
    "scripts/warm-compile-cache.ts",
    "packages/vmss-simulator/src/tls/simulator-cert.pem",
    "packages/vmss-simulator/src/tls/simulator-key.pem",
    "packages/vmss-simulator/bin/vmss-sim.js",
    "openapi/openapi.json",
  ]) {
    t.notOk(ignored(needed), `keeps ${needed} (needed at run time)`);
  }
});

t.test("docker-compose.yml", async (t) => {
  t.ok(service, "defines the vmss-ops service");
  const profiled = Object.entries<Record<string, Json>>(compose.services ?? {}).filter(([, s]) => s.profiles);
  t.same(
    Object.keys(compose.services ?? {}).filter((n) => !compose.services[n].profiles),
    ["vmss-ops"],
    "without a profile: only vmss-ops",
  );
  t.same(profiled.map(([n, s]) => [n, s.profiles]).sort(), [
    ["postgres", ["replicas"]],
    ["replica-1", ["replicas"]],
    ["replica-2", ["replicas"]],
    ["simulator", ["replicas"]],
  ]);
  t.same(
    Object.keys(compose).filter(
      (k) => !["services", "volumes", "networks", "configs", "secrets", "name"].includes(k) && !k.startsWith("x-"),
    ),
    [],
    "only known top-level keys",
  );
  t.equal(service?.build?.context, ".", "builds this directory");
  t.equal(service?.build?.dockerfile ?? "Dockerfile", "Dockerfile");
  const containerPorts = (s: Record<string, Json>) =>
    (s?.ports ?? []).map((p: string) => String(p).split(":").slice(-2).join(":")).sort();
  t.same(containerPorts(service!), ["7002:7002", "7003:7003"], "publishes 7002 and 7003");
  for (const mapping of service?.ports ?? [])
    t.match(String(mapping), /^127\.0\.0\.1:/, "on the host's loopback only (the demo account needs no token)");
  for (const [key, value] of Object.entries(composeEnv)) {
    t.type(value, "string", `environment ${key} is a string`);
    if (key in imageEnv) t.equal(value, imageEnv[key], `environment ${key} agrees with the image's ENV`);
  }
  t.equal(composeEnv.HOST ?? imageEnv.HOST, "0.0.0.0");
  for (const mapping of service?.ports ?? []) {
    const container = String(mapping).split(":").at(-1) ?? "";
    t.ok(
      [composeEnv.PORT ?? imageEnv.PORT, composeEnv.SIMULATOR_PORT ?? imageEnv.SIMULATOR_PORT].includes(container),
      `container port ${container} is one the service listens on`,
    );
  }
  const hc = service?.healthcheck;
  t.same(hc?.test, ["CMD", ...(healthcheck.cmd ?? [])], "the healthcheck is the Dockerfile's HEALTHCHECK command");
  t.equal(hc?.interval, healthcheck.options.interval, "same interval");
  t.equal(hc?.timeout, healthcheck.options.timeout, "same timeout");
  t.equal(hc?.start_period, healthcheck.options["start-period"], "same start period");
  t.equal(String(hc?.retries), healthcheck.options.retries, "same retries");
  t.equal(service?.stop_signal ?? "SIGTERM", "SIGTERM");
  t.ok(durationMs(service?.stop_grace_period ?? "10s") >= 10_000, "gives the service time to finish tasks in flight");

  await t.test("profile replicas: PostgreSQL, one shared simulator, two replicas", async (t) => {
    const s = compose.services;
    const replicas = ["replica-1", "replica-2"].map((n) => s[n]);
    const pg = s.postgres;
    t.match(pg.image, /^postgres:\d+/, "an official PostgreSQL image with a major version");
    t.same(pg.healthcheck.test.slice(0, 2), ["CMD", "pg_isready"]);
    const dbUrl = new URL(replicas[0].environment.DATABASE_URL);
    t.same(
      [dbUrl.hostname, dbUrl.username, dbUrl.password, dbUrl.pathname],
      ["postgres", pg.environment.POSTGRES_USER, pg.environment.POSTGRES_PASSWORD, `/${pg.environment.POSTGRES_DB}`],
      "DATABASE_URL names the postgres service and its credentials",
    );
    t.equal(s.simulator.build.target, "vmss-sim", "the simulator is the Dockerfile's vmss-sim image");
    t.notOk(s.simulator.command, "running that image's own command, `vmss-sim`");
    for (const [i, r] of replicas.entries()) {
      const e = r.environment;
      t.equal(e.TASK_STORE, "postgres");
      t.equal(e.DATABASE_URL, replicas[0].environment.DATABASE_URL, "one task store");
      t.equal(e.SIMULATOR, "external");
      t.equal(
        e.SIMULATOR_URL,
        `https://127.0.0.1:${s.simulator.environment.SIMULATOR_PORT}`,
        "the shared simulator, at the address its certificate names",
      );
      t.equal(r.network_mode, "service:simulator", "in the simulator's network, so 127.0.0.1 reaches it");
      t.equal(e.REPLICA_ID, `replica-${i + 1}`);
      t.same(r.healthcheck.test, ["CMD", ...(healthcheck.cmd ?? [])], "the image's health check (it reads PORT)");
      t.same(r.depends_on, { postgres: { condition: "service_healthy" }, simulator: { condition: "service_healthy" } });
      t.ok(
        containerPorts(s.simulator).includes(`${e.PORT}:${e.PORT}`),
        `replica port ${e.PORT} is published on the simulator container`,
      );
      t.equal(r.read_only, true);
    }
    t.not(replicas[0].environment.PORT, replicas[1].environment.PORT, "two ports in one network namespace");
    // The whole profile, with the settings the replicas get, passes the service's own configuration checks.
    for (const r of replicas)
      t.ok(loadConfig(r.environment), `${r.environment.REPLICA_ID}'s environment is a valid configuration`);
  });
});

// A maintained compose linter from npm: dclint validates against the Compose specification's JSON schema and
// applies its best-practice rules. Warnings count as failures.
t.test("docker-compose.yml lint (dclint)", async (t) => {
  const cli = createRequire(join(REPO, "package.json"))
    .resolve("dclint/package.json")
    .replace(/package\.json$/, "bin/dclint.cjs");
  const res = await run(
    [process.execPath, cli, "docker-compose.yml", "--formatter", "json", "--max-warnings", "0", "--color", "false"],
    { cwd: REPO, env: { PATH: process.env.PATH ?? "" }, timeoutMs: 60_000 },
  );
  const report = JSON.parse(res.output.slice(res.output.indexOf("[")));
  const problems = report.flatMap((f: { messages: { line: number; message: string; rule: string }[] }) =>
    f.messages.map((m) => `line ${m.line}: ${m.message} (${m.rule})`),
  );
  t.same(problems, [], "no findings");
  t.equal(res.code, 0);
});

t.test("src imports only production dependencies", async (t) => {
  // The workspaces' packages (the simulator's) count as dependencies: npm ci links them, --omit=dev or not; the
  // production image leaves the simulator's out, and the service imports it only where it starts or configures it.
  const workspaces = (await readdir(join(REPO, "packages"))).map(
    (dir) => (JSON.parse(readFileSync(join(REPO, "packages", dir, "package.json"), "utf8")) as { name: string }).name,
  );
  t.same(workspaces, ["vmss-simulator"], "the workspaces' packages");
  const deps = new Set([...Object.keys(pkg.dependencies ?? {}), ...workspaces]);
  const files = (await listFiles(join(REPO, "src"))).filter((f) => f.endsWith(".ts"));
  t.ok(files.length > 10, `${files.length} source files`);
  const offenders: string[] = [];
  for (const file of files) {
    const text = await readFile(join(REPO, "src", file), "utf8");
    const specifiers = [
      ...[...text.matchAll(/^\s*(?:import|export)\s+(?!type\s)(?:[^"';]*?\sfrom\s+)?["']([^"']+)["']/gm)].map(
        (m) => m[1],
      ),
      ...[...text.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]),
    ];
    for (const spec of specifiers) {
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      const name = spec.startsWith("@") ? spec.split("/").slice(0, 2).join("/") : spec.split("/")[0];
      if (!deps.has(name)) offenders.push(`src/${file}: ${spec}`);
    }
  }
  t.same(
    offenders,
    [],
    "every runtime import is a node: builtin, a relative file, a package.json dependency or a workspace",
  );
});

t.test("the image's CMD, ENV and HEALTHCHECK, run natively", async (t) => {
  if (!cmd || !healthcheck.cmd) return t.fail("needs an exec-form CMD and HEALTHCHECK");
  const root = await mkdtemp(join(tmpdir(), "vmss-image-"));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  await chmod(root, 0o755);
  const app = join(root, workdir.replace(/^\/+/, "")); // WORKDIR, inside the temp root

  await mkdir(app, { recursive: true });
  const node = (argv: string[]) => (argv[0] === "node" ? [process.execPath, ...argv.slice(1)] : argv);
  // Run as a non-root user, like USER in the image, when we are root and that user can reach node and the files
  // (the readability check below holds either way).
  let asUser: { uid: number; gid: number } | undefined;
  const isRoot = process.getuid?.() === 0;
  const reachable =
    (await othersCanReach(process.execPath, true)) &&
    (await othersCanReach(app, true)) &&
    (await othersCanReach(join(REPO, "node_modules", "fastify", "package.json"), false));
  if (isRoot && reachable) asUser = { uid: 65534, gid: 65534 };
  else
    t.comment(
      isRoot
        ? "running as root: node, the temp dir or node_modules is not reachable by nobody here"
        : "running as the current, non-root user",
    );

  // The image's compile cache, at its place under the temp root (ENV NODE_COMPILE_CACHE is absolute).
  t.match(imageEnv.NODE_COMPILE_CACHE, /^\//, "NODE_COMPILE_CACHE names an absolute directory");
  const compileCache = join(root, imageEnv.NODE_COMPILE_CACHE ?? "/nowhere");
  t.equal(posix.dirname(imageEnv.NODE_COMPILE_CACHE ?? ""), workdir, "in WORKDIR, where the RUNs below make it");
  /** What a RUN's shell has of the environment here: a PATH. */
  const runEnv = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
  let copied = 0;
  for (const ins of finalInstructions.filter((i) => i.keyword === "COPY" || i.keyword === "RUN")) {
    if (ins.keyword === "RUN") {
      // The volume directory is made natively below as a temp dir owned by the runtime user.
      if (/^install -d -o node -g node -m 0700 \/var\/lib\/vmss-ops$/.test(ins.args)) {
        t.pass(`RUN at line ${ins.line} makes the data volume's directory, owned by the runtime user`);
        continue;
      }
      // The compile cache's directory, the runtime user's while it is filled.
      if (ins.args === `install -d -o node -g node -m 0700 ${posix.basename(imageEnv.NODE_COMPILE_CACHE ?? "")}`) {
        await mkdir(compileCache, { mode: 0o700 });
        if (asUser) await chown(compileCache, asUser.uid, asUser.gid);
        continue;
      }
      // Filled by the runtime user, as USER node runs it at build time.
      if (/^node( --[a-z-]+=\d+)* scripts\/warm-compile-cache\.ts$/.test(ins.args)) {
        const warm = await run(node(tokenize(ins.args)), {
          cwd: app,
          env: { ...runEnv, NODE_COMPILE_CACHE: compileCache },
          timeoutMs: 60_000,
          ...asUser,
        });
        t.equal(warm.code, 0, `RUN ${ins.args} fills the compile cache ${warm.output}`);
        continue;
      }
      // Then root's and read-only for the runtime user (root's own chown, replayed when this test runs as root).
      const readOnly = /^chown -R root:root (\S+) && (chmod -R a\+rX,go-w \1)$/.exec(ins.args);
      if (readOnly) {
        const replay = await run(["/bin/sh", "-c", isRoot ? ins.args : readOnly[2]], {
          cwd: app,
          env: runEnv,
          timeoutMs: 10_000,
        });
        t.equal(replay.code, 0, `RUN ${ins.args} ${replay.output}`);
        continue;
      }
      // Only file-mode fixes can be replayed natively; anything else needs a real build.
      t.match(ins.args, /^chmod\s+[^;&|`$<>]+$/, `RUN at line ${ins.line} is a chmod that can be replayed natively`);
      const replay = await run(["/bin/sh", "-c", ins.args], { cwd: app, env: runEnv, timeoutMs: 10_000 });
      t.equal(replay.code, 0, `RUN ${ins.args} ${replay.output}`);
      continue;
    }
    const copy = parseCopy(ins.args);
    const dest = posix.isAbsolute(copy.dest) ? join(root, copy.dest) : join(app, copy.dest);
    const intoDir = copy.dest.endsWith("/") || copy.sources.length > 1;
    if (copy.flags.from) {
      // The deps stage's `npm ci --omit=dev`: the lockfile's top-level production packages, linked from the
      // repo's install (checked above: src imports nothing else).
      const nodeModules = dest;
      await mkdir(nodeModules, { recursive: true });
      const prod = Object.entries<Json>(lock.packages).filter(
        ([k, v]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(k) && !v.dev,
      );
      for (const [key, entry] of prod) {
        const name = key.slice("node_modules/".length);
        if (entry.link) {
          // A workspace (the simulator's package): npm links it to its folder, which a later COPY fills.
          await mkdir(dirname(join(nodeModules, name)), { recursive: true });
          await symlink(posix.relative(posix.dirname(key), entry.resolved), join(nodeModules, name), "dir");
          continue;
        }
        const source = join(REPO, "node_modules", name);
        t.ok(existsSync(source), `production package ${name} is installed`);
        await mkdir(dirname(join(nodeModules, name)), { recursive: true });
        await symlink(source, join(nodeModules, name), "dir");
      }
      t.ok(prod.length > 0, `${prod.length} production packages`);
      t.notOk(
        existsSync(join(nodeModules, "tap")) || existsSync(join(nodeModules, "typescript")),
        "no dev dependency in node_modules",
      );
      continue;
    }
    for (const source of copy.sources)
      copied += await copyTree(source, intoDir ? join(dest, posix.basename(source)) : dest);
  }
  t.ok(existsSync(join(app, cmd.at(-1)!)), `the CMD's script ${cmd.at(-1)} was copied`);
  t.ok(copied > 10, `${copied} files copied from the context`);
  const filesBefore = (await listFiles(app)).filter((f) => !f.startsWith("node_modules/"));
  const unreadable: string[] = [];
  for (const f of filesBefore) {
    if (((await stat(join(app, f))).mode & 0o004) === 0) unreadable.push(f);
    for (let d = dirname(f); d !== "."; d = dirname(d))
      if (((await stat(join(app, d))).mode & 0o001) === 0) unreadable.push(`${d}/`);
  }
  t.same([...new Set(unreadable)], [], "every file the image runs is readable by a non-root user");

  const [port, simPort] = [await freePort(), await freePort()];
  // The image's VOLUME, owned by the runtime user as the Dockerfile makes it.
  t.equal(imageEnv.DATA_DIR, "/var/lib/vmss-ops", "the task store lives on the image's volume");
  t.match(dockerfileText, /VOLUME \["\/var\/lib\/vmss-ops"\]/, "declared as a VOLUME");
  const dataDir = await mkdtemp(join(tmpdir(), "vmss-ops-volume-"));
  await chmod(dataDir, 0o700);
  if (asUser) await chown(dataDir, asUser.uid, asUser.gid);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    HOME: root,
    ...imageEnv,
    ...composeEnv,
    // Test-only overrides: free ports, the data volume in a temp dir, and a fast simulator so that an operation
    // finishes in well under a second.
    DATA_DIR: dataDir,
    PORT: String(port),
    SIMULATOR_PORT: String(simPort),
    SIMULATOR_WRITE_DURATION_MS: "100",
    SIMULATOR_TIME_SCALE: "0.001",
    LRO_POLL_INTERVAL_MS: "50",
    // Azure's Retry-After is whole seconds; the simulator's writes here last milliseconds.
    LRO_MAX_POLL_INTERVAL_MS: "50",
    LOG_LEVEL: "warn",
    // The compile cache the build filled, where the RUNs above made it; and a report of Node's type stripper.
    NODE_COMPILE_CACHE: compileCache,
    NODE_OPTIONS: `--import=${join(REPO, "test", "fixtures", "report-type-stripper.mjs")}`,
  };
  const started = Date.now();
  const child = spawnClean(node(cmd), { cwd: app, env, ...asUser });
  let output = "";
  child.stdout!.on("data", (b) => (output += b));
  child.stderr!.on("data", (b) => (output += b));
  const exited = exitOf(child);
  t.teardown(async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGKILL");
      await exited;
    }
  });

  const base = `http://127.0.0.1:${port}`;
  let healthy = false;
  await waitFor(
    async () => {
      healthy = await fetch(`${base}/health`).then(
        (r) => r.ok,
        () => false,
      );
      return healthy || child.exitCode !== null;
    },
    {
      what: "GET /health to answer 200, or the process to exit",
      timeoutMs: 20_000,
      intervalMs: 100,
      seen: () => output,
    },
  );
  t.ok(healthy, `GET /health answers 200 (${Date.now() - started} ms after start)${healthy ? "" : `\n${output}`}`);
  if (!healthy) return;
  t.match(output, new RegExp(`vmss-ops listening on http://127\\.0\\.0\\.1:${port}`), "it says where it listens");
  t.notMatch(
    output,
    /type-stripper loaded/,
    "its modules come from the compile cache the build filled: Node never loads its type stripper",
  );
  t.match(output, /type-stripper not loaded/, "(as the process itself reports)");
  if (asUser && existsSync(`/proc/${child.pid}/status`)) {
    const status = await readFile(`/proc/${child.pid}/status`, "utf8");
    t.match(status, new RegExp(`^Uid:\\s+${asUser.uid}\\s`, "m"), `the process runs as uid ${asUser.uid}`);
  }
  const health = await (await fetch(`${base}/health`)).json();
  t.match(health, { status: "ok", accounts: ["demo"] }, "with the simulator's demo account");
  // GET /openapi.json sends the checked-in document: the image must hold it.
  const openapi = await fetch(`${base}/openapi.json`);
  t.equal(openapi.status, 200, "the image serves its OpenAPI document");
  t.match(await openapi.json(), { info: { title: "vmss-ops" } });

  const hcTimeout = durationMs(healthcheck.options.timeout);
  const probe = await run(node(healthcheck.cmd), { cwd: app, env, timeoutMs: hcTimeout, ...asUser });
  t.equal(probe.code, 0, `the HEALTHCHECK command passes (${probe.ms} ms, limit ${hcTimeout} ms) ${probe.output}`);
  const closedPort = await freePort();
  const down = await run(node(healthcheck.cmd), {
    cwd: app,
    env: { ...env, PORT: String(closedPort) },
    timeoutMs: hcTimeout,
    ...asUser,
  });
  t.equal(down.timedOut, false, "and answers promptly when nothing listens");
  t.not(down.code, 0, "which makes it fail");

  // The embedded simulator on the other exposed port, over HTTPS with the certificate the image ships.
  const ca = await readFile(join(app, "packages/vmss-simulator/src/tls/simulator-cert.pem"), "utf8");
  const agent = new Agent({ connect: { ca } });
  t.teardown(() => agent.close());
  const sim = await request(`https://127.0.0.1:${simPort}/_sim/health`, { dispatcher: agent });
  t.equal(sim.statusCode, 200, "the simulator's control API answers on SIMULATOR_PORT");
  await sim.body.dump();

  // An operation end to end: the service, in this configuration, reaches its simulator through Azure's SDK.
  const post = await fetch(`${base}/azure/ops/resizeServerGroup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      credentials: "demo",
      region: "eastus",
      serverGroupName: "batch-v001",
      capacity: { min: 1, max: 5, desired: 3 },
    }),
  });
  t.equal(post.status, 202, "a resize is accepted");
  const { id } = (await post.json()) as { id: string };
  const task: Json = await waitFor(
    async () => {
      const now: Json = await (await fetch(`${base}/task/${id}`)).json();
      return now.status?.completed === true && now;
    },
    { what: `task ${id} to complete`, timeoutMs: 15_000, intervalMs: 50 },
  );
  t.equal(task?.status?.completed, true, "the task completes");
  t.equal(task?.status?.failed, false, `and succeeds: ${JSON.stringify(task?.resultObjects)}`);
  t.equal(task?.resultObjects?.[0]?.capacity?.desired, 3, "batch-v001 now wants 3 instances");

  const stopAt = Date.now();
  child.kill("SIGTERM");
  const result = await within(5_000, exited);
  const stopMs = Date.now() - stopAt;
  t.not(result, "timeout", `SIGTERM stops it promptly (${stopMs} ms)`);
  if (result !== "timeout")
    t.same(result, { code: 0, signal: null }, `and it exits 0 on its own${result.code === 0 ? "" : `\n${output}`}`);
  t.ok(stopMs < 5_000, "well within Docker's 10 s stop timeout");
  t.notMatch(output, /failed to start|unhandled|configuration error/i, "no errors in its output");
  // The compile cache apart: Node adds the compiled code of modules loaded on first use (pino's, the SDK's
  // helpers) where it may, and in the image it may not (root's, read-only), which it takes in its stride. As root
  // here nothing stops it, so that half is checked only when the service runs as another user, as in the image.
  const cacheDir = `${posix.relative(workdir, imageEnv.NODE_COMPILE_CACHE ?? "")}/`;
  const filesAfter = (await listFiles(app)).filter((f) => !f.startsWith("node_modules/"));
  t.same(
    filesAfter.filter((f) => !f.startsWith(cacheDir)),
    filesBefore.filter((f) => !f.startsWith(cacheDir)),
    "it wrote nothing under WORKDIR (read_only in compose is safe)",
  );
  if (asUser)
    t.same(
      filesAfter.filter((f) => f.startsWith(cacheDir)),
      filesBefore.filter((f) => f.startsWith(cacheDir)),
      "nor in the compile cache, read-only for the user it runs as, and it ran all the same",
    );
  else
    t.comment(
      "running as root: the compile cache's read-only mode does not hold for root, so what Node adds to it is not checked",
    );
});

// hadolint cannot be had here (no Debian package; its npm wrappers download a binary). dockerfile-utils is plain
// JavaScript from the npm registry: a devDependency, so this lint always runs.
type Validate = (content: string) => { message: string; range: { start: { line: number } } }[];
const dockerfileUtils = createRequire(join(REPO, "package.json")).resolve("dockerfile-utils");
const { validate } = (await import(pathToFileURL(dockerfileUtils).href)) as { validate: Validate };

t.test("Dockerfile lint (dockerfile-utils)", async (t) => {
  const problems = validate(dockerfileText).map((d) => `line ${d.range.start.line + 1}: ${d.message}`);
  t.same(problems, [], "no lint findings");
});
