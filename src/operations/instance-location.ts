// The scale set of an instance action whose description names only instances: Deck's one-instance reboot and
// terminate (packages/core/src/instance/instance.write.service.ts l.31-46, l.77-90) send the instance's id, account
// and region, no serverGroupName. Deck's instance id is Clouddriver's, the VM's name (clouddriver-azure
// AzureInstance.groovy l.44: `name = vm.name()`), and Azure names a scale set's VMs after it: `{scale set}_{instance
// id}` on a Uniform set, `{scale set}_{8 characters}` on a Flexible one. The name is read from there at submission,
// then confirmed on Azure (the VM is listed under that scale set) before the task is stored; the description is
// stored with the name so located, and the task is ordered and run by it.
import type { AccountRegistry } from "../azure/accounts.ts";
import { observe } from "../azure/observe.ts";
import type { RetryConfig } from "../azure/retry-policy.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import type { FieldProblem } from "./description.ts";
import type { LocatedDescription } from "./operation.ts";

/**
 * Whether `vm` is the instance a request names: by its instance id, or by its VM name (`<scale set>_<id>` on a
 * Uniform set). Clouddriver's instance id is the VM's name (ServerGroupController.groovy's InstanceViewModel:
 * `id = instance.name`; clouddriver-azure's AzureInstance: `name = vm.name()`), and Deck sends that id.
 */
export function isNamed(vm: { instanceId?: string; name?: string }, wanted: ReadonlySet<string>): boolean {
  return (vm.instanceId !== undefined && wanted.has(vm.instanceId)) || (vm.name !== undefined && wanted.has(vm.name));
}

/** Azure's scale set names (description.ts ScaleSetName), then `_` and the VM's own part: digits, or letters and digits. */
const VM_NAME = /^([A-Za-z0-9](?:[A-Za-z0-9._-]{0,62}[A-Za-z0-9_])?)_([A-Za-z0-9]+)$/;

/** The scale set a VM's name names (`web-prod-v001_3` → `web-prod-v001`), or undefined: an instance id such as `3`. */
export function scaleSetOfVmName(id: string): string | undefined {
  return VM_NAME.exec(id)?.[1];
}

/** The one scale set every instance id names, when each names one and all the same. */
function scaleSetOfInstances(instanceIds: readonly string[]): string | undefined {
  const names = new Set(instanceIds.map(scaleSetOfVmName));
  const [only] = names;
  return names.size === 1 ? only : undefined;
}

/** An instance action's description, with the scale set its VM names name when it names none itself. */
export function locateByInstances(d: {
  serverGroupName?: string;
  instanceIds: string[];
  region: string;
}): LocatedDescription {
  // Without a name (none given, none read): locate() reports serverGroupName missing, and check says why.
  const name = d.serverGroupName ?? scaleSetOfInstances(d.instanceIds);
  return { ...d, serverGroupName: name } as LocatedDescription;
}

/** Why the instance ids of a description without serverGroupName do not say which scale set they are in. */
export function instanceLocationProblems(d: { serverGroupName?: string; instanceIds: string[] }): FieldProblem[] {
  if (d.serverGroupName !== undefined) return [];
  const bare = d.instanceIds.filter((id) => scaleSetOfVmName(id) === undefined);
  if (bare.length > 0)
    return [
      {
        field: "instanceIds",
        message: `${bare.join(", ")} ${bare.length === 1 ? "is an instance id, not a VM name" : "are instance ids, not VM names"}, and serverGroupName is not given: send serverGroupName, or the VMs' names as Azure lists them ({scale set}_{id}, e.g. web-prod-v001_3), which say their scale set`,
      },
    ];
  const names = [...new Set(d.instanceIds.map(scaleSetOfVmName))];
  if (names.length > 1)
    return [
      {
        field: "instanceIds",
        message: `names VMs of ${names.length} scale sets (${names.join(", ")}); one description acts on one scale set: send one per scale set (POST /azure/ops takes a list)`,
      },
    ];
  return [];
}

/**
 * Whether Azure lists every VM of `instanceIds` under the scale set `target` names (Uniform: its VMs; Flexible: the
 * resource group's VMs of that set). Undefined when it does; else what was looked for and not found. A failed read
 * (the scale set absent, Azure unreachable) is thrown, as Azure said it.
 */
export async function unconfirmedInstances(
  accounts: Pick<AccountRegistry, "gateway">,
  target: ScaleSetRef,
  instanceIds: readonly string[],
  retry: RetryConfig,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const gateway = accounts.gateway(target);
  const snapshot = await observe((s) => gateway.read({ withInstances: true, signal: s }), { retry, signal });
  const vms = snapshot.vms ?? [];
  const missing = instanceIds.filter((id) => !vms.some((vm) => isNamed(vm, new Set([id]))));
  if (missing.length === 0) return undefined;
  const listed = vms.map((vm) => vm.name ?? vm.instanceId).join(", ") || "none";
  return `no VM named ${missing.join(", ")} in scale set ${target.name} (account ${target.account}, region ${target.region}, resource group ${target.resourceGroup}; located from the VM's name, serverGroupName not given); its VMs: ${listed}`;
}
