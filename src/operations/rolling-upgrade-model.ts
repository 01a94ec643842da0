// What a rolling upgrade changes in the scale set's model, how it records that it is under way (tags on the scale
// set, so any replica, after any restart, plans from the same facts), and how it reads an instance from Azure's
// VM list. Pure: a description and a read in, a patch, tags or instance views out.
import { createHash } from "node:crypto";
import type {
  VirtualMachineScaleSet,
  VirtualMachineScaleSetUpdate,
  VirtualMachineScaleSetVM,
} from "@azure/arm-compute";
import { RefusalError } from "../azure/arm-failure.ts";
import { instanceLife, isActionableInstance, isRunningInstance, kindOf } from "../azure/scale-set-state.ts";
import type { UpgradeInstance } from "./rolling-upgrade-plan.ts";
import { disabledBy, servesTraffic, trafficPools, vmTrafficPools, type Tags } from "./server-group-state.ts";

/** The model change: a hash of it, so that a retried or resumed upgrade knows it applied it (customData is never read back). */
export const TAG_UPGRADE_MODEL = "vmss-ops.upgrade-model";
/** While an upgrade runs: the desired count it keeps (the capacity before it surged). Removed when it ends. */
export const TAG_UPGRADE_DESIRED = "vmss-ops.upgrade-desired";
/**
 * While an upgrade of a Flexible set runs: the VMs that were there when the new model was applied, which run the old
 * one (a Flexible VM reports no latestModelApplied). Cut into tag values: vmss-ops.upgrade-old.0, .1, … Removed when
 * it ends.
 */
export const TAG_UPGRADE_OLD = "vmss-ops.upgrade-old.";

const AZURE_MAX_TAGS = 50;
const AZURE_MAX_TAG_VALUE = 256;

export type ImageReference = { publisher: string; offer: string; sku: string; version?: string } | { id: string };

export interface ModelChange {
  image?: ImageReference;
  customData?: string;
  sku?: { name: string };
  tags?: Record<string, string>;
}

/** The same change gives the same 16 hex digits, whatever the key order. */
export function changeHash(change: ModelChange): string {
  const canonical = JSON.stringify({
    image: change.image
      ? Object.fromEntries(Object.entries(change.image).sort(([a], [b]) => a.localeCompare(b)))
      : null,
    customData: change.customData ?? null,
    sku: change.sku?.name ?? null,
    tags: change.tags ? Object.fromEntries(Object.entries(change.tags).sort(([a], [b]) => a.localeCompare(b))) : null,
  });
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

/** "image Canonical/ubuntu-24_04-lts/server/latest, size Standard_D4s_v3, custom data, 2 tag(s)". */
export function describeChange(change: ModelChange): string {
  const parts: string[] = [];
  if (change.image)
    parts.push(
      `image ${"id" in change.image ? change.image.id.split("/").at(-1) : [change.image.publisher, change.image.offer, change.image.sku, change.image.version ?? "latest"].join("/")}`,
    );
  if (change.sku) parts.push(`size ${change.sku.name}`);
  if (change.customData !== undefined) parts.push("custom data");
  if (change.tags) parts.push(`${Object.keys(change.tags).length} tag(s)`);
  return parts.join(", ");
}

/**
 * The PATCH that applies the change and records the upgrade (desired: the count it keeps). `oldVms`: on a Flexible set,
 * the VMs there now, recorded as the ones on the old model (any record of an earlier upgrade replaced).
 */
export function modelPatch(
  vmss: VirtualMachineScaleSet,
  change: ModelChange,
  desired: number,
  oldVms?: string[],
): VirtualMachineScaleSetUpdate {
  const base: Tags = {
    ...withoutOldVmsRecord(vmss.tags),
    ...change.tags,
    [TAG_UPGRADE_MODEL]: changeHash(change),
    [TAG_UPGRADE_DESIRED]: String(desired),
  };
  const tags = oldVms ? withOldVmsRecord(base, oldVms, vmss.name ?? "") : base;
  const profile: NonNullable<VirtualMachineScaleSetUpdate["virtualMachineProfile"]> = {};
  if (change.image)
    profile.storageProfile = {
      imageReference:
        "id" in change.image ? { id: change.image.id } : { ...change.image, version: change.image.version ?? "latest" },
    };
  if (change.customData !== undefined) profile.osProfile = { customData: change.customData };
  return {
    tags,
    ...(change.sku ? { sku: { ...vmss.sku, name: change.sku.name } } : {}),
    ...(Object.keys(profile).length > 0 ? { virtualMachineProfile: profile } : {}),
  };
}

/** The tags once the upgrade has ended: the change stays recorded, "under way" (and a Flexible set's old VMs) goes. */
export function finishedTags(tags: Tags | undefined): Tags {
  const out: Tags = withoutOldVmsRecord(tags);
  delete out[TAG_UPGRADE_DESIRED];
  return out;
}

function withoutOldVmsRecord(tags: Tags | undefined): Tags {
  return Object.fromEntries(Object.entries(tags ?? {}).filter(([k]) => !k.startsWith(TAG_UPGRADE_OLD)));
}

/** A VM named `{set}_{suffix}` (Azure's naming) is kept as "~suffix", so that a record fits in fewer tags. */
function compressVm(name: string, setName: string): string {
  return setName && name.startsWith(`${setName}_`) ? `~${name.slice(setName.length + 1)}` : name;
}

function withOldVmsRecord(tags: Tags, names: string[], setName: string): Tags {
  const text = names.map((n) => compressVm(n, setName)).join(",");
  const out: Tags = { ...tags };
  // Always one tag at least: an empty record still says "nothing is on the old model".
  for (let i = 0; i === 0 || i * AZURE_MAX_TAG_VALUE < text.length; i++)
    out[`${TAG_UPGRADE_OLD}${i}`] = text.slice(i * AZURE_MAX_TAG_VALUE, (i + 1) * AZURE_MAX_TAG_VALUE);
  if (Object.keys(out).length > AZURE_MAX_TAGS) {
    throw new RefusalError(
      "TooManyTags",
      `recording the ${names.length} VMs on the old model of ${setName} needs ${Object.keys(out).length} tags, more than Azure's ${AZURE_MAX_TAGS}; remove some tags from it`,
    );
  }
  return out;
}

/** The VMs a Flexible set's upgrade found on the old model, or undefined when none is recorded. */
export function readOldVmsRecord(vmss: VirtualMachineScaleSet): Set<string> | undefined {
  if (vmss.tags?.[`${TAG_UPGRADE_OLD}0`] === undefined) return undefined;
  const chunks: string[] = [];
  for (let i = 0; vmss.tags[`${TAG_UPGRADE_OLD}${i}`] !== undefined; i++)
    chunks.push(vmss.tags[`${TAG_UPGRADE_OLD}${i}`]);
  const setName = vmss.name ?? "";
  return new Set(
    chunks
      .join("")
      .split(",")
      .filter(Boolean)
      .map((n) => (n.startsWith("~") ? `${setName}_${n.slice(1)}` : n)),
  );
}

export function recordedDesired(vmss: VirtualMachineScaleSet): number | undefined {
  const v = vmss.tags?.[TAG_UPGRADE_DESIRED];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
}

/** A Flexible set's VMs we may act on now: what its upgrade records as on the old model when it applies the new one. */
export function flexibleOldVms(
  vmss: VirtualMachineScaleSet,
  vms: VirtualMachineScaleSetVM[] | undefined,
): string[] | undefined {
  if (kindOf(vmss).orchestration !== "Flexible") return undefined;
  return (vms ?? []).filter(isActionableInstance).map((vm) => vm.instanceId!);
}

/** In traffic: in a backend pool that is not a parking pool, and not disabled by vmss-ops. */
export function scaleSetInTraffic(vmss: VirtualMachineScaleSet): boolean {
  return servesTraffic(trafficPools(vmss)) && disabledBy(vmss) === undefined;
}

/**
 * Ready: provisioning Succeeded, running, and when the scale set is in traffic, in a pool and healthy as far as the
 * health probe reports (Azure lists vmHealth only where a probe or the health extension watches the VM: where it
 * lists none, running is all Azure can tell).
 */
export function isReady(vm: VirtualMachineScaleSetVM, inTraffic: boolean): boolean {
  // Running as scale-set-state.ts decides it: an evicted Spot VM is Succeeded and deallocated, not ready.
  if ((vm.provisioningState ?? "").toLowerCase() !== "succeeded" || !isRunningInstance(vm)) return false;
  if (!inTraffic) return true;
  const pools = vmTrafficPools(vm);
  if (pools !== undefined && !servesTraffic(pools)) return false;
  const health = vm.instanceView?.vmHealth?.status?.code;
  return health === undefined || health.toLowerCase() === "healthstate/healthy";
}

/**
 * The instances as the plan sees them. `oldVms`: a Flexible set's record of the VMs on the old model (its VMs report
 * no latestModelApplied); a Uniform set's VMs say it themselves.
 */
export function upgradeInstances(
  vms: VirtualMachineScaleSetVM[],
  inTraffic: boolean,
  oldVms?: Set<string>,
): UpgradeInstance[] {
  return vms
    .filter((vm) => vm.instanceId !== undefined)
    .map((vm) => ({
      id: vm.instanceId!,
      createdMs: vm.timeCreated ? new Date(vm.timeCreated).getTime() : 0,
      state: instanceLife(vm),
      latestModel: oldVms ? !oldVms.has(vm.instanceId!) : vm.latestModelApplied !== false,
      ready: isReady(vm, inTraffic),
    }));
}
