// What a rolling upgrade changes in the scale set's model, how it records that it is under way (tags on the scale
// set, so any replica, after any restart, plans from the same facts), and how it reads an instance from Azure's
// VM list. Pure: a description and a read in, a patch, tags or instance views out.
import { createHash } from "node:crypto";
import type { VirtualMachineScaleSet, VirtualMachineScaleSetUpdate, VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { instanceLife, isRunningInstance } from "../azure/scale-set-state.ts";
import type { UpgradeInstance } from "./rolling-upgrade-plan.ts";
import { disabledBy, servesTraffic, trafficPools, vmTrafficPools, type Tags } from "./server-group-state.ts";

/** The model change: a hash of it, so that a retried or resumed upgrade knows it applied it (customData is never read back). */
export const TAG_UPGRADE_MODEL = "vmss-ops.upgrade-model";
/** While an upgrade runs: the desired count it keeps (the capacity before it surged). Removed when it ends. */
export const TAG_UPGRADE_DESIRED = "vmss-ops.upgrade-desired";

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
    image: change.image ? Object.fromEntries(Object.entries(change.image).sort(([a], [b]) => a.localeCompare(b))) : null,
    customData: change.customData ?? null,
    sku: change.sku?.name ?? null,
    tags: change.tags ? Object.fromEntries(Object.entries(change.tags).sort(([a], [b]) => a.localeCompare(b))) : null,
  });
  return createHash("sha256").update(canonical).digest("hex").slice(0, 16);
}

/** "image Canonical/ubuntu-24_04-lts/server/latest, size Standard_D4s_v3, custom data, 2 tag(s)". */
export function describeChange(change: ModelChange): string {
  const parts: string[] = [];
  if (change.image) parts.push(`image ${"id" in change.image ? change.image.id.split("/").at(-1) : [change.image.publisher, change.image.offer, change.image.sku, change.image.version ?? "latest"].join("/")}`);
  if (change.sku) parts.push(`size ${change.sku.name}`);
  if (change.customData !== undefined) parts.push("custom data");
  if (change.tags) parts.push(`${Object.keys(change.tags).length} tag(s)`);
  return parts.join(", ");
}

/** The PATCH that applies the change and records the upgrade (desired: the count it keeps). */
export function modelPatch(vmss: VirtualMachineScaleSet, change: ModelChange, desired: number): VirtualMachineScaleSetUpdate {
  const tags: Tags = { ...vmss.tags, ...change.tags, [TAG_UPGRADE_MODEL]: changeHash(change), [TAG_UPGRADE_DESIRED]: String(desired) };
  const profile: NonNullable<VirtualMachineScaleSetUpdate["virtualMachineProfile"]> = {};
  if (change.image) profile.storageProfile = { imageReference: "id" in change.image ? { id: change.image.id } : { ...change.image, version: change.image.version ?? "latest" } };
  if (change.customData !== undefined) profile.osProfile = { customData: change.customData };
  return {
    tags,
    ...(change.sku ? { sku: { ...vmss.sku, name: change.sku.name } } : {}),
    ...(Object.keys(profile).length > 0 ? { virtualMachineProfile: profile } : {}),
  };
}

/** The tags once the upgrade has ended: the change stays recorded, "under way" goes. */
export function finishedTags(tags: Tags | undefined): Tags {
  const out: Tags = { ...tags };
  delete out[TAG_UPGRADE_DESIRED];
  return out;
}

export function recordedDesired(vmss: VirtualMachineScaleSet): number | undefined {
  const v = vmss.tags?.[TAG_UPGRADE_DESIRED];
  return v !== undefined && /^\d+$/.test(v) ? Number(v) : undefined;
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

export function upgradeInstances(vms: VirtualMachineScaleSetVM[], inTraffic: boolean): UpgradeInstance[] {
  return vms
    .filter((vm) => vm.instanceId !== undefined)
    .map((vm) => ({
      id: vm.instanceId!,
      createdMs: vm.timeCreated ? new Date(vm.timeCreated).getTime() : 0,
      state: instanceLife(vm),
      latestModel: vm.latestModelApplied !== false,
      ready: isReady(vm, inTraffic),
    }));
}
