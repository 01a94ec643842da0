// Microsoft's @azure/arm-compute, pointed at a simulator as any of its users would: the simulator's endpoint, its
// certificate trusted for this client alone, and the bearer token the simulator accepts by default. No retries: a
// test sees every answer the simulator gives.
import { ComputeManagementClient } from "@azure/arm-compute";
import type { TokenCredential } from "@azure/core-auth";

/** The token the simulator accepts unless told to accept only tokens it issued (its Entra ID stand-in). */
const ANY_TOKEN: TokenCredential = {
  getToken: async () => ({ token: "vmss-simulator-test", expiresOnTimestamp: Date.now() + 3_600_000 }),
};

export function computeClient(sim: { url: string; caPem: string; subscriptionId: string }): ComputeManagementClient {
  return new ComputeManagementClient(ANY_TOKEN, sim.subscriptionId, {
    endpoint: sim.url,
    credentials: { scopes: ["https://management.azure.com/.default"] },
    retryOptions: { maxRetries: 0 },
    tlsOptions: { ca: sim.caPem },
  });
}
