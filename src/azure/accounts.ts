// Configured accounts, the client for each (built once), and the resolution of a description to a scale set.
import { WriteDurations } from "./write-durations.ts";
import type { ComputeManagementClient } from "@azure/arm-compute";
import type { TokenCredential } from "@azure/core-auth";
import { readFileSync } from "node:fs";
import type { AccountConfig } from "./account-config.ts";
import { resourceGroupOf } from "../naming/frigga.ts";
import { AccountSetupError, createComputeClient, credentialFor, loadIdentity } from "./client.ts";
import { NetworkGateway } from "./network-gateway.ts";
import { AutoscaleGateway } from "./autoscale-gateway.ts";
import { pipelineSdk, sharedHttpClient } from "./sdk.ts";
import { normalizeRegion, VmssGateway, type ScaleSetListener, type ScaleSetRef } from "./vmss-gateway.ts";

/** A new group's VM admin: the user, and an SSH key or a password (read now, never stored). */
export interface VmAdminCredentials {
  adminUserName: string;
  sshPublicKeys: string[];
  password?: string;
}

export class VmAdminUnavailable extends Error {
  override name = "VmAdminUnavailable";
}

/**
 * The VM admin credentials an account gives its new server groups, as clouddriver-azure takes VMUsername and
 * VMSshPublicKey (or VMPassword) from the account's Key Vault (CreateAzureServerGroupAtomicOperation.groovy
 * l.184-200), never from the request. Undefined when the account names none.
 */
export function accountVmAdmin(
  account: AccountConfig,
  env: NodeJS.ProcessEnv = process.env,
): VmAdminCredentials | undefined {
  const v = account.vmAdmin;
  if (!v) return undefined;
  if (v.keyVaultUrl)
    throw new VmAdminUnavailable(`account ${account.name}: its VM admin is in Key Vault; read it with resolveVmAdmin`);
  if (v.sshPublicKey) return { adminUserName: v.adminUsername, sshPublicKeys: [v.sshPublicKey] };
  if (v.sshPublicKeyFile) {
    let key: string;
    try {
      key = readFileSync(v.sshPublicKeyFile, "utf8").trim();
    } catch (err) {
      throw new VmAdminUnavailable(
        `account ${account.name}: vmAdmin.sshPublicKeyFile ${v.sshPublicKeyFile} cannot be read (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
    if (!/^(ssh-|ecdsa-)/.test(key))
      throw new VmAdminUnavailable(
        `account ${account.name}: vmAdmin.sshPublicKeyFile ${v.sshPublicKeyFile} holds no OpenSSH public key`,
      );
    return { adminUserName: v.adminUsername, sshPublicKeys: [key] };
  }
  const password = v.passwordEnv ? env[v.passwordEnv] : undefined;
  if (!password)
    throw new VmAdminUnavailable(
      `account ${account.name}: vmAdmin.passwordEnv names ${v.passwordEnv}, which is not set in this service's environment`,
    );
  return { adminUserName: v.adminUsername, sshPublicKeys: [], password };
}

/** Key Vault's token audience for a vault URL: `https://vault.azure.net` for `https://x.vault.azure.net`. */
export function keyVaultAudience(vaultUrl: string): string {
  const host = new URL(vaultUrl).hostname;
  const labels = host.split(".");
  return labels.length >= 3 ? `https://${labels.slice(1).join(".")}` : "https://vault.azure.net";
}

/** One secret's current value, read with the account's credential (Key Vault REST 7.4). */
async function readSecret(
  account: AccountConfig,
  vaultUrl: string,
  name: string,
  signal?: AbortSignal,
): Promise<string> {
  const token = await credentialFor(account).getToken(`${keyVaultAudience(vaultUrl)}/.default`, {
    abortSignal: signal,
  });
  if (!token) throw new VmAdminUnavailable(`account ${account.name}: no token for Key Vault ${vaultUrl}`);
  const { createEmptyPipeline, createPipelineRequest } = pipelineSdk();
  const request = createPipelineRequest({
    url: `${vaultUrl}/secrets/${name}?api-version=7.4`,
    method: "GET",
    abortSignal: signal,
    timeout: 30_000,
  });
  // The account's CA (the simulator's) is trusted for its vault too.
  if (account.caPem) request.tlsSettings = { ca: account.caPem };
  request.headers.set("authorization", `Bearer ${token.token}`);
  const response = await createEmptyPipeline().sendRequest(sharedHttpClient(), request);
  if (response.status !== 200)
    throw new VmAdminUnavailable(
      `account ${account.name}: Key Vault ${vaultUrl} answered ${response.status} for secret ${name}`,
    );
  const value = (JSON.parse(response.bodyAsText ?? "{}") as { value?: unknown }).value;
  if (typeof value !== "string" || value === "")
    throw new VmAdminUnavailable(`account ${account.name}: secret ${name} in ${vaultUrl} is empty`);
  return value;
}

/**
 * The account's VM admin, Key Vault included: VMUsername, and VMSshPublicKey or VMPassword as clouddriver-azure
 * names them (CreateAzureServerGroupAtomicOperation.groovy l.184-200). The password is returned, never stored.
 */
export async function resolveVmAdmin(
  account: AccountConfig,
  env: NodeJS.ProcessEnv = process.env,
  signal?: AbortSignal,
): Promise<VmAdminCredentials | undefined> {
  const v = account.vmAdmin;
  if (!v?.keyVaultUrl) return accountVmAdmin(account, env);
  const user = v.adminUsername || (await readSecret(account, v.keyVaultUrl, "VMUsername", signal));
  if (v.useSshPublicKey !== false)
    return { adminUserName: user, sshPublicKeys: [await readSecret(account, v.keyVaultUrl, "VMSshPublicKey", signal)] };
  return {
    adminUserName: user,
    sshPublicKeys: [],
    password: await readSecret(account, v.keyVaultUrl, "VMPassword", signal),
  };
}

/** The fields of a description that locate a server group (Clouddriver's names; operations/description.ts's schema). */
export interface ServerGroupLocator {
  credentials?: string;
  account?: string;
  region: string;
  serverGroupName: string;
  resourceGroup?: string;
}

/** A problem with one field of a request, named the way the client sent it. */
export interface FieldProblem {
  field: string;
  message: string;
}

export type Located = { ok: true; ref: ScaleSetRef } | { ok: false; problems: FieldProblem[] };

/** Builds an account's client with its credential (createComputeClient, or a test's own). */
export type ClientFactory = (account: AccountConfig, credential: TokenCredential) => ComputeManagementClient;

export class AccountRegistry {
  readonly #accounts = new Map<string, AccountConfig>();
  readonly #credentials = new Map<string, TokenCredential>();
  readonly #clients = new Map<string, ComputeManagementClient>();
  readonly #createClient: ClientFactory;
  #listener: ScaleSetListener | undefined;
  /** Azure's durations of the writes this replica saw end, shared by every gateway (write-durations.ts). */
  readonly #durations = new WriteDurations();

  /** What this replica saw of Azure's write durations, which it shares with the other replicas (tasks/duration-sharing.ts). */
  get durations(): WriteDurations {
    return this.#durations;
  }

  /** The registry, with @azure/identity loaded first when an account needs it (see loadIdentity). */
  static async open(
    accounts: AccountConfig[],
    createClient: ClientFactory = createComputeClient,
  ): Promise<AccountRegistry> {
    if (accounts.some((a) => a.credential.kind !== "simulator")) await loadIdentity();
    return new AccountRegistry(accounts, createClient);
  }

  /**
   * Builds every account's credential at once, so that a misconfigured account stops start-up, named. Its client is
   * built on its first use: building one loads the Azure SDK (sdk.ts), which nothing before the first Azure call needs.
   */
  constructor(accounts: AccountConfig[], createClient: ClientFactory = createComputeClient) {
    this.#createClient = createClient;
    const problems: string[] = [];
    for (const a of accounts) {
      this.#accounts.set(a.name, a);
      try {
        this.#credentials.set(a.name, credentialFor(a));
      } catch (err) {
        problems.push(
          err instanceof AccountSetupError ? err.message : `account "${a.name}": ${(err as Error).message}`,
        );
      }
    }
    if (problems.length > 0)
      throw new AccountSetupError(accounts.length === 1 ? accounts[0].name : "*", problems.join("; "), true);
  }

  names(): string[] {
    return [...this.#accounts.keys()];
  }

  get(name: string): AccountConfig | undefined {
    return this.#accounts.get(name);
  }

  /** Which scale set a description means, or what is wrong with it (field by field). */
  locate(d: ServerGroupLocator): Located {
    const problems: FieldProblem[] = [];
    if (d.credentials && d.account && d.credentials !== d.account) {
      problems.push({
        field: "account",
        message: `account ("${d.account}") and credentials ("${d.credentials}") name different accounts`,
      });
    }
    const name = d.credentials ?? d.account;
    const account = name ? this.#accounts.get(name) : undefined;
    if (!name) problems.push({ field: "credentials", message: "required: the account name (account is accepted too)" });
    else if (!account)
      problems.push({ field: "credentials", message: `unknown account "${name}"; known: ${this.names().join(", ")}` });
    if (
      account &&
      account.regions.length > 0 &&
      !account.regions.some((r) => normalizeRegion(r) === normalizeRegion(d.region))
    ) {
      problems.push({
        field: "region",
        message: `account ${account.name} does not operate in ${d.region}; its regions: ${account.regions.join(", ")}`,
      });
    }
    // SERVER_GROUP_RESOURCE_GROUP_RULE: {application}-{region} as clouddriver-azure, or the account's own resource group.
    const resourceGroup =
      d.resourceGroup ?? (account ? resourceGroupOf(account, d.serverGroupName, d.region) : undefined);
    if (account && !resourceGroup) {
      problems.push({
        field: "resourceGroup",
        message: `required: account ${account.name} has no default resource group, and ${d.serverGroupName} names no application`,
      });
    }
    if (problems.length > 0 || !account || !resourceGroup) return { ok: false, problems };
    return {
      ok: true,
      ref: {
        account: account.name,
        subscriptionId: account.subscriptionId,
        resourceGroup,
        name: d.serverGroupName,
        region: d.region,
      },
    };
  }

  /** Every gateway made from now on tells listener what it reads and writes (the read cache). */
  listenToScaleSets(listener: ScaleSetListener): void {
    this.#listener = listener;
  }

  client(accountName: string): ComputeManagementClient {
    let client = this.#clients.get(accountName);
    if (!client) {
      const account = this.#accounts.get(accountName);
      if (!account) throw new Error(`unknown account ${accountName}`);
      client = this.#createClient(account, this.#credentials.get(accountName)!);
      this.#clients.set(accountName, client);
    }
    return client;
  }

  gateway(ref: ScaleSetRef): VmssGateway {
    const client = this.client(ref.account);
    // Microsoft.Network on the same endpoint: a Flexible scale set's VMs have NICs of their own.
    const endpoint = this.#accounts.get(ref.account)?.endpoint ?? "";
    return new VmssGateway(
      client,
      ref,
      this.#listener,
      new NetworkGateway(client, endpoint),
      // Microsoft.Insights on the same endpoint: the autoscale setting that targets the scale set.
      new AutoscaleGateway(client, endpoint, ref.subscriptionId),
      this.#durations,
    );
  }

  /** The account's autoscale settings (Microsoft.Insights), through its compute client's pipeline. */
  autoscale(accountName: string): AutoscaleGateway {
    const account = this.#accounts.get(accountName);
    if (!account) throw new Error(`unknown account ${accountName}`);
    return new AutoscaleGateway(this.client(accountName), account.endpoint ?? "", account.subscriptionId);
  }

  /**
   * Can we reach the account's ARM endpoint with a token it accepts? One cheap GET outside the Compute provider
   * (its throttling budget is not spent): any answer but 401 and 5xx counts as reachable.
   */
  async probe(
    name: string,
    timeoutMs: number,
  ): Promise<{ ok: true } | { ok: false; problem: string; detail?: string }> {
    const account = this.#accounts.get(name);
    if (!account) return { ok: false, problem: "unknown account" };
    try {
      const url = `${account.endpoint}/subscriptions/${encodeURIComponent(account.subscriptionId)}/resourcegroups?api-version=2021-04-01&%24top=1`;
      // Through the client's own pipeline: its credential, TLS trust and listeners.
      const response = await this.client(name).pipeline.sendRequest(
        sharedHttpClient(),
        pipelineSdk().createPipelineRequest({ url, method: "GET", timeout: timeoutMs }),
      );
      if (response.status === 401) return { ok: false, problem: "Azure rejected the credential's token (401)" };
      if (response.status >= 500) return { ok: false, problem: `Azure answered ${response.status}` };
      return { ok: true };
    } catch (err) {
      const e = err as { name?: string; code?: string; statusCode?: number; message?: string };
      // problem: the class and code only, for a public endpoint; detail: the library's message, for the log (the
      // identity libraries never put a secret into it).
      return {
        ok: false,
        problem: `${e.name ?? "Error"}${e.code ? ` ${e.code}` : ""}${e.statusCode ? ` (${e.statusCode})` : ""}`,
        detail: e.message?.slice(0, 500),
      };
    }
  }
}
