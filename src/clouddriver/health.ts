// An instance's health as Orca reads it (orca-clouddriver model/Health.java, HealthState.java, utils/HealthHelper.java),
// from what Azure knows: the VM's provisioning state, its power state (when the instance view is listed), and
// whether it is in a backend pool. Pure: a VM in, health out.
import type { VirtualMachineScaleSetVM } from "@azure/arm-compute";
import { instanceLife, powerState } from "../azure/scale-set-state.ts";

/** Clouddriver's HealthState values. */
export type HealthState = "Up" | "Down" | "OutOfService" | "Unknown" | "Starting" | "Failed";

export interface HealthIndicator {
  type: string;
  healthClass?: "platform";
  state: HealthState;
  description?: string;
}

export interface InstanceHealth {
  health: HealthIndicator[];
  healthState: HealthState;
}

export const PLATFORM_HEALTH = "Azure";
export const LOAD_BALANCER_HEALTH = "LoadBalancer";

/** What the VM's own state says: Up when running, otherwise why not. */
export function platformState(vm: VirtualMachineScaleSetVM): { state: HealthState; description: string } {
  const power = powerState(vm);
  switch (instanceLife(vm)) {
    case "failed":
      return { state: "Failed", description: "provisioning failed" };
    case "creating":
      return { state: "Starting", description: "being created" };
    case "deleting":
      return { state: "Down", description: "being deleted" };
    case "running":
      return {
        state: "Up",
        description: power ? "running" : `provisioning ${vm.provisioningState ?? "unknown"}, power state not listed`,
      };
    case "stopped":
      return power === "starting"
        ? { state: "Starting", description: "starting" }
        : { state: "Down", description: power ?? "not running" };
  }
}

/**
 * In a backend pool: what the health probe says (Azure's vmHealth: the load balancer's probe, or the Application
 * Health extension's, which is the only one a Flexible VM reports): Up when healthy or when nothing reports it,
 * Starting while the probe has not yet seen it answer, Down when it does not answer.
 *
 * Up where Azure reports no health (a Flexible VM without the extension) is what Orca then acts on: its deploy waits
 * in WaitForUpInstancesTask.allInstancesMatch until HealthHelper.someAreUpAndNoneAreDownOrStarting holds for the
 * desired count (spinnaker/orca 2fdb327, orca-clouddriver/…/tasks/instance/WaitForUpInstancesTask.groovy l.120-132),
 * which is "some health Up, none Down, OutOfService, Starting or Draining" (…/clouddriver/utils/HealthHelper.java
 * l.127-137). So such a VM counts as up once it runs in a pool, the same meaning as our create's success there
 * (create-server-group.ts, healthOf); the description says so.
 */
function probed(vm: VirtualMachineScaleSetVM): HealthIndicator {
  const code = (vm.instanceView?.vmHealth?.status?.code ?? "").toLowerCase();
  if (code === "healthstate/unhealthy")
    return { type: LOAD_BALANCER_HEALTH, state: "Down", description: "in a backend pool, failing the health probe" };
  if (code === "healthstate/initializing" || code === "healthstate/unknown")
    return {
      type: LOAD_BALANCER_HEALTH,
      state: "Starting",
      description: "in a backend pool, not yet seen healthy by the probe",
    };
  return {
    type: LOAD_BALANCER_HEALTH,
    state: "Up",
    description: code
      ? "in a backend pool, healthy"
      : "in a backend pool; Azure reports no health for it (up means running in the pool)",
  };
}

/**
 * Health indicators for one VM. `inTraffic` is whether it is in a backend pool, or undefined when the scale set
 * has no load balancer (and is not disabled out of one): then only the platform speaks, and a running VM is Up.
 * With a load balancer, the platform indicator of a running VM is Unknown (as Clouddriver's AWS platform health is)
 * and the load balancer decides: Up in a pool, OutOfService out of it. That is what makes HealthHelper's
 * someAreDownAndNoneAreUp true for a disabled, running VM, and someAreUpAndNoneAreDownOrStarting true for an
 * enabled one.
 */
export function instanceHealth(vm: VirtualMachineScaleSetVM, inTraffic: boolean | undefined): InstanceHealth {
  const platform = platformState(vm);
  const running = platform.state === "Up";
  if (inTraffic === undefined) {
    return {
      health: [
        { type: PLATFORM_HEALTH, healthClass: "platform", state: platform.state, description: platform.description },
      ],
      healthState: platform.state,
    };
  }
  const lb: HealthIndicator = inTraffic
    ? probed(vm)
    : { type: LOAD_BALANCER_HEALTH, state: "OutOfService", description: "in no backend pool" };
  return {
    health: [
      {
        type: PLATFORM_HEALTH,
        healthClass: "platform",
        state: running ? "Unknown" : platform.state,
        description: platform.description,
      },
      lb,
    ],
    healthState: running ? lb.state : platform.state,
  };
}
