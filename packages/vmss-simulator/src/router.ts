// A small path router. Literal segments match case-insensitively (as ARM paths do); `:name` segments capture.

export type RouteParams = Record<string, string>;

interface Route<H> {
  method: string;
  segments: string[];
  handler: H;
}

export type RouteResult<H> =
  | { kind: "found"; handler: H; params: RouteParams }
  | { kind: "methodNotAllowed"; allowed: string[] }
  | { kind: "notFound" };

export function splitPath(pathname: string): string[] {
  const trimmed = pathname.replace(/^\/+/, "").replace(/\/+$/, "");
  return trimmed === "" ? [] : trimmed.split("/");
}

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export class Router<H> {
  readonly #routes: Route<H>[] = [];

  add(method: string, pattern: string, handler: H): this {
    this.#routes.push({ method: method.toUpperCase(), segments: splitPath(pattern), handler });
    return this;
  }

  /** The routes' methods and patterns, in the order they are tried (the specification check walks them). */
  patterns(): { method: string; pattern: string }[] {
    return this.#routes.map((r) => ({ method: r.method, pattern: `/${r.segments.join("/")}` }));
  }

  /** The same routes with each handler turned into something else (control routes become uncharged Routes). */
  map<T>(f: (handler: H) => T): Router<T> {
    const out = new Router<T>();
    for (const r of this.#routes) out.#routes.push({ method: r.method, segments: r.segments, handler: f(r.handler) });
    return out;
  }

  match(method: string, pathname: string): RouteResult<H> {
    const parts = splitPath(pathname);
    const allowed: string[] = [];
    for (const route of this.#routes) {
      const params = matchSegments(route.segments, parts);
      if (!params) continue;
      if (route.method === method.toUpperCase()) return { kind: "found", handler: route.handler, params };
      if (!allowed.includes(route.method)) allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: "methodNotAllowed", allowed } : { kind: "notFound" };
  }
}

function matchSegments(pattern: string[], parts: string[]): RouteParams | undefined {
  if (pattern.length !== parts.length) return undefined;
  const params: RouteParams = {};
  for (let i = 0; i < pattern.length; i++) {
    const p = pattern[i];
    const part = parts[i];
    if (p.startsWith(":")) {
      const value = decode(part);
      if (value === "") return undefined;
      params[p.slice(1)] = value;
    } else if (p.toLowerCase() !== decode(part).toLowerCase()) {
      return undefined;
    }
  }
  return params;
}
