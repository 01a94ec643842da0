"""A second client, not ours: Microsoft's Python SDK (azure-identity + azure-mgmt-compute, api-version 2022-08-01 as
Debian's python3-azure ships it) driving the ARM simulator the way a person's script would. Run by
test/python-client.test.ts; prints one JSON document of what it saw, which the test checks.

Environment: SIM_URL, SIM_TENANT, SIM_CLIENT_ID, SIM_CLIENT_SECRET, SIM_SUBSCRIPTION, SIM_RESOURCE_GROUP, SIM_SCALE_SET,
and REQUESTS_CA_BUNDLE (the simulator's certificate).
"""
import json
import os
import sys
import time

from azure.core.exceptions import HttpResponseError
from azure.mgmt.compute.models import (
    Sku,
    VirtualMachineScaleSet,
    VirtualMachineScaleSetUpdate,
    VirtualMachineScaleSetVMInstanceIDs,
    VirtualMachineScaleSetVMInstanceRequiredIDs,
)
from sim_client import compute_client

RG = os.environ["SIM_RESOURCE_GROUP"]
NAME = os.environ["SIM_SCALE_SET"]

out = {"steps": []}


def step(step_name, **facts):
    out["steps"].append(step_name)
    out[step_name] = facts


def power_state(view):
    return next((s.code for s in view.statuses if s.code.startswith("PowerState/")), None)


client = compute_client()
vmss = client.virtual_machine_scale_sets
vms = client.virtual_machine_scale_set_vms

before = vmss.get(RG, NAME)
step("get", name=before.name, capacity=before.sku.capacity, tags=before.tags,
     singlePlacementGroup=before.single_placement_group, orchestrationMode=before.orchestration_mode)

step("list", names=sorted(s.name for s in vmss.list(RG)), all=sorted(s.name for s in vmss.list_all()))

step("listVms", instanceIds=[vm.instance_id for vm in vms.list(RG, NAME)])

# What `az vmss scale` sends: location and sku only. Azure keeps everything else (tags, the VM profile).
scaled = vmss.begin_create_or_update(RG, NAME, VirtualMachineScaleSet(location=before.location, sku=Sku(name=before.sku.name, capacity=4))).result()
step("scale", capacity=scaled.sku.capacity, tags=scaled.tags, keptProfile=scaled.virtual_machine_profile is not None,
     instanceIds=[vm.instance_id for vm in vms.list(RG, NAME)])

tags = dict(scaled.tags or {}, owner="python")
updated = vmss.begin_update(RG, NAME, VirtualMachineScaleSetUpdate(tags=tags)).result()
step("updateTags", tags=updated.tags)

view = vmss.get_instance_view(RG, NAME)
vm_view = vms.get_instance_view(RG, NAME, "0")
step("instanceView", statuses=[s.code for s in view.statuses],
     summary={s.code: s.count for s in view.virtual_machine.statuses_summary}, vm0=power_state(vm_view))

# Deallocate VM 0; while it runs, a PATCH meets 409 Conflict (one write at a time) and succeeds when retried.
deallocating = vmss.begin_deallocate(RG, NAME, vm_instance_i_ds=VirtualMachineScaleSetVMInstanceIDs(instance_ids=["0"]))
conflicts = []
patched = None
deadline = time.time() + 60
while patched is None:
    try:
        patched = vmss.begin_update(RG, NAME, VirtualMachineScaleSetUpdate(tags=dict(tags, retried="yes")))
    except HttpResponseError as err:
        if err.status_code != 409 or time.time() > deadline:
            raise
        conflicts.append({"status": err.status_code, "code": err.error.code if err.error else None})
        time.sleep(0.3)
deallocating.result()
patched_result = patched.result()
step("patchAfterConflict", conflicts=conflicts, tags=patched_result.tags)
step("deallocate", vm0=power_state(vms.get_instance_view(RG, NAME, "0")))

vmss.begin_start(RG, NAME, vm_instance_i_ds=VirtualMachineScaleSetVMInstanceIDs(instance_ids=["0"])).result()
step("start", vm0=power_state(vms.get_instance_view(RG, NAME, "0")))

vmss.begin_delete_instances(RG, NAME, VirtualMachineScaleSetVMInstanceRequiredIDs(instance_ids=["3"])).result()
after = vmss.get(RG, NAME)
step("deleteInstances", capacity=after.sku.capacity, instanceIds=[vm.instance_id for vm in vms.list(RG, NAME)])

json.dump(out, sys.stdout)
