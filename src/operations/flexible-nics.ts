// A Flexible scale set's traffic: each VM's NIC is its own resource, and a change of the scale set's network profile
// reaches only the VMs made after it. So taking a Flexible set out of traffic (or back in) is the model's change
// (for new VMs) and then each existing VM's NIC moved to exactly the model's pools. Pure: a read in, NIC writes out.
import type { FlexibleNic } from "../azure/flexible-vms.ts";
import { isActionableInstance } from "../azure/scale-set-state.ts";
import type { NicWrite, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import type { PoolBinding, PoolKind } from "./server-group-state.ts";

type IpConfiguration = { name?: string; properties?: Record<string, unknown> };

const FIELD: Record<PoolKind, string> = {
  lb: "loadBalancerBackendAddressPools",
  agw: "applicationGatewayBackendAddressPools",
};

function idsIn(list: unknown): string[] {
  return Array.isArray(list)
    ? list
        .map((p: unknown) =>
          typeof p === "object" && p !== null && "id" in p && typeof p.id === "string" ? p.id.toLowerCase() : "",
        )
        .filter(Boolean)
        .sort()
    : [];
}

function sameIds(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i]);
}

/** The NIC's body with each IP configuration in exactly the pools `pools` give its NIC configuration, or undefined when it is already so. */
export function nicWithPools(nic: FlexibleNic, pools: PoolBinding[]): NicWrite | undefined {
  const ipConfigurations = (nic.resource.properties?.ipConfigurations ?? []) as IpConfiguration[];
  let changed = false;
  const moved = ipConfigurations.map((ipc) => {
    const mine = pools.filter((p) => p.nic === nic.configName && p.ipConfig === ipc.name);
    const properties: Record<string, unknown> = { ...ipc.properties };
    for (const kind of ["lb", "agw"] as const) {
      const want = mine.filter((p) => p.kind === kind).map((p) => ({ id: p.id }));
      if (!sameIds(idsIn(properties[FIELD[kind]]), idsIn(want))) changed = true;
      properties[FIELD[kind]] = want;
    }
    return { ...ipc, properties };
  });
  if (!changed) return undefined;
  return {
    vm: nic.vm,
    id: nic.id,
    etag: nic.etag,
    body: { ...nic.resource, properties: { ...nic.resource.properties, ipConfigurations: moved } },
  };
}

/**
 * The NIC writes that leave every VM we may act on in exactly `pools` (the model's, per NIC and IP configuration).
 * A VM being deleted is left alone: Azure is removing it, NIC and all.
 */
export function nicWritesToPools(snapshot: ScaleSetSnapshot, pools: PoolBinding[]): NicWrite[] {
  const actionable = new Set((snapshot.vms ?? []).filter(isActionableInstance).map((vm) => vm.instanceId));
  return (snapshot.nics ?? [])
    .filter((nic) => actionable.has(nic.vm))
    .map((nic) => nicWithPools(nic, pools))
    .filter((w): w is NicWrite => w !== undefined);
}

/** "web-v001_0a1b2c3d, web-v001_4e5f6a7b": the VMs a NIC step moves. */
export function vmsOf(writes: NicWrite[]): string {
  return [...new Set(writes.map((w) => w.vm))].join(", ");
}
