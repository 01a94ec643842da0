// Zones in a region that has none: Azure's resource SKUs say, per VM size and location, which availability zones it
// is offered in (ResourceSkus_List, `locationInfo[].zones`, as `az vm list-skus --zone` reads it). A zonal create or
// clone into a region where the size lists none is refused before anything is written, naming the region. The list
// is a subscription-scope read: a credential that may not make it (403) gets a line in the history, and Azure
// judges the write.
import type { ComputeManagementClient, ResourceSku } from "@azure/arm-compute";
import { describeArmFailure, failureLabel, RefusalError } from "../../azure/arm-failure.ts";
import { normalizeRegion } from "../../azure/vmss-gateway.ts";

/** The zones Azure offers `size` in `region` (any VM size's when the list does not name it); undefined: no answer. */
export function zonesOffered(skus: ResourceSku[], region: string, size: string | undefined): string[] {
  const vmSkus = skus.filter((s) => (s.resourceType ?? "").toLowerCase() === "virtualmachines");
  const named = size ? vmSkus.filter((s) => (s.name ?? "").toLowerCase() === size.toLowerCase()) : [];
  const here = (named.length > 0 ? named : vmSkus).flatMap((s) =>
    (s.locationInfo ?? []).filter((l) => normalizeRegion(l.location ?? "") === normalizeRegion(region)),
  );
  return [...new Set(here.flatMap((l) => l.zones ?? []))].sort();
}

export async function refuseZonesNotInRegion(
  zones: string[] | undefined,
  region: string,
  size: string | undefined,
  client: ComputeManagementClient,
  ctx: { log(line: string): void; signal?: AbortSignal },
): Promise<void> {
  if (!zones || zones.length === 0) return;
  const skus: ResourceSku[] = [];
  try {
    for await (const sku of client.resourceSkus.list({ filter: `location eq '${region}'`, abortSignal: ctx.signal }))
      skus.push(sku);
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    const f = describeArmFailure(err);
    ctx.log(
      `could not read which zones ${region} offers (${failureLabel(f)}: ${f.message}); Azure judges zones ${zones.join(", ")}`,
    );
    return;
  }
  const offered = zonesOffered(skus, region, size);
  const missing = zones.filter((z) => !offered.includes(z));
  if (missing.length === 0) return;
  throw new RefusalError(
    "ZonesNotInRegion",
    offered.length === 0
      ? `zones ${zones.join(", ")} asked for, but region ${region} has no availability zones${size ? ` for ${size}` : ""} (Azure's resource SKUs list none there); nothing was written. Leave zones out (or send zonesEnabled false), or deploy to a region with zones`
      : `zone(s) ${missing.join(", ")} asked for, but region ${region} offers ${size ?? "VMs"} in zone(s) ${offered.join(", ")} only; nothing was written. Name zones among those`,
  );
}
