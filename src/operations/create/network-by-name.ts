// Networking by name, as clouddriver-azure resolves what Deck sends (vnet, subnet, vnetResourceGroup,
// securityGroupName, loadBalancerName with loadBalancerType, appGatewayName): every name is read first, and one that
// does not exist fails the create before anything is written. Then the new group gets its own backend pool, named
// after it, in the named load balancer or application gateway.
//
// clouddriver-azure: CreateAzureServerGroupWithAzureLoadBalancerAtomicOperation.java l.116-156 (the application's
// resource group; the virtual network and the subnet by name, "Selected subnet … is not valid"), l.187-219 (the new
// group's backend pool and inbound NAT pool in the load balancer, "Selected Load Balancer … does not exist");
// CreateAzureServerGroupAtomicOperation.groovy l.85-121 and l.163-171 (the same with an application gateway).
import { RefusalError } from "../../azure/arm-failure.ts";
import { NetworkGateway, networkId, type NetworkChild, type NetworkResource } from "../../azure/network-gateway.ts";
import type { ScaleSetRef } from "../../azure/vmss-gateway.ts";
import type { PrepareContext } from "../operation.ts";

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
}

/** Inbound NAT ports of a new group's NAT pool (clouddriver-azure: 50000-50099 to 22, or 3389 on Windows). */
const NAT_FRONTEND_PORTS = { start: 50000, end: 50099 };

/** Which gateway the description means: an application gateway, a load balancer, or none. */
export function balancerOf(d: NetworkByName): { kind: "agw" | "lb"; name: string } | undefined {
  if (d.appGatewayName) return { kind: "agw", name: d.appGatewayName };
  if (!d.loadBalancerName) return undefined;
  return { kind: d.loadBalancerType === "Azure Application Gateway" ? "agw" : "lb", name: d.loadBalancerName };
}

/** The load balancer with a backend pool and an inbound NAT pool for `group` added (unchanged when they exist). */
export function withGroupPools(
  lb: NetworkResource,
  lbId: string,
  group: string,
  windows: boolean,
): { resource: NetworkResource; changed: boolean } {
  const properties = { ...lb.properties };
  const pools: NetworkChild[] = [...(properties.backendAddressPools ?? [])];
  const nat: NetworkChild[] = [...(properties.inboundNatPools ?? [])];
  let changed = false;
  if (!pools.some((p) => String(p.name).toLowerCase() === group.toLowerCase())) {
    pools.push({ name: group, properties: {} });
    changed = true;
  }
  const frontend =
    properties.frontendIPConfigurations?.[0]?.id ??
    (properties.frontendIPConfigurations?.[0]?.name
      ? `${lbId}/frontendIPConfigurations/${properties.frontendIPConfigurations[0].name}`
      : undefined);
  if (frontend && !nat.some((p) => String(p.name).toLowerCase() === group.toLowerCase())) {
    // Each group its own range, after the ranges already taken.
    const taken = nat.map((p) => Number(p.properties?.frontendPortRangeEnd ?? 0));
    const start = Math.max(NAT_FRONTEND_PORTS.start - 1, ...taken) + 1;
    nat.push({
      name: group,
      properties: {
        frontendIPConfiguration: { id: frontend },
        protocol: "Tcp",
        frontendPortRangeStart: start,
        frontendPortRangeEnd: start + (NAT_FRONTEND_PORTS.end - NAT_FRONTEND_PORTS.start),
        backendPort: windows ? 3389 : 22,
      },
    });
    changed = true;
  }
  return {
    resource: { ...lb, properties: { ...properties, backendAddressPools: pools, inboundNatPools: nat } },
    changed,
  };
}

/** The application gateway with a backend pool for `group` added. */
export function withGroupGatewayPool(
  agw: NetworkResource,
  group: string,
): { resource: NetworkResource; changed: boolean } {
  const pools: NetworkChild[] = [...(agw.properties?.backendAddressPools ?? [])];
  if (pools.some((p) => String(p.name).toLowerCase() === group.toLowerCase())) return { resource: agw, changed: false };
  pools.push({ name: group, properties: { backendAddresses: [] } });
  return { resource: { ...agw, properties: { ...agw.properties, backendAddressPools: pools } }, changed: true };
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
  ctx: Pick<PrepareContext, "accounts" | "log" | "signal">,
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
  if (!balancer) return choice;
  const type = balancer.kind === "lb" ? "loadBalancers" : "applicationGateways";
  const id = networkId(sub, target.resourceGroup, type, balancer.name);
  const found = await net.get(id, ctx.signal);
  const what = balancer.kind === "lb" ? "Load Balancer" : "Application Gateway";
  if (!found)
    throw new RefusalError(
      "LoadBalancerNotFound",
      `Selected ${what} ${balancer.name} does not exist (resource group ${target.resourceGroup})`,
    );
  const added =
    balancer.kind === "lb"
      ? withGroupPools(found, idOf(found, id), target.name, windows)
      : withGroupGatewayPool(found, target.name);
  if (added.changed) {
    ctx.log(
      `create the backend pool ${target.name} in ${what} ${balancer.name}${balancer.kind === "lb" ? ", with its inbound NAT pool" : ""}`,
    );
    await net.put(id, added.resource, ctx.signal);
  }
  const poolId = `${idOf(found, id)}/backendAddressPools/${target.name}`;
  if (balancer.kind === "lb") {
    choice.loadBalancerPoolId = poolId;
    const nat = (added.resource.properties?.inboundNatPools ?? []).some(
      (p: { name?: string }) => String(p.name).toLowerCase() === target.name.toLowerCase(),
    );
    if (nat) choice.natPoolId = `${idOf(found, id)}/inboundNatPools/${target.name}`;
  } else choice.appGatewayPoolId = poolId;
  return choice;
}
