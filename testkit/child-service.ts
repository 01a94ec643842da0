// The service as a real child process (`node src/main.js`), pointed at a simulator the test or benchmark owns, so
// that it can kill the service (SIGKILL, SIGTERM) without killing "Azure". Tests and benchmarks both start it so;
// it imports nothing of test/.
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Json } from "./json.ts";
import { waitFor } from "./wait-for.ts";

export const REPO = join(dirname(fileURLToPath(import.meta.url)), "..");
export const SIMULATOR_CA_FILE = fileURLToPath(import.meta.resolve("vmss-simulator/ca-cert.pem"));

/** The service's entry point in a checkout: src/main.js, or src/server.ts in one from before there was one (A/B runs). */
export function entryPointIn(tree: string): string {
  return existsSync(join(tree, "src", "main.js")) ? "src/main.js" : "src/server.ts";
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
    s.on("error", reject);
  });
}

/**
 * A restartable service on an external simulator, as the crash tests run it: SQLite in dataDir, short leases and
 * fast claims and polls, so that a restart takes over within a second or two.
 */
export function restartableServiceEnv(simUrl: string, dataDir: string): Record<string, string> {
  return {
    SIMULATOR_URL: simUrl,
    SIMULATOR_CA_FILE,
    TASK_STORE: "sqlite",
    DATA_DIR: dataDir,
    TASK_LEASE_MS: "1500",
    TASK_CLAIM_INTERVAL_MS: "100",
    LRO_POLL_INTERVAL_MS: "50",
    // Azure's Retry-After is whole seconds; the simulator's writes here last milliseconds.
    LRO_MAX_POLL_INTERVAL_MS: "50",
    RETRY_BUSY_POLL_INTERVAL_MS: "50",
    SHUTDOWN_TIMEOUT_MS: "3000",
  };
}

export interface ChildService {
  child: ChildProcess;
  url: string;
  output(): string;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  api<T = Json>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T; headers: Headers }>;
  waitForTask(id: string, timeoutMs?: number): Promise<Json>;
}

/**
 * Starts `node src/main.js` with env (and nodeArgs before the script; script: another entry point, such as
 * src/server.ts; tree: another checkout to start it from, as the previous release's); resolves once it listens,
 * rejects if it exits first.
 */
export async function startChildService(
  env: Record<string, string>,
  options: { waitForListen?: boolean; nodeArgs?: string[]; script?: string; tree?: string } = {},
): Promise<ChildService> {
  const port = env.PORT ? Number(env.PORT) : await freePort();
  const tree = options.tree ?? REPO;
  const script = options.script ?? entryPointIn(tree);
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script], {
    cwd: tree,
    // An embedded simulator runs at the test helpers' time factor unless the test says otherwise. No shedding by
    // event-loop delay unless asked (test/overload.test.ts tests it): on a loaded machine a burst queued behind a fresh
    // replica's first request waited seconds unread, and was answered 503 Overloaded.
    env: {
      ...process.env,
      LOG_LEVEL: "warn",
      SIMULATOR_TIME_SCALE: "0.001",
      OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "0",
      ...env,
      PORT: String(port),
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout.on("data", (d) => (out += d));
  child.stderr.on("data", (d) => (out += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const url = `http://127.0.0.1:${port}`;
  const service: ChildService = {
    child,
    url,
    output: () => out,
    exited,
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
    },
    async waitForTask(id: string, timeoutMs = 60_000): Promise<Json> {
      let last: unknown;
      const task = await waitFor(
        async () => {
          const { body } = await service.api<{ status?: { completed?: boolean } } | undefined>("GET", `/task/${id}`);
          last = body;
          return body?.status?.completed ? body : undefined;
        },
        { what: `task ${id} to complete`, timeoutMs, intervalMs: 25, seen: () => ({ task: last, output: out }) },
      );
      return task as Json;
    },
  };
  if (options.waitForListen === false) return service;
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  void exited.then((info) => (exit = info));
  await waitFor(
    () => {
      if (exit) throw new Error(`service exited (${exit.code ?? exit.signal}) before listening:\n${out}`);
      return out.includes("vmss-ops listening on");
    },
    { what: "the service to say it listens", timeoutMs: 30_000, intervalMs: 20, seen: () => out.slice(-2000) },
  );
  return service;
}
