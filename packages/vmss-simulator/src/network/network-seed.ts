// demo-rg's network: the virtual network the seeded scale sets sit in, a load balancer and an application gateway
// with a frontend, a probe and a rule each, a network security group, and shop-lb with its pool shop-pool (what a
// createServerGroup of the shop-prod cluster names). The load balancers the seeded scale sets name (web-prod-v001-lb,
// …) are made with them (network-routes.ts, provideNamedPools). Deploys name them (vnet demo-rg-vnet,
// subnet default, loadBalancerName demo-lb or demo-appgw, securityGroupName demo-nsg).
import type { SimState } from "../state.ts";
import type { NetworkState } from "./network-state.ts";

export const DEMO_NETWORK = {
  resourceGroup: "demo-rg",
  location: "eastus",
  vnet: "demo-rg-vnet",
  subnet: "default",
  loadBalancer: "demo-lb",
  applicationGateway: "demo-appgw",
  securityGroup: "demo-nsg",
  /** The pool a deploy of the shop-prod cluster names (the service's examples and tests), as its team made it. */
  shopLoadBalancer: "shop-lb",
  shopPool: "shop-pool",
} as const;

export function seedDemoNetwork(network: NetworkState, _state: SimState): void {
  const { resourceGroup: rg, location } = DEMO_NETWORK;
  network.put("virtualNetworks", rg, DEMO_NETWORK.vnet, location, {
    properties: {
      addressSpace: { addressPrefixes: ["10.0.0.0/16"] },
      subnets: [
        { name: DEMO_NETWORK.subnet, properties: { addressPrefix: "10.0.0.0/24" } },
        { name: "appgw", properties: { addressPrefix: "10.0.1.0/24" } },
      ],
    },
  });
  network.put("networkSecurityGroups", rg, DEMO_NETWORK.securityGroup, location, {
    properties: {
      securityRules: [
        {
          name: "allow-http",
          properties: {
            priority: 100,
            direction: "Inbound",
            access: "Allow",
            protocol: "Tcp",
            sourceAddressPrefix: "*",
            sourcePortRange: "*",
            destinationAddressPrefix: "*",
            destinationPortRange: "80",
          },
        },
      ],
    },
  });
  network.put("loadBalancers", rg, DEMO_NETWORK.loadBalancer, location, {
    sku: { name: "Standard" },
    properties: {
      frontendIPConfigurations: [{ name: "frontend", properties: { privateIPAllocationMethod: "Dynamic" } }],
      backendAddressPools: [],
      probes: [
        {
          name: "http",
          properties: { protocol: "Http", port: 80, requestPath: "/health", intervalInSeconds: 5, numberOfProbes: 2 },
        },
      ],
      loadBalancingRules: [],
      inboundNatPools: [],
    },
  });
  network.put("loadBalancers", rg, DEMO_NETWORK.shopLoadBalancer, location, {
    sku: { name: "Standard" },
    properties: {
      frontendIPConfigurations: [{ name: "frontend", properties: { privateIPAllocationMethod: "Dynamic" } }],
      backendAddressPools: [{ name: DEMO_NETWORK.shopPool, properties: {} }],
      probes: [],
      loadBalancingRules: [],
      inboundNatPools: [],
    },
  });
  network.put("applicationGateways", rg, DEMO_NETWORK.applicationGateway, location, {
    properties: {
      sku: { name: "Standard_v2", tier: "Standard_v2", capacity: 1 },
      frontendIPConfigurations: [{ name: "frontend", properties: {} }],
      backendAddressPools: [],
      probes: [
        {
          name: "http",
          properties: { protocol: "Http", path: "/health", interval: 5, timeout: 5, unhealthyThreshold: 2 },
        },
      ],
    },
  });
}
