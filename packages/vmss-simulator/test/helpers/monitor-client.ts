// Microsoft's @azure/arm-monitor (autoscale settings, api-version 2022-10-01), pointed at a simulator as its users
// would: the simulator's endpoint, its certificate trusted for this client alone, any bearer token, no retries.
import { MonitorClient } from "@azure/arm-monitor";
import type { TokenCredential } from "@azure/core-auth";

const ANY_TOKEN: TokenCredential = {
  getToken: async () => ({ token: "vmss-simulator-test", expiresOnTimestamp: Date.now() + 3_600_000 }),
};

export function monitorClient(sim: { url: string; caPem: string; subscriptionId: string }): MonitorClient {
  return new MonitorClient(ANY_TOKEN, sim.subscriptionId, {
    endpoint: sim.url,
    credentials: { scopes: ["https://management.azure.com/.default"] },
    retryOptions: { maxRetries: 0 },
    tlsOptions: { ca: sim.caPem },
  });
}
