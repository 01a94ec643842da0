// The operations' names, the one list. The registry (registry.ts) must hold one operation of each name, and the
// tables over operations (the scale-set kinds: scale-set-kinds.ts) are typed over it, so a name added here fails
// tsc until each has its entry. Adding an operation: docs/index.md, "Adding an operation".
export const OPERATION_NAMES = [
  "resizeServerGroup",
  "disableServerGroup",
  "enableServerGroup",
  "scaleDown",
  "terminateInstances",
  "terminateInstanceAndDecrementServerGroup",
  "rebootInstances",
  "destroyServerGroup",
  "createServerGroup",
  "cloneServerGroup",
  "rollingUpgrade",
] as const;
export type OperationName = (typeof OPERATION_NAMES)[number];
