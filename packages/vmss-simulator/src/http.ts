// Request context and response helpers for the simulator's HTTPS server.
import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { ArmError, invalidRequestContent } from "./arm-errors.ts";
import { shapeForApiVersion } from "./api-version-shapes.ts";
import type { CallRecord } from "./calls.ts";
import { reportExchange } from "./exchanges.ts";

export interface RequestContext {
  req: IncomingMessage;
  res: ServerResponse;
  method: string;
  url: URL;
  /** URL pathname as received (still percent-encoded). */
  pathname: string;
  body: Buffer;
  /** The body went over the size limit; its bytes were discarded. */
  bodyTooLarge: boolean;
  requestId: string;
  correlationId: string;
  /** `https://host:port` as the client addressed us; used for nextLink / operation URLs. */
  baseUrl: string;
  /** The call-log entry of an ARM request (control requests have none). */
  call?: CallRecord;
  /** Headers a pipeline step adds to whatever answer the request gets (x-ms-ratelimit-remaining-resource). */
  responseHeaders?: Record<string, string>;
}

/** Bodies are read up to the limit; beyond it bytes are discarded, and beyond this the socket is dropped. */
const HARD_BODY_CAP = 64 * 1024 * 1024;

export function readBody(req: IncomingMessage, limitBytes: number): Promise<{ body: Buffer; tooLarge: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > HARD_BODY_CAP) {
        req.socket.destroy();
        return;
      }
      if (size > limitBytes) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on("end", () => resolve({ body: tooLarge ? Buffer.alloc(0) : Buffer.concat(chunks), tooLarge }));
    req.on("error", reject);
    req.on("close", () => {
      if (!req.complete) reject(new Error("request aborted"));
    });
  });
}

export function createContext(
  req: IncomingMessage,
  res: ServerResponse,
  fallbackBaseUrl: string,
): Omit<RequestContext, "body" | "bodyTooLarge"> {
  const host = req.headers.host;
  const baseUrl = host && /^[A-Za-z0-9.\-:[\]]+$/.test(host) ? `https://${host}` : fallbackBaseUrl;
  const url = new URL(req.url ?? "/", baseUrl);
  const correlation = req.headers["x-ms-correlation-request-id"];
  return {
    req,
    res,
    method: (req.method ?? "GET").toUpperCase(),
    url,
    pathname: url.pathname,
    requestId: randomUUID(),
    correlationId: typeof correlation === "string" && correlation !== "" ? correlation : randomUUID(),
    baseUrl,
  };
}

export function header(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

/** Sends a response with the ARM request-id headers; a body that is not undefined is sent as JSON. */
export function send(
  ctx: RequestContext,
  status: number,
  body?: unknown,
  headers: Record<string, string | number> = {},
): void {
  const { res } = ctx;
  if (res.headersSent || res.destroyed) return;
  const out: Record<string, string | number> = {
    "x-ms-request-id": ctx.requestId,
    "x-ms-correlation-request-id": ctx.correlationId,
    ...ctx.responseHeaders,
    ...headers,
  };
  const clientRequestId = ctx.req.headers["x-ms-client-request-id"];
  if (typeof clientRequestId === "string") out["x-ms-client-request-id"] = clientRequestId;
  if (ctx.call) {
    ctx.call.status = status;
    ctx.call.answeredAt = Date.now();
  }
  // ARM answers: only the fields the request's api-version defines (api-version-shapes.ts), reported to observers.
  if (ctx.call) body = shapeForApiVersion(ctx.url.searchParams.get("api-version"), body);
  if (ctx.call) reportExchange({ ...ctx, userAgent: ctx.req.headers["user-agent"] }, status, body);
  if (body === undefined) {
    out["content-length"] = 0;
    res.writeHead(status, out);
    res.end();
    return;
  }
  const text = JSON.stringify(body);
  out["content-type"] = "application/json; charset=utf-8";
  out["content-length"] = Buffer.byteLength(text);
  res.writeHead(status, out);
  res.end(text);
}

export function sendError(ctx: RequestContext, err: ArmError): void {
  send(ctx, err.status, err.toBody(), err.headers);
}

/** Drops the connection with no response (a network failure, as the client sees it). */
export function dropConnection(ctx: RequestContext): void {
  if (ctx.call) ctx.call.status = null;
  ctx.req.socket.destroy();
}

/** The body as JSON; undefined when empty. Invalid JSON → 400 InvalidRequestContent. */
export function parseJsonBody(ctx: RequestContext): unknown {
  const text = ctx.body.toString("utf8");
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw invalidRequestContent((err as Error).message);
  }
}
