// The commands of the README and docs/: fenced blocks, the ones that run here (```sh) and the ones shown only
// (```shell: real Azure, Kubernetes, Docker, long-running processes), and a demo service started as `npm start`
// starts it, on free ports, to run them against.
import { spawn, spawnSync } from "node:child_process";
import { freePort, REPO } from "../../testkit/child-service.ts";

export interface Fence {
  lang: string;
  body: string;
}

/** Every fenced block of a markdown text, in order. */
export function fences(markdown: string): Fence[] {
  return [...markdown.matchAll(/^```([^\n`]*)\n([\s\S]*?)^```\s*$/gm)].map((m) => ({ lang: m[1].trim(), body: m[2] }));
}

/** The markdown between "## heading" and the next "## ". */
export function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no "## ${heading}" section`);
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

/** A block with no language whose first line looks like a command: it would escape both the run and the count. */
export function looksLikeCommands(body: string): boolean {
  return /^\s*(\$ )?(curl|npm|npx|node|az|kubectl|docker|export|cd|vmss-ops)\b/.test(body);
}

export interface DemoService {
  apiPort: number;
  simPort: number;
  output(): string;
  /** SIGTERM, then resolves with the exit code once the process group has ended. */
  stop(): Promise<number | null>;
}

/**
 * Starts the demo: `npm start` (or `node src/main.js` when npm is false), with only PORT and SIMULATOR_PORT set
 * beyond the caller's env, in its own process group so that stop() reaches npm's child too.
 */
export async function startDemo(options: DemoOptions = {}): Promise<DemoService> {
  // A free port can be taken by another process between freePort() and the service's listen (other tests run
  // beside this one): then the service says so and exits, and new ports are tried.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startDemoOnce(options);
    } catch (err) {
      if (options.ports || attempt === 3 || !/already in use/.test((err as Error).message)) throw err;
    }
  }
}

interface DemoOptions {
  npm?: boolean;
  env?: Record<string, string>;
  ports?: { apiPort: number; simPort: number };
}

async function startDemoOnce(options: DemoOptions): Promise<DemoService> {
  const { apiPort, simPort } = options.ports ?? { apiPort: await freePort(), simPort: await freePort() };
  const cmd = options.npm ? (["npm", ["start"]] as const) : ([process.execPath, ["src/main.js"]] as const);
  const child = spawn(cmd[0], [...cmd[1]], {
    cwd: REPO,
    // No shedding by event-loop delay unless asked: on a loaded test machine the demo's first requests waited seconds
    // unread behind its start and were answered 503 Overloaded (test/overload.test.ts tests shedding).
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "0",
      ...options.env,
      PORT: String(apiPort),
      SIMULATOR_PORT: String(simPort),
    },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.on("exit", (code, signal) => {
      // Said in its output, so that a run that lost its service mid-way shows how it ended.
      out += `\n(the service exited: code ${code}, signal ${signal})\n`;
      resolve(code);
    }),
  );
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start within 60 s:\n${out}`)), 60_000);
    const onData = () => {
      if (out.includes("vmss-ops listening on")) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on("data", onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code}:\n${out}`));
    });
  });
  let stopped: Promise<number | null> | undefined;
  return {
    apiPort,
    simPort,
    output: () => out,
    stop() {
      stopped ??= (async () => {
        try {
          process.kill(-child.pid!, "SIGTERM");
        } catch {
          // already gone
        }
        return exited;
      })();
      return stopped;
    },
  };
}

/** The docs' ports swapped for the demo's: 7002 → its API port, 7003 → its simulator port. */
export function withPorts(script: string, demo: Pick<DemoService, "apiPort" | "simPort">): string {
  return script
    .replace(/(127\.0\.0\.1|localhost):7002\b/g, `127.0.0.1:${demo.apiPort}`)
    .replace(/(127\.0\.0\.1|localhost):7003\b/g, `127.0.0.1:${demo.simPort}`);
}

/**
 * Runs the blocks as one bash script that stops at the first failing command; eight minutes at most. A bound, not a
 * wait: a page of two dozen `npx vmss-ops` commands took over three minutes on a machine with every core busy.
 */
export function runBlocks(
  blocks: string[],
  demo: Pick<DemoService, "apiPort" | "simPort">,
  timeoutMs = 480_000,
): { status: number | null; out: string } {
  // One stream, as a terminal shows it: what a command prints on stderr stays where it happened.
  const script = withPorts(["set -euo pipefail", "exec 2>&1", ...blocks].join("\n"), demo);
  // The command's default service is 127.0.0.1:7002 too: its URL is swapped the same way.
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PATH: `${REPO}/node_modules/.bin:${process.env.PATH}`,
    VMSS_OPS_URL: `http://127.0.0.1:${demo.apiPort}`,
  };
  delete env.VMSS_OPS_TOKEN;
  const run = spawnSync("bash", ["-c", script], { cwd: REPO, encoding: "utf8", timeout: timeoutMs, env });
  return { status: run.status, out: `${run.stdout}\n${run.stderr}` };
}

/** What differs between two runs of the same commands on a fresh service: task ids and clock times. */
export function normalizeRun(out: string): string {
  return out
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<id>")
    .replace(/"(\w*Time\w*|time\w*)":\d+/g, '"$1":<t>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<time>");
}

export { spawnSync };
