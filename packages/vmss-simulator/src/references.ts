// What a scale set's model names must exist, as Azure refuses a PUT or PATCH that names what does not (the
// user-assigned identities are checked where they are resolved, managed-identities.ts). Each refusal is the one Azure
// gives for that reference:
// - the network (subnet and its virtual network, load balancer backend and inbound NAT pools, application gateway
//   pools, the NIC's network security group): 400 `InvalidResourceReference` "Resource {id} referenced by resource
//   {scale set} was not found. Please make sure that the referenced resource exists, and that both resources are in
//   the same region." naming the missing parent when the parent is missing (Azure/azure-cli#1237, a virtual network;
//   MicrosoftDocs/azure-docs#81734, a subnet). A resource in another location is refused the same way.
// - a gallery image (an Azure Compute Gallery id, a shared or community gallery id; the simulator holds no gallery):
//   404 `GalleryImageNotFound` "The gallery image {id} is not available in {location} region. Please contact image
//   owner to replicate to this region, or change your requested region.", target imageReference
//   (confidential-containers/cloud-api-adaptor#1709, pulumi/pulumi-aws#5129).
// - a Marketplace image not in the simulator's catalogue (image-catalogue.ts): 404 `PlatformImageNotFound` "The
//   platform image '{publisher}:{offer}:{sku}:{version}' is not available. Verify that all fields in the storage
//   profile are correct. For more details about storage profile information, please refer to
//   https://aka.ms/storageprofile", target imageReference (clear-code/firefox-support-common#31, 404 with target;
//   hashicorp/packer#10600).
// - a disk encryption set: 400 `BadRequest` "DiskEncryptionSet '{id}' was not found." (Azure/azure-cli#18355).
// - a proximity placement group (proximity-placement-groups.ts) or a capacity reservation group
//   (capacity-reservation-groups.ts) that does not exist: Compute's 404 `NotFound` "The entity was not found in
//   this Azure location."; the wording Azure gives for these two references in particular is not in the public
//   material found.
// - Key Vault certificates (`osProfile.secrets[]`): a `sourceVault.id` that is not an ARM id is ARM's 400
//   `LinkedInvalidPropertyId` (as for every malformed reference id); a vault the simulator does not hold (keyvault/),
//   or a `certificateUrl` in another vault than `sourceVault`, Compute's 400 `KeyVaultAccessForbidden` "Key Vault
//   {certificateUrl} either has not been enabled for deployment or the vault id provided, {vault id}, does not match
//   the Key Vault's true resource id." (wording as Azure gives it for a vault it cannot use; not found in the public
//   material searched). A `certificateUrl` naming a secret, or a version of it, the vault does not hold: 400
//   `KeyVaultSecretDoesNotExist` "The Key Vault secret referenced with the URL {certificateUrl} does not exist."
//   (the code and wording Azure gives for a missing certificate secret of a Service Fabric cluster's scale sets,
//   microsoft/service-fabric-issues#932; the status is not in that report).
// - a managed image (`imageReference.id` under `…/Microsoft.Compute/images/…`, managed-images.ts) that the simulator
//   does not hold, or holds in another location: Compute's 404 `NotFound` "The Image '{id}' cannot be found in
//   '{location}' region." (MicrosoftDocs/azure-docs#53728, a VM create naming an image of another region; the same
//   refusal in PowerShell's words, Azure/azure-powershell#6081; Azure is not reported to answer a missing image otherwise).
import { ArmError } from "./arm-errors.ts";
import type { SimulatorContext } from "./context.ts";
import { getPath, isObject, type JsonObject } from "./json.ts";
import { findNetworkResource } from "./network/network-routes.ts";
import type { NetworkResource, NetworkType } from "./network/network-state.ts";
import { capacityReservationGroupExists } from "./capacity-reservation-groups.ts";
import { platformImageExists } from "./image-catalogue.ts";
import { secretExists, vaultExists } from "./keyvault/secrets.ts";
import { managedImageLocation, MANAGED_IMAGE_ID } from "./managed-images.ts";
import { proximityPlacementGroupExists } from "./proximity-placement-groups.ts";
import { normalizeLocation } from "./vmss-model.ts";

/** An ARM id's parts: `/subscriptions/{s}/resourceGroups/{rg}/providers/{namespace}/{type}/{name}[/{child}/{childName}]`. */
interface ParsedId {
  subscriptionId: string;
  resourceGroup: string;
  namespace: string;
  type: string;
  name: string;
  child?: { type: string; name: string };
}

const ID =
  /^\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/([^/]+)\/([^/]+)\/([^/]+)(?:\/([^/]+)\/([^/]+))?\/?$/i;

function parseId(id: string): ParsedId | undefined {
  const m = ID.exec(id);
  if (!m) return undefined;
  return {
    subscriptionId: m[1],
    resourceGroup: m[2],
    namespace: m[3],
    type: m[4],
    name: m[5],
    ...(m[6] !== undefined ? { child: { type: m[6], name: m[7] } } : {}),
  };
}

function invalidResourceReference(id: string, scaleSetId: string): ArmError {
  return new ArmError(
    400,
    "InvalidResourceReference",
    `Resource ${id} referenced by resource ${scaleSetId} was not found. Please make sure that the referenced resource exists, and that both resources are in the same region.`,
  );
}

/** ARM's answer for a reference that is not an ARM id at all. */
function linkedInvalidPropertyId(id: string, path: string): ArmError {
  return new ArmError(
    400,
    "LinkedInvalidPropertyId",
    `Property id '${id}' at path '${path}' is invalid. Expect fully qualified resource Id that start with '/subscriptions/{subscriptionId}' or '/providers/{resourceProviderNamespace}/'.`,
  );
}

function entityNotFound(): ArmError {
  return new ArmError(404, "NotFound", "The entity was not found in this Azure location.");
}

function idsAt(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(idsAt);
  return isObject(value) && typeof value.id === "string" ? [value.id] : [];
}

/** Which network type and child collection an id must name, by where the model holds it. */
interface NetworkReference {
  id: string;
  type: NetworkType;
  child?: string;
}

function networkReferences(model: JsonObject): NetworkReference[] {
  const out: NetworkReference[] = [];
  const nics = getPath(
    model,
    "properties",
    "virtualMachineProfile",
    "networkProfile",
    "networkInterfaceConfigurations",
  );
  for (const nic of Array.isArray(nics) ? nics : []) {
    for (const id of idsAt(getPath(nic, "properties", "networkSecurityGroup")))
      out.push({ id, type: "networkSecurityGroups" });
    const ipcs = getPath(nic, "properties", "ipConfigurations");
    for (const ipc of Array.isArray(ipcs) ? ipcs : []) {
      const p = getPath(ipc, "properties");
      for (const id of idsAt(getPath(p, "subnet"))) out.push({ id, type: "virtualNetworks", child: "subnets" });
      for (const id of idsAt(getPath(p, "loadBalancerBackendAddressPools")))
        out.push({ id, type: "loadBalancers", child: "backendAddressPools" });
      for (const id of idsAt(getPath(p, "loadBalancerInboundNatPools")))
        out.push({ id, type: "loadBalancers", child: "inboundNatPools" });
      for (const id of idsAt(getPath(p, "applicationGatewayBackendAddressPools")))
        out.push({ id, type: "applicationGateways", child: "backendAddressPools" });
    }
  }
  return out;
}

function hasChild(resource: NetworkResource, collection: string, name: string): boolean {
  const items = getPath(resource.body, "properties", collection);
  return Array.isArray(items) && items.some((i) => isObject(i) && String(i.name).toLowerCase() === name.toLowerCase());
}

/** The network resource a reference names, with its location, or the id Azure names as not found. */
function checkNetworkReference(sim: SimulatorContext, ref: NetworkReference, scaleSetId: string, location: string) {
  const parsed = parseId(ref.id);
  const parentId = parsed ? ref.id.split("/").slice(0, 9).join("/") : ref.id;
  const sameKind =
    parsed &&
    parsed.subscriptionId.toLowerCase() === sim.state.subscriptionId.toLowerCase() &&
    parsed.namespace.toLowerCase() === "microsoft.network" &&
    parsed.type.toLowerCase() === ref.type.toLowerCase() &&
    (ref.child === undefined) === (parsed.child === undefined) &&
    (ref.child === undefined || parsed.child?.type.toLowerCase() === ref.child.toLowerCase());
  if (!parsed || !sameKind) throw invalidResourceReference(ref.id, scaleSetId);
  const resource = findNetworkResource(sim, ref.type, parsed.resourceGroup, parsed.name);
  if (!resource || normalizeLocation(resource.location) !== location)
    throw invalidResourceReference(parentId, scaleSetId);
  // A scale set's own pools are the members it names: a pool a scale set names exists (namedByScaleSets).
  if (parsed.child && ref.child && !hasChild(resource, ref.child, parsed.child.name))
    throw invalidResourceReference(ref.id, scaleSetId);
}

const GALLERY = /\/providers\/Microsoft\.Compute\/galleries\//i;

function platformImageNotFound(image: JsonObject): ArmError {
  const urn = [image.publisher, image.offer, image.sku, image.version ?? "latest"].map(String).join(":");
  return new ArmError(
    404,
    "PlatformImageNotFound",
    `The platform image '${urn}' is not available. Verify that all fields in the storage profile are correct. For more details about storage profile information, please refer to https://aka.ms/storageprofile`,
    { target: "imageReference" },
  );
}

/** A Marketplace image (publisher, offer, sku and version, no id) must be in the catalogue. */
function checkPlatformImage(image: JsonObject): void {
  const { publisher, offer, sku, version } = image;
  if (image.id !== undefined || typeof publisher !== "string" || typeof offer !== "string" || typeof sku !== "string")
    return;
  if (!platformImageExists(publisher, offer, sku, typeof version === "string" ? version : "latest"))
    throw platformImageNotFound(image);
}

/** A managed image must be held, in the scale set's location. */
function checkManagedImage(sim: SimulatorContext, image: JsonObject, location: string): void {
  if (typeof image.id !== "string" || !MANAGED_IMAGE_ID.test(image.id)) return;
  const held = managedImageLocation(sim, image.id);
  if (held === undefined || normalizeLocation(held) !== location)
    throw new ArmError(404, "NotFound", `The Image '${image.id}' cannot be found in '${location}' region.`);
}

function checkImage(sim: SimulatorContext, model: JsonObject, location: string): void {
  const image = getPath(model, "properties", "virtualMachineProfile", "storageProfile", "imageReference");
  if (!isObject(image)) return;
  checkPlatformImage(image);
  checkManagedImage(sim, image, location);
  const galleryIds = [
    typeof image.id === "string" && GALLERY.test(image.id) ? image.id : undefined,
    typeof image.sharedGalleryImageId === "string" ? image.sharedGalleryImageId : undefined,
    typeof image.communityGalleryImageId === "string" ? image.communityGalleryImageId : undefined,
  ].filter((v): v is string => v !== undefined);
  if (galleryIds.length > 0)
    throw new ArmError(
      404,
      "GalleryImageNotFound",
      `The gallery image ${galleryIds[0]} is not available in ${location} region. Please contact image owner to replicate to this region, or change your requested region.`,
      { target: "imageReference" },
    );
}

function checkDiskEncryptionSets(model: JsonObject): void {
  const storage = getPath(model, "properties", "virtualMachineProfile", "storageProfile");
  const disks = [
    getPath(storage, "osDisk"),
    ...(Array.isArray(getPath(storage, "dataDisks")) ? (getPath(storage, "dataDisks") as unknown[]) : []),
  ];
  for (const disk of disks)
    for (const id of idsAt(getPath(disk, "managedDisk", "diskEncryptionSet")))
      throw new ArmError(400, "BadRequest", `DiskEncryptionSet '${id}' was not found.`);
}

const VAULT_ID = /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.KeyVault\/vaults\/([^/]+)$/i;
/**
 * The vault, secret and version a certificate URL names: Azure's `https://{vault}.vault.azure.net/secrets/{name}/{version}`
 * or the simulator's `/keyvaults/{vault}/secrets/{name}/{version}`.
 */
const CERTIFICATE_URL =
  /^https:\/\/([^./]+)\.vault\.[^/]+\/secrets\/([^/?]+)(?:\/([^/?]*))?|\/keyvaults\/([^/]+)\/secrets\/([^/?]+)(?:\/([^/?]*))?/i;

function certificateSecret(url: string): { vault?: string; name?: string; version?: string } {
  const m = CERTIFICATE_URL.exec(url);
  return { vault: m?.[1] ?? m?.[4], name: m?.[2] ?? m?.[5], version: m?.[3] ?? m?.[6] };
}

/** A certificate must be a secret, of a held vault, in the vault `sourceVault` names. */
function checkCertificate(sim: SimulatorContext, url: string, vault: string, vaultId: string): void {
  const named = certificateSecret(url);
  if (!vaultExists(sim, vault) || named.vault?.toLowerCase() !== vault.toLowerCase())
    throw new ArmError(
      400,
      "KeyVaultAccessForbidden",
      `Key Vault ${url} either has not been enabled for deployment or the vault id provided, ${vaultId}, does not match the Key Vault's true resource id.`,
    );
  if (named.name === undefined || !secretExists(sim, vault, named.name, named.version))
    throw new ArmError(
      400,
      "KeyVaultSecretDoesNotExist",
      `The Key Vault secret referenced with the URL ${url} does not exist.`,
    );
}

function checkVaultSecrets(sim: SimulatorContext, model: JsonObject): void {
  const secrets = getPath(model, "properties", "virtualMachineProfile", "osProfile", "secrets");
  (Array.isArray(secrets) ? secrets : []).forEach((secret, i) => {
    const vaultId = getPath(secret, "sourceVault", "id");
    if (typeof vaultId !== "string") return;
    const vault = VAULT_ID.exec(vaultId)?.[1];
    if (vault === undefined)
      throw linkedInvalidPropertyId(vaultId, `properties.virtualMachineProfile.osProfile.secrets[${i}].sourceVault.id`);
    const certificates = getPath(secret, "vaultCertificates");
    for (const certificate of Array.isArray(certificates) ? certificates : []) {
      const url = getPath(certificate, "certificateUrl");
      if (typeof url === "string") checkCertificate(sim, url, vault, vaultId);
    }
  });
}

function checkCapacityReservationGroup(sim: SimulatorContext, model: JsonObject): void {
  const crg = getPath(model, "properties", "virtualMachineProfile", "capacityReservation", "capacityReservationGroup");
  for (const id of idsAt(crg)) {
    if (!parseId(id))
      throw linkedInvalidPropertyId(
        id,
        "properties.virtualMachineProfile.capacityReservation.capacityReservationGroup.id",
      );
    if (!capacityReservationGroupExists(sim, id)) throw entityNotFound();
  }
}

/** Refuses NIC configurations (at the model's `virtualMachineProfile.networkProfile`) naming a network resource that does not exist. */
export function checkNetworkReferences(
  sim: SimulatorContext,
  model: JsonObject,
  scaleSetId: string,
  location: string,
): void {
  for (const ref of networkReferences(model)) checkNetworkReference(sim, ref, scaleSetId, location);
}

/**
 * Refuses a scale set model that names a resource that does not exist (see the file's head for each refusal).
 * `location` is the scale set's (normalized).
 */
export function checkScaleSetReferences(
  sim: SimulatorContext,
  model: JsonObject,
  scaleSetId: string,
  location: string,
): void {
  checkNetworkReferences(sim, model, scaleSetId, location);
  checkImage(sim, model, location);
  checkDiskEncryptionSets(model);
  for (const id of idsAt(getPath(model, "properties", "proximityPlacementGroup")))
    if (!proximityPlacementGroupExists(sim, id)) throw entityNotFound();
  checkCapacityReservationGroup(sim, model);
  checkVaultSecrets(sim, model);
}
