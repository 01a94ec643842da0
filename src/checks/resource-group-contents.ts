// What a resource group holds, as Azure lists it (Resources_ListByResourceGroup): every resource with its type and
// tags, so that `vmss-ops conformance` can refuse a group holding anything it did not make, and find what a run that
// died left behind. Reads only, through the account's own ARM pipeline.
import type { AccountRegistry } from "../azure/accounts.ts";
import { AccountReader } from "./account-checks.ts";

const RESOURCES_LIST_API_VERSION = "2021-04-01";

export interface ResourceGroupResource {
  id: string;
  name: string;
  type: string;
  tags: Record<string, string>;
}

export interface ResourceGroupContents {
  account: string;
  resourceGroup: string;
  /** false when Azure answered 404 ResourceGroupNotFound. */
  exists: boolean;
  resources: ResourceGroupResource[];
}

/** Azure refused the list, or did not answer it: its status, code and message. */
export class ContentsUnreadable extends Error {
  readonly status: number;
  readonly code: string | undefined;
  constructor(status: number, code: string | undefined, message: string | undefined) {
    super(`${status}${code ? ` ${code}` : ""}${message ? `: ${message.slice(0, 300)}` : ""}`);
    this.status = status;
    this.code = code;
  }
}

interface ListedResource {
  id?: string;
  name?: string;
  type?: string;
  tags?: Record<string, string> | null;
}

export async function readResourceGroupContents(
  registry: AccountRegistry,
  accountName: string,
  resourceGroup: string,
): Promise<ResourceGroupContents> {
  const account = registry.get(accountName);
  if (!account) throw new Error(`unknown account ${accountName}`);
  const reader = new AccountReader(registry, account);
  const listed = await reader.list<ListedResource>(
    `/subscriptions/${account.subscriptionId}/resourceGroups/${encodeURIComponent(resourceGroup)}/resources`,
    RESOURCES_LIST_API_VERSION,
  );
  if (!listed.ok) {
    if (listed.status === 404 && listed.code === "ResourceGroupNotFound")
      return { account: accountName, resourceGroup, exists: false, resources: [] };
    throw new ContentsUnreadable(listed.status, listed.code, listed.message);
  }
  const resources = listed.body.value.map((r) => ({
    id: r.id ?? "",
    name: r.name ?? "",
    type: r.type ?? "",
    tags: r.tags ?? {},
  }));
  return { account: accountName, resourceGroup, exists: true, resources };
}
