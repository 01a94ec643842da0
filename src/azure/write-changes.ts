// What a planned write changes of what Azure holds (what-if.ts's shape), from the requests it sends
// (write-requests.ts) and the read it was planned on: a change of the scale set compared with its GET as Azure
// answered it, a Flexible VM's NIC with the NIC as listed, an autoscale setting with the one read.
import type { PlannedWrite } from "./observe.ts";
import { afterPatch, modifyOf, type ResourceChange } from "./what-if.ts";
import type { ArmRequest } from "./write-requests.ts";

function resourceIdOf(request: ArmRequest): string {
  return request.path.split("?")[0];
}

/** Each resource the write changes: the scale set, its NICs, its autoscale setting, the VMs it deletes. */
export function changesOfWrite(planned: PlannedWrite, requests: ArmRequest[]): ResourceChange[] {
  const { step, snapshot, asRead } = planned;
  const [first] = requests;
  if (!first) return [];
  const id = resourceIdOf(first);
  switch (step.kind) {
    case "create":
      return [{ resourceId: id, changeType: "Create" }];
    case "delete":
      return [{ resourceId: id, changeType: "Delete" }];
    case "update":
      return [modifyOf(id, asRead, afterPatch(asRead, first.body))];
    case "deleteInstances": {
      const scaleSetId = id.replace(/\/delete$/i, "");
      return step.instanceIds.map((i) => ({ resourceId: `${scaleSetId}/virtualMachines/${i}`, changeType: "Delete" }));
    }
    case "nicPools":
      return requests.map((request) => {
        const nicId = resourceIdOf(request);
        const nic = snapshot?.nics?.find((n) => n.id.toLowerCase() === nicId.toLowerCase());
        return modifyOf(nicId, nic?.resource, request.body);
      });
    case "instancePools":
      return requests.map((request) => {
        const vmId = resourceIdOf(request);
        const vm = snapshot?.vms?.find((v) => (v.id ?? "").toLowerCase() === vmId.toLowerCase());
        return modifyOf(vmId, vm, request.body);
      });
    case "autoscale": {
      if (first.method === "DELETE") return [{ resourceId: id, changeType: "Delete" }];
      const held = snapshot?.autoscale;
      const same = held && (held.id ?? "").toLowerCase() === id.toLowerCase();
      return [same ? modifyOf(id, held, first.body) : { resourceId: id, changeType: "Create" }];
    }
    // A destroy's clean-up of a shared balancer, planned only once the scale set is gone: the balancer it read is not
    // kept with the step, so the change is named without its properties.
    case "balancerPools":
      return [{ resourceId: id, changeType: "Modify" }];
    // Actions on instances (an upgrade to the model, a restart, automatic repairs' state): no model changes.
    case "manualUpgrade":
    case "restartInstances":
    case "repairs":
      return [];
  }
}
