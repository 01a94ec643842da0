// The health probe, as the simulator models it: a VM that sits in a load-balancer backend pool, or whose model carries
// the Application Health extension, is reported `HealthState/initializing` from the moment it runs until the probe
// has seen it answer, then `HealthState/healthy`. Azure reports this as the VM instance view's `vmHealth` when the
// scale set has a health probe or the Application Health extension; a VM watched by neither, or with the probe
// switched off (`healthProbeSeconds: null`), reports no vmHealth at all. A Flexible VM reports only the extension's
// (network/network-routes.ts, reportedVmHealth). The delay is in Azure seconds, scaled by timeScale.
import { getPath, isObject, type JsonObject } from "./json.ts";
import { powerStatus } from "./power-state.ts";
import { scaledMs, type SimulatorSettings } from "./settings.ts";
import type { Vm } from "./vmss-model.ts";

export type HealthCode =
  "HealthState/healthy" | "HealthState/initializing" | "HealthState/unhealthy" | "HealthState/unknown";

/** Whether the VM's applied NICs put it in a load-balancer backend pool (what the probe watches). */
export function inLoadBalancerPool(profile: JsonObject): boolean {
  const nics = getPath(profile, "networkProfile", "networkInterfaceConfigurations");
  if (!Array.isArray(nics)) return false;
  return nics.some((nic) => {
    const ipcs = getPath(nic, "properties", "ipConfigurations");
    return (
      Array.isArray(ipcs) &&
      ipcs.some((ipc) => {
        const pools = isObject(ipc) ? getPath(ipc, "properties", "loadBalancerBackendAddressPools") : undefined;
        return Array.isArray(pools) && pools.length > 0;
      })
    );
  });
}

const HEALTH_EXTENSION_TYPES = new Set(["applicationhealthlinux", "applicationhealthwindows"]);

/**
 * Whether the VM profile carries the Application Health extension (publisher Microsoft.ManagedServices, type
 * ApplicationHealthLinux or ApplicationHealthWindows): the VM then reports its application's health itself.
 */
export function hasApplicationHealthExtension(profile: JsonObject): boolean {
  const extensions = getPath(profile, "extensionProfile", "extensions");
  if (!Array.isArray(extensions)) return false;
  return extensions.some((e) => {
    const type = isObject(e) ? (getPath(e, "properties", "type") ?? e.type) : undefined;
    return typeof type === "string" && HEALTH_EXTENSION_TYPES.has(type.toLowerCase());
  });
}

/**
 * The probe's view of one VM now, or undefined when nothing probes it (`watched`: by default, in a load-balancer
 * pool or with the Application Health extension). `answers`: whether its application answers
 * the probe at all (network/network-routes.ts can make a scale set's instances fail it): one that never answers is
 * `unhealthy` once the probe has had its time.
 */
export function probeHealth(
  vm: Vm,
  settings: Pick<SimulatorSettings, "healthProbeSeconds" | "timeScale">,
  now: number,
  answers = true,
  watched = inLoadBalancerPool(vm.applied.profile) || hasApplicationHealthExtension(vm.applied.profile),
): HealthCode | undefined {
  if (settings.healthProbeSeconds === null || !watched) return undefined;
  if (vm.provisioningState !== "Succeeded" || vm.runningSince === undefined || vm.powerState !== "running")
    return "HealthState/unknown";
  if (now - vm.runningSince < scaledMs(settings, settings.healthProbeSeconds)) return "HealthState/initializing";
  return answers ? "HealthState/healthy" : "HealthState/unhealthy";
}

const DISPLAY: Record<HealthCode, string> = {
  "HealthState/healthy": "The VM is healthy",
  "HealthState/initializing": "The VM health is being initialized",
  "HealthState/unhealthy": "The VM is unhealthy",
  "HealthState/unknown": "The VM health is unknown",
};

const PROVISIONING_DISPLAY: Record<Vm["provisioningState"], string> = {
  Succeeded: "Provisioning succeeded",
  Creating: "Creating",
  Deleting: "Deleting",
  Failed: "Provisioning failed",
};

/** The VM's instance view, as `GET …/virtualMachines?$expand=instanceView` lists it. */
/** When Azure last booted it (runningSince), else its creation: the time its ProvisioningState status carries. */
function provisionedAt(vm: Vm): string {
  return vm.runningSince !== undefined && Number.isFinite(vm.runningSince)
    ? new Date(vm.runningSince).toISOString()
    : vm.timeCreated;
}

export function renderInstanceView(vm: Vm, health: HealthCode | undefined): JsonObject {
  const statuses: JsonObject[] = [
    {
      code:
        vm.provisioningState === "Failed"
          ? "ProvisioningState/failed/AllocationFailed"
          : `ProvisioningState/${vm.provisioningState.toLowerCase()}`,
      level: vm.provisioningState === "Failed" ? "Error" : "Info",
      displayStatus: PROVISIONING_DISPLAY[vm.provisioningState],
      // As Azure's: when its last operation ended. A VM is booted by its create, a start, a restart or a reimage.
      ...(vm.provisioningState === "Succeeded" ? { time: provisionedAt(vm) } : {}),
    },
  ];
  if (vm.provisioningState === "Succeeded") statuses.push(powerStatus(vm.powerState));
  if (vm.provisioningState === "Deleting")
    statuses.push({ code: "PowerState/stopping", level: "Info", displayStatus: "VM stopping" });
  return {
    statuses,
    ...(health ? { vmHealth: { status: { code: health, level: "Info", displayStatus: DISPLAY[health] } } } : {}),
  };
}
