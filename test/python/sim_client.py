"""The compute client both scripts use: Microsoft's Python SDK logged in with a client secret at the simulator's token
endpoint, its management endpoint the simulator (SIM_URL, SIM_TENANT, SIM_CLIENT_ID, SIM_CLIENT_SECRET,
SIM_SUBSCRIPTION; REQUESTS_CA_BUNDLE trusts the simulator's certificate).
"""
import os

from azure.identity import ClientSecretCredential
from azure.mgmt.compute import ComputeManagementClient


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
    # polling_interval: the wait when Azure sends no Retry-After (power actions and instance deletes send none); when
    # it does, azure-core's poller waits what it says.
    return ComputeManagementClient(
        credential,
        os.environ["SIM_SUBSCRIPTION"],
        base_url=url,
        credential_scopes=["https://management.azure.com/.default"],
        polling_interval=1,
    )
