// Which scale set an operation acts on: the one its description names, or, for an operation that names its scale
// set only when it runs (a create), the one its locator gives (the cluster).
import type { AccountRegistry, Located } from "../azure/accounts.ts";
import type { AnyOperation, LocatedDescription } from "./operation.ts";

/** The scale set `description` locates for `op` (an unknown operation: the description's own), or its problems, field by field. */
export function locate(
  accounts: AccountRegistry,
  op: AnyOperation | undefined,
  description: LocatedDescription,
): Located {
  return accounts.locate(op?.locator ? op.locator(description) : description);
}
