// Microsoft.Network as the simulator keeps it: virtual networks with their subnets, load balancers with their
// frontends, backend pools, probes, rules and inbound NAT pools, application gateways with their backend pools, and
// network security groups. A resource is stored as written (its writable body); ids of sub-resources, ETags and
// provisioningState are added when it is read, as ARM adds them. Backend pool members are not stored: they are the
// VM IP configurations that name the pool, read from the scale sets (as Azure lists backendIPConfigurations).
//
// One NetworkState per simulator world, made on first use; a seeded simulator starts with demo-rg's network.
import type { SimulatorContext } from "../context.ts";
import type { SimState } from "../state.ts";
import type { JsonObject } from "../json.ts";

export const NETWORK_TYPES = [
  "virtualNetworks",
  "loadBalancers",
  "applicationGateways",
  "networkSecurityGroups",
  "publicIPAddresses",
] as const;
export type NetworkType = (typeof NETWORK_TYPES)[number];

export interface NetworkResource {
  type: NetworkType;
  resourceGroup: string;
  name: string;
  location: string;
  /** tags and properties as written. */
  body: JsonObject;
  version: number;
}

/** Which collections of each type are sub-resources with their own ids. */
export const SUB_RESOURCES: Record<NetworkType, string[]> = {
  virtualNetworks: ["subnets"],
  loadBalancers: [
    "frontendIPConfigurations",
    "backendAddressPools",
    "probes",
    "loadBalancingRules",
    "inboundNatPools",
    "inboundNatRules",
  ],
  applicationGateways: [
    "backendAddressPools",
    "frontendIPConfigurations",
    "backendHttpSettingsCollection",
    "httpListeners",
    "requestRoutingRules",
    "probes",
  ],
  networkSecurityGroups: ["securityRules"],
  publicIPAddresses: [],
};

export function isNetworkType(type: string): type is NetworkType {
  return (NETWORK_TYPES as readonly string[]).includes(type);
}

/** The type as the URL spells it (ARM matches it case-insensitively). */
export function networkTypeOf(segment: string): NetworkType | undefined {
  return NETWORK_TYPES.find((t) => t.toLowerCase() === segment.toLowerCase());
}

function key(type: NetworkType, resourceGroup: string, name: string): string {
  return `${type}/${resourceGroup.toLowerCase()}/${name.toLowerCase()}`;
}

export class NetworkState {
  readonly #resources = new Map<string, NetworkResource>();
  /** Scale sets (resourceGroup/name, lower case) whose instances never answer the health probe. */
  readonly probeFailures = new Set<string>();

  get(type: NetworkType, resourceGroup: string, name: string): NetworkResource | undefined {
    return this.#resources.get(key(type, resourceGroup, name));
  }

  list(type: NetworkType, resourceGroup?: string): NetworkResource[] {
    return [...this.#resources.values()].filter(
      (r) =>
        r.type === type &&
        (resourceGroup === undefined || r.resourceGroup.toLowerCase() === resourceGroup.toLowerCase()),
    );
  }

  put(
    type: NetworkType,
    resourceGroup: string,
    name: string,
    location: string,
    body: JsonObject,
  ): { resource: NetworkResource; created: boolean } {
    const existing = this.get(type, resourceGroup, name);
    const resource: NetworkResource = {
      type,
      resourceGroup: existing?.resourceGroup ?? resourceGroup,
      name: existing?.name ?? name,
      location,
      body,
      version: (existing?.version ?? 0) + 1,
    };
    this.#resources.set(key(type, resourceGroup, name), resource);
    return { resource, created: existing === undefined };
  }

  delete(type: NetworkType, resourceGroup: string, name: string): boolean {
    return this.#resources.delete(key(type, resourceGroup, name));
  }

  clear(): void {
    this.#resources.clear();
    this.probeFailures.clear();
  }
}

const worlds = new WeakMap<SimState, NetworkState>();
/** Read and restored by a state directory (world-snapshot.ts). */
export const networkWorlds = worlds;

/** The network of this simulator's world; seeded on first use when the simulator is. */
export function networkOf(
  sim: Pick<SimulatorContext, "state" | "seeded">,
  seed: (network: NetworkState, state: SimState) => void,
): NetworkState {
  let network = worlds.get(sim.state);
  if (!network) {
    network = new NetworkState();
    worlds.set(sim.state, network);
    if (sim.seeded) seed(network, sim.state);
  }
  return network;
}
