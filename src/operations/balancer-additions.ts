// What a create added to a shared load balancer or application gateway for its group (a backend pool, an inbound NAT
// pool), recorded so that the destroy of that group removes exactly that: written as a tag on the scale set in the
// create's own PUT, and kept by the destroy in its checkpoint before it deletes the scale set (the tag goes with it).
// A pool the create found already there is not in the record, and is never removed.
//
//   tag vmss-ops.balancer-added = "lb/demo-lb/pool/web-prod-v003,nat/web-prod-v003"   (or "agw/demo-appgw/pool/…")
//
// The balancer is in the scale set's resource group (the create resolves it there). Compact because Azure takes at
// most 256 characters in a tag value: with Azure's longest names (80 for a balancer, 64 for a scale set) it fits.

/** On a scale set: what its create added to a shared balancer (the format above). */
export const TAG_BALANCER_ADDED = "vmss-ops.balancer-added";

export interface BalancerAdditions {
  kind: "lb" | "agw";
  /** The load balancer's or application gateway's name, in the scale set's resource group. */
  balancer: string;
  /** Backend pools the create added. */
  pools: string[];
  /** Inbound NAT pools the create added (a load balancer's only). */
  natPools: string[];
}

export function hasAdditions(a: BalancerAdditions): boolean {
  return a.pools.length + a.natPools.length > 0;
}

export function formatAdditions(a: BalancerAdditions): string {
  const children = [...a.pools.map((p) => `pool/${p}`), ...a.natPools.map((p) => `nat/${p}`)];
  return `${a.kind}/${a.balancer}/${children.join(",")}`;
}

/** The record, or undefined when the value is not one (written by hand, or by another version). */
export function parseAdditions(value: string | undefined): BalancerAdditions | undefined {
  const m = value === undefined ? null : /^(lb|agw)\/([^/,]+)\/(.+)$/.exec(value);
  if (!m) return undefined;
  const out: BalancerAdditions = { kind: m[1] as "lb" | "agw", balancer: m[2], pools: [], natPools: [] };
  for (const child of m[3].split(",")) {
    const c = /^(pool|nat)\/([^/,]+)$/.exec(child);
    if (!c) return undefined;
    (c[1] === "pool" ? out.pools : out.natPools).push(c[2]);
  }
  return out;
}

/** "pool web-prod-v003 and inbound NAT pool web-prod-v003 of load balancer demo-lb", for the history. */
export function describeAdditions(a: BalancerAdditions): string {
  const parts = [...a.pools.map((p) => `backend pool ${p}`), ...a.natPools.map((p) => `inbound NAT pool ${p}`)];
  return `${parts.join(" and ")} of ${a.kind === "lb" ? "load balancer" : "application gateway"} ${a.balancer}`;
}

/** The record as a JSON value (a checkpoint's), or undefined when it is not one. */
export function additionsFromJson(value: unknown): BalancerAdditions | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Partial<BalancerAdditions>;
  const names = (x: unknown) => Array.isArray(x) && x.every((n) => typeof n === "string");
  if ((v.kind !== "lb" && v.kind !== "agw") || typeof v.balancer !== "string" || !names(v.pools) || !names(v.natPools))
    return undefined;
  return { kind: v.kind, balancer: v.balancer, pools: [...v.pools], natPools: [...v.natPools] };
}
