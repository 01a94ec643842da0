// A description of every operation of the registry that runs against the demo's simulator, typed over the
// registry's names: an operation added to src/operations/operation-names.ts fails tsc here until it has one.
// test/arm-actions.test.ts runs them all, in the registry's order, on the demo's scale sets (demo-rg: web-prod-v001,
// web-prod-v002 with automatic repairs, batch-v001) and flex-v001, a Flexible set it adds; each operation's
// descriptions act on scale sets that the ones before it left as they need them.
import type { OperationName } from "../../src/operations/operation-names.ts";
import { demo, demoCreate } from "./service.ts";

const NEW_IMAGE = { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" };

/** The scale sets the samples expect besides the demo's: PUT under /_sim/scaleSets/demo-rg/. */
export const SAMPLE_SCALE_SETS = {
  "flex-v001": { capacity: 3, orchestrationMode: "Flexible" },
} as const;

/** Each operation's descriptions, as POST /azure/ops/{name} takes them. */
export function operationSamples(subscriptionId: string): Record<OperationName, unknown[]> {
  return {
    resizeServerGroup: [
      demo("web-prod-v001", { capacity: { min: 1, max: 6, desired: 4 } }),
      demo("flex-v001", { capacity: { min: 1, max: 4, desired: 2 } }),
    ],
    disableServerGroup: [demo("web-prod-v002"), demo("flex-v001")],
    enableServerGroup: [demo("web-prod-v002"), demo("flex-v001")],
    scaleDown: [demo("web-prod-v001", { capacity: { min: 0, max: 6, desired: 2 } })],
    terminateInstances: [demo("web-prod-v002", { instanceIds: ["0"] })],
    terminateInstanceAndDecrementServerGroup: [
      demo("web-prod-v002", { instance: "web-prod-v002_1", adjustMinIfNecessary: true }),
    ],
    rebootInstances: [demo("batch-v001", { instanceIds: ["0"] })],
    destroyServerGroup: [demo("flex-v001"), demo("batch-v001")],
    createServerGroup: [demoCreate(subscriptionId, { capacity: { min: 1, max: 5, desired: 1 } })],
    cloneServerGroup: [
      {
        credentials: "demo",
        region: "eastus",
        source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v001" },
        image: NEW_IMAGE,
      },
    ],
    rollingUpgrade: [demo("web-prod-v001", { image: NEW_IMAGE, maxSurge: 1, maxUnavailable: 0 })],
  };
}
