// Instance views: `GET …/virtualMachineScaleSets/{name}/instanceView` (the scale set's statuses and a count of its VMs
// by state) and `GET …/virtualMachines/{id}/instanceView` (one VM: provisioning and power state, fault and update
// domain, the health probe's vmHealth). Shapes of the REST spec's VirtualMachineScaleSet_GetInstanceView and
// VirtualMachineScaleSetVM_GetInstanceView examples, limited to what the simulator models (no extensions, disks or VM
// agent).
import { probeHealth, renderInstanceView } from "./health-probe.ts";
import { getPath, type JsonObject } from "./json.ts";
import type { SimulatorSettings } from "./settings.ts";
import { sortedVms, type ScaleSet, type Vm } from "./vmss-model.ts";

const SCALE_SET_DISPLAY: Record<ScaleSet["provisioningState"], string> = {
  Succeeded: "Provisioning succeeded",
  Creating: "Creating",
  Updating: "Updating",
  Deleting: "Deleting",
  Failed: "Provisioning failed",
};

/** The scale set's instance view: its own provisioning status and how many VMs are in each provisioning state. */
export function renderScaleSetInstanceView(ss: ScaleSet): JsonObject {
  const counts = new Map<string, number>();
  for (const vm of sortedVms(ss)) {
    const code =
      vm.provisioningState === "Failed"
        ? "ProvisioningState/failed/AllocationFailed"
        : `ProvisioningState/${vm.provisioningState.toLowerCase()}`;
    counts.set(code, (counts.get(code) ?? 0) + 1);
  }
  return {
    virtualMachine: { statusesSummary: [...counts].map(([code, count]) => ({ code, count })) },
    statuses: [
      {
        code: `ProvisioningState/${ss.provisioningState.toLowerCase()}`,
        level: ss.provisioningState === "Failed" ? "Error" : "Info",
        displayStatus: SCALE_SET_DISPLAY[ss.provisioningState],
        time: ss.timeCreated,
      },
    ],
  };
}

function faultDomainCount(ss: ScaleSet): number {
  const count = getPath(ss.model, "properties", "platformFaultDomainCount");
  return typeof count === "number" && Number.isInteger(count) && count > 0 ? count : 5;
}

/** A Uniform VM's fault domain: its instance id over the set's count (5 when it names none). */
export function uniformFaultDomain(ss: ScaleSet, vm: Vm): number {
  return Number(vm.instanceId) % faultDomainCount(ss);
}

/** One VM's instance view: its statuses (and vmHealth) as the `$expand=instanceView` list gives them, plus its domains. */
export function renderVmInstanceView(ss: ScaleSet, vm: Vm, settings: SimulatorSettings, now: number): JsonObject {
  const id = Number(vm.instanceId);
  return {
    platformUpdateDomain: id % 5,
    platformFaultDomain: uniformFaultDomain(ss, vm),
    ...renderInstanceView(vm, probeHealth(vm, settings, now)),
  };
}
