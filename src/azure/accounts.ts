// Configured accounts, the client for each (built once), and the resolution of a description to a scale set.
import type { ComputeManagementClient } from "@azure/arm-compute";
import type { AccountConfig } from "../config.ts";
import type { FieldProblem, ServerGroupLocator } from "../operations/description.ts";
import { resourceGroupOf } from "../naming/frigga.ts";
import { createComputeClient } from "./client.ts";
import { normalizeRegion, VmssGateway, type ScaleSetObserver, type ScaleSetRef } from "./vmss-gateway.ts";

export type Resolution = { ok: true; ref: ScaleSetRef } | { ok: false; problems: FieldProblem[] };

export class AccountRegistry {
  readonly #accounts = new Map<string, AccountConfig>();
  readonly #clients = new Map<string, ComputeManagementClient>();
  readonly #createClient: (account: AccountConfig) => ComputeManagementClient;
  #observer: ScaleSetObserver | undefined;

  constructor(accounts: AccountConfig[], createClient = createComputeClient) {
    for (const a of accounts) this.#accounts.set(a.name, a);
    this.#createClient = createClient;
  }

  names(): string[] {
    return [...this.#accounts.keys()];
  }

  get(name: string): AccountConfig | undefined {
    return this.#accounts.get(name);
  }

  /** Which scale set a description means, or what is wrong with it (field by field). */
  resolve(d: ServerGroupLocator): Resolution {
    const problems: FieldProblem[] = [];
    if (d.credentials && d.account && d.credentials !== d.account) {
      problems.push({ field: "account", message: `account ("${d.account}") and credentials ("${d.credentials}") name different accounts` });
    }
    const name = d.credentials ?? d.account;
    const account = name ? this.#accounts.get(name) : undefined;
    if (!name) problems.push({ field: "credentials", message: "required: the account name (account is accepted too)" });
    else if (!account) problems.push({ field: "credentials", message: `unknown account "${name}"; known: ${this.names().join(", ")}` });
    if (account && account.regions.length > 0 && !account.regions.some((r) => normalizeRegion(r) === normalizeRegion(d.region))) {
      problems.push({ field: "region", message: `account ${account.name} does not operate in ${d.region}; its regions: ${account.regions.join(", ")}` });
    }
    // As clouddriver-azure: the account's resource group, else the application's {application}-{region}.
    const resourceGroup = d.resourceGroup ?? (account ? resourceGroupOf(account, d.serverGroupName, d.region) : undefined);
    if (account && !resourceGroup) {
      problems.push({ field: "resourceGroup", message: `required: account ${account.name} has no default resource group, and ${d.serverGroupName} names no application` });
    }
    if (problems.length > 0 || !account || !resourceGroup) return { ok: false, problems };
    return {
      ok: true,
      ref: { account: account.name, subscriptionId: account.subscriptionId, resourceGroup, name: d.serverGroupName, region: d.region },
    };
  }

  /** Every gateway made from now on tells observer what it reads and writes (the read cache). */
  observeScaleSets(observer: ScaleSetObserver): void {
    this.#observer = observer;
  }

  client(accountName: string): ComputeManagementClient {
    let client = this.#clients.get(accountName);
    if (!client) {
      const account = this.#accounts.get(accountName);
      if (!account) throw new Error(`unknown account ${accountName}`);
      client = this.#createClient(account);
      this.#clients.set(accountName, client);
    }
    return client;
  }

  gateway(ref: ScaleSetRef): VmssGateway {
    return new VmssGateway(this.client(ref.account), ref, this.#observer);
  }
}
