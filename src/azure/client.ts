// Builds the real @azure/arm-compute client for an account: real Azure or the simulator alike, with the account's
// credential from @azure/identity pointed at the account's cloud (authority host, token audience, ARM endpoint).
import type { ComputeManagementClient } from "@azure/arm-compute";
import type { AccessToken, TokenCredential } from "@azure/core-auth";
import type { AccountConfig } from "./account-config.ts";
import { armListenerPolicy } from "./arm-listeners.ts";
import type { ArmBudget } from "./arm-budget/budget.ts";
import { armBudgetPolicy } from "./arm-budget/policy.ts";
import { armLinkPolicy, type ArmLink } from "./arm-link.ts";
import { armTracingPolicy, tracingWaitOf } from "./arm-tracing.ts";
import { computeSdk } from "./sdk.ts";

/** The simulator accepts this fixed bearer token (unless told to accept only tokens it issued). */
export class SimulatorCredential implements TokenCredential {
  // eslint-disable-next-line @typescript-eslint/require-await -- TokenCredential.getToken returns a promise; this token is fixed
  async getToken(): Promise<AccessToken> {
    return { token: "vmss-ops-simulator", expiresOnTimestamp: Date.now() + 3_600_000 };
  }
}

/** An account whose credential cannot be built: reported at start-up, naming the account. */
export class AccountSetupError extends Error {
  override name = "AccountSetupError";
  readonly account: string;
  constructor(account: string, problem: string, alreadyNamed = false) {
    super(alreadyNamed ? problem : `account "${account}": ${problem}`);
    this.account = account;
  }
}

/** Options every @azure/identity credential of this account gets: its cloud's authority, and TLS trust. */
function identityOptions(account: AccountConfig) {
  return {
    authorityHost: account.authorityHost,
    // Instance discovery asks login.microsoftonline.com whether the authority is known; a custom cloud (Azure
    // Stack, the simulator) is not, and its own OpenID configuration is used instead.
    disableInstanceDiscovery: account.cloud === "custom",
    ...(account.caPem ? { tlsOptions: { ca: account.caPem } } : {}),
    retryOptions: { maxRetries: 1 },
  };
}

/**
 * @azure/identity, loaded only when an account needs it: the package takes 100-170 ms to load, and a service whose
 * accounts are all simulator accounts never does. AccountRegistry.open loads it before it builds the clients, so
 * every credential is still built at start-up and a misconfigured one stops it, named.
 */
let identityModule: typeof import("@azure/identity") | undefined;

export async function loadIdentity(): Promise<void> {
  identityModule ??= await import("@azure/identity");
}

function identity(): typeof import("@azure/identity") {
  if (!identityModule)
    throw new Error("@azure/identity is not loaded yet (AccountRegistry.open and loadIdentity load it)");
  return identityModule;
}

export function credentialFor(account: AccountConfig): TokenCredential {
  const c = account.credential;
  if (c.kind === "simulator") return new SimulatorCredential();
  const options = identityOptions(account);
  const {
    ClientCertificateCredential,
    ClientSecretCredential,
    DefaultAzureCredential,
    ManagedIdentityCredential,
    WorkloadIdentityCredential,
  } = identity();
  try {
    switch (c.kind) {
      case "default":
        return new DefaultAzureCredential({
          ...options,
          ...(c.managedIdentityClientId ? { managedIdentityClientId: c.managedIdentityClientId } : {}),
        });
      case "clientSecret": {
        const secret = c.readSecret();
        if (!secret) throw new Error(`the client secret (${c.secretSource}) is empty`);
        return new ClientSecretCredential(c.tenantId, c.clientId, secret, options);
      }
      case "clientCertificate":
        return new ClientCertificateCredential(
          c.tenantId,
          c.clientId,
          { certificatePath: c.certificatePath },
          { ...options, sendCertificateChain: c.sendCertificateChain },
        );
      case "workloadIdentity":
        return new WorkloadIdentityCredential({
          ...options,
          tenantId: c.tenantId,
          clientId: c.clientId,
          tokenFilePath: c.tokenFilePath,
        });
      case "managedIdentity":
        if (c.resourceId)
          return new ManagedIdentityCredential({
            resourceId: c.resourceId,
            ...(account.caPem ? { tlsOptions: { ca: account.caPem } } : {}),
          });
        if (c.clientId)
          return new ManagedIdentityCredential({
            clientId: c.clientId,
            ...(account.caPem ? { tlsOptions: { ca: account.caPem } } : {}),
          });
        return new ManagedIdentityCredential();
    }
  } catch (err) {
    // The class and the library's message; no secret is passed to a constructor's message.
    throw new AccountSetupError(account.name, `${c.kind} credential: ${(err as Error).message}`);
  }
}

/** The token scope for the account's ARM audience (the SDK's default is the public cloud's). */
export function armScope(account: AccountConfig): string {
  return `${account.audience}/.default`;
}

/**
 * budget: every call takes from it before it is sent (src/azure/arm-budget/); none, no budget. replicaId: named in
 * the User-Agent, so that Azure's activity log (and the simulator's call log) tells which replica made a call. link:
 * gives every call its deadline and hears what each met (src/azure/arm-link.ts); none, no deadline.
 */
export function createComputeClient(
  account: AccountConfig,
  credential: TokenCredential = credentialFor(account),
  budget?: ArmBudget,
  replicaId?: string,
  link?: ArmLink,
): ComputeManagementClient {
  return new (computeSdk().ComputeManagementClient)(credential, account.subscriptionId, {
    endpoint: account.endpoint,
    credentials: { scopes: [armScope(account)] },
    // One harness owns every retry (src/azure/execute-op.ts): the SDK's own retries would multiply attempts
    // behind its back and could re-send a write that the harness has already classified.
    retryOptions: { maxRetries: 0 },
    // The simulator's certificate is trusted for this client only; TLS verification stays on everywhere.
    ...(account.caPem ? { tlsOptions: { ca: account.caPem } } : {}),
    userAgentOptions: {
      userAgentPrefix: replicaId ? `vmss-ops (replica ${replicaId.replace(/[^\w.:-]/g, "_")})` : "vmss-ops",
    },
    additionalPolicies: [
      ...(budget
        ? [{ policy: tracingWaitOf(armBudgetPolicy(budget), "wait for the ARM budget"), position: "perRetry" as const }]
        : []),
      { policy: armTracingPolicy, position: "perRetry" },
      { policy: armListenerPolicy, position: "perRetry" },
      // Last: the call's deadline starts once the budget and the task's turn have let it go.
      ...(link ? [{ policy: armLinkPolicy(link), position: "perRetry" as const }] : []),
    ],
  });
}
