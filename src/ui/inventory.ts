// The status page's inventory: every scale set of the accounts a principal may read, from the read cache (so a page
// left open costs Azure at most one listing and one read per scale set each READ_CACHE_TTL_MS), grouped as
// Spinnaker groups them (account → cluster → server group), with capacity, instances in traffic and the last task.
import { Type, type Static } from "@sinclair/typebox";
import type { AccountConfig } from "../azure/account-config.ts";
import { describeArmFailure } from "../azure/arm-failure.ts";
import type { ScaleSetReads } from "../azure/read-cache.ts";
import { normalizeRegion, type ScaleSetRef } from "../azure/vmss-gateway.ts";
import { serverGroupView } from "../clouddriver/server-group.ts";
import { accountResourceGroup } from "../naming/frigga.ts";
import { TaskState } from "../api/schemas.ts";

export const UiServerGroup = Type.Object(
  {
    name: Type.String(),
    region: Type.String(),
    resourceGroup: Type.String(),
    capacity: Type.Object({ min: Type.Integer(), desired: Type.Integer(), max: Type.Integer() }),
    disabled: Type.Boolean(),
    instances: Type.Integer({ description: "VMs Azure lists" }),
    inTraffic: Type.Integer({
      description: "VMs Up: running and in the load balancer's pool (or running, without one)",
    }),
    provisioningState: Type.Optional(Type.String()),
    lastTask: Type.Optional(
      Type.Object(
        { id: Type.String(), state: Type.Ref(TaskState), operation: Type.String(), atMs: Type.Integer() },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export const UiInventory = Type.Object(
  {
    accounts: Type.Array(
      Type.Object(
        {
          name: Type.String(),
          /** When Azure was asked for the oldest part of this account's view. */
          readAtMs: Type.Optional(Type.Integer()),
          problem: Type.Optional(Type.String({ description: "why this account could not be listed" })),
          clusters: Type.Array(
            Type.Object(
              { name: Type.String(), serverGroups: Type.Array(UiServerGroup) },
              { additionalProperties: false },
            ),
          ),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { $id: "UiInventory", additionalProperties: false },
);
export type UiInventoryBody = Static<typeof UiInventory>;
type LastTask = NonNullable<Static<typeof UiServerGroup>["lastTask"]>;

function resourceGroupOfId(id: string | undefined): string | undefined {
  return id ? /\/resourceGroups\/([^/]+)\//i.exec(id)?.[1] : undefined;
}

/**
 * One account's scale sets, with their VMs: its resource group when it keeps them there (serverGroupResourceGroup:
 * account), else the whole subscription.
 */
export async function accountInventory(
  reads: ScaleSetReads,
  account: AccountConfig,
  lastTasks: Map<string, LastTask>,
  filter: string,
): Promise<UiInventoryBody["accounts"][number]> {
  try {
    // Where the account keeps its server groups (SERVER_GROUP_RESOURCE_GROUP_RULE): its own resource group, else one
    // per application and region, which only a listing of the whole subscription finds for every application.
    const own = accountResourceGroup(account);
    const listing = await reads.list(own ? { account: account.name, resourceGroup: own } : { account: account.name });
    let readAt = listing.readAt;
    const wanted = listing.value.filter(
      (v) => v.name && v.location && resourceGroupOfId(v.id) && (!filter || v.name.toLowerCase().includes(filter)),
    );
    const groups = await Promise.all(
      wanted.map(async (vmss) => {
        const ref: ScaleSetRef = {
          account: account.name,
          subscriptionId: account.subscriptionId,
          resourceGroup: resourceGroupOfId(vmss.id)!,
          name: vmss.name!,
          region: normalizeRegion(vmss.location),
        };
        try {
          const snapshot = await reads.snapshot(ref);
          readAt = Math.min(readAt, snapshot.readAt);
          const view = serverGroupView(snapshot.value, ref);
          const last = lastTasks.get(`${account.name}/${view.name}`.toLowerCase());
          return {
            cluster: view.cluster,
            group: {
              name: view.name,
              region: view.region,
              resourceGroup: view.resourceGroup,
              capacity: view.capacity,
              disabled: view.disabled,
              instances: view.instanceCounts.total,
              inTraffic: view.instanceCounts.up,
              ...(view.provisioningState ? { provisioningState: view.provisioningState } : {}),
              ...(last ? { lastTask: last } : {}),
            },
          };
        } catch (err) {
          // Deleted since the listing: not there any more.
          if (
            describeArmFailure(err).kind === "notFound" ||
            (err as { failure?: { kind?: string } }).failure?.kind === "notFound"
          )
            return undefined;
          throw err;
        }
      }),
    );
    const clusters = new Map<string, Static<typeof UiServerGroup>[]>();
    for (const g of groups) if (g) clusters.set(g.cluster, [...(clusters.get(g.cluster) ?? []), g.group]);
    return {
      name: account.name,
      readAtMs: readAt,
      clusters: [...clusters]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([name, serverGroups]) => ({
          name,
          serverGroups: serverGroups.sort((a, b) => a.name.localeCompare(b.name)),
        })),
    };
  } catch (err) {
    return { name: account.name, problem: `listing its scale sets failed: ${(err as Error).message}`, clusters: [] };
  }
}
