// Finding an application's server groups in Azure: the scale sets, in the account's resource group for their region,
// whose names follow Spinnaker's convention for that application (and cluster). Reads go through the read cache.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import type { AccountConfig } from "../azure/account-config.ts";
import type { AccountRegistry } from "../azure/accounts.ts";
import { describeArmFailure } from "../azure/arm-failure.ts";
import { GaveUpError } from "../azure/harness/failures.ts";
import type { ListingScope, ScaleSetReads } from "../azure/read-cache.ts";
import { normalizeRegion, type ScaleSetRef } from "../azure/vmss-gateway.ts";
import { accountResourceGroup, defaultResourceGroupOf, parseName, resourceGroupOf } from "../naming/frigga.ts";
import { serverGroupView, type ClouddriverServerGroup } from "./server-group.ts";

/**
 * Where to list an application's scale sets: the account's resource group when it keeps them there; else
 * `{application}-{region}` for each of its regions; else (any region) the whole subscription, filtered afterwards.
 */
export function listingScopes(account: AccountConfig, application: string): ListingScope[] {
  const own = accountResourceGroup(account);
  if (own) return [{ account: account.name, resourceGroup: own }];
  if (account.regions.length > 0)
    return account.regions.map((r) => ({
      account: account.name,
      resourceGroup: defaultResourceGroupOf(application, r),
    }));
  return [{ account: account.name }];
}

function resourceGroupOfId(id: string | undefined): string | undefined {
  return id ? /\/resourceGroups\/([^/]+)\//i.exec(id)?.[1] : undefined;
}

export interface ListedServerGroup {
  ref: ScaleSetRef;
  vmss: VirtualMachineScaleSet;
}

export interface Selection {
  application: string;
  cluster?: string;
}

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** Is this listed scale set one of the selection's server groups, where the account keeps them? */
export function belongsTo(
  vmss: VirtualMachineScaleSet,
  account: AccountConfig,
  selection: Selection,
): ScaleSetRef | undefined {
  const name = vmss.name;
  const resourceGroup = resourceGroupOfId(vmss.id);
  if (!name || !resourceGroup || !vmss.location) return undefined;
  const moniker = parseName(name);
  if (!moniker || !same(moniker.app, selection.application)) return undefined;
  if (selection.cluster !== undefined && !same(moniker.cluster, selection.cluster)) return undefined;
  const region = normalizeRegion(vmss.location);
  if (account.regions.length > 0 && !account.regions.some((r) => normalizeRegion(r) === region)) return undefined;
  if (!same(resourceGroup, resourceGroupOf(account, name, region) ?? "")) return undefined;
  return { account: account.name, subscriptionId: account.subscriptionId, resourceGroup, name, region };
}

export interface Found<T> {
  value: T;
  /** When Azure was asked for the oldest part of value. */
  readAt: number;
}

/** The selection's scale sets in one account, as listed (no VMs yet). A missing resource group holds none. */
export async function listServerGroups(
  reads: ScaleSetReads,
  account: AccountConfig,
  selection: Selection,
): Promise<Found<ListedServerGroup[]>> {
  const found: ListedServerGroup[] = [];
  let readAt = Date.now();
  for (const scope of listingScopes(account, selection.application)) {
    try {
      const listing = await reads.list(scope);
      readAt = Math.min(readAt, listing.readAt);
      for (const vmss of listing.value) {
        const ref = belongsTo(vmss, account, selection);
        if (ref) found.push({ ref, vmss });
      }
    } catch (err) {
      if (describeArmFailure(err).kind !== "notFound") throw err;
    }
  }
  found.sort((a, b) => a.ref.region.localeCompare(b.ref.region) || a.ref.name.localeCompare(b.ref.name));
  return { value: found, readAt };
}

/** Listed server groups by cluster, as Clouddriver's application view lists them. */
export function clusterSummaries(listed: ListedServerGroup[]): { name: string; serverGroups: string[] }[] {
  const byCluster = new Map<string, string[]>();
  for (const { ref } of listed) {
    const cluster = parseName(ref.name)?.cluster ?? ref.name;
    byCluster.set(cluster, [...(byCluster.get(cluster) ?? []), ref.name]);
  }
  return [...byCluster].map(([name, serverGroups]) => ({ name, serverGroups }));
}

/** Each listed scale set read with its VMs, as Clouddriver's server group. One deleted since the listing is left out. */
export async function expand(
  reads: ScaleSetReads,
  listed: ListedServerGroup[],
): Promise<Found<ClouddriverServerGroup[]>> {
  let readAt = Date.now();
  const views = await Promise.all(
    listed.map(async ({ ref }) => {
      try {
        const snapshot = await reads.snapshot(ref);
        readAt = Math.min(readAt, snapshot.readAt);
        return serverGroupView(snapshot.value, ref);
      } catch (err) {
        if (err instanceof GaveUpError && err.failure.kind === "notFound") return undefined;
        throw err;
      }
    }),
  );
  return { value: views.filter((v): v is ClouddriverServerGroup => v !== undefined), readAt };
}

/** The scale set `/serverGroups/{account}/{region}/{name}` means: located as every description is. */
export function refFor(accounts: AccountRegistry, accountName: string, region: string, name: string) {
  return accounts.locate({ account: accountName, region, serverGroupName: name });
}
