"""Microsoft's Python SDK (azure-identity + azure-mgmt-compute, Debian's python3-azure) on both sides of a restart of
vmss-sim --state: `before` starts a scale of the scale set and prints the poller's continuation token without waiting;
`after TOKEN`, run once the simulator was killed and started again on the same state directory, reads the scale set
and resumes the poller from the token, as a script that crashed with its simulator would. Run by
test/python-sdk-restart.test.ts; prints one JSON document of what it saw.

Environment: SIM_URL, SIM_TENANT, SIM_CLIENT_ID, SIM_CLIENT_SECRET, SIM_SUBSCRIPTION, SIM_RESOURCE_GROUP, SIM_SCALE_SET,
and REQUESTS_CA_BUNDLE (the simulator's certificate).
"""
import json
import os
import sys

from azure.identity import ClientSecretCredential
from azure.mgmt.compute import ComputeManagementClient
from azure.mgmt.compute.models import Sku, VirtualMachineScaleSetUpdate

RG = os.environ["SIM_RESOURCE_GROUP"]
NAME = os.environ["SIM_SCALE_SET"]


def compute_client():
    url = os.environ["SIM_URL"]
    # A custom authority: MSAL would ask login.microsoftonline.com about it unless instance discovery is off.
    credential = ClientSecretCredential(
        os.environ["SIM_TENANT"],
        os.environ["SIM_CLIENT_ID"],
        os.environ["SIM_CLIENT_SECRET"],
        authority=url,
        instance_discovery=False,
    )
    return ComputeManagementClient(
        credential,
        os.environ["SIM_SUBSCRIPTION"],
        base_url=url,
        credential_scopes=["https://management.azure.com/.default"],
        polling_interval=1,
    )


def seen(scale_set):
    return {
        "capacity": scale_set.sku.capacity,
        "provisioningState": scale_set.provisioning_state,
        "uniqueId": scale_set.unique_id,
    }


def read():
    """The scale set as the SDK reads it, with the answer's ETag header (2022-08-01 has no etag field)."""
    def with_etag(response, model, _headers):
        return {**seen(model), "etag": response.http_response.headers["etag"]}

    return vmss.get(RG, NAME, cls=with_etag)


client = compute_client()
vmss = client.virtual_machine_scale_sets

if sys.argv[1] == "before":
    before = read()
    poller = vmss.begin_update(RG, NAME, VirtualMachineScaleSetUpdate(sku=Sku(capacity=before["capacity"] + 1)))
    print(json.dumps({"before": before, "accepted": read(), "token": poller.continuation_token()}))
else:
    after_restart = read()
    # parameters are not sent again: the poller goes on from the operation the token names
    resumed = vmss.begin_update(RG, NAME, None, continuation_token=sys.argv[2]).result()
    vms = [vm.instance_id for vm in client.virtual_machine_scale_set_vms.list(RG, NAME)]
    print(json.dumps({"read": after_restart, "resumed": seen(resumed), "final": read(), "vms": vms}))
