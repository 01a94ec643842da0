// Overload: load shedding (503 with Retry-After: a request that waited unread on a held-up event loop longer than
// OVERLOAD_MAX_EVENT_LOOP_DELAY_MS, answered at once instead of served after its caller gave up; and
// @fastify/under-pressure while the event loop is too busy or memory runs high) and per-principal rate limits (caller-limits.ts: 429 with Retry-After), submissions and reads counted
// apart. Neither touches accepted work: a task is created only by a request that got through, and then runs as
// any other. /health, /ready and /metrics are never shed or limited, so an overloaded replica is seen as such,
// not as dead.
import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerHookHandler } from "fastify";
import underPressure from "@fastify/under-pressure";
import { apiError } from "./errors.ts";
import { CallerLimits } from "./caller-limits.ts";

export interface OverloadConfig {
  /**
   * Shed a request (503) that waited unread longer than this on a held-up event loop (0 = off): in production the
   * request deadline (TASK_STORE_REQUEST_DEADLINE_MS), under a caller's patience, so it is told at once rather than
   * served late (deploy/kubernetes sets 3000). Off by default: a laptop or a loaded test machine holds the loop up for
   * seconds at a start, and would turn the first requests away.
   * @env OVERLOAD_MAX_EVENT_LOOP_DELAY_MS
   * @default `0`
   */
  maxEventLoopDelayMs: number;
  /**
   * ... or the V8 heap holds more than this (0 = off).
   * @env OVERLOAD_MAX_HEAP_USED_BYTES
   * @default `0` (off)
   */
  maxHeapUsedBytes: number;
  /**
   * ... or the process holds more than this (0 = off).
   * @env OVERLOAD_MAX_RSS_BYTES
   * @default `0` (off)
   */
  maxRssBytes: number;
  /**
   * ... or the event loop is busier than this fraction, set in percent (0 = off).
   * @env OVERLOAD_MAX_EVENT_LOOP_UTILIZATION_PERCENT
   * @default `0` (off)
   */
  maxEventLoopUtilization: number;
  /**
   * How often those are sampled.
   * @env OVERLOAD_SAMPLE_INTERVAL_MS
   * @default `1000`
   */
  sampleIntervalMs: number;
  /**
   * Retry-After of a shed request, seconds.
   * @env OVERLOAD_RETRY_AFTER_S
   * @default `5`
   */
  retryAfterSeconds: number;
  /**
   * The window of the per-principal rate limits below.
   * @env RATE_LIMIT_WINDOW_MS
   * @default `60000`
   */
  rateWindowMs: number;
  /**
   * POSTs per principal and window (0 = no limit).
   * @env RATE_LIMIT_SUBMISSIONS
   * @default `6000`
   */
  submissionsPerWindow: number;
  /**
   * GETs per principal and window (0 = no limit).
   * @env RATE_LIMIT_READS
   * @default `60000`
   */
  readsPerWindow: number;
}

function exempt(request: FastifyRequest): boolean {
  const access = (request.routeOptions.config as { access?: string }).access;
  return access === "public" || access === "metrics";
}

function isSubmission(request: FastifyRequest): boolean {
  return request.method === "POST";
}

/** Per principal; callers nobody identifies (access control off) are told apart by address. */
function rateKey(request: FastifyRequest): string {
  const who =
    request.principal && request.principal.via !== "open" ? `principal:${request.principal.name}` : `ip:${request.ip}`;
  return `${isSubmission(request) ? "submit" : "read"}|${who}`;
}

/** Whether any of under-pressure's thresholds is set (each is off at 0). */
function underPressureSheds(config: OverloadConfig): boolean {
  return config.maxHeapUsedBytes > 0 || config.maxRssBytes > 0 || config.maxEventLoopUtilization > 0;
}

/** Whether a task was made for this clientRequestId already (the task store's lookup). */
export type SubmittedBefore = (clientRequestId: string) => Promise<boolean>;

export async function installOverloadProtection(
  app: FastifyInstance,
  config: OverloadConfig,
  submittedBefore?: SubmittedBefore,
): Promise<void> {
  if (config.maxEventLoopDelayMs > 0) installQueueShedding(app, config);
  // Off (the default), it would still sample the process and run a hook on every request.
  if (underPressureSheds(config)) await installShedding(app, config);
  installRateLimits(app, config, submittedBefore);
}

/**
 * A request that waited unread past OVERLOAD_MAX_EVENT_LOOP_DELAY_MS (its arrival: arrival.ts) is answered 503 at
 * once, before its body is read or anything is done: its caller may have given up, and serving it late only makes the
 * next ones wait longer. Sheds by what each request waited, not by a sample taken before it came.
 */
function installQueueShedding(app: FastifyInstance, config: OverloadConfig): void {
  app.addHook("onRequest", (request, _reply, done) => {
    // No arrival time: the app was built without arrival.ts (nothing to judge by).
    const waitedMs = request.arrivedAtMs > 0 ? performance.now() - request.arrivedAtMs : 0;
    if (waitedMs <= config.maxEventLoopDelayMs || exempt(request)) return done();
    done(
      apiError("Overloaded", {
        measure: `eventLoopDelay ${Math.round(waitedMs)}: the request waited that long, unread`,
        retryAfterSeconds: config.retryAfterSeconds,
      }),
    );
  });
}

/** The clientRequestId a submission names (its query), if any. */
function namedRequestId(request: FastifyRequest): string | undefined {
  if (!isSubmission(request)) return undefined;
  const id = (request.query as { clientRequestId?: unknown } | undefined)?.clientRequestId;
  return typeof id === "string" && id.length > 0 ? id : undefined;
}

async function installShedding(app: FastifyInstance, config: OverloadConfig): Promise<void> {
  await app.register(underPressure, {
    maxHeapUsedBytes: config.maxHeapUsedBytes,
    maxRssBytes: config.maxRssBytes,
    maxEventLoopUtilization: config.maxEventLoopUtilization,
    sampleInterval: config.sampleIntervalMs,
    retryAfter: config.retryAfterSeconds,
    // Returning a body makes under-pressure send it; returning nothing lets the request through (its typings
    // say void, its code sends what is returned).
    pressureHandler: ((request: FastifyRequest, reply: FastifyReply, type: string, value: number | undefined) => {
      if (exempt(request)) return undefined; // carry on
      const answer = apiError("Overloaded", {
        measure: `${type}${value !== undefined ? ` ${Math.round(Number(value))}` : ""}`,
        retryAfterSeconds: config.retryAfterSeconds,
      });
      reply.headers(answer.headers ?? {});
      reply.code(answer.statusCode);
      return answer.body();
    }) as never,
  });
}

/**
 * The per-caller limits, as a preHandler of each limited route (after identification, access control's onRequest
 * hook, so the key is the principal; and after the body's validation, as before). Which routes are limited is
 * decided once, as each is declared: never /health, /ready, /metrics or the documentation; not a kind whose
 * limit is 0.
 */
function installRateLimits(app: FastifyInstance, config: OverloadConfig, submittedBefore?: SubmittedBefore): void {
  if (config.submissionsPerWindow === 0 && config.readsPerWindow === 0) return;
  const limits = new CallerLimits(config.rateWindowMs, Date.now());
  const maxOf = (request: FastifyRequest) =>
    isSubmission(request) ? config.submissionsPerWindow : config.readsPerWindow;
  const windowSeconds = Math.round(config.rateWindowMs / 1000);
  const limit: preHandlerHookHandler = function (request, _reply, done) {
    const max = maxOf(request);
    const refusal = max === 0 ? undefined : limits.take(rateKey(request), max, Date.now());
    if (refusal === undefined) return done();
    const who = request.principal && request.principal.via !== "open" ? request.principal.name : "this caller";
    const refused = apiError("TooManyRequests", {
      message: `${who} sent more than ${max} ${isSubmission(request) ? "submissions" : "reads"} in ${windowSeconds} s; retry after ${refusal.retryAfterSeconds} s`,
      retryAfterSeconds: refusal.retryAfterSeconds,
    });
    // A repeated submission whose task exists is let through to be answered that task: a retry is never refused for
    // work already accepted. Looked up only when refusing, so a caller within its limit costs no store read.
    const id = namedRequestId(request);
    if (id === undefined || submittedBefore === undefined) return done(refused);
    submittedBefore(id).then(
      (found) => done(found ? undefined : refused),
      () => done(refused),
    );
  };
  app.addHook("onRoute", (route) => {
    const access = (route.config as { access?: string } | undefined)?.access;
    if (access === "public" || access === "metrics") return;
    route.preHandler = [...[route.preHandler ?? []].flat(), limit];
  });
}
