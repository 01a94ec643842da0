// How ARM pages a list: `{ value: [...], nextLink? }`, the nextLink the same URL with its query kept and a
// `$skiptoken` added, absent on the last page (the REST specification's `x-ms-pageable: { nextLinkName: "nextLink" }`,
// which every SDK follows). The token here is the offset of the next item; `listPageSize` items a page (PUT
// /_sim/config), so a test can make any list span pages.
import { invalidParameter } from "./arm-errors.ts";
import type { SimulatorContext } from "./context.ts";
import { send, type RequestContext } from "./http.ts";
import type { JsonObject } from "./json.ts";

/** The offset a `$skiptoken` names (0 without one); a token that is not one of ours is Azure's 400. */
export function skipTokenOffset(ctx: RequestContext): number {
  const token = ctx.url.searchParams.get("$skiptoken");
  if (token === null) return 0;
  if (!/^\d+$/.test(token)) throw invalidParameter("The value of parameter $skiptoken is invalid.", "$skiptoken");
  return Number(token);
}

/** One page of `items` from the request's `$skiptoken`, with the nextLink to the next page when there is one. */
export function pageOf<T>(
  ctx: RequestContext,
  items: readonly T[],
  pageSize: number,
): { page: T[]; nextLink?: string } {
  const offset = skipTokenOffset(ctx);
  const page = items.slice(offset, offset + pageSize);
  if (offset + page.length >= items.length) return { page };
  const next = new URL(`${ctx.baseUrl}${ctx.pathname}`);
  for (const [key, value] of ctx.url.searchParams) if (key !== "$skiptoken") next.searchParams.set(key, value);
  next.searchParams.set("$skiptoken", String(offset + page.length));
  return { page, nextLink: next.toString() };
}

/** Answers a list request with one page of `items` (rendered only for that page), `listPageSize` a page. */
export function sendPage<T>(
  ctx: RequestContext,
  sim: SimulatorContext,
  items: readonly T[],
  render: (item: T) => JsonObject,
  extra: JsonObject = {},
): void {
  const { page, nextLink } = pageOf(ctx, items, sim.state.settings.listPageSize);
  send(ctx, 200, { value: page.map(render), ...extra, ...(nextLink ? { nextLink } : {}) });
}
