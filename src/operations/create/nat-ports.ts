// The frontend ports of a new group's inbound NAT pool: clouddriver-azure gives each group 100 ports from 50000, each
// after the highest range present, so ranges freed by a destroy were never used again and the 156th group on one
// load balancer would need ports past 65535. Here a new pool takes the lowest free range that fits, and none left
// is a refusal that says so, before anything is written.

/** A range of frontend ports, both ends included. */
export interface PortRange {
  start: number;
  end: number;
}

/** Where new groups' ranges go: from 50000 (clouddriver-azure's first port) to Azure's highest frontend port. */
export const NAT_PORTS = { first: 50000, last: 65535, size: 100 } as const;

export type NatRangeChoice = { ok: true; range: PortRange } | { ok: false; reason: string };

/**
 * The lowest range of `size` ports within [first, last] that overlaps none of `taken` (the load balancer's NAT pools'
 * ranges and NAT rules' ports, in any order, overlapping or not).
 */
export function chooseNatRange(
  taken: readonly PortRange[],
  limits: { first: number; last: number; size: number } = NAT_PORTS,
): NatRangeChoice {
  const sorted = taken.filter((r) => r.end >= limits.first && r.start <= limits.last).sort((a, b) => a.start - b.start);
  let start = limits.first;
  for (const r of sorted) {
    if (r.start >= start + limits.size) break; // the gap before r holds a whole range
    start = Math.max(start, r.end + 1);
  }
  const end = start + limits.size - 1;
  if (end > limits.last) {
    return {
      ok: false,
      reason: `no ${limits.size} free frontend ports left for an inbound NAT pool between ${limits.first} and ${limits.last} (${sorted.length} range(s) taken)`,
    };
  }
  return { ok: true, range: { start, end } };
}

/** The frontend ports a load balancer's inbound NAT pools and NAT rules hold (its properties as read). */
export function takenNatPorts(properties: {
  inboundNatPools?: { properties?: Record<string, unknown> }[];
  inboundNatRules?: { properties?: Record<string, unknown> }[];
}): PortRange[] {
  const ranges: PortRange[] = [];
  for (const pool of properties.inboundNatPools ?? []) {
    const start = Number(pool.properties?.frontendPortRangeStart);
    const end = Number(pool.properties?.frontendPortRangeEnd);
    if (Number.isFinite(start) && Number.isFinite(end)) ranges.push({ start, end });
  }
  for (const rule of properties.inboundNatRules ?? []) {
    const p = rule.properties ?? {};
    const start = Number(p.frontendPortRangeStart ?? p.frontendPort);
    const end = Number(p.frontendPortRangeEnd ?? p.frontendPort);
    if (Number.isFinite(start) && Number.isFinite(end)) ranges.push({ start, end });
  }
  return ranges;
}
