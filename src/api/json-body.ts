// The one JSON body parser: the charset and the nesting depth are checked on the raw bytes before anything parses
// or walks the body, so that no body that reaches a handler can exhaust the stack (null stripping, validation and
// the store all recurse). The size limit (BODY_LIMIT_BYTES) is Fastify's, enforced while the body streams in.
import type { FastifyInstance, FastifyRequest } from "fastify";
import { ApiError, apiError } from "./error-catalogue.ts";

/** Raw request bodies, for requests that turn out to be Clouddriver's after parsing (clouddriver-forwarding.ts). */
const rawBodies = new WeakMap<FastifyRequest, Buffer>();

export function rawBodyOf(request: FastifyRequest): Buffer | undefined {
  return rawBodies.get(request);
}

/** The charset a Content-Type names, lower case; undefined when it names none. */
export function charsetOf(contentType: string | undefined): string | undefined {
  const m = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? "");
  return m ? m[2].toLowerCase() : undefined;
}

/** JSON is UTF-8 (RFC 8259 §8.1); a body that says otherwise would be misread as UTF-8, not refused. */
export function isUtf8Charset(charset: string | undefined): boolean {
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

/**
 * How deep the JSON text nests arrays and objects, scanning its bytes once, stopping as soon as `limit` is passed.
 * Strings are skipped (a bracket inside one does not count); UTF-8 continuation bytes are never ASCII, so a byte
 * scan is exact. Malformed text is left for the parser to refuse.
 */
export function jsonDepthExceeds(body: Buffer, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped byte
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

export interface JsonBodyOptions {
  /** Deepest nesting of arrays and objects accepted (BODY_MAX_DEPTH). */
  maxDepth: number;
  /** Keep each body's raw bytes (rawBodyOf): when requests may be forwarded to Clouddriver after parsing. */
  keepRaw: boolean;
}

/** JSON text → value; an empty body, text that is not JSON, or a prototype key is a 400 that says so. */
export function parseJsonBody(text: string): unknown {
  if (text.trim() === "") throw apiError("EmptyBody", {});
  try {
    // A __proto__ or constructor.prototype key would reach objects' prototypes in code that copies the body.
    return JSON.parse(text, (key: string, value: unknown) => {
      if (
        key === "__proto__" ||
        (key === "constructor" && value !== null && typeof value === "object" && "prototype" in value)
      ) {
        throw apiError("ForbiddenKey", { key: key === "__proto__" ? "__proto__" : "constructor.prototype" });
      }
      return value;
    });
  } catch (err) {
    if (err instanceof ApiError) throw err;
    throw apiError("InvalidJson", { reason: (err as Error).message });
  }
}

export function installJsonBodyParser(app: FastifyInstance, options: JsonBodyOptions): void {
  app.removeContentTypeParser("application/json");
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const raw = body as Buffer;
    const charset = charsetOf(request.headers["content-type"]);
    if (!isUtf8Charset(charset)) {
      return done(apiError("UnsupportedMediaType", { charset: String(charset) }), undefined);
    }
    if (jsonDepthExceeds(raw, options.maxDepth)) {
      return done(apiError("BodyTooDeep", { maxDepth: options.maxDepth }), undefined);
    }
    if (options.keepRaw) rawBodies.set(request, raw);
    try {
      done(null, parseJsonBody(raw.toString("utf8")));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
}
