// Networking by name, as clouddriver-azure resolves what Deck sends (vnet, subnet, vnetResourceGroup,
// securityGroupName, loadBalancerName with loadBalancerType, appGatewayName): every name is read first, and one that
// does not exist fails the create before anything is written. Then the new group gets its own backend pool, named
// after it, in the named load balancer or application gateway.
//
// clouddriver-azure: CreateAzureServerGroupWithAzureLoadBalancerAtomicOperation.java l.116-156 (the application's
// resource group; the virtual network and the subnet by name, "Selected subnet … is not valid"), l.187-219 (the new
// group's backend pool and inbound NAT pool in the load balancer, "Selected Load Balancer … does not exist");
// CreateAzureServerGroupAtomicOperation.groovy l.85-121 and l.163-171 (the same with an application gateway).
import { balancerProbePace, type ProbePace } from "./health-expectation.ts";
import { RefusalError } from "../../azure/arm-failure.ts";
import { NetworkGateway, networkId, type NetworkChild, type NetworkResource } from "../../azure/network-gateway.ts";
import type { ScaleSetRef } from "../../azure/vmss-gateway.ts";
import type { PrepareContext } from "../operation.ts";
import { describeAdditions, hasAdditions, type BalancerAdditions } from "../balancer-additions.ts";
import { chooseNatRange, takenNatPorts } from "./nat-ports.ts";

export interface NetworkByName {
  subnetId?: string;
  vnet?: string;
  subnet?: string;
  vnetResourceGroup?: string;
  securityGroupId?: string;
  securityGroupName?: string;
  loadBalancerName?: string;
  loadBalancerType?: "Azure Load Balancer" | "Azure Application Gateway";
  appGatewayName?: string;
  loadBalancerBackendPoolId?: string;
  appGatewayBapId?: string;
}

export interface NetworkChoice {
  subnetId?: string;
  securityGroupId?: string;
  loadBalancerPoolId?: string;
  natPoolId?: string;
  appGatewayPoolId?: string;
  /** What the create added to a shared balancer (recorded on the scale set for its destroy); absent: nothing. */
  added?: BalancerAdditions;
  /** The load balancer's quickest health probe, as read: when its instances' health can be known (health-expectation.ts). */
  probe?: ProbePace;
}

/** Which gateway the description means: an application gateway, a load balancer, or none. */
export function balancerOf(d: NetworkByName): { kind: "agw" | "lb"; name: string } | undefined {
  if (d.appGatewayName) return { kind: "agw", name: d.appGatewayName };
  if (!d.loadBalancerName) return undefined;
  return { kind: d.loadBalancerType === "Azure Application Gateway" ? "agw" : "lb", name: d.loadBalancerName };
}

const sameName = (group: string) => (p: NetworkChild) => String(p.name).toLowerCase() === group.toLowerCase();

/** A balancer with the group's pools added: what was added (none when they exist), and the resource to write. */
export interface WithGroupPools {
  resource: NetworkResource;
  added: { pools: string[]; natPools: string[] };
}

/**
 * The load balancer with a backend pool and an inbound NAT pool for `group` added (unchanged when they exist). The
 * NAT pool (inbound ports 22, or 3389 on Windows, as clouddriver-azure opens them) takes the lowest free range of 100
 * frontend ports from 50000 (nat-ports.ts); none left is refused before anything is written.
 */
export function withGroupPools(lb: NetworkResource, lbId: string, group: string, windows: boolean): WithGroupPools {
  const properties = { ...lb.properties };
  const pools: NetworkChild[] = [...(properties.backendAddressPools ?? [])];
  const nat: NetworkChild[] = [...(properties.inboundNatPools ?? [])];
  const added: WithGroupPools["added"] = { pools: [], natPools: [] };
  if (!pools.some(sameName(group))) {
    pools.push({ name: group, properties: {} });
    added.pools.push(group);
  }
  const frontend =
    properties.frontendIPConfigurations?.[0]?.id ??
    (properties.frontendIPConfigurations?.[0]?.name
      ? `${lbId}/frontendIPConfigurations/${properties.frontendIPConfigurations[0].name}`
      : undefined);
  if (frontend && !nat.some(sameName(group))) {
    const choice = chooseNatRange(takenNatPorts(properties));
    if (!choice.ok)
      throw new RefusalError("NoNatPortsLeft", `load balancer ${lb.name ?? lbId}: ${choice.reason}`, "terminal");
    nat.push({
      name: group,
      properties: {
        frontendIPConfiguration: { id: frontend },
        protocol: "Tcp",
        frontendPortRangeStart: choice.range.start,
        frontendPortRangeEnd: choice.range.end,
        backendPort: windows ? 3389 : 22,
      },
    });
    added.natPools.push(group);
  }
  return {
    resource: { ...lb, properties: { ...properties, backendAddressPools: pools, inboundNatPools: nat } },
    added,
  };
}

/** The application gateway with a backend pool for `group` added (unchanged when it exists). */
export function withGroupGatewayPool(agw: NetworkResource, group: string): WithGroupPools {
  const pools: NetworkChild[] = [...(agw.properties?.backendAddressPools ?? [])];
  if (pools.some(sameName(group))) return { resource: agw, added: { pools: [], natPools: [] } };
  pools.push({ name: group, properties: { backendAddresses: [] } });
  return {
    resource: { ...agw, properties: { ...agw.properties, backendAddressPools: pools } },
    added: { pools: [group], natPools: [] },
  };
}

function idOf(resource: NetworkResource | undefined, fallback: string): string {
  return resource?.id ?? fallback;
}

/**
 * Reads every name the description gives (the subnet, the security group, the load balancer or gateway) and fails,
 * before any write, on one that does not exist; then adds the new group's own pool to the balancer.
 */
export async function resolveNetwork(
  d: NetworkByName,
  target: ScaleSetRef,
  ctx: Pick<PrepareContext, "accounts" | "log" | "signal" | "dryRun">,
  windows = false,
): Promise<NetworkChoice> {
  const account = ctx.accounts.get(target.account);
  const net = new NetworkGateway(ctx.accounts.client(target.account), account?.endpoint ?? "");
  const sub = target.subscriptionId;
  const choice: NetworkChoice = {
    ...(d.subnetId ? { subnetId: d.subnetId } : {}),
    ...(d.securityGroupId ? { securityGroupId: d.securityGroupId } : {}),
    ...(d.loadBalancerBackendPoolId ? { loadBalancerPoolId: d.loadBalancerBackendPoolId } : {}),
    ...(d.appGatewayBapId ? { appGatewayPoolId: d.appGatewayBapId } : {}),
  };
  if (d.vnet && d.subnet) {
    const vnetGroup = d.vnetResourceGroup ?? target.resourceGroup;
    const vnetId = networkId(sub, vnetGroup, "virtualNetworks", d.vnet);
    const vnet = await net.get(vnetId, ctx.signal);
    if (!vnet)
      throw new RefusalError(
        "VirtualNetworkNotFound",
        `Selected virtual network ${d.vnet} does not exist (resource group ${vnetGroup})`,
      );
    const subnet = (vnet.properties?.subnets ?? []).find((s: { name?: string }) => s.name === d.subnet);
    if (!subnet)
      throw new RefusalError(
        "SubnetNotFound",
        `Selected subnet ${d.subnet} in virtual network ${d.vnet} is not valid: it has ${(vnet.properties?.subnets ?? []).map((s: { name?: string }) => s.name).join(", ") || "no subnets"}`,
      );
    choice.subnetId = subnet.id ?? `${vnetId}/subnets/${d.subnet}`;
  }
  if (d.securityGroupName) {
    const id = networkId(sub, target.resourceGroup, "networkSecurityGroups", d.securityGroupName);
    const nsg = await net.get(id, ctx.signal);
    if (!nsg)
      throw new RefusalError(
        "SecurityGroupNotFound",
        `Selected network security group ${d.securityGroupName} does not exist (resource group ${target.resourceGroup})`,
      );
    choice.securityGroupId = idOf(nsg, id);
  }
  const balancer = balancerOf(d);
  return balancer ? { ...choice, ...(await addGroupPools(net, balancer, target, ctx, windows)) } : choice;
}

/** Times the balancer is read and written again when another writer changed it in between (412). */
const BALANCER_WRITES = 5;

/**
 * Adds the new group's own pool (and NAT pool) to the balancer, with If-Match on the ETag it was read with: a balancer
 * another writer changed meanwhile (another create taking the same NAT ports) answers 412, and is read and planned
 * again. What was added is recorded (`added`), so that the group's destroy removes it and nothing else.
 */
async function addGroupPools(
  net: NetworkGateway,
  balancer: { kind: "agw" | "lb"; name: string },
  target: ScaleSetRef,
  ctx: Pick<PrepareContext, "log" | "signal" | "dryRun">,
  windows: boolean,
): Promise<NetworkChoice> {
  const type = balancer.kind === "lb" ? "loadBalancers" : "applicationGateways";
  const id = networkId(target.subscriptionId, target.resourceGroup, type, balancer.name);
  const what = balancer.kind === "lb" ? "Load Balancer" : "Application Gateway";
  for (let write = 1; ; write++) {
    const found = await net.get(id, ctx.signal);
    if (!found)
      throw new RefusalError(
        "LoadBalancerNotFound",
        `Selected ${what} ${balancer.name} does not exist (resource group ${target.resourceGroup})`,
      );
    const planned =
      balancer.kind === "lb"
        ? withGroupPools(found, idOf(found, id), target.name, windows)
        : withGroupGatewayPool(found, target.name);
    const additions: BalancerAdditions = { kind: balancer.kind, balancer: balancer.name, ...planned.added };
    if (ctx.dryRun) {
      if (hasAdditions(additions)) ctx.log(`would add ${describeAdditions(additions)}`);
      return choiceFor(balancer.kind, idOf(found, id), target.name, planned.resource, additions);
    }
    const probe = balancer.kind === "lb" ? balancerProbePace(found) : undefined;
    try {
      if (hasAdditions(additions)) {
        ctx.log(`add ${describeAdditions(additions)} (If-Match ${found.etag ?? "none"})`);
        await net.put(id, planned.resource, ctx.signal, found.etag ? { ifMatch: found.etag } : {});
      }
    } catch (err) {
      if (!(err instanceof RefusalError && err.kind === "precondition") || write >= BALANCER_WRITES) throw err;
      ctx.log(`${what} ${balancer.name} changed since it was read (${err.code}); reading it again`);
      continue;
    }
    return {
      ...choiceFor(balancer.kind, idOf(found, id), target.name, planned.resource, additions),
      ...(probe ? { probe } : {}),
    };
  }
}

/** The pool ids the new group's NICs name, and what the create added (when it added anything). */
function choiceFor(
  kind: "agw" | "lb",
  balancerId: string,
  group: string,
  written: NetworkResource,
  additions: BalancerAdditions,
): NetworkChoice {
  const added = hasAdditions(additions) ? { added: additions } : {};
  const poolId = `${balancerId}/backendAddressPools/${group}`;
  if (kind === "agw") return { appGatewayPoolId: poolId, ...added };
  const nat = (written.properties?.inboundNatPools ?? []).some(sameName(group));
  return {
    loadBalancerPoolId: poolId,
    ...(nat ? { natPoolId: `${balancerId}/inboundNatPools/${group}` } : {}),
    ...added,
  };
}
