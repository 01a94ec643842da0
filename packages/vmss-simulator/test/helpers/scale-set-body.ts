// A scale set's create body as the tests write it against the seeded demo-rg: one VM size, Manual upgrades, one NIC on
// demo-rg-vnet's default subnet whose IP configuration `ipc` extends (pools by id), `extra` merged into its
// properties and `profile` into its VM profile.
type Json = Record<string, unknown>;

export function scaleSetBody(
  subscriptionId: string,
  options: { prefix?: string; ipc?: Json; extra?: Json; profile?: Json } = {},
): Json {
  const subnet = `/subscriptions/${subscriptionId}/resourceGroups/demo-rg/providers/Microsoft.Network/virtualNetworks/demo-rg-vnet/subnets/default`;
  return {
    location: "eastus",
    sku: { name: "Standard_D2s_v3", tier: "Standard", capacity: 1 },
    properties: {
      upgradePolicy: { mode: "Manual" },
      virtualMachineProfile: {
        osProfile: {
          computerNamePrefix: options.prefix ?? "vm",
          adminUsername: "azureuser",
          adminPassword: "Secret-123456",
        },
        storageProfile: {
          imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
        },
        networkProfile: {
          networkInterfaceConfigurations: [
            {
              name: "nic",
              properties: {
                primary: true,
                ipConfigurations: [{ name: "ipc", properties: { subnet: { id: subnet }, ...options.ipc } }],
              },
            },
          ],
        },
        ...options.profile,
      },
      ...options.extra,
    },
  };
}
