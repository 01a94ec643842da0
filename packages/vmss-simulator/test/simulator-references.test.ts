// A scale set's model may name only what exists (src/references.ts): each reference that names nothing is refused
// with the code and message Azure gives for it, before anything is written; what exists is accepted.
import t from "tap";
import { SimulatorControl, startSimulator, type RawResponse } from "../src/index.ts";
import { computeClient } from "./helpers/compute-client.ts";
import { scaleSetBody } from "./helpers/scale-set-body.ts";

const sim = await startSimulator({ seed: true, timeScale: 0.001, writeDurationMs: 0, throttling: false });
t.teardown(() => sim.close());
const control = new SimulatorControl(sim);
t.teardown(() => control.close());

const SUB = `/subscriptions/${sim.subscriptionId}`;
const RG = `${SUB}/resourceGroups/demo-rg`;
const NET = `${RG}/providers/Microsoft.Network`;
const VMSS = `${RG}/providers/Microsoft.Compute/virtualMachineScaleSets`;
const AUTH = { authorization: "Bearer test" };

type Json = Record<string, unknown>;

/** A create's body: one NIC on `ipc` (the subnet by default), `extra` merged into properties. */
function model(ipc: Json = {}, extra: Json = {}, profile: Json = {}): Json {
  return scaleSetBody(sim.subscriptionId, { prefix: "ref", ipc, extra, profile });
}

function put(name: string, body: Json): Promise<RawResponse> {
  return control.request("PUT", `${VMSS}/${name}?api-version=2024-11-01`, { headers: AUTH, body });
}

async function notCreated(t: { equal(a: unknown, b: unknown, m: string): unknown }, name: string): Promise<void> {
  const res = await control.request("GET", `${VMSS}/${name}?api-version=2024-11-01`, { headers: AUTH });
  t.equal(res.status, 404, `${name} was not created`);
}

const referenceNotFound = (id: string, name: string) =>
  `Resource ${id} referenced by resource ${VMSS}/${name} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`;

t.test("what exists is accepted: the demo subnet, NSG, load balancer pool", async (t) => {
  await control.request("PUT", `${NET}/loadBalancers/ref-lb?api-version=2024-05-01`, {
    headers: AUTH,
    body: { location: "eastus", properties: { backendAddressPools: [{ name: "ref-pool" }], inboundNatPools: [] } },
  });
  const body = model({
    loadBalancerBackendAddressPools: [{ id: `${NET}/loadBalancers/ref-lb/backendAddressPools/ref-pool` }],
  });
  const nic = (body.properties as Json).virtualMachineProfile as Json;
  ((nic.networkProfile as Json).networkInterfaceConfigurations as Json[])[0].properties = {
    ...(((nic.networkProfile as Json).networkInterfaceConfigurations as Json[])[0].properties as Json),
    networkSecurityGroup: { id: `${NET}/networkSecurityGroups/demo-nsg` },
  };
  const res = await put("ref-ok", body);
  t.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
});

const NETWORK_CASES: { what: string; ipc?: Json; nsg?: string; missing: string }[] = [
  {
    what: "a subnet that does not exist",
    ipc: { subnet: { id: `${NET}/virtualNetworks/demo-rg-vnet/subnets/nope` } },
    missing: `${NET}/virtualNetworks/demo-rg-vnet/subnets/nope`,
  },
  {
    what: "a subnet of a virtual network that does not exist (the network is named)",
    ipc: { subnet: { id: `${NET}/virtualNetworks/no-vnet/subnets/default` } },
    missing: `${NET}/virtualNetworks/no-vnet`,
  },
  {
    what: "a load balancer pool that does not exist",
    ipc: { loadBalancerBackendAddressPools: [{ id: `${NET}/loadBalancers/demo-lb/backendAddressPools/nope` }] },
    missing: `${NET}/loadBalancers/demo-lb/backendAddressPools/nope`,
  },
  {
    what: "a pool of a load balancer that does not exist",
    ipc: { loadBalancerBackendAddressPools: [{ id: `${NET}/loadBalancers/no-lb/backendAddressPools/pool` }] },
    missing: `${NET}/loadBalancers/no-lb`,
  },
  {
    what: "an inbound NAT pool that does not exist",
    ipc: { loadBalancerInboundNatPools: [{ id: `${NET}/loadBalancers/demo-lb/inboundNatPools/nope` }] },
    missing: `${NET}/loadBalancers/demo-lb/inboundNatPools/nope`,
  },
  {
    what: "an application gateway pool that does not exist",
    ipc: {
      applicationGatewayBackendAddressPools: [{ id: `${NET}/applicationGateways/no-agw/backendAddressPools/p` }],
    },
    missing: `${NET}/applicationGateways/no-agw`,
  },
  {
    what: "a network security group that does not exist",
    nsg: `${NET}/networkSecurityGroups/no-nsg`,
    missing: `${NET}/networkSecurityGroups/no-nsg`,
  },
];

t.test("network references that name nothing: 400 InvalidResourceReference naming what is missing", async (t) => {
  let n = 0;
  for (const c of NETWORK_CASES) {
    const name = `ref-net-${n++}`;
    const body = model(c.ipc ?? {});
    if (c.nsg) {
      const nics = (((body.properties as Json).virtualMachineProfile as Json).networkProfile as Json)
        .networkInterfaceConfigurations as Json[];
      nics[0].properties = { ...(nics[0].properties as Json), networkSecurityGroup: { id: c.nsg } };
    }
    const res = await put(name, body);
    t.match(
      res,
      {
        status: 400,
        body: { error: { code: "InvalidResourceReference", message: referenceNotFound(c.missing, name) } },
      },
      c.what,
    );
    await notCreated(t, name);
  }
});

t.test("a subnet in another location is refused the same way", async (t) => {
  const res = await put("ref-west", { ...model(), location: "westus2" });
  t.match(res, {
    status: 400,
    body: {
      error: {
        code: "InvalidResourceReference",
        message: referenceNotFound(`${NET}/virtualNetworks/demo-rg-vnet`, "ref-west"),
      },
    },
  });
});

const osProfile = { computerNamePrefix: "ref", adminUsername: "azureuser", adminPassword: "Secret-123456" };
const vaultId = (vault: string) => `${RG}/providers/Microsoft.KeyVault/vaults/${vault}`;
/** An `osProfile.secrets[]` entry: the vault named, and a certificate in `urlVault`. */
const vaultSecret = (vault: string, urlVault: string) => ({
  sourceVault: { id: vaultId(vault) },
  vaultCertificates: [{ certificateUrl: `https://${urlVault}.vault.azure.net/secrets/cert/1` }],
});

const IMAGES = `${RG}/providers/Microsoft.Compute/images`;
/** A model naming a managed image. */
const withImage = (id: string) => model({}, {}, { storageProfile: { imageReference: { id } } });
/** An `osProfile.secrets[]` entry naming `certificateUrl` in the demo vault. */
const demoCertificate = (certificateUrl: string) => ({
  osProfile: {
    ...osProfile,
    secrets: [{ sourceVault: { id: vaultId("demo-kv") }, vaultCertificates: [{ certificateUrl }] }],
  },
});

async function putImage(name: string, location: string): Promise<void> {
  const res = await control.request("PUT", `${IMAGES}/${name}?api-version=2024-11-01`, {
    headers: AUTH,
    body: { location, properties: { storageProfile: { osDisk: { osType: "Linux", osState: "Generalized" } } } },
  });
  if (res.status !== 201) throw new Error(`image ${name}: ${res.status} ${JSON.stringify(res.body)}`);
}

t.test("images, placement and reservation groups, encryption sets, vaults that do not exist", async (t) => {
  const gallery = `${RG}/providers/Microsoft.Compute/galleries/g/images/i/versions/1.0.0`;
  await putImage("west-image", "westus");
  const cases: { what: string; body: Json; status: number; code: string; message: string; target?: string }[] = [
    {
      what: "a managed image that does not exist",
      body: withImage(`${IMAGES}/no-such-image`),
      status: 404,
      code: "NotFound",
      message: `The Image '${IMAGES}/no-such-image' cannot be found in 'eastus' region.`,
    },
    {
      what: "a managed image in another region",
      body: withImage(`${IMAGES}/west-image`),
      status: 404,
      code: "NotFound",
      message: `The Image '${IMAGES}/west-image' cannot be found in 'eastus' region.`,
    },
    {
      what: "a certificate secret the vault does not hold",
      body: model({}, {}, demoCertificate("https://demo-kv.vault.azure.net/secrets/no-such-cert/1")),
      status: 400,
      code: "KeyVaultSecretDoesNotExist",
      message:
        "The Key Vault secret referenced with the URL https://demo-kv.vault.azure.net/secrets/no-such-cert/1 does not exist.",
    },
    {
      what: "a version of a secret the vault does not hold",
      body: model({}, {}, demoCertificate("https://demo-kv.vault.azure.net/secrets/VMSshPublicKey/2")),
      status: 400,
      code: "KeyVaultSecretDoesNotExist",
      message:
        "The Key Vault secret referenced with the URL https://demo-kv.vault.azure.net/secrets/VMSshPublicKey/2 does not exist.",
    },
    {
      what: "a gallery image version",
      body: model({}, {}, { storageProfile: { imageReference: { id: gallery } } }),
      status: 404,
      code: "GalleryImageNotFound",
      message: `The gallery image ${gallery} is not available in eastus region. Please contact image owner to replicate to this region, or change your requested region.`,
      target: "imageReference",
    },
    {
      what: "a community gallery image",
      body: model(
        {},
        {},
        {
          storageProfile: {
            imageReference: { communityGalleryImageId: "/CommunityGalleries/x/Images/y/Versions/1.0.0" },
          },
        },
      ),
      status: 404,
      code: "GalleryImageNotFound",
      message:
        "The gallery image /CommunityGalleries/x/Images/y/Versions/1.0.0 is not available in eastus region. Please contact image owner to replicate to this region, or change your requested region.",
    },
    {
      what: "a Marketplace image not in the catalogue",
      body: model(
        {},
        {},
        { storageProfile: { imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "nope" } } },
      ),
      status: 404,
      code: "PlatformImageNotFound",
      message:
        "The platform image 'Canonical:ubuntu-24_04-lts:nope:latest' is not available. Verify that all fields in the storage profile are correct. For more details about storage profile information, please refer to https://aka.ms/storageprofile",
      target: "imageReference",
    },
    {
      what: "a Marketplace image version not in the catalogue",
      body: model(
        {},
        {},
        {
          storageProfile: {
            imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "1.2.3" },
          },
        },
      ),
      status: 404,
      code: "PlatformImageNotFound",
      message:
        "The platform image 'Canonical:ubuntu-24_04-lts:server:1.2.3' is not available. Verify that all fields in the storage profile are correct. For more details about storage profile information, please refer to https://aka.ms/storageprofile",
      target: "imageReference",
    },
    {
      what: "a capacity reservation group id that is not an ARM id",
      body: model({}, {}, { capacityReservation: { capacityReservationGroup: { id: "crg" } } }),
      status: 400,
      code: "LinkedInvalidPropertyId",
      message:
        "Property id 'crg' at path 'properties.virtualMachineProfile.capacityReservation.capacityReservationGroup.id' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.",
    },
    {
      what: "a key vault id that is not an ARM id",
      body: model(
        {},
        {},
        { osProfile: { ...osProfile, secrets: [{ sourceVault: { id: "demo-kv" }, vaultCertificates: [] }] } },
      ),
      status: 400,
      code: "LinkedInvalidPropertyId",
      message:
        "Property id 'demo-kv' at path 'properties.virtualMachineProfile.osProfile.secrets[0].sourceVault.id' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.",
    },
    {
      what: "a key vault the simulator does not hold",
      body: model({}, {}, { osProfile: { ...osProfile, secrets: [vaultSecret("no-such-kv", "no-such-kv")] } }),
      status: 400,
      code: "KeyVaultAccessForbidden",
      message: `Key Vault https://no-such-kv.vault.azure.net/secrets/cert/1 either has not been enabled for deployment or the vault id provided, ${vaultId("no-such-kv")}, does not match the Key Vault's true resource id.`,
    },
    {
      what: "a certificate in another vault than the one named",
      body: model({}, {}, { osProfile: { ...osProfile, secrets: [vaultSecret("demo-kv", "other-kv")] } }),
      status: 400,
      code: "KeyVaultAccessForbidden",
      message: `Key Vault https://other-kv.vault.azure.net/secrets/cert/1 either has not been enabled for deployment or the vault id provided, ${vaultId("demo-kv")}, does not match the Key Vault's true resource id.`,
    },
    {
      what: "a proximity placement group",
      body: model(
        {},
        { proximityPlacementGroup: { id: `${RG}/providers/Microsoft.Compute/proximityPlacementGroups/ppg` } },
      ),
      status: 404,
      code: "NotFound",
      message: "The entity was not found in this Azure location.",
    },
    {
      what: "a capacity reservation group",
      body: model(
        {},
        {},
        {
          capacityReservation: {
            capacityReservationGroup: { id: `${RG}/providers/Microsoft.Compute/capacityReservationGroups/crg` },
          },
        },
      ),
      status: 404,
      code: "NotFound",
      message: "The entity was not found in this Azure location.",
    },
    {
      what: "a disk encryption set",
      body: model(
        {},
        {},
        {
          storageProfile: {
            imageReference: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
            osDisk: {
              createOption: "FromImage",
              managedDisk: { diskEncryptionSet: { id: `${RG}/providers/Microsoft.Compute/diskEncryptionSets/des` } },
            },
          },
        },
      ),
      status: 400,
      code: "BadRequest",
      message: `DiskEncryptionSet '${RG}/providers/Microsoft.Compute/diskEncryptionSets/des' was not found.`,
    },
  ];
  let n = 0;
  for (const c of cases) {
    const name = `ref-other-${n++}`;
    const res = await put(name, c.body);
    t.match(
      res,
      {
        status: c.status,
        body: { error: { code: c.code, message: c.message, ...(c.target ? { target: c.target } : {}) } },
      },
      c.what,
    );
    await notCreated(t, name);
  }
});

t.test("a user-assigned identity that does not exist (checked as before)", async (t) => {
  const id = `${RG}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/nobody`;
  const res = await put("ref-identity", {
    ...model(),
    identity: { type: "UserAssigned", userAssignedIdentities: { [id]: {} } },
  });
  t.match(res, {
    status: 400,
    body: { error: { code: "FailedIdentityOperation", message: new RegExp(`Resource '${id}' was not found`) } },
  });
});

t.test("a PATCH that names a missing pool is refused and changes nothing; through @azure/arm-compute", async (t) => {
  const client = computeClient(sim);
  const before = await client.virtualMachineScaleSets.get("demo-rg", "web-prod-v001");
  const nic = before.virtualMachineProfile!.networkProfile!.networkInterfaceConfigurations![0];
  const missing = `${NET}/loadBalancers/web-prod-v001-lb/backendAddressPools/not-there`;
  nic.ipConfigurations![0].loadBalancerBackendAddressPools = [{ id: missing }];
  const err = await client.virtualMachineScaleSets
    .update("demo-rg", "web-prod-v001", {
      virtualMachineProfile: { networkProfile: { networkInterfaceConfigurations: [nic] } },
    })
    .submitted()
    .then(
      () => undefined,
      (e: unknown) => e as { statusCode?: number; code?: string; message: string },
    );
  t.match(err, {
    statusCode: 400,
    code: "InvalidResourceReference",
    message: referenceNotFound(missing, "web-prod-v001"),
  });
  const after = await client.virtualMachineScaleSets.get("demo-rg", "web-prod-v001");
  t.equal(after.etag, before.etag, "unchanged");
});

t.test("the seeded scale sets name only what exists: each accepts a PUT of its own model", async (t) => {
  for (const name of ["web-prod-v001", "web-prod-v002", "batch-v001"]) {
    const got = await control.request("GET", `${VMSS}/${name}?api-version=2024-11-01`, { headers: AUTH });
    const { location, sku, properties, tags } = got.body as Json;
    const res = await put(name, {
      location,
      sku,
      tags,
      properties: { virtualMachineProfile: (properties as Json).virtualMachineProfile },
    });
    t.equal(res.status, 200, `${name}: ${JSON.stringify(res.body).slice(0, 300)}`);
    await control.request("POST", "/_sim/reset");
  }
});

t.test("what exists is accepted: a managed image once made, a secret's version the vault holds", async (t) => {
  await putImage("baked-1.0.0", "eastus");
  for (const url of [
    "https://demo-kv.vault.azure.net/secrets/VMSshPublicKey/1",
    "https://demo-kv.vault.azure.net/secrets/vmsshpublickey",
  ]) {
    const body = withImage(`${IMAGES}/baked-1.0.0`);
    const profile = (body.properties as Json).virtualMachineProfile as Json;
    Object.assign(profile, demoCertificate(url));
    const res = await put(`ref-image-ok-${url.endsWith("1") ? 1 : 2}`, body);
    t.equal(res.status, 201, `${url}: ${JSON.stringify(res.body).slice(0, 300)}`);
  }
});

t.test(
  "what exists is accepted: a capacity reservation group once made, a catalogue image, the demo vault",
  async (t) => {
    const crg = `${RG}/providers/Microsoft.Compute/capacityReservationGroups/ref-crg`;
    const secret = await control.request("PUT", "/keyvaults/demo-kv/secrets/cert?api-version=7.4", {
      headers: AUTH,
      body: { value: "pfx" },
    });
    t.equal(secret.status, 200, "the certificate's secret put into the demo vault");
    const made = await control.request("PUT", `${crg}?api-version=2024-11-01`, {
      headers: AUTH,
      body: { location: "eastus", tags: { team: "ref" }, zones: ["1"] },
    });
    t.match(made, {
      status: 201,
      body: { id: crg, name: "ref-crg", type: "Microsoft.Compute/capacityReservationGroups", location: "eastus" },
    });
    const res = await put(
      "ref-crg-ok",
      model(
        {},
        {},
        {
          osProfile: { ...osProfile, secrets: [vaultSecret("demo-kv", "demo-kv")] },
          storageProfile: {
            imageReference: {
              publisher: "Canonical",
              offer: "ubuntu-24_04-lts",
              sku: "server",
              version: "24.04.202611",
            },
          },
          capacityReservation: { capacityReservationGroup: { id: crg } },
        },
      ),
    );
    t.equal(res.status, 201, JSON.stringify(res.body).slice(0, 300));
  },
);

t.test("a capacity reservation group: PUT, GET, listed in its group and subscription, DELETE", async (t) => {
  const group = `${RG}/providers/Microsoft.Compute/capacityReservationGroups`;
  t.equal(
    (await control.request("PUT", `${group}/crg-a?api-version=2024-11-01`, { headers: AUTH, body: {} })).status,
    400,
    "a location is required",
  );
  t.equal(
    (
      await control.request("PUT", `${group}/crg-a?api-version=2024-11-01`, {
        headers: AUTH,
        body: { location: "eastus" },
      })
    ).status,
    201,
  );
  t.equal(
    (
      await control.request("PUT", `${group}/crg-a?api-version=2024-11-01`, {
        headers: AUTH,
        body: { location: "eastus", tags: { a: "1" } },
      })
    ).status,
    200,
    "an update is 200",
  );
  t.match(await control.request("GET", `${group}/crg-a?api-version=2024-11-01`, { headers: AUTH }), {
    status: 200,
    body: { tags: { a: "1" } },
  });
  for (const path of [group, `${SUB}/providers/Microsoft.Compute/capacityReservationGroups`, `${RG}/resources`]) {
    const listed = await control.request("GET", `${path}?api-version=2024-11-01`, { headers: AUTH });
    t.ok(
      (listed.body as { value: Json[] }).value.some((v) => v.id === `${group}/crg-a`),
      `listed at ${path}`,
    );
  }
  t.equal((await control.request("DELETE", `${group}/crg-a?api-version=2024-11-01`, { headers: AUTH })).status, 200);
  t.match(await control.request("GET", `${group}/crg-a?api-version=2024-11-01`, { headers: AUTH }), {
    status: 404,
    body: { error: { code: "ResourceNotFound" } },
  });
  t.equal(
    (await control.request("DELETE", `${group}/crg-a?api-version=2024-11-01`, { headers: AUTH })).status,
    204,
    "gone: 204",
  );
});
