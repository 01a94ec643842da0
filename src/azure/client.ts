// Builds the real @azure/arm-compute client for an account: real Azure or the simulator alike.
import { ComputeManagementClient } from "@azure/arm-compute";
import type { AccessToken, GetTokenOptions, TokenCredential } from "@azure/core-auth";
import type { AccountConfig } from "../config.ts";
import { armObserverPolicy } from "./arm-observer.ts";

/** The simulator accepts any bearer token; this one says where it came from. */
export class SimulatorCredential implements TokenCredential {
  async getToken(): Promise<AccessToken> {
    return { token: "vmss-ops-simulator", expiresOnTimestamp: Date.now() + 3_600_000 };
  }
}

/**
 * An @azure/identity credential built on its first token request: the package takes 100-170 ms to load, and a
 * service whose accounts are all simulator accounts never needs it.
 */
class IdentityCredential implements TokenCredential {
  readonly #make: (identity: typeof import("@azure/identity")) => TokenCredential;
  #credential: Promise<TokenCredential> | undefined;

  constructor(make: (identity: typeof import("@azure/identity")) => TokenCredential) {
    this.#make = make;
  }

  async getToken(scopes: string | string[], options?: GetTokenOptions): Promise<AccessToken | null> {
    this.#credential ??= import("@azure/identity").then((identity) => this.#make(identity));
    return (await this.#credential).getToken(scopes, options);
  }
}

export function credentialFor(account: AccountConfig): TokenCredential {
  const c = account.credential;
  switch (c.kind) {
    case "simulator":
      return new SimulatorCredential();
    case "default":
      return new IdentityCredential((identity) => new identity.DefaultAzureCredential());
    case "clientSecret": {
      const secret = process.env[c.clientSecretEnv];
      if (!secret) throw new Error(`account ${account.name}: environment variable ${c.clientSecretEnv} is not set`);
      return new IdentityCredential((identity) => new identity.ClientSecretCredential(c.tenantId, c.clientId, secret));
    }
  }
}

export function createComputeClient(account: AccountConfig, credential: TokenCredential = credentialFor(account)): ComputeManagementClient {
  return new ComputeManagementClient(credential, account.subscriptionId, {
    endpoint: account.endpoint,
    // One harness owns every retry (src/azure/execute-op.ts): the SDK's own retries would multiply attempts
    // behind its back and could re-send a write that the harness has already classified.
    retryOptions: { maxRetries: 0 },
    // The simulator's certificate is trusted for this client only; TLS verification stays on everywhere.
    ...(account.caPem ? { tlsOptions: { ca: account.caPem } } : {}),
    userAgentOptions: { userAgentPrefix: "vmss-ops" },
    additionalPolicies: [{ policy: armObserverPolicy, position: "perRetry" }],
  });
}
