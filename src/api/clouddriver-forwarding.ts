// Clouddriver behind this service: with CLOUDDRIVER_URL set, every request that is not ours goes to Clouddriver
// unchanged, so an orchestrator can point all of one cloud provider's traffic here (kork's selectors choose a
// Clouddriver per stage, never per path or operation). Not ours: a path we do not serve, an operation we do not
// have (a list body that names one goes whole), a task id we do not know.
//
// The request goes as received: method, path and query as sent, headers but the hop-by-hop ones, the body's exact
// bytes (streamed when we had no reason to read it). The answer comes back the same way, streamed. Except identity:
// the caller is authenticated here and we speak for it (src/auth/forwarded-identity.ts): its credentials stay here,
// the X-SPINNAKER-USER / -ACCOUNTS Clouddriver sees are our principal's, a read-only principal forwards no writes,
// a write naming an account the principal may not write is refused (src/auth/forwarded-accounts.ts: the body of a
// write is then read whole before it goes, unless the principal holds every account), and a path that could climb
// out of CLOUDDRIVER_URL's prefix is refused.
import type { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Agent, request as send } from "undici";
import { checkForwardedPath, forwardedHeaders, isSafeMethod } from "../auth/forwarded-identity.ts";
import { accountsNamedBy, decideForwardedWrite } from "../auth/forwarded-accounts.ts";
import { apiError } from "./error-catalogue.ts";
import { rawBodyOf } from "./json-body.ts";
import type { AuditTrail } from "./audit-trail.ts";

/** A Clouddriver that answers everything this service does not serve (other clouds, other operations, its tasks). */
export interface ClouddriverConfig {
  /** Base URL, e.g. http://clouddriver:7002 (a path prefix is kept). */
  url: string;
  /**
   * How long to wait for a connection.
   * @env CLOUDDRIVER_CONNECT_TIMEOUT_MS
   * @default `5000`
   */
  connectTimeoutMs: number;
  /**
   * How long to wait for the response headers, and at most between two chunks of a body.
   * @env CLOUDDRIVER_TIMEOUT_MS
   * @default `60000`
   */
  timeoutMs: number;
  /** Authorization header value for Clouddriver (CLOUDDRIVER_AUTHORIZATION); callers' own are never forwarded. */
  authorization?: string;
}

/** Headers that describe one connection, not the message (RFC 9110 §7.6.1), and ones the client library sets. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "host",
  "expect",
]);

type Headers = Record<string, string | string[] | undefined>;

/** The end-to-end headers: hop-by-hop ones removed, and those the Connection header names. */
export function endToEndHeaders(headers: Headers): Record<string, string | string[]> {
  const named = new Set(
    String(headers.connection ?? "")
      .split(",")
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (value === undefined || HOP_BY_HOP.has(lower) || named.has(lower)) continue;
    out[lower] = value;
  }
  return out;
}

/** Error codes with which undici reports that Clouddriver did not answer in time. */
const TIMEOUT_CODES = new Set([
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ETIMEDOUT",
]);

function errorCode(err: unknown): string | undefined {
  const e = err as { code?: unknown; cause?: { code?: unknown } } | null;
  const code = e?.code ?? e?.cause?.code;
  return typeof code === "string" ? code : undefined;
}

/** The most of a write's body read to find its accounts (Clouddriver's own limit for a request is larger). */
const FORWARDED_WRITE_LIMIT = 10 * 1024 * 1024;

/** The body of a write, read whole to find the accounts it names; too large to read is refused. */
async function readWhole(stream: Readable, limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit)
      throw apiError("Forbidden", {
        why: `a write forwarded to Clouddriver for a principal of some accounts must name them in a body of at most ${limit} bytes`,
      });
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

export class ClouddriverForwarder {
  readonly url: string;
  readonly #agent: Agent;
  readonly #authorization: string | undefined;
  readonly #audit: AuditTrail | undefined;

  /** audit: where each forwarded write is recorded before it is sent (none for reads). */
  constructor(config: ClouddriverConfig, audit?: AuditTrail) {
    this.url = config.url;
    this.#audit = audit;
    this.#authorization = config.authorization;
    this.#agent = new Agent({
      connect: { timeout: config.connectTimeoutMs },
      headersTimeout: config.timeoutMs,
      bodyTimeout: config.timeoutMs,
    });
  }

  /**
   * Sends the request to Clouddriver and answers with its response. `body`: the bytes to send (a parsed request's
   * raw body); by default the request's own stream when it has a body. Clouddriver down: 502; too slow: 504.
   * A write by a read-only principal: 403; a path with dot segments: 400. Neither reaches Clouddriver.
   */
  async forward(request: FastifyRequest, reply: FastifyReply, body?: Buffer): Promise<FastifyReply> {
    const target = checkForwardedPath(request.url);
    if (!target.ok) throw apiError("InvalidPath", { reason: target.reason, clouddriver: this.url });
    const principal = request.principal;
    if (principal.readOnly && !isSafeMethod(request.method)) {
      throw apiError("Forbidden", {
        why: `${principal.name} may only read: ${request.method} ${request.url.split("?")[0]} would be forwarded to Clouddriver as a write`,
      });
    }
    const hasBody =
      request.headers["content-length"] !== undefined
        ? request.headers["content-length"] !== "0"
        : request.headers["transfer-encoding"] !== undefined;
    let payload: Buffer | Readable | undefined = body ?? rawBodyOf(request) ?? (hasBody ? request.raw : undefined);
    if (!isSafeMethod(request.method) && principal.accounts !== "*") {
      if (payload !== undefined && !Buffer.isBuffer(payload)) payload = await readWhole(payload, FORWARDED_WRITE_LIMIT);
      if (payload !== undefined) this.#audit?.forwardedBody(request, payload);
      const decision = decideForwardedWrite(principal, accountsNamedBy(request.url, payload));
      if (!decision.ok) throw apiError("Forbidden", { why: decision.reason });
    }
    // A write is recorded before it leaves (a store that cannot record it refuses it); Clouddriver's answer is its outcome.
    const settle =
      (await this.#audit?.forwarding(request, Buffer.isBuffer(payload) ? payload : undefined)) ?? (() => {});
    let upstream: Awaited<ReturnType<typeof send>>;
    try {
      upstream = await send(`${this.url}${target.path}`, {
        method: request.method as "GET",
        headers: forwardedHeaders(endToEndHeaders(request.headers), principal, this.#authorization),
        body: payload,
        dispatcher: this.#agent,
      });
    } catch (err) {
      const code = errorCode(err) ?? "Error";
      const timedOut = TIMEOUT_CODES.has(code);
      request.log.warn({ err, clouddriver: this.url }, "Clouddriver did not answer");
      settle(`clouddriver did not answer (${code})`);
      const failed = apiError(timedOut ? "ClouddriverTimeout" : "ClouddriverUnavailable", {
        clouddriver: this.url,
        code,
        request: `${request.method} ${request.url.split("?")[0]}`,
      });
      return reply.code(failed.statusCode).type("application/json").send(failed.body());
    }
    settle(`clouddriver ${upstream.statusCode}`);
    reply.code(upstream.statusCode);
    for (const [name, value] of Object.entries(endToEndHeaders(upstream.headers))) reply.header(name, value);
    return reply.send(upstream.body);
  }

  async close(): Promise<void> {
    await this.#agent.close();
  }
}

/**
 * Routes that are not ours: the not-found handler, and routes whose config says `forwardToClouddriver: true` (an
 * unknown operation name). They are forwarded before their body is parsed, so it streams through untouched.
 * JSON bodies that are parsed keep their raw bytes (json-body.ts, keepRaw), for a list body that turns out to name
 * another operation.
 */
export function installClouddriverForwarding(app: FastifyInstance, forwarder: ClouddriverForwarder): void {
  app.addHook("onRequest", async (request, reply) => {
    const config = request.routeOptions.config as { forwardToClouddriver?: boolean };
    if (request.is404 || config.forwardToClouddriver === true) return forwarder.forward(request, reply);
  });
  app.addHook("onClose", async () => forwarder.close());
}
