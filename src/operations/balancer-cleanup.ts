// destroyServerGroup's clean-up of a shared balancer, once the scale set is gone: the backend pool and inbound NAT
// pool its create added (the record, balancer-additions.ts), and nothing else. Azure refuses to remove a pool a scale
// set still names, which is why this comes after the delete; it is planned on a fresh read of the balancer each
// time, and written with If-Match on the ETag read (a balancer changed meanwhile is read and planned again).
import { networkId, type NetworkChild, type NetworkResource } from "../azure/network-gateway.ts";
import type { AfterAbsent, PlannedStep } from "../azure/planner.ts";
import type { NetworkRead, ScaleSetRef } from "../azure/vmss-gateway.ts";
import { describeAdditions, type BalancerAdditions } from "./balancer-additions.ts";

export function balancerIdOf(target: ScaleSetRef, record: BalancerAdditions): string {
  const type = record.kind === "lb" ? "loadBalancers" : "applicationGateways";
  return networkId(target.subscriptionId, target.resourceGroup, type, record.balancer);
}

/** The clean-up as the harness runs it; `record()` is what the destroy knows when the scale set is gone. */
export function balancerCleanUp(target: ScaleSetRef, record: () => BalancerAdditions | undefined): AfterAbsent {
  return {
    reads: () => {
      const r = record();
      return r ? [balancerIdOf(target, r)] : [];
    },
    plan: ([read]) => planBalancerCleanUp(target.name, record()!, read),
  };
}

const named = (names: string[]) => {
  const lower = new Set(names.map((n) => n.toLowerCase()));
  return (c: NetworkChild) => lower.has(String(c.name).toLowerCase());
};

/** IP configurations Azure lists as a backend pool's members (another scale set may have been put in it since). */
function members(pool: NetworkChild): number {
  const list = pool.properties?.backendIPConfigurations;
  return Array.isArray(list) ? list.length : 0;
}

/**
 * What to write to the balancer as read: it without the recorded pools that are still there; done when none is. A
 * recorded backend pool that Azure lists members of (someone put another scale set in it since) is kept, and said.
 */
export function planBalancerCleanUp(group: string, record: BalancerAdditions, read: NetworkRead): PlannedStep {
  const what = record.kind === "lb" ? "load balancer" : "application gateway";
  const resource = read.resource;
  if (!resource)
    return { kind: "done", summary: `${what} ${record.balancer} is gone: nothing of ${group}'s left to remove` };
  const properties = resource.properties ?? {};
  const pools = properties.backendAddressPools ?? [];
  const natPools = properties.inboundNatPools ?? [];
  const recordedPools = pools.filter(named(record.pools));
  const kept = recordedPools.filter((p) => members(p) > 0);
  const removed: BalancerAdditions = {
    ...record,
    pools: recordedPools.filter((p) => members(p) === 0).map((p) => String(p.name)),
    natPools: natPools.filter(named(record.natPools)).map((p) => String(p.name)),
  };
  const keptNote = kept.map(
    (p) => `; backend pool ${String(p.name)} kept: Azure lists ${members(p)} member(s) of it, not ${group}'s`,
  );
  if (removed.pools.length + removed.natPools.length === 0)
    return {
      kind: "done",
      summary: `${what} ${record.balancer} holds nothing ${group}'s create added any more (${describeAdditions(record)})${keptNote.join("")}`,
    };
  const body: NetworkResource = {
    ...resource,
    properties: {
      ...properties,
      ...(properties.backendAddressPools ? { backendAddressPools: pools.filter((p) => !named(removed.pools)(p)) } : {}),
      ...(properties.inboundNatPools ? { inboundNatPools: natPools.filter((p) => !named(removed.natPools)(p)) } : {}),
    },
  };
  return {
    kind: "balancerPools",
    summary: `remove ${describeAdditions(removed)}, which the create of ${group} added (its scale set is gone)`,
    id: read.id,
    etag: resource.etag,
    body,
  };
}
