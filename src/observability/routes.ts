// GET /metrics (Prometheus text) and GET /ready (store and Azure reachable), apart from liveness at /health.
import { Type } from "@sinclair/typebox";
import type { FastifyPluginAsyncTypebox } from "@fastify/type-provider-typebox";
import type { AccountRegistry } from "../azure/accounts.ts";
import type { TaskStore } from "../tasks/task-store.ts";
import type { StoreHealth } from "../tasks/store-outage.ts";
import type { BacklogMonitor } from "../tasks/backlog.ts";
import type { ServiceMetrics } from "./metrics.ts";

export interface ObservabilityConfig {
  /**
   * /ready reuses its answer this long, so probes do not become Azure traffic.
   * @env READY_CACHE_MS
   * @default `10000`
   */
  readyCacheMs: number;
  /**
   * Each readiness check gives up after this.
   * @env READY_TIMEOUT_MS
   * @default `5000`
   */
  readyTimeoutMs: number;
}

const Check = Type.Object(
  { ok: Type.Boolean(), problem: Type.Optional(Type.String()) },
  { additionalProperties: false },
);
export const Readiness = Type.Object(
  {
    status: Type.Union([Type.Literal("ready"), Type.Literal("not ready")]),
    store: Check,
    accounts: Type.Record(Type.String(), Check, {
      description: "per account: its ARM endpoint reachable with a token it accepts",
    }),
    backlog: Type.Optional(
      Type.Object(
        { queued: Type.Integer(), oldestAgeSeconds: Type.Number() },
        {
          additionalProperties: false,
          description:
            "tasks waiting to start, across replicas, and how long the oldest has waited (details: readiness does not depend on it)",
        },
      ),
    ),
    checkedAtMs: Type.Integer(),
  },
  { $id: "Readiness", additionalProperties: false },
);
type ReadinessBody = typeof Readiness.static;

export interface ObservabilityRoutesOptions {
  metrics: ServiceMetrics;
  store: TaskStore;
  /** A store call that met an outage since the last check makes the next /ready check again at once. */
  storeHealth?: StoreHealth;
  backlog?: BacklogMonitor;
  accounts: AccountRegistry;
  /** A readiness answer is reused this long, so probes do not turn into Azure traffic. */
  readyCacheMs: number;
  probeTimeoutMs: number;
}

async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>(
        (_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms)),
      ),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export const observabilityRoutes: FastifyPluginAsyncTypebox<ObservabilityRoutesOptions> = async (app, opts) => {
  await app.register(metricsRoute, opts);
  await app.register(readinessRoute, opts);
};

// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const metricsRoute: FastifyPluginAsyncTypebox<ObservabilityRoutesOptions> = async (app, opts) => {
  app.get(
    "/metrics",
    {
      config: { access: "metrics" },
      schema: {
        operationId: "getMetrics",
        description:
          "Requests, tasks, attempts, ARM calls and throttling, the read cache and the backlog, for Prometheus to scrape. With access control on it needs a token unless METRICS_REQUIRE_TOKEN=false opens it.",
        summary: "Prometheus metrics (text exposition format)",
        tags: ["service"],
        response: {
          200: {
            description: "The metrics",
            content: {
              "text/plain": {
                schema: {
                  type: "string",
                  description: "free-form: Prometheus' text exposition format, one sample a line",
                },
              },
            },
          },
        },
      },
    },
    async (_request, reply) => {
      const body = await opts.metrics.registry.metrics();
      return reply.header("content-type", opts.metrics.registry.contentType).send(body);
    },
  );
};

/**
 * The store answers a read; and, after a call met an outage that only a write can be seen to end (SQLite on a full
 * disk reads on: StoreHealth.writeDown), it takes a write too. The write is asked for only then: a replica whose
 * writes succeed says so with every task it runs, and its probes write nothing.
 */
async function storeAnswers(opts: ObservabilityRoutesOptions): Promise<void> {
  await opts.store.list({ limit: 1 });
  if (opts.storeHealth?.writeDown && opts.store.probeWrite) await opts.store.probeWrite();
}

/** The checks behind /ready: the task store answers, and every account's Azure endpoint accepts our token. */
async function checkReadiness(opts: ObservabilityRoutesOptions): Promise<ReadinessBody> {
  const store = await withTimeout(storeAnswers(opts), opts.probeTimeoutMs, "the task store")
    .then(() => ({ ok: true }))
    .catch((err: Error) => ({ ok: false, problem: err.message }));
  const names = opts.accounts.names();
  const results = await Promise.all(
    names.map(async (n) => {
      const r = await opts.accounts.probe(n, opts.probeTimeoutMs);
      return r.ok ? r : { ok: false, problem: r.problem };
    }),
  );
  const accounts = Object.fromEntries(names.map((n, i) => [n, results[i]]));
  const ok = store.ok && results.every((r) => r.ok);
  const backlog = store.ok ? await opts.backlog?.view().catch(() => undefined) : undefined;
  return {
    status: ok ? "ready" : "not ready",
    store,
    accounts,
    ...(backlog ? { backlog } : {}),
    checkedAtMs: Date.now(),
  };
}

// eslint-disable-next-line @typescript-eslint/require-await -- fastify awaits a plugin; this one has nothing to wait for
const readinessRoute: FastifyPluginAsyncTypebox<ObservabilityRoutesOptions> = async (app, opts) => {
  let cached: { body: ReadinessBody; at: number } | undefined;
  let running: Promise<ReadinessBody> | undefined;
  app.get(
    "/ready",
    {
      config: { access: "public" },
      schema: {
        operationId: "getReadiness",
        description:
          "For readiness probes and load balancers: 200 while this replica can work, 503 with what is wrong when the task store does not answer (or cannot be written: SQLite on a full disk answers reads) or an account's credentials are refused. Open to all; the answer is cached for READY_CACHE_MS.",
        summary: "Readiness: the task store answers and every account's Azure endpoint accepts our token",
        tags: ["service"],
        response: {
          200: { ...Type.Ref(Readiness), description: "Ready to take work" },
          503: { ...Type.Ref(Readiness), description: "Not ready: the failing checks say why" },
        },
      },
    },
    async (_request, reply) => {
      // What store calls met since says more than the cached answer: an outage, or the store back after one.
      const storeChanged =
        cached !== undefined &&
        opts.storeHealth !== undefined &&
        Math.max(opts.storeHealth.lastOutageAtMs, opts.storeHealth.lastSuccessAtMs) > cached.at &&
        opts.storeHealth.down === cached.body.store.ok;
      if (!cached || Date.now() - cached.at > opts.readyCacheMs || storeChanged) {
        // Concurrent probes share one check.
        running ??= checkReadiness(opts).finally(() => (running = undefined));
        const body = await running;
        cached = { body, at: Date.now() };
      }
      const body = cached.body;
      if (body.status !== "ready")
        reply.header("retry-after", String(Math.max(1, Math.ceil(opts.readyCacheMs / 1000))));
      return reply.code(body.status === "ready" ? 200 : 503).send(body);
    },
  );
};
