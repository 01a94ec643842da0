// The VM sizes a region offers the account's subscription, smallest first (Azure's resource SKUs: vCPUs, memory, the
// quota family, and the restrictions that keep a size from this subscription), with the quota headroom of each size's
// family and of the region (Compute usages), so that `vmss-ops conformance` can make its throwaway scale sets of the
// smallest size it may actually use. Reads only, through the account's own ARM pipeline.
import type { AccountRegistry } from "../azure/accounts.ts";
import { AccountReader } from "./account-checks.ts";
import type { Usage } from "./judge.ts";

const SKUS_API_VERSION = "2021-07-01";
const USAGES_API_VERSION = "2024-07-01";

export interface RegionSize {
  name: string;
  vCPUs: number;
  memoryGB: number;
  /** The quota family it counts against (`standardBSFamily`). */
  family: string;
  /** Why the subscription may not use it in the region (`NotAvailableForSubscription`), when it may not. */
  restriction?: string;
  /** vCPUs free for it: the smaller of its family's and the region's headroom. */
  freeVCPUs: number;
}

export interface RegionSizes {
  account: string;
  region: string;
  /** vCPUs free in the region (Total Regional vCPUs). */
  regionalFreeVCPUs: number;
  /** Every virtual-machine size the region lists, smallest first (vCPUs, then memory, then name). */
  sizes: RegionSize[];
}

/** Azure refused a read, or did not answer it: its status, code and message. */
export class RegionSizesUnreadable extends Error {
  readonly status: number;
  constructor(what: string, status: number, code: string | undefined, message: string | undefined) {
    super(`${what}: ${status}${code ? ` ${code}` : ""}${message ? `: ${message.slice(0, 300)}` : ""}`);
    this.status = status;
  }
}

interface SkuBody {
  resourceType?: string;
  name?: string;
  family?: string;
  locations?: string[];
  capabilities?: { name?: string; value?: string }[];
  restrictions?: { type?: string; values?: string[]; reasonCode?: string }[];
}

function capability(s: SkuBody, name: string): number {
  return Number(s.capabilities?.find((c) => c.name === name)?.value) || 0;
}

/** A Location restriction naming the region keeps the size from the subscription there (zone restrictions do not). */
function restrictionIn(s: SkuBody, region: string): string | undefined {
  const r = s.restrictions?.find(
    (x) => x.type === "Location" && (x.values ?? []).some((v) => v.toLowerCase() === region.toLowerCase()),
  );
  return r ? (r.reasonCode ?? "restricted") : undefined;
}

export async function readRegionSizes(
  registry: AccountRegistry,
  accountName: string,
  region: string,
): Promise<RegionSizes> {
  const account = registry.get(accountName);
  if (!account) throw new Error(`unknown account ${accountName}`);
  const reader = new AccountReader(registry, account);
  const sub = `/subscriptions/${account.subscriptionId}`;
  const skus = await reader.list<SkuBody>(
    `${sub}/providers/Microsoft.Compute/skus?$filter=${encodeURIComponent(`location eq '${region}'`)}`,
    SKUS_API_VERSION,
  );
  if (!skus.ok) throw new RegionSizesUnreadable("the resource SKUs", skus.status, skus.code, skus.message);
  const usages = await reader.list<Usage>(
    `${sub}/providers/Microsoft.Compute/locations/${encodeURIComponent(region)}/usages`,
    USAGES_API_VERSION,
  );
  if (!usages.ok) throw new RegionSizesUnreadable("the Compute usages", usages.status, usages.code, usages.message);
  const free = new Map(
    usages.body.value.map((u) => [(u.name?.value ?? "").toLowerCase(), (u.limit ?? 0) - (u.currentValue ?? 0)]),
  );
  const regionalFreeVCPUs = Math.max(0, free.get("cores") ?? 0);
  const sizes = skus.body.value
    .filter((s) => (s.resourceType ?? "").toLowerCase() === "virtualmachines" && s.name && capability(s, "vCPUs") > 0)
    .filter((s) => !s.locations || s.locations.some((l) => l.toLowerCase() === region.toLowerCase()))
    .map((s): RegionSize => {
      const family = s.family ?? "";
      const familyFree = free.get(family.toLowerCase());
      const restriction = restrictionIn(s, region);
      return {
        name: s.name!,
        vCPUs: capability(s, "vCPUs"),
        memoryGB: capability(s, "MemoryGB"),
        family,
        ...(restriction ? { restriction } : {}),
        freeVCPUs: Math.max(0, Math.min(regionalFreeVCPUs, familyFree ?? regionalFreeVCPUs)),
      };
    })
    .sort((a, b) => a.vCPUs - b.vCPUs || a.memoryGB - b.memoryGB || a.name.localeCompare(b.name));
  return { account: accountName, region, regionalFreeVCPUs, sizes };
}
