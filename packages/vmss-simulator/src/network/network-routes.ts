// The ARM surface for Microsoft.Network that a deploy uses: GET, PUT and DELETE of virtual networks, load
// balancers, application gateways and network security groups, their listing per resource group, a subnet's GET;
// and the control views under /_sim/network: a load balancer's (or gateway's) pools with their members and what
// the health probe says of each, and a switch that makes a scale set's instances fail the probe.
import { ArmError, resourceGroupNotFound, resourceNotFound, subscriptionNotFound } from "../arm-errors.ts";
import type { Handler, Route, SimulatorContext } from "../context.ts";
import { hasApplicationHealthExtension, probeHealth, type HealthCode } from "../health-probe.ts";
import { parseJsonBody, send } from "../http.ts";
import { clone, getPath, isObject, type JsonObject } from "../json.ts";
import { sendPage } from "../paging.ts";
import type { RouteParams } from "../router.ts";
import type { SimState } from "../state.ts";
import { nicIpConfigurations } from "../flexible.ts";
import {
  isFlexible,
  normalizeLocation,
  scaleSetId,
  scaleSetKey,
  sortedVms,
  type ScaleSet,
  type Vm,
} from "../vmss-model.ts";
import { seedDemoNetwork } from "./network-seed.ts";
import { refuseDroppingPoolsInUse } from "./pools-in-use.ts";
import { checkIfMatch } from "../arm-checks.ts";
import {
  networkOf,
  networkTypeOf,
  NetworkState,
  SUB_RESOURCES,
  type NetworkResource,
  type NetworkType,
} from "./network-state.ts";

const SUB = "/subscriptions/:subscriptionId";
const NETWORK = `${SUB}/resourceGroups/:resourceGroup/providers/Microsoft.Network`;

export function network(sim: SimulatorContext): NetworkState {
  return networkOf(sim, seedNetwork);
}

/** The demo network, and what the seeded scale sets name in it. */
function seedNetwork(net: NetworkState, state: SimState): void {
  seedDemoNetwork(net, state);
  for (const ss of state.listScaleSets()) provideNamedPools(net, state.subscriptionId, ss);
}

/** Back to the seeded network (the control API's reset). */
export function resetNetwork(sim: SimulatorContext): void {
  const net = network(sim);
  net.clear();
  if (sim.seeded) seedNetwork(net, sim.state);
}

const NAMED_POOL =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/(loadBalancers|applicationGateways)\/([^/]+)\/backendAddressPools\/([^/]+)$/i;

/**
 * The subnet, load balancers, gateways and pools a scale set the simulator made itself names (the seed's, the control
 * API's `PUT /_sim/scaleSets`): made where missing, as the deploy that made such a scale set would have made them, so
 * that what the simulator holds names only what exists (references.ts).
 */
export function provideNamedPools(net: NetworkState, subscriptionId: string, ss: ScaleSet): void {
  const nics = getPath(
    ss.model,
    "properties",
    "virtualMachineProfile",
    "networkProfile",
    "networkInterfaceConfigurations",
  );
  const ipcs = asArray(nics).flatMap((nic) => asArray(getPath(nic, "properties", "ipConfigurations")));
  for (const ipc of ipcs) provideNamedSubnet(net, subscriptionId, ss, getPath(ipc, "properties", "subnet", "id"));
  for (const poolId of ipcs.flatMap(poolIdsOf)) {
    const m = NAMED_POOL.exec(poolId);
    if (!m || m[1].toLowerCase() !== subscriptionId.toLowerCase()) continue;
    const type = networkTypeOf(m[3])!;
    const existing = net.get(type, m[2], m[4]);
    const body: JsonObject = existing ? clone(existing.body) : {};
    const properties: JsonObject = isObject(body.properties)
      ? body.properties
      : { frontendIPConfigurations: [{ name: "frontend", properties: {} }] };
    const pools = asArray(properties.backendAddressPools);
    if (pools.some((p) => String(getPath(p, "name")).toLowerCase() === m[5].toLowerCase())) continue;
    properties.backendAddressPools = [...(pools as JsonObject[]), { name: m[5], properties: {} }];
    body.properties = properties;
    net.put(type, existing?.resourceGroup ?? m[2], existing?.name ?? m[4], existing?.location ?? ss.location, body);
  }
}

const NAMED_SUBNET =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Network\/virtualNetworks\/([^/]+)\/subnets\/([^/]+)$/i;

/** The subnet (and its virtual network) a scale set the simulator made itself names: made where missing. */
function provideNamedSubnet(net: NetworkState, subscriptionId: string, ss: ScaleSet, subnetId: unknown): void {
  const m = typeof subnetId === "string" ? NAMED_SUBNET.exec(subnetId) : null;
  if (!m || m[1].toLowerCase() !== subscriptionId.toLowerCase()) return;
  const existing = net.get("virtualNetworks", m[2], m[3]);
  const body: JsonObject = existing
    ? clone(existing.body)
    : { properties: { addressSpace: { addressPrefixes: ["10.0.0.0/16"] }, subnets: [] } };
  const properties = body.properties as JsonObject;
  const subnets = asArray(properties.subnets) as JsonObject[];
  if (subnets.some((sn) => String(getPath(sn, "name")).toLowerCase() === m[4].toLowerCase())) return;
  properties.subnets = [...subnets, { name: m[4], properties: { addressPrefix: `10.0.${subnets.length}.0/24` } }];
  net.put(
    "virtualNetworks",
    existing?.resourceGroup ?? m[2],
    existing?.name ?? m[3],
    existing?.location ?? ss.location,
    body,
  );
}

function typeParam(params: RouteParams): NetworkType {
  const type = networkTypeOf(params.type);
  if (!type)
    throw new ArmError(
      404,
      "InvalidResourceType",
      `The resource type '${params.type}' could not be found in the namespace 'Microsoft.Network'.`,
    );
  return type;
}

function requireGroup(sim: SimulatorContext, params: RouteParams): string {
  if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  const rg = sim.state.resourceGroupName(params.resourceGroup);
  // The seeded network's resource group exists even before a scale set is put there.
  if (
    rg === undefined &&
    network(sim).list("virtualNetworks", params.resourceGroup).length === 0 &&
    network(sim).list("loadBalancers", params.resourceGroup).length === 0
  ) {
    throw resourceGroupNotFound(params.resourceGroup);
  }
  return rg ?? params.resourceGroup;
}

export function resourceId(
  subscriptionId: string,
  r: Pick<NetworkResource, "type" | "resourceGroup" | "name">,
): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${r.resourceGroup}/providers/Microsoft.Network/${r.type}/${r.name}`;
}

/**
 * A VM's IP configurations with their ARM ids: a Uniform VM's from the NIC configurations applied to it; a Flexible
 * VM's from its own NICs (Microsoft.Network/networkInterfaces), as last written.
 */
export function vmIpConfigurations(
  sim: SimulatorContext,
  ss: ScaleSet,
  vm: Vm,
): { id: string; ipConfiguration: unknown }[] {
  if (isFlexible(ss)) return sim.state.nicsOf(vm).flatMap(nicIpConfigurations);
  const nics = getPath(vm.applied.profile, "networkProfile", "networkInterfaceConfigurations");
  return (Array.isArray(nics) ? nics : []).flatMap((nic) =>
    asArray(getPath(nic, "properties", "ipConfigurations")).map((ipc) => ({
      id: `${scaleSetId(ss)}/virtualMachines/${vm.instanceId}/networkInterfaces/${String(getPath(nic, "name"))}/ipConfigurations/${String(getPath(ipc, "name"))}`,
      ipConfiguration: ipc,
    })),
  );
}

/** The pools an IP configuration names (load balancers' and application gateways'). */
function poolIdsOf(ipc: unknown): string[] {
  const pools = [
    ...asArray(getPath(ipc, "properties", "loadBalancerBackendAddressPools")),
    ...asArray(getPath(ipc, "properties", "applicationGatewayBackendAddressPools")),
  ];
  return pools.flatMap((p) => (isObject(p) && typeof p.id === "string" ? [p.id] : []));
}

/** The VM IP configurations that name a pool: its members, as Azure lists backendIPConfigurations. */
export function poolMembers(sim: SimulatorContext, poolId: string): { ss: ScaleSet; vm: Vm; id: string }[] {
  const wanted = poolId.toLowerCase();
  const out: { ss: ScaleSet; vm: Vm; id: string }[] = [];
  for (const ss of sim.state.listScaleSets()) {
    for (const vm of sortedVms(ss)) {
      if (vm.provisioningState === "Deleting") continue;
      for (const { id, ipConfiguration } of vmIpConfigurations(sim, ss, vm)) {
        if (poolIdsOf(ipConfiguration).some((p) => p.toLowerCase() === wanted)) out.push({ ss, vm, id });
      }
    }
  }
  return out;
}

function asArray(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The resource as ARM returns it: ids on every sub-resource, pool members listed, Succeeded. */
export function renderNetworkResource(sim: SimulatorContext, r: NetworkResource): JsonObject {
  const id = resourceId(sim.state.subscriptionId, r);
  const properties: JsonObject = isObject(r.body.properties) ? clone(r.body.properties) : {};
  for (const collection of SUB_RESOURCES[r.type]) {
    const items = properties[collection];
    if (!Array.isArray(items)) continue;
    properties[collection] = items.filter(isObject).map((item) => {
      const subId = `${id}/${collection}/${String(item.name)}`;
      const itemProps: JsonObject = isObject(item.properties) ? { ...item.properties } : {};
      if (collection === "backendAddressPools") {
        itemProps.backendIPConfigurations = poolMembers(sim, subId).map((m) => ({ id: m.id }));
      }
      return {
        ...item,
        id: subId,
        etag: `W/"${r.version}"`,
        properties: { ...itemProps, provisioningState: "Succeeded" },
      };
    });
  }
  return {
    ...(isObject(r.body.tags) ? { tags: r.body.tags } : {}),
    ...(isObject(r.body.sku) ? { sku: r.body.sku } : {}),
    id,
    name: r.name,
    type: `Microsoft.Network/${r.type}`,
    location: r.location,
    etag: `W/"${r.version}"`,
    properties: { ...properties, provisioningState: "Succeeded" },
  };
}

/** A network resource as a GET finds it (a load balancer or gateway the scale sets name included), or undefined. */
export function findNetworkResource(
  sim: SimulatorContext,
  type: NetworkType,
  resourceGroup: string,
  name: string,
): NetworkResource | undefined {
  return network(sim).get(type, resourceGroup, name) ?? namedByScaleSets(sim, type, resourceGroup, name);
}

function requireResource(sim: SimulatorContext, type: NetworkType, params: RouteParams): NetworkResource {
  requireGroup(sim, params);
  const r =
    network(sim).get(type, params.resourceGroup, params.name) ??
    namedByScaleSets(sim, type, params.resourceGroup, params.name);
  if (!r) throw resourceNotFound(`Microsoft.Network/${type}`, params.name, params.resourceGroup);
  return r;
}

/**
 * A load balancer or gateway that scale sets name but the network does not hold (the control API's scale sets name
 * `<name>-lb`): it exists, with a frontend and the pools they name, and is kept from now on.
 */
function namedByScaleSets(
  sim: SimulatorContext,
  type: NetworkType,
  resourceGroup: string,
  name: string,
): NetworkResource | undefined {
  if (type !== "loadBalancers" && type !== "applicationGateways") return undefined;
  const view = trafficView(sim, type, resourceGroup, name);
  if (!view) return undefined;
  const location = sim.state.listScaleSets(resourceGroup)[0]?.location ?? "eastus";
  const body: JsonObject = {
    properties: {
      frontendIPConfigurations: [{ name: "frontend", properties: {} }],
      backendAddressPools: view.pools.map((p) => ({ name: p.name, properties: {} })),
      ...(type === "loadBalancers" ? { probes: [], loadBalancingRules: [], inboundNatPools: [] } : {}),
    },
  };
  return network(sim).put(type, resourceGroup, name, location, body).resource;
}

const getResource: Handler = (ctx, sim, params) => {
  send(ctx, 200, renderNetworkResource(sim, requireResource(sim, typeParam(params), params)));
};

/** A type's resources in a group (…_List) or in the whole subscription (…_ListAll), paged. */
const listResources: Handler = (ctx, sim, params) => {
  const type = typeParam(params);
  if (params.resourceGroup !== undefined) requireGroup(sim, params);
  else if (!sim.state.isSubscription(params.subscriptionId)) throw subscriptionNotFound(params.subscriptionId);
  sendPage(ctx, sim, network(sim).list(type, params.resourceGroup), (r) => renderNetworkResource(sim, r));
};

const putResource: Handler = (ctx, sim, params) => {
  const type = typeParam(params);
  const rg = requireGroup(sim, params);
  const body = parseJsonBody(ctx);
  if (!isObject(body)) throw new ArmError(400, "InvalidRequestFormat", "The request body must be a JSON object.");
  const existing = network(sim).get(type, rg, params.name);
  // Microsoft.Network honours If-Match on a PUT (W/"n", as read): a write planned on a stale read gets 412.
  checkIfMatch(ctx, existing ? `W/"${existing.version}"` : undefined);
  const location = typeof body.location === "string" ? normalizeLocation(body.location) : existing?.location;
  if (!location) throw new ArmError(400, "LocationRequired", "The location property is required for this definition.");
  // Sub-resource ids and read-only fields are dropped: the resource is kept as written.
  const properties = isObject(body.properties) ? clone(body.properties) : {};
  delete properties.provisioningState;
  for (const collection of SUB_RESOURCES[type]) {
    const items = properties[collection];
    if (!Array.isArray(items)) continue;
    properties[collection] = items.filter(isObject).map((item) => {
      const { id: _id, etag: _etag, ...rest } = item;
      const props = isObject(rest.properties) ? { ...rest.properties } : {};
      delete props.provisioningState;
      delete props.backendIPConfigurations;
      return { ...rest, properties: props };
    });
  }
  const kept: JsonObject = {
    properties,
    ...(isObject(body.tags) ? { tags: body.tags } : {}),
    ...(isObject(body.sku) ? { sku: body.sku } : {}),
  };
  if (existing)
    refuseDroppingPoolsInUse(sim, type, resourceId(sim.state.subscriptionId, existing), existing.body, kept);
  const { resource, created } = network(sim).put(type, rg, params.name, location, kept);
  send(ctx, created ? 201 : 200, renderNetworkResource(sim, resource));
};

const deleteResource: Handler = (ctx, sim, params) => {
  const type = typeParam(params);
  requireGroup(sim, params);
  send(ctx, network(sim).delete(type, params.resourceGroup, params.name) ? 200 : 204);
};

const getSubnet: Handler = (ctx, sim, params) => {
  const vnet = renderNetworkResource(sim, requireResource(sim, "virtualNetworks", params));
  const subnet = asArray(getPath(vnet, "properties", "subnets")).find(
    (s) => isObject(s) && String(s.name).toLowerCase() === params.subnet.toLowerCase(),
  );
  if (!subnet)
    throw resourceNotFound(
      "Microsoft.Network/virtualNetworks/subnets",
      `${params.name}/${params.subnet}`,
      params.resourceGroup,
    );
  send(ctx, 200, subnet);
};

/** The ARM routes; Microsoft.Network has its own throttling, which the simulator does not model. */
export function networkArmRoutes(): [string, string, Route][] {
  return [
    ["GET", `${NETWORK}/virtualNetworks/:name/subnets/:subnet`, { handler: getSubnet }],
    ["GET", `${NETWORK}/:type`, { handler: listResources }],
    ["GET", `${SUB}/providers/Microsoft.Network/:type`, { handler: listResources }],
    ["GET", `${NETWORK}/:type/:name`, { handler: getResource }],
    ["PUT", `${NETWORK}/:type/:name`, { handler: putResource }],
    ["DELETE", `${NETWORK}/:type/:name`, { handler: deleteResource }],
  ];
}

// ---- the health probe's answer, and the control views ----

/** Whether the VM's application answers the load balancer's probe (a scale set can be told not to). */
export function answersProbe(sim: SimulatorContext, vm: Vm): boolean {
  const failing = network(sim).probeFailures;
  if (failing.size === 0) return true;
  for (const ss of sim.state.listScaleSets()) {
    if (ss.vms.get(vm.instanceId) === vm) return !failing.has(scaleSetKey(ss.resourceGroup, ss.name));
  }
  return true;
}

/** The probe's view of one VM, with its application's answer. */
export function vmHealth(sim: SimulatorContext, vm: Vm): HealthCode | undefined {
  return probeHealth(vm, sim.state.settings, sim.state.now(), answersProbe(sim, vm));
}

/**
 * The vmHealth the VM's instance view reports: a Uniform VM's probe (a load balancer's or the Application Health
 * extension's); a Flexible VM's only where its model carries the extension, since Azure reports a Flexible VM's health
 * from the extension alone (Microsoft Learn, orchestration modes: "Monitor application health"). The load balancer
 * still probes a Flexible VM in its pool: that decides traffic (vmHealth), not what the VM reports.
 */
export function reportedVmHealth(sim: SimulatorContext, ss: ScaleSet, vm: Vm): HealthCode | undefined {
  if (!isFlexible(ss)) return vmHealth(sim, vm);
  if (!hasApplicationHealthExtension(vm.applied.profile)) return undefined;
  return probeHealth(vm, sim.state.settings, sim.state.now(), answersProbe(sim, vm), true);
}

/** Serving: running, and healthy by the probe (or, where nothing probes it, running). */
function serving(vm: Vm, health: HealthCode | undefined): boolean {
  if (vm.provisioningState !== "Succeeded") return false;
  return health === undefined || health === "HealthState/healthy";
}

/**
 * A load balancer's (or application gateway's) pools as traffic sees them: each member with its health and whether
 * it is served. Pools named by scale sets count as well as stored ones (the control API's scale sets name
 * `<name>-lb`, which need not be stored).
 */
export function trafficView(
  sim: SimulatorContext,
  type: "loadBalancers" | "applicationGateways",
  resourceGroup: string,
  name: string,
) {
  const stored = network(sim).get(type, resourceGroup, name);
  const id = resourceId(sim.state.subscriptionId, {
    type,
    resourceGroup: stored?.resourceGroup ?? resourceGroup,
    name: stored?.name ?? name,
  });
  // lower case → the name as the load balancer spells it (a pool named by a NIC only: as found there, lower-cased).
  const names = new Map<string, string>(
    asArray(getPath(stored?.body, "properties", "backendAddressPools")).map((p) => [
      String(getPath(p, "name")).toLowerCase(),
      String(getPath(p, "name")),
    ]),
  );
  const prefix = `${id}/backendAddressPools/`.toLowerCase();
  for (const ss of sim.state.listScaleSets()) {
    for (const vm of sortedVms(ss)) {
      for (const { ipConfiguration } of vmIpConfigurations(sim, ss, vm)) {
        for (const poolId of poolIdsOf(ipConfiguration)) {
          const lower = poolId.toLowerCase();
          if (!lower.startsWith(prefix)) continue;
          const pool = lower.slice(prefix.length);
          if (!names.has(pool)) names.set(pool, pool);
        }
      }
    }
  }
  if (!stored && names.size === 0) return undefined;
  const pools = [...names.values()].map((pool) => {
    const members = poolMembers(sim, `${id}/backendAddressPools/${pool}`).map(({ ss, vm }) => {
      const health = vmHealth(sim, vm);
      return {
        scaleSet: ss.name,
        instanceId: vm.instanceId,
        provisioningState: vm.provisioningState,
        health: health ?? null,
        serving: serving(vm, health),
      };
    });
    return { name: pool, members, serving: members.filter((m) => m.serving).length };
  });
  return { id, pools, serving: pools.reduce((n, p) => n + p.serving, 0) };
}

/** Adds the control routes: `/_sim/network/...`. */
export function addNetworkControlRoutes<R extends { add(method: string, pattern: string, handler: Handler): R }>(
  router: R,
  prefix: string,
): R {
  const view =
    (type: "loadBalancers" | "applicationGateways"): Handler =>
    (ctx, sim, params) => {
      const v = trafficView(sim, type, params.resourceGroup, params.name);
      if (!v) throw resourceNotFound(`Microsoft.Network/${type}`, params.name, params.resourceGroup);
      send(ctx, 200, v);
    };
  return router
    .add("GET", `${prefix}/network/loadBalancers/:resourceGroup/:name/traffic`, view("loadBalancers"))
    .add("GET", `${prefix}/network/applicationGateways/:resourceGroup/:name/traffic`, view("applicationGateways"))
    .add("PUT", `${prefix}/network/probeFailures/:resourceGroup/:name`, (ctx, sim, params) => {
      network(sim).probeFailures.add(scaleSetKey(params.resourceGroup, params.name));
      send(ctx, 200, { failing: [...network(sim).probeFailures] });
    })
    .add("DELETE", `${prefix}/network/probeFailures/:resourceGroup/:name`, (ctx, sim, params) => {
      network(sim).probeFailures.delete(scaleSetKey(params.resourceGroup, params.name));
      send(ctx, 200, { failing: [...network(sim).probeFailures] });
    });
}
