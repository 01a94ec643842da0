// The user-assigned identities a new scale set is given: each read before anything is written, so that a name
// mistyped in a pipeline fails the deploy at once, naming it, instead of as Azure's refusal of the scale set's PUT
// (400 FailedIdentityOperation, "Resource '…' was not found"). clouddriver-azure reads none of them first
// (AzureServerGroupResourceTemplate.groovy l.489-495 puts them into the template), so its deploy fails in the
// deployment instead.
import { RefusalError } from "../../azure/arm-failure.ts";
import { NetworkGateway } from "../../azure/network-gateway.ts";
import type { ScaleSetRef } from "../../azure/vmss-gateway.ts";
import { identityId, type IdentityRef } from "./deploy-input.ts";
import type { PrepareContext } from "../operation.ts";

/** Microsoft.ManagedIdentity's api-version for reading an identity. */
export const MANAGED_IDENTITY_API_VERSION = "2023-01-31";

/**
 * The resource ids of `refs` (names are in the server group's resource group, as clouddriver-azure's template
 * resolves them), each read: one that does not exist is refused before anything is written.
 */
export async function checkIdentities(
  refs: IdentityRef[],
  target: Pick<ScaleSetRef, "account" | "subscriptionId" | "resourceGroup">,
  ctx: Pick<PrepareContext, "accounts" | "log" | "signal">,
): Promise<string[]> {
  if (refs.length === 0) return [];
  const account = ctx.accounts.get(target.account);
  const arm = new NetworkGateway(ctx.accounts.client(target.account), account?.endpoint ?? "");
  const ids: string[] = [];
  for (const ref of refs) {
    const id = identityId(ref, target.subscriptionId, target.resourceGroup);
    const found = await arm.get(id, ctx.signal, MANAGED_IDENTITY_API_VERSION);
    if (!found)
      throw new RefusalError(
        "IdentityNotFound",
        `user-assigned identity ${"name" in ref ? `${ref.name} (${id})` : id} does not exist; nothing was created. Name an identity of resource group ${target.resourceGroup}, or give its resource id`,
      );
    const clientId = found.properties?.clientId;
    ctx.log(
      `user-assigned identity ${found.name ?? id} found (client id ${typeof clientId === "string" ? clientId : "unknown"})`,
    );
    ids.push(id);
  }
  return ids;
}
