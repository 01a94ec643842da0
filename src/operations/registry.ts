// Operations by name. Adding one is a checklist (docs/index.md, "Adding an operation"): its name in
// operation-names.ts, its file, its entry here; routes, validation and the OpenAPI document follow.
import { cloneServerGroup, createServerGroup } from "./create-server-group.ts";
import { destroyServerGroup } from "./destroy-server-group.ts";
import { disableServerGroup } from "./disable-server-group.ts";
import { enableServerGroup } from "./enable-server-group.ts";
import type { AnyOperation } from "./operation.ts";
import { OPERATION_NAMES, type OperationName } from "./operation-names.ts";
import { rebootInstances } from "./reboot-instances.ts";
import { resizeServerGroup } from "./resize-server-group.ts";
import { rollingUpgrade } from "./rolling-upgrade.ts";
import { scaleDown } from "./scale-down.ts";
import { terminateInstanceAndDecrementServerGroup } from "./terminate-instance-and-decrement.ts";
import { terminateInstances } from "./terminate-instances.ts";

/** One operation per name of OPERATION_NAMES, under its own name: tsc fails on a name missing or misspelt. */
const BY_NAME = {
  resizeServerGroup,
  disableServerGroup,
  enableServerGroup,
  scaleDown,
  terminateInstances,
  terminateInstanceAndDecrementServerGroup,
  rebootInstances,
  destroyServerGroup,
  createServerGroup,
  cloneServerGroup,
  rollingUpgrade,
} satisfies { [N in OperationName]: { name: N } };

export const operations: ReadonlyMap<string, AnyOperation> = new Map(
  OPERATION_NAMES.map((name) => [name, BY_NAME[name] as unknown as AnyOperation]),
);

export function operationNames(): OperationName[] {
  return [...OPERATION_NAMES];
}
