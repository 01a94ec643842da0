// What an account is: its subscription, its cloud's endpoints and how it gets its token. Read from the accounts
// file and the AZURE_* variables by src/config/accounts.ts; used by the clients and the registry here.
/** How an account gets its Azure token. Secrets are never part of the configuration object: only how to read them. */
export type CredentialConfig =
  /** A fixed bearer token, accepted only by the built-in simulator. */
  | { kind: "simulator" }
  /** @azure/identity's DefaultAzureCredential: environment, workload identity, managed identity, az login. */
  | { kind: "default"; managedIdentityClientId?: string }
  /** A service principal with a secret, read from an environment variable or a file when the credential is built. */
  | { kind: "clientSecret"; tenantId: string; clientId: string; secretSource: string; readSecret: () => string }
  /** A service principal with a certificate (PEM with its private key). */
  | {
      kind: "clientCertificate";
      tenantId: string;
      clientId: string;
      certificatePath: string;
      passwordSource?: string;
      readPassword?: () => string;
      sendCertificateChain: boolean;
    }
  /** Kubernetes workload identity: a federated token file (AZURE_FEDERATED_TOKEN_FILE by default). */
  | { kind: "workloadIdentity"; tenantId: string; clientId: string; tokenFilePath: string }
  /** The managed identity of the VM, App Service or pod; a user-assigned one by client id or resource id. */
  | { kind: "managedIdentity"; clientId?: string; resourceId?: string };

export type CloudName = "AzureCloud" | "AzureUSGovernment" | "AzureChinaCloud" | "custom";

/** ARM endpoint, Entra authority host and token audience of each national cloud. */
export const CLOUDS: Record<
  Exclude<CloudName, "custom">,
  { endpoint: string; authorityHost: string; audience: string }
> = {
  AzureCloud: {
    endpoint: "https://management.azure.com",
    authorityHost: "https://login.microsoftonline.com",
    audience: "https://management.azure.com",
  },
  AzureUSGovernment: {
    endpoint: "https://management.usgovcloudapi.net",
    authorityHost: "https://login.microsoftonline.us",
    audience: "https://management.usgovcloudapi.net",
  },
  AzureChinaCloud: {
    endpoint: "https://management.chinacloudapi.cn",
    authorityHost: "https://login.chinacloudapi.cn",
    audience: "https://management.chinacloudapi.cn",
  },
};

export interface AccountConfig {
  /** The name orchestrators send as `credentials` or `account`. */
  name: string;
  subscriptionId: string;
  /** The Entra tenant; credentials that need one use it unless they name their own. */
  tenantId?: string;
  cloud: CloudName;
  /** Used when a description names no resourceGroup (else clouddriver-azure's {application}-{region}). */
  defaultResourceGroup?: string;
  /**
   * Where a server group lives when its description names no resourceGroup: "application" (clouddriver-azure's
   * {application}-{region}, the default) or "account" (defaultResourceGroup when the account has one).
   */
  serverGroupResourceGroup?: "application" | "account";
  /** The admin user and SSH key (or password) of the VMs a create makes, as clouddriver-azure's Key Vault holds them. */
  vmAdmin?: VmAdminConfig;
  /** Regions this account may act in; empty means any. */
  regions: string[];
  /** ARM endpoint, e.g. https://management.azure.com. */
  endpoint: string;
  /** Microsoft Entra authority host, e.g. https://login.microsoftonline.com. */
  authorityHost: string;
  /** The token scope is `${audience}/.default`. */
  audience: string;
  credential: CredentialConfig;
  /** PEM of a CA to trust for this account's endpoint and authority only (the simulator's certificate). */
  caPem?: string;
}

/** Where a new server group's VM admin credentials come from: never from the request (Spinnaker sends none). */
export interface VmAdminConfig {
  adminUsername: string;
  /** An SSH public key, given inline (it is not a secret)… */
  sshPublicKey?: string;
  /** …or read from this file when a create is sent. */
  sshPublicKeyFile?: string;
  /** Or a password, from this environment variable of the service, read when a create is sent. */
  passwordEnv?: string;
  /**
   * Or clouddriver-azure's way: the account's Key Vault (its URL), holding the secrets VMUsername and VMSshPublicKey
   * (useSshPublicKey, the default) or VMPassword, read with the account's credential when a create is prepared.
   */
  keyVaultUrl?: string;
  useSshPublicKey?: boolean;
}
