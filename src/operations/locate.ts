// Which scale set an operation acts on: the one its description names, or, for an operation that names its scale
// set only when it runs (a create), the one its locator gives (the cluster). Located once, at submission, and kept
// with the task; what changed in the accounts since then, if the scale set can no longer be acted on as located.
import type { AccountRegistry, Located } from "../azure/accounts.ts";
import { normalizeRegion, type ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { AnyOperation, LocatedDescription } from "./operation.ts";

/** The scale set `description` locates for `op` (an unknown operation: the description's own), or its problems, field by field. */
export function locate(
  accounts: AccountRegistry,
  op: AnyOperation | undefined,
  description: LocatedDescription,
): Located {
  const located = op?.locator ? op.locator(description) : description;
  // An instance action may name no scale set, and its VM names may not say one (instance-location.ts says why).
  if (typeof located.serverGroupName !== "string")
    return {
      ok: false,
      problems: [{ field: "serverGroupName", message: "required: the scale set's name (Azure's, as listed)" }],
    };
  return accounts.locate(located);
}

/**
 * The failure code of an operation whose scale set, located at submission, the accounts configuration no longer
 * reaches as located (an account removed, a region dropped, another subscription): a change of configuration,
 * not a fault of the service.
 */
export const ACCOUNT_CONFIGURATION_CHANGED = "AccountConfigurationChanged";

/**
 * What changed in the accounts configuration since `target` was located, so that it can no longer be acted on as
 * located: the account gone, its subscription another, its region no longer among its regions. Undefined: nothing.
 */
export function changeSinceLocated(
  accounts: Pick<AccountRegistry, "get" | "names">,
  target: ScaleSetRef,
): string | undefined {
  const account = accounts.get(target.account);
  if (!account)
    return `account ${target.account} is no longer configured (configured now: ${accounts.names().join(", ") || "none"})`;
  if (account.subscriptionId !== target.subscriptionId)
    return `account ${target.account} now names subscription ${account.subscriptionId}, not ${target.subscriptionId}`;
  const region = normalizeRegion(target.region);
  if (account.regions.length > 0 && !account.regions.some((r) => normalizeRegion(r) === region))
    return `account ${target.account} no longer operates in ${target.region} (its regions now: ${account.regions.join(", ")})`;
  return undefined;
}
