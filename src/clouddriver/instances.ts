// One instance as Clouddriver answers for it, found from its id alone: the VM's name (clouddriver-azure
// AzureInstance.groovy: `name = vm.name()`), which names its scale set (`{scale set}_{suffix}`). Orca reads it two
// ways: `GET /search?q={id}&type=instances` (OortService.getSearchResults) for the server group and whether it still
// exists, and `GET /instances/{account}/{region}/{id}` (OortService.getInstance) for its health. Reads go through the
// read cache, as the server-group reads do.
import { Type, type Static } from "@sinclair/typebox";
import type { VirtualMachineScaleSet, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import type { AccountConfig } from "../azure/account-config.ts";
import { GaveUpError } from "../azure/harness/failures.ts";
import type { ScaleSetReads } from "../azure/read-cache.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import { parseName } from "../naming/frigga.ts";
import { isNamed, scaleSetOfVmName } from "../operations/instance-location.ts";
import { listServerGroups } from "./listing.ts";
import { CLOUD_PROVIDER } from "./server-group.ts";

/**
 * One match of an instance search: the fields Orca reads (TrafficGuard.resolveServerGroupNameForInstance: `account`,
 * `region`, `serverGroup`), named as clouddriver-azure's Keys.parse names an instance's (`application`,
 * `serverGroup`, `name`, `region`, `account`), with Clouddriver's search `type` and `provider`.
 */
export const ClouddriverInstanceMatch = Type.Object(
  {
    type: Type.Literal("instances"),
    provider: Type.Literal(CLOUD_PROVIDER),
    account: Type.String(),
    region: Type.String(),
    application: Type.String(),
    cluster: Type.String(),
    serverGroup: Type.String({ description: "the scale set the VM is in" }),
    name: Type.String({ description: "the VM's name: Clouddriver's instance id" }),
    instanceId: Type.String({ description: "the VM's name, as the query named it" }),
  },
  { $id: "ClouddriverInstanceMatch", additionalProperties: false },
);
export type ClouddriverInstanceMatch = Static<typeof ClouddriverInstanceMatch>;

/** Clouddriver's SearchResultSet (clouddriver-core search/SearchResultSet.java; orca model/SearchResultSet.java). */
export const ClouddriverSearchResultSet = Type.Object(
  {
    platform: Type.Literal(CLOUD_PROVIDER),
    query: Type.String(),
    totalMatches: Type.Integer({ description: "0 when no VM of that name is listed: Orca takes it as terminated" }),
    pageNumber: Type.Integer(),
    pageSize: Type.Integer(),
    results: Type.Array(Type.Ref(ClouddriverInstanceMatch)),
  },
  { $id: "ClouddriverSearchResultSet", additionalProperties: false },
);

export const ClouddriverSearchResults = Type.Array(Type.Ref(ClouddriverSearchResultSet), {
  $id: "ClouddriverSearchResults",
  minItems: 1,
  maxItems: 1,
  description: "one page, as SearchController answers for one provider",
});

export const clouddriverInstanceSchemas = [
  ClouddriverInstanceMatch,
  ClouddriverSearchResultSet,
  ClouddriverSearchResults,
];

export interface FoundInstance {
  ref: ScaleSetRef;
  vmss: VirtualMachineScaleSet;
  vm: VirtualMachineScaleSetVM;
  /** When Azure was asked for the scale set's VMs. */
  readAt: number;
}

const notFound = (err: unknown) => err instanceof GaveUpError && err.failure.kind === "notFound";

/** The VM of that name in one of the scale sets `refs` names, read through the cache; undefined when none lists it. */
async function vmIn(reads: ScaleSetReads, refs: ScaleSetRef[], vmName: string): Promise<FoundInstance | undefined> {
  for (const ref of refs) {
    try {
      const snapshot = await reads.snapshot(ref);
      const vm = (snapshot.value.vms ?? []).find((v) => isNamed(v, new Set([vmName])));
      if (vm) return { ref, vmss: snapshot.value.vmss, vm, readAt: snapshot.readAt };
    } catch (err) {
      // Deleted since it was listed, or never there: it holds no VM.
      if (!notFound(err)) throw err;
    }
  }
  return undefined;
}

/**
 * The VM named `vmName` in the account's scale set its name names, in any of the account's regions; or undefined.
 * A miss is what Orca takes as "terminated" (TerminatingInstanceSupport, TrafficGuard), so it is never a cached
 * one: the listing and the scale set are read again from Azure before the answer is none.
 */
export async function searchInstance(
  reads: ScaleSetReads,
  account: AccountConfig,
  vmName: string,
): Promise<{ found?: FoundInstance; readAt: number }> {
  const scaleSet = scaleSetOfVmName(vmName);
  const moniker = scaleSet ? parseName(scaleSet) : undefined;
  if (!scaleSet || !moniker) return { readAt: Date.now() };
  const lookup = async (fresh: boolean) => {
    if (fresh) reads.forgetListings(account.name);
    const listed = await listServerGroups(reads, account, { application: moniker.app });
    const refs = listed.value.filter((l) => l.ref.name.toLowerCase() === scaleSet.toLowerCase()).map((l) => l.ref);
    if (fresh) for (const ref of refs) reads.refresh(ref);
    const found = await vmIn(reads, refs, vmName);
    return { found, readAt: Math.min(listed.readAt, found?.readAt ?? listed.readAt) };
  };
  const cached = await lookup(false);
  return cached.found ? cached : lookup(true);
}

/** The VM named `vmName` in the scale set at `ref` (located from the name), or undefined, confirmed as above. */
export async function instanceAt(
  reads: ScaleSetReads,
  ref: ScaleSetRef,
  vmName: string,
): Promise<FoundInstance | undefined> {
  const cached = await vmIn(reads, [ref], vmName);
  if (cached) return cached;
  reads.refresh(ref);
  return vmIn(reads, [ref], vmName);
}

export function instanceMatch(found: FoundInstance, vmName: string): ClouddriverInstanceMatch {
  const moniker = parseName(found.ref.name) ?? { app: found.ref.name, cluster: found.ref.name };
  return {
    type: "instances",
    provider: CLOUD_PROVIDER,
    account: found.ref.account,
    region: found.ref.region,
    application: moniker.app,
    cluster: moniker.cluster,
    serverGroup: found.vmss.name ?? found.ref.name,
    name: found.vm.name ?? vmName,
    instanceId: vmName,
  };
}
