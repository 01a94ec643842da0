// Headers for the pages a browser shows (/ui, the status page; /docs, Swagger UI): a Content-Security-Policy that
// allows scripts and styles only from this service (no inline script), no framing (clickjacking), no MIME sniffing,
// and no Referer carrying a task id to another site. The JSON API is not a page and does not need them.
import type { FastifyInstance } from "fastify";

const COMMON = {
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  // For browsers that predate frame-ancestors.
  "x-frame-options": "DENY",
};

/** The status page: our script, our stylesheet, fetch to this origin, nothing else. */
export const UI_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";
/** Swagger UI: its scripts are files, but it sets inline styles, and draws icons from data: URIs. */
export const DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; font-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

function cspFor(url: string): string | undefined {
  const path = url.split("?")[0];
  if (path === "/ui" || path.startsWith("/ui/")) return UI_CSP;
  if (path === "/docs" || path.startsWith("/docs/")) return DOCS_CSP;
  return undefined;
}

/**
 * Added to the page routes only, as they are declared (onRoute): a hook on every response made each API request
 * (GET /task/{id}, polled all day) pass through an onSend step for nothing. A 404 under /ui/ is JSON, not a page.
 */
export function installPageSecurityHeaders(app: FastifyInstance): void {
  app.addHook("onRoute", (route) => {
    const csp = cspFor(route.url);
    if (!csp) return;
    const headers = { "content-security-policy": csp, ...COMMON };
    const onSend = async (
      _request: unknown,
      reply: { headers(values: Record<string, string>): unknown },
      payload: unknown,
      // eslint-disable-next-line @typescript-eslint/require-await -- an async hook needs no done callback; this one waits for nothing
    ) => {
      reply.headers(headers);
      return payload;
    };
    route.onSend = [
      ...(route.onSend === undefined ? [] : Array.isArray(route.onSend) ? route.onSend : [route.onSend]),
      onSend,
    ];
  });
}
