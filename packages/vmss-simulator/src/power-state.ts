// VM power states and the power actions that move them (deallocate, start, powerOff, restart, reimage), for a whole
// scale set or one VM. Each is a long-running operation: the VMs show the transitional state (`PowerState/deallocating`)
// from acceptance and the final one (`PowerState/deallocated`) once it completes. The statuses and display strings
// are those of Azure's instance views (VirtualMachineScaleSetVM_GetInstanceView examples; `az vm get-instance-view`).

export type PowerState = "running" | "starting" | "stopping" | "stopped" | "deallocating" | "deallocated";

export const POWER_ACTIONS = ["deallocate", "start", "powerOff", "restart", "reimage"] as const;
export type PowerAction = (typeof POWER_ACTIONS)[number];

/** The action behind each URL verb (`POST …/poweroff`; the REST paths are lower-case where the SDK method is not). */
export const POWER_ACTION_VERBS: Readonly<Record<string, PowerAction>> = {
  deallocate: "deallocate",
  start: "start",
  poweroff: "powerOff",
  restart: "restart",
  reimage: "reimage",
};

const TRANSITIONS: Readonly<Record<PowerAction, { during: PowerState; after: PowerState }>> = {
  deallocate: { during: "deallocating", after: "deallocated" },
  start: { during: "starting", after: "running" },
  powerOff: { during: "stopping", after: "stopped" },
  restart: { during: "starting", after: "running" },
  // A reimage restores the OS disk and boots the VM again.
  reimage: { during: "starting", after: "running" },
};

export function isPowerAction(kind: string): kind is PowerAction {
  return (POWER_ACTIONS as readonly string[]).includes(kind);
}

/**
 * The state a VM shows while the action runs, or undefined when the action has nothing to do for it: starting a
 * running VM, stopping a stopped one. A restart or a reimage always boots the VM again.
 */
export function powerStateDuring(action: PowerAction, current: PowerState): PowerState | undefined {
  const { during, after } = TRANSITIONS[action];
  if (action !== "restart" && action !== "reimage" && current === after) return undefined;
  return during;
}

export function powerStateAfter(action: PowerAction): PowerState {
  return TRANSITIONS[action].after;
}

export function powerStatus(state: PowerState): { code: string; level: "Info"; displayStatus: string } {
  return { code: `PowerState/${state}`, level: "Info", displayStatus: `VM ${state}` };
}
