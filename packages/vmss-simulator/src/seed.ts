// Scale-set models built after Microsoft's published examples (examples/VirtualMachineScaleSet_Create_WithAzure*.json),
// and the demo data a seeded simulator starts with.
import type { JsonObject } from "./json.ts";
import type { UpgradeMode } from "./limits.ts";
import type { SimState } from "./state.ts";

export const DEMO_RESOURCE_GROUP = "demo-rg";
export const DEMO_LOCATION = "eastus";

export interface ScaleSetSpec {
  subscriptionId: string;
  resourceGroup: string;
  name: string;
  capacity: number;
  /** Put the scale set's NIC behind `<name>-lb/backendAddressPools/<name>-pool`. */
  loadBalanced: boolean;
  /** Also put it behind `<name>-appgw/backendAddressPools/<name>-appgw-pool`. */
  applicationGateway: boolean;
  upgradePolicy: UpgradeMode;
  tags?: Record<string, string>;
  skuName?: string;
  /** Flexible: standalone VMs with their own NICs (flexible.ts); default Uniform. */
  orchestrationMode?: "Uniform" | "Flexible";
}

function networkId(spec: ScaleSetSpec, rest: string): string {
  return `/subscriptions/${spec.subscriptionId}/resourceGroups/${spec.resourceGroup}/providers/Microsoft.Network/${rest}`;
}

export function loadBalancerPoolId(subscriptionId: string, resourceGroup: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Network/loadBalancers/${name}-lb/backendAddressPools/${name}-pool`;
}

export function applicationGatewayPoolId(subscriptionId: string, resourceGroup: string, name: string): string {
  return `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.Network/applicationGateways/${name}-appgw/backendAddressPools/${name}-appgw-pool`;
}

/**
 * The writable model (sku, tags, properties) of a Linux scale set with one NIC and one IP configuration. A Flexible one
 * as Azure requires it (flexible.ts): a fault domain count (1, max spreading), no overprovisioning, the network
 * profile's networkApiVersion, and NICs deleted with their VMs.
 */
export function buildScaleSetModel(spec: ScaleSetSpec): JsonObject {
  const flexible = spec.orchestrationMode === "Flexible";
  const ipProperties: JsonObject = {
    primary: true,
    subnet: { id: networkId(spec, `virtualNetworks/${spec.resourceGroup}-vnet/subnets/default`) },
    privateIPAddressVersion: "IPv4",
  };
  if (spec.loadBalanced) {
    ipProperties.loadBalancerBackendAddressPools = [
      { id: loadBalancerPoolId(spec.subscriptionId, spec.resourceGroup, spec.name) },
    ];
  }
  if (spec.applicationGateway) {
    ipProperties.applicationGatewayBackendAddressPools = [
      { id: applicationGatewayPoolId(spec.subscriptionId, spec.resourceGroup, spec.name) },
    ];
  }
  return {
    ...(spec.tags ? { tags: { ...spec.tags } } : {}),
    sku: { name: spec.skuName ?? "Standard_D2s_v3", tier: "Standard", capacity: spec.capacity },
    properties: {
      singlePlacementGroup: false,
      orchestrationMode: flexible ? "Flexible" : "Uniform",
      upgradePolicy: { mode: spec.upgradePolicy },
      virtualMachineProfile: {
        osProfile: {
          computerNamePrefix: spec.name.replace(/[^A-Za-z0-9-]/g, "").slice(0, 15) || "vm",
          adminUsername: "azureuser",
          linuxConfiguration: { disablePasswordAuthentication: true, provisionVMAgent: true },
          secrets: [],
          allowExtensionOperations: true,
        },
        storageProfile: {
          imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
          osDisk: {
            osType: "Linux",
            createOption: "FromImage",
            caching: "ReadWrite",
            managedDisk: { storageAccountType: "Premium_LRS" },
            diskSizeGB: 30,
          },
          dataDisks: [],
        },
        networkProfile: {
          ...(flexible ? { networkApiVersion: "2020-11-01" } : {}),
          networkInterfaceConfigurations: [
            {
              name: `${spec.name}-nic`,
              properties: {
                primary: true,
                ...(flexible ? { deleteOption: "Delete" } : {}),
                enableAcceleratedNetworking: false,
                enableIPForwarding: false,
                dnsSettings: { dnsServers: [] },
                ipConfigurations: [{ name: `${spec.name}-ipconfig`, properties: ipProperties }],
              },
            },
          ],
        },
      },
      ...(flexible ? {} : { overprovision: false, doNotRunExtensionsOnOverprovisionedVMs: false }),
      platformFaultDomainCount: 1,
    },
  };
}

/** Adds (or replaces) a scale set with running VMs at once; `createdAt` (ms since the epoch) defaults to now. */
export function putScaleSet(
  state: SimState,
  spec: Omit<ScaleSetSpec, "subscriptionId">,
  location: string,
  createdAt?: number,
) {
  const model = buildScaleSetModel({ ...spec, subscriptionId: state.subscriptionId });
  return state.putScaleSetNow(spec.resourceGroup, spec.name, location, model, createdAt);
}

const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * demo-rg / eastus: web-prod-v001 and web-prod-v002 (3 VMs behind a load balancer), batch-v001 (2 VMs, no load
 * balancer), made three, two and one days ago (batch-v001, web-prod-v001, web-prod-v002): the web-prod cluster's
 * current and previous server groups are decided by creation time, as Clouddriver decides them, not by a tie.
 */
export function seedDemo(state: SimState): void {
  const daysAgo = (days: number) => state.now() - days * DAY_MS;
  const common = { resourceGroup: DEMO_RESOURCE_GROUP, applicationGateway: false, upgradePolicy: "Manual" as const };
  putScaleSet(
    state,
    {
      ...common,
      name: "web-prod-v001",
      capacity: 3,
      loadBalanced: true,
      tags: { app: "web", env: "prod", version: "v001" },
    },
    DEMO_LOCATION,
    daysAgo(2),
  );
  putScaleSet(
    state,
    {
      ...common,
      name: "web-prod-v002",
      capacity: 3,
      loadBalanced: true,
      tags: { app: "web", env: "prod", version: "v002" },
    },
    DEMO_LOCATION,
    daysAgo(1),
  );
  putScaleSet(
    state,
    {
      ...common,
      name: "batch-v001",
      capacity: 2,
      loadBalanced: false,
      tags: { app: "batch", env: "prod", version: "v001" },
    },
    DEMO_LOCATION,
    daysAgo(3),
  );
}
