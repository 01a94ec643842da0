"""Microsoft's Python SDK (Debian's python3-azure, api-version 2022-08-01) on a Flexible scale set: it lists the set's
VMs with the VM list's scale-set filter, reads one with its instance view, deallocates it, deletes another by name
with the scale set's batch delete, and meets Azure's refusal of the Uniform VM list. Run by test/python-client.test.ts;
prints one JSON document of what it saw.

Environment: as vmss_client.py (SIM_SCALE_SET names a Flexible scale set).
"""
import json
import os

from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute.models import VirtualMachineScaleSetVMInstanceRequiredIDs
from sim_client import compute_client

SUB = os.environ["SIM_SUBSCRIPTION"]
RG = os.environ["SIM_RESOURCE_GROUP"]
NAME = os.environ["SIM_SCALE_SET"]

client = compute_client()
scale_set_id = f"/subscriptions/{SUB}/resourceGroups/{RG}/providers/Microsoft.Compute/virtualMachineScaleSets/{NAME}"
flt = f"'virtualMachineScaleSet/id' eq '{scale_set_id}'"


def names():
    return [vm.name for vm in client.virtual_machines.list(RG, filter=flt)]


def power_state(view):
    return next((s.code for s in view.statuses if s.code.startswith("PowerState/")), None)


out = {}
listed = list(client.virtual_machines.list(RG, filter=flt))
out["list"] = {
    "names": [vm.name for vm in listed],
    "scaleSets": sorted({vm.virtual_machine_scale_set.id for vm in listed}),
    "nics": [[nic.id for nic in vm.network_profile.network_interfaces] for vm in listed],
}
first = listed[0].name
got = client.virtual_machines.get(RG, first, expand="instanceView")
out["get"] = {"name": got.name, "power": power_state(got.instance_view)}

client.virtual_machines.begin_deallocate(RG, first).result()
out["deallocate"] = power_state(client.virtual_machines.instance_view(RG, first))

client.virtual_machine_scale_sets.begin_delete_instances(
    RG, NAME, VirtualMachineScaleSetVMInstanceRequiredIDs(instance_ids=[listed[1].name])
).result()
out["deleteInstances"] = {"names": names(), "capacity": client.virtual_machine_scale_sets.get(RG, NAME).sku.capacity}

try:
    list(client.virtual_machine_scale_set_vms.list(RG, NAME))
    out["uniformList"] = "listed"
except HttpResponseError as err:
    out["uniformList"] = {"status": err.status_code, "code": err.error.code if err.error else None}

print(json.dumps(out))
