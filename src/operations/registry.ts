// Operations by name. Adding one: write its file, add it here; routes, validation and the OpenAPI document follow.
import { cloneServerGroup, createServerGroup } from "./create-server-group.ts";
import { destroyServerGroup } from "./destroy-server-group.ts";
import { disableServerGroup } from "./disable-server-group.ts";
import { enableServerGroup } from "./enable-server-group.ts";
import type { AnyOperation } from "./operation.ts";
import { rebootInstances } from "./reboot-instances.ts";
import { resizeServerGroup } from "./resize-server-group.ts";
import { rollingUpgrade } from "./rolling-upgrade.ts";
import { scaleDown } from "./scale-down.ts";
import { terminateInstanceAndDecrementServerGroup } from "./terminate-instance-and-decrement.ts";
import { terminateInstances } from "./terminate-instances.ts";

export const operations: ReadonlyMap<string, AnyOperation> = new Map(
  (
    [
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
    ] as unknown as AnyOperation[]
  ).map((op) => [op.name, op]),
);

export function operationNames(): string[] {
  return [...operations.keys()];
}
