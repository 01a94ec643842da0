// Test fixture: a real simulator (HTTPS, port 0) and a real service (HTTP, port 0) that talks to it through the
// real @azure/arm-compute client. Nothing is mocked.
import { Agent, request } from "undici";
import { buildApp, type Service } from "../../src/app.ts";
import { loadConfig } from "../../src/startup-config.ts";
import type { Config } from "../../src/config.ts";
import { createTaskStore } from "../../src/tasks/create-task-store.ts";
import { startSimulator, type RunningSimulator, SimulatorControl } from "vmss-simulator";
import { waitFor } from "../../testkit/wait-for.ts";
import type { Json } from "../../testkit/json.ts";

export interface SimCall {
  method: string;
  path: string;
  /** null when the connection was dropped. */
  status: number | null;
  ifMatch: string | null;
  /** Only when the request sent one. */
  ifNoneMatch?: string;
  time: number;
}

export interface TestEnv {
  sim: RunningSimulator;
  service: Service;
  baseUrl: string;
  config: Config;
  /** JSON call to the service. */
  api: <T = Json>(method: string, path: string, body?: unknown) => Promise<{ status: number; body: T }>;
  /** JSON call to the simulator's control API (/_sim/...). */
  simControl<T = Json>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  calls(): Promise<SimCall[]>;
  /** Polls GET /task/{id} until it completes. */
  waitForTask(id: string, timeoutMs?: number): Promise<Json>;
  close(): Promise<void>;
}

export interface TestEnvOptions {
  /** Every write's duration in ms (default 150). */
  writeDurationMs?: number;
  /**
   * The simulator's time factor (default 0.001: Retry-After 10 s reads 0.01, Azure's minute of throttling refill is
   * 60 ms, so service tests are not slowed down by realistic timing and budgets).
   */
  timeScale?: number;
  env?: Record<string, string>;
  /** Fastify logger options (default: no logs). */
  logger?: Record<string, unknown>;
  /** Rewrites the environment once the simulator listens (e.g. to put its URL into ACCOUNTS). */
  mapEnv?: (env: Record<string, string>, sim: RunningSimulator) => Record<string, string>;
  /** Headers every api() call sends (e.g. a bearer token). */
  headers?: Record<string, string>;
  /** Opens the task store the configuration names (TASK_STORE, DATABASE_URL), as the server does; else one in memory. */
  configuredStore?: boolean;
}

/** The simulator settings service tests run with: short writes, a small time factor. */
export const TEST_TIME_SCALE = 0.001;

export async function startTestEnv(options: TestEnvOptions = {}): Promise<TestEnv> {
  const sim = await startSimulator({
    port: 0,
    writeDurationMs: options.writeDurationMs ?? 150,
    timeScale: options.timeScale ?? TEST_TIME_SCALE,
    seed: true,
  });
  const baseEnv: Record<string, string> = {
    SIMULATOR_URL: sim.url,
    PORT: "0",
    LRO_POLL_INTERVAL_MS: "25",
    // Azure's Retry-After is whole seconds; the simulator's writes here last milliseconds.
    LRO_MAX_POLL_INTERVAL_MS: "25",
    RETRY_CONFLICT_BASE_DELAY_MS: "30",
    RETRY_BUSY_POLL_INTERVAL_MS: "20",
    // The simulator's clock, so the service paces its re-reads by the simulator's read refill (12 a minute × 1000 at
    // 0.001: a quarter of it is one re-read every 20 ms).
    SIMULATOR_TIME_SCALE: String(options.timeScale ?? TEST_TIME_SCALE),
    RETRY_TRANSIENT_BASE_DELAY_MS: "30",
    RETRY_THROTTLE_DEFAULT_DELAY_MS: "50",
    RETRY_MAX_DELAY_MS: "500",
    RETRY_DEADLINE_MS: "60000",
    // A loaded test machine holds the event loop up now and then: shedding for it is tested on its own (overload.test.ts).
    OVERLOAD_MAX_EVENT_LOOP_DELAY_MS: "0",
    ...options.env,
  };
  const config = loadConfig(options.mapEnv ? options.mapEnv(baseEnv, sim) : baseEnv);
  for (const a of config.accounts) if (a.credential.kind === "simulator") a.caPem = sim.caPem;
  const store = options.configuredStore ? await createTaskStore(config) : undefined;
  const service = await buildApp({ config, logger: options.logger ?? false, ...(store ? { store } : {}) });
  await service.app.listen({ host: "127.0.0.1", port: 0 });
  service.runner.start();
  const baseUrl = `http://127.0.0.1:${(service.app.server.address() as { port: number }).port}`;
  const simAgent = new Agent({ connect: { ca: sim.caPem } });

  async function call(base: string, dispatcher: Agent | undefined, method: string, path: string, body?: unknown) {
    const res = await request(`${base}${path}`, {
      method: method as "GET",
      dispatcher,
      headers: {
        ...(dispatcher ? {} : options.headers),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.body.text();
    return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
  }

  const env: TestEnv = {
    sim,
    service,
    baseUrl,
    config,
    api: (method, path, body) => call(baseUrl, undefined, method, path, body),
    simControl: (method, path, body) => call(sim.url, simAgent, method, path, body),
    async calls() {
      return (await env.simControl<SimCall[]>("GET", "/_sim/calls")).body;
    },
    async waitForTask(id, timeoutMs = 30_000) {
      let task: Json;
      return waitFor(
        async () => {
          task = (await env.api("GET", `/task/${id}`)).body;
          return task.status.completed === true && task;
        },
        { what: `task ${id} to complete`, timeoutMs, intervalMs: 20, seen: () => task },
      );
    },
    async close() {
      await service.close();
      await sim.close();
      await simAgent.close();
    },
  };
  return env;
}

/** A description for the seeded demo account. */
export function demo(serverGroupName: string, extra: Record<string, unknown> = {}) {
  return { credentials: "demo", region: "eastus", serverGroupName, ...extra };
}

/** A createServerGroup of the `shop-prod` cluster on the demo's network (its subnet and the shop-lb pool). */
export function demoCreate(subscriptionId: string, extra: Record<string, unknown> = {}) {
  const net = `/subscriptions/${subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Network`;
  return {
    credentials: "demo",
    region: "eastus",
    application: "shop",
    stack: "prod",
    image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
    sku: { name: "Standard_D2s_v3", tier: "Standard" },
    capacity: { min: 1, max: 5, desired: 2 },
    subnetId: `${net}/virtualNetworks/demo-rg-vnet/subnets/default`,
    loadBalancerBackendPoolId: `${net}/loadBalancers/shop-lb/backendAddressPools/shop-pool`,
    osConfig: { sshPublicKeys: ["ssh-ed25519 AAAAC3Nza test@example"] },
    ...extra,
  };
}

/** The ARM writes among the calls: PUT, PATCH and the instance POSTs. */
export function writesOf(calls: SimCall[]): SimCall[] {
  return calls.filter(
    (c) =>
      c.method === "PUT" || c.method === "PATCH" || (c.method === "POST" && /\/(delete|manualupgrade)$/i.test(c.path)),
  );
}

/** Calls against one scale set (its GET, writes, and VM listing), not operation-status polls. */
export function callsFor(calls: SimCall[], name: string): SimCall[] {
  return calls.filter((c) => c.path.toLowerCase().includes(`/virtualmachinescalesets/${name.toLowerCase()}`));
}

/**
 * A test file's environment whose simulator starts every subtest from its seed: the env, a control client, both closed
 * when the file ends, and a reset before each subtest.
 */
export async function startResettingTestEnv(
  tap: { teardown(fn: () => unknown): void; beforeEach(fn: () => unknown): void },
  options: TestEnvOptions = {},
): Promise<{ env: TestEnv; control: SimulatorControl }> {
  const env = await startTestEnv(options);
  const control = new SimulatorControl(env.sim);
  tap.teardown(async () => {
    await control.close();
    await env.close();
  });
  tap.beforeEach(async () => {
    await env.simControl("POST", "/_sim/reset");
  });
  return { env, control };
}
