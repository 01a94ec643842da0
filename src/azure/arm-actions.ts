// Every Azure RBAC action the service needs, in one table: the custom role in docs/real-azure.md is written from it
// (scripts/write-role.ts), `doctor` compares an identity's effective permissions with it, and a test maps each ARM
// call the service makes against the simulator to its row here, so a new call without a row fails the test.
//
// A row is one action: the requests that need it (method and path, `{…}` one segment), or none for the actions ARM
// checks on a resource a write names (a subnet to join, a pool, an identity to assign), and who needs it.

/**
 * Where the action must be granted: on each resource group the account manages (the operator role), on the
 * subscription (`doctor`'s reads of the subscription, its providers and quota: a reader role), or on the Key Vault.
 */
export type ActionScope = "resourceGroup" | "subscription" | "vault";

export interface ArmAction {
  /** As Azure RBAC names it: `Microsoft.Compute/virtualMachineScaleSets/read`. */
  action: string;
  /** A data action (Key Vault's secrets) goes into a role's DataActions, not its Actions. */
  data?: true;
  /** The requests that need it; empty when Azure checks it on another resource's write. */
  calls: readonly { method: string; path: string }[];
  scope: ActionScope;
  /** What the service does with it, for a person reading the role. */
  why: string;
}

const SUB = "/subscriptions/{subscriptionId}";
const RG = `${SUB}/resourceGroups/{resourceGroup}`;
const VMSS = `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets/{name}`;
const VM = `${RG}/providers/Microsoft.Compute/virtualMachines/{name}`;
const NETWORK = `${RG}/providers/Microsoft.Network`;
const LOCKS = "/providers/Microsoft.Authorization/locks";

export const ARM_ACTIONS: readonly ArmAction[] = [
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/read",
    calls: [
      { method: "GET", path: VMSS },
      { method: "GET", path: `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets` },
      { method: "GET", path: `${SUB}/providers/Microsoft.Compute/virtualMachineScaleSets` },
    ],
    scope: "resourceGroup",
    why: "read a scale set before every plan; list a resource group's (clusters, the next server group name)",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/write",
    calls: [
      { method: "PUT", path: VMSS },
      { method: "PATCH", path: VMSS },
    ],
    scope: "resourceGroup",
    why: "resize, disable, enable, rolling upgrade (PATCH); create, clone, a Failed set driven again (PUT)",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/delete",
    calls: [{ method: "DELETE", path: VMSS }],
    scope: "resourceGroup",
    why: "destroyServerGroup",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/delete/action",
    calls: [{ method: "POST", path: `${VMSS}/delete` }],
    scope: "resourceGroup",
    why: "terminate instances and scale down (delete chosen instances)",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/manualUpgrade/action",
    calls: [{ method: "POST", path: `${VMSS}/manualupgrade` }],
    scope: "resourceGroup",
    why: "roll a network change out to the instances under a Manual upgrade policy",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/setOrchestrationServiceState/action",
    calls: [{ method: "POST", path: `${VMSS}/setOrchestrationServiceState` }],
    scope: "resourceGroup",
    why: "suspend automatic repairs while an operation takes instances out, and resume them after",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/restart/action",
    calls: [{ method: "POST", path: `${VMSS}/restart` }],
    scope: "resourceGroup",
    why: "rebootInstances on a Uniform scale set (its restart, with the instance ids)",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/instanceView/read",
    calls: [{ method: "GET", path: `${VMSS}/instanceView` }],
    scope: "resourceGroup",
    why: "the scale set's instance view (its orchestration services, automatic repairs)",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/rollingUpgrades/read",
    calls: [{ method: "GET", path: `${VMSS}/rollingUpgrades/latest` }],
    scope: "resourceGroup",
    why: "follow a rolling upgrade's batches",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/read",
    calls: [
      { method: "GET", path: `${VMSS}/virtualMachines` },
      { method: "GET", path: `${VMSS}/virtualMachines/{instanceId}` },
      { method: "GET", path: `${VMSS}/virtualMachines/{instanceId}/instanceView` },
    ],
    scope: "resourceGroup",
    why: "a Uniform set's instances, their power state and health",
  },
  {
    action: "Microsoft.Compute/virtualMachineScaleSets/virtualMachines/write",
    calls: [{ method: "PUT", path: `${VMSS}/virtualMachines/{instanceId}` }],
    scope: "resourceGroup",
    why: "a partial disable of a Uniform set (rolling red/black): take instances out of their backend pools, each its own network configuration",
  },
  {
    action: "Microsoft.Compute/virtualMachines/read",
    calls: [
      { method: "GET", path: `${RG}/providers/Microsoft.Compute/virtualMachines` },
      { method: "GET", path: VM },
    ],
    scope: "resourceGroup",
    why: "a Flexible set's instances (virtual machines listed by the scale set's id)",
  },
  {
    action: "Microsoft.Compute/virtualMachines/instanceView/read",
    calls: [{ method: "GET", path: `${VM}/instanceView` }],
    scope: "resourceGroup",
    why: "a Flexible set's instance's power state and health",
  },
  {
    action: "Microsoft.Compute/virtualMachines/delete",
    calls: [{ method: "DELETE", path: VM }],
    scope: "resourceGroup",
    why: "terminate an instance of a Flexible set",
  },
  {
    action: "Microsoft.Compute/virtualMachines/restart/action",
    calls: [{ method: "POST", path: `${VM}/restart` }],
    scope: "resourceGroup",
    why: "rebootInstances on a Flexible scale set (each VM's restart)",
  },
  {
    action: "Microsoft.Compute/locations/operations/read",
    calls: [
      { method: "GET", path: `${SUB}/providers/Microsoft.Compute/locations/{location}/operations/{operationId}` },
      { method: "GET", path: `${SUB}/providers/Microsoft.Compute/locations/{location}/operationResults/{operationId}` },
    ],
    scope: "resourceGroup",
    why: "follow every long-running write to its end",
  },
  {
    action: "Microsoft.Network/networkInterfaces/read",
    calls: [
      { method: "GET", path: `${NETWORK}/networkInterfaces` },
      { method: "GET", path: `${NETWORK}/networkInterfaces/{name}` },
    ],
    scope: "resourceGroup",
    why: "a Flexible set's instances' NICs, which hold their backend pools",
  },
  {
    action: "Microsoft.Network/networkInterfaces/write",
    calls: [{ method: "PUT", path: `${NETWORK}/networkInterfaces/{name}` }],
    scope: "resourceGroup",
    why: "disable and enable a Flexible set: move its NICs out of and into their pools",
  },
  {
    action: "Microsoft.Network/locations/operations/read",
    calls: [
      { method: "GET", path: `${SUB}/providers/Microsoft.Network/locations/{location}/operations/{operationId}` },
    ],
    scope: "resourceGroup",
    why: "follow a NIC write to its end",
  },
  {
    action: "Microsoft.Network/loadBalancers/read",
    calls: [
      { method: "GET", path: `${NETWORK}/loadBalancers` },
      { method: "GET", path: `${NETWORK}/loadBalancers/{name}` },
    ],
    scope: "resourceGroup",
    why: "`doctor`: the load balancers the server groups' pools belong to can be read; a create with loadBalancerName reads the one it adds the group's pools to, destroyServerGroup the one it removes them from",
  },
  {
    action: "Microsoft.Network/loadBalancers/write",
    calls: [{ method: "PUT", path: `${NETWORK}/loadBalancers/{name}` }],
    scope: "resourceGroup",
    why: "a create or clone with loadBalancerName adds the group's backend pool and inbound NAT pool; destroyServerGroup removes what its create added (If-Match)",
  },
  {
    action: "Microsoft.Network/applicationGateways/read",
    calls: [
      { method: "GET", path: `${NETWORK}/applicationGateways` },
      { method: "GET", path: `${NETWORK}/applicationGateways/{name}` },
    ],
    scope: "resourceGroup",
    why: "`doctor`: the application gateways the server groups' pools belong to can be read; a create with appGatewayName reads the one it adds the group's pool to, destroyServerGroup the one it removes it from",
  },
  {
    action: "Microsoft.Network/applicationGateways/write",
    calls: [{ method: "PUT", path: `${NETWORK}/applicationGateways/{name}` }],
    scope: "resourceGroup",
    why: "a create or clone with an application gateway adds the group's backend pool; destroyServerGroup removes what its create added (If-Match)",
  },

  {
    action: "Microsoft.Network/virtualNetworks/subnets/read",
    calls: [{ method: "GET", path: `${NETWORK}/virtualNetworks/{name}/subnets/{subnet}` }],
    scope: "resourceGroup",
    why: "`doctor`: the subnets the server groups name can be read",
  },

  {
    action: "Microsoft.Network/virtualNetworks/subnets/join/action",
    calls: [],
    scope: "resourceGroup",
    why: "checked by Azure on a write whose network profile names a subnet",
  },
  {
    action: "Microsoft.Network/loadBalancers/backendAddressPools/join/action",
    calls: [],
    scope: "resourceGroup",
    why: "checked by Azure when a write or a NIC joins a load balancer's pool (create, enable, disable)",
  },
  {
    action: "Microsoft.Network/applicationGateways/backendAddressPools/join/action",
    calls: [],
    scope: "resourceGroup",
    why: "checked by Azure when a write or a NIC joins an application gateway's pool",
  },
  {
    action: "Microsoft.Network/networkSecurityGroups/join/action",
    calls: [],
    scope: "resourceGroup",
    why: "checked by Azure on a write whose network profile names a security group",
  },
  {
    action: "Microsoft.ManagedIdentity/userAssignedIdentities/read",
    calls: [{ method: "GET", path: `${RG}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{name}` }],
    scope: "resourceGroup",
    why: "check that each user-assigned identity a create or clone names exists, before anything is written",
  },
  {
    action: "Microsoft.ManagedIdentity/userAssignedIdentities/assign/action",
    calls: [],
    scope: "resourceGroup",
    why: "checked by Azure on a create or clone that gives its instances a user-assigned managed identity",
  },
  {
    action: "Microsoft.Insights/autoscalesettings/read",
    calls: [{ method: "GET", path: `${RG}/providers/Microsoft.Insights/autoscalesettings` }],
    scope: "resourceGroup",
    why: "find the Azure Monitor autoscale setting that targets a scale set: its bounds are the server group's min and max",
  },
  {
    action: "Microsoft.Insights/autoscalesettings/write",
    calls: [{ method: "PUT", path: `${RG}/providers/Microsoft.Insights/autoscalesettings/{name}` }],
    scope: "resourceGroup",
    why: "resize and scaleDown write min and max into the autoscale setting's profile; disable and enable suspend and resume it; a clone (or a deploy with a source) writes its copy of the source's setting",
  },
  {
    action: "Microsoft.Insights/autoscalesettings/delete",
    calls: [{ method: "DELETE", path: `${RG}/providers/Microsoft.Insights/autoscalesettings/{name}` }],
    scope: "resourceGroup",
    why: "destroyServerGroup deletes the autoscale setting that targets the scale set (Azure leaves it behind)",
  },
  {
    action: "Microsoft.Authorization/locks/read",
    calls: [
      { method: "GET", path: `${RG}${LOCKS}` },
      { method: "GET", path: `${VMSS}${LOCKS}` },
      { method: "GET", path: `${VM}${LOCKS}` },
    ],
    scope: "resourceGroup",
    why: "management locks that protect a Flexible set's instances, read before a delete is sent",
  },
  {
    action: "Microsoft.Resources/subscriptions/resourceGroups/read",
    calls: [
      { method: "GET", path: `${SUB}/resourceGroups` },
      { method: "GET", path: `${SUB}/resourcegroups` },
      { method: "GET", path: RG },
    ],
    scope: "resourceGroup",
    why: "`/ready` (can the account reach Azure), and where a server group's resource group is",
  },
  {
    action: "Microsoft.Resources/subscriptions/resourceGroups/resources/read",
    calls: [{ method: "GET", path: `${RG}/resources` }],
    scope: "resourceGroup",
    why: "`conformance`: what a resource group holds, so that a run refuses a group with anything it did not make",
  },
  {
    action: "Microsoft.KeyVault/vaults/secrets/getSecret/action",
    data: true,
    calls: [
      { method: "GET", path: "/secrets/{name}" },
      { method: "GET", path: "/keyvaults/{vault}/secrets/{name}" },
    ],
    scope: "vault",
    why: "the VM admin's user name and SSH key (or password) from the account's Key Vault, for a create",
  },
  {
    action: "Microsoft.Authorization/permissions/read",
    calls: [
      { method: "GET", path: `${SUB}/providers/Microsoft.Authorization/permissions` },
      { method: "GET", path: `${RG}/providers/Microsoft.Authorization/permissions` },
      {
        method: "GET",
        path: `${RG}/providers/{namespace}/{type}/{name}/providers/Microsoft.Authorization/permissions`,
      },
    ],
    scope: "resourceGroup",
    why: "`doctor`: the identity's effective permissions at each scope (an identity reads its own)",
  },
  {
    action: "Microsoft.Resources/subscriptions/read",
    calls: [{ method: "GET", path: SUB }],
    scope: "subscription",
    why: "`doctor`: the subscription is there and enabled",
  },
  {
    action: "Microsoft.Resources/subscriptions/providers/read",
    calls: [{ method: "GET", path: `${SUB}/providers/{namespace}` }],
    scope: "subscription",
    why: "`doctor`: Microsoft.Compute, Microsoft.Network and Microsoft.KeyVault are registered, with the api-versions used",
  },
  {
    action: "Microsoft.Compute/skus/read",
    calls: [{ method: "GET", path: `${SUB}/providers/Microsoft.Compute/skus` }],
    scope: "subscription",
    why: "`doctor`: the vCPUs and quota family of each VM size the server groups use; `conformance`: the smallest size the region offers the subscription; a zonal create or clone: whether its region offers zones (without it, Azure judges the zones)",
  },
  {
    action: "Microsoft.Compute/locations/usages/read",
    calls: [{ method: "GET", path: `${SUB}/providers/Microsoft.Compute/locations/{location}/usages` }],
    scope: "subscription",
    why: "`doctor`: quota headroom (cores per family, regional cores, scale sets) against the largest cluster; `conformance`: room for its instances",
  },
];

function segmentsOf(path: string): string[] {
  return path.replace(/^\/+|\/+$/g, "").split("/");
}

/** Does a request path match a row's path (`{…}` one segment, literals case-insensitive, as ARM paths are)? */
function pathMatches(pattern: string, path: string): boolean {
  const want = segmentsOf(pattern);
  const got = segmentsOf(path);
  if (want.length !== got.length) return false;
  return want.every((w, i) => (w.startsWith("{") ? got[i] !== "" : w.toLowerCase() === got[i].toLowerCase()));
}

/** The row a request needs: the most specific path that matches (literal segments before placeholders). */
export function actionOfCall(method: string, path: string): ArmAction | undefined {
  const pathOnly = path.split("?")[0];
  let best: { row: ArmAction; literals: number } | undefined;
  for (const row of ARM_ACTIONS) {
    for (const call of row.calls) {
      if (call.method !== method.toUpperCase() || !pathMatches(call.path, pathOnly)) continue;
      const literals = segmentsOf(call.path).filter((s) => !s.startsWith("{")).length;
      if (!best || literals > best.literals) best = { row, literals };
    }
  }
  return best?.row;
}

/** The actions to grant at a scope, control plane and data plane apart, in the table's order. */
export function actionsAt(scope: ActionScope): { actions: string[]; dataActions: string[] } {
  const rows = ARM_ACTIONS.filter((r) => r.scope === scope);
  return {
    actions: rows.filter((r) => !r.data).map((r) => r.action),
    dataActions: rows.filter((r) => r.data).map((r) => r.action),
  };
}

/** A custom role of the actions granted at a scope, as `az role definition create --role-definition` takes it. */
export function customRole(
  scope: Exclude<ActionScope, "vault">,
  assignableScope: string,
): { Name: string; Description: string; Actions: string[]; AssignableScopes: string[] } {
  const { actions } = actionsAt(scope);
  return scope === "resourceGroup"
    ? {
        Name: "vmss-ops operator",
        Description: "Resize, disable, enable, scale down, upgrade, create and destroy VM scale sets (vmss-ops).",
        Actions: actions,
        AssignableScopes: [assignableScope],
      }
    : {
        Name: "vmss-ops subscription reader",
        Description: "Read the subscription, its resource providers and its Compute quota (vmss-ops doctor).",
        Actions: actions,
        AssignableScopes: [assignableScope],
      };
}
