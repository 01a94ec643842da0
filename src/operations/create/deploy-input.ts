// What a createServerGroup description means, once the placeholders Deck and Orca send are read as they mean them.
// Pure: the description in, a normalised deploy and the problems with it out.
//
// deck packages/azure/src/serverGroup/serverGroup.transformer.js (convertServerGroupCommandToDeployConfiguration):
// - l.40-51: a pipeline stage's image is a placeholder: isCustom 'true' (a string), every other field "" — Orca's
//   AzureServerGroupCreator.groovy l.44-49 fills uri, ostype and imageName from the bake stage, and sets isCustom true.
// - l.81-84, l.93-97: capacity is {min, max}, the size is sku.capacity; there is no desired.
// - l.105-108, l.125-130: customScriptsSettings is always sent; commandToExecute "" (or absent) means no script.
// - l.102-104: osConfig.customData is null when none was given (null is dropped before the schema, as absent).
// orca DetermineSourceServerGroupTask.groovy l.69-81: `source` names the cluster's current group, or is {} when the
// cluster is empty (a breadcrumb, not a group to copy).
// Managed identities, as clouddriver-azure takes them (AzureServerGroupDescription.groovy l.79-80: Boolean
// useSystemManagedIdentity, String userAssignedIdentities) and Deck sends them (a text field,
// advancedSettingsSelector.directive.html l.63, passed through by serverGroup.transformer.js l.100): a comma-separated
// list, each an identity's name in the server group's resource group (AzureServerGroupResourceTemplate.groovy l.489-495
// puts `resourceID('Microsoft.ManagedIdentity/userAssignedIdentities/', name)` in the template) or, as clouddriver
// reads them back from a scale set and Deck's clone fills them in (AzureServerGroupDescription.groovy l.219-232), the
// identities' resource ids. An array of either is taken too.
import type { ImageSpec } from "./scale-set-model.ts";

/** The image as Deck and Orca send it: the model's fields, with isCustom possibly the string 'true'. */
export interface ImageInput extends Omit<ImageSpec, "isCustom"> {
  isCustom?: boolean | "true" | "false";
}

export interface SourceInput {
  account?: string;
  region?: string;
  serverGroupName?: string;
  asgName?: string;
  resourceGroup?: string;
  useSourceCapacity?: boolean;
}

export interface DeployInput {
  image?: ImageInput;
  sku?: { name?: string; tier?: string; capacity?: number };
  capacity?: { min?: number; max?: number; desired?: number };
  customScriptsSettings?: { fileUris?: string[]; commandToExecute?: string };
  source?: SourceInput;
  useSourceCapacity?: boolean;
  useSystemManagedIdentity?: boolean | "true" | "false";
  userAssignedIdentities?: string | string[];
}

/** The image as meant ("" dropped, isCustom a boolean): what the scale set's model is built from. */
export type NormalImage = ImageSpec;

/** The group a deploy follows in its cluster: Orca's source, when it names one. */
export interface NamedSource {
  account: string;
  region: string;
  serverGroupName: string;
  resourceGroup?: string;
  useSourceCapacity: boolean;
}

const present = (s: string | undefined): string | undefined => (s === undefined || s === "" ? undefined : s);

/** The image as meant: "" is absent, isCustom 'true' is true. */
export function normalImage(image: ImageInput | undefined): NormalImage | undefined {
  if (!image) return undefined;
  const out: NormalImage = {};
  const custom = image.isCustom === true || image.isCustom === "true";
  if (custom) out.isCustom = true;
  for (const f of ["uri", "publisher", "offer", "sku", "version", "imageName", "ostype"] as const) {
    const v = present(image[f]);
    if (v !== undefined) out[f] = v;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** The image is a custom one: isCustom, or a uri given. */
export function isCustomImage(image: NormalImage | undefined): boolean {
  return Boolean(image?.isCustom || image?.uri);
}

/** The script to run, or none: an empty command is Deck's "no script". */
export function scriptOf(d: DeployInput): { fileUris: string[]; commandToExecute: string } | undefined {
  const command = d.customScriptsSettings?.commandToExecute;
  if (command === undefined || command.trim() === "") return undefined;
  return { fileUris: d.customScriptsSettings?.fileUris ?? [], commandToExecute: command };
}

/** Orca's source when it names a group; `{}` (an empty cluster's breadcrumb) is none. */
export function namedSource(d: DeployInput): NamedSource | undefined {
  const s = d.source;
  const name = s?.serverGroupName ?? s?.asgName;
  if (!s || !name || !s.account || !s.region) return undefined;
  // DetermineSourceServerGroupTask.groovy l.117-121: the source's own flag, else the stage's.
  const useSourceCapacity = s.useSourceCapacity ?? d.useSourceCapacity ?? false;
  return {
    account: s.account,
    region: s.region,
    serverGroupName: name,
    ...(s.resourceGroup ? { resourceGroup: s.resourceGroup } : {}),
    useSourceCapacity,
  };
}

/**
 * The size asked for: capacity.desired, else sku.capacity (Deck's only size field). capacity.desired wins: Orca's
 * rolling red/black sets capacity {0, 0, 0} and leaves Deck's sku.capacity (RollingRedBlackStrategy.groovy l.83-91).
 */
export function askedDesired(d: DeployInput): number | undefined {
  return d.capacity?.desired ?? d.sku?.capacity;
}

/**
 * The capacity of the new group. With useSourceCapacity, the source's (Orca's meaning: copy the current group's
 * size); otherwise the description's, min and max defaulting to the size.
 */
export function deployCapacity(
  d: DeployInput,
  source?: { min: number; max: number; desired: number },
): { min: number; max: number; desired: number } | undefined {
  if (source) return { ...source };
  const desired = askedDesired(d);
  if (desired === undefined) return undefined;
  return { min: d.capacity?.min ?? desired, max: d.capacity?.max ?? desired, desired };
}

export interface InputProblem {
  field: string;
  message: string;
}

/** What a deploy cannot be built from, field by field (before anything is read from Azure). */
export function deployProblems(d: DeployInput, options: { clone: boolean }): InputProblem[] {
  const problems: InputProblem[] = [];
  const s = d.source;
  if (s && (s.serverGroupName || s.asgName) && (!s.account || !s.region)) {
    problems.push({
      field: !s.account ? "source.account" : "source.region",
      message: "required when source names a server group",
    });
  }
  problems.push(...identityProblems(d));
  const desired = askedDesired(d);
  const min = d.capacity?.min;
  const max = d.capacity?.max;
  if (desired !== undefined && min !== undefined && min > desired)
    problems.push({ field: "capacity.min", message: `min (${min}) must not exceed the size (${desired})` });
  if (desired !== undefined && max !== undefined && max < desired)
    problems.push({ field: "capacity.max", message: `max (${max}) must not be below the size (${desired})` });
  if (options.clone) return problems;
  const image = normalImage(d.image);
  if (!image)
    problems.push({
      field: "image",
      message:
        "required: a marketplace image (publisher, offer, sku) or a custom one (isCustom, uri); a pipeline's placeholder image needs a bake stage before the deploy",
    });
  else if (isCustomImage(image)) {
    if (!image.uri)
      problems.push({
        field: "image.uri",
        message: "required for a custom image: its resource id (Orca fills it from the bake stage)",
      });
  } else {
    for (const f of ["publisher", "offer", "sku"] as const)
      if (!image[f]) problems.push({ field: `image.${f}`, message: "required for a marketplace image" });
  }
  if (!d.sku?.name) problems.push({ field: "sku.name", message: "required: the VM size, e.g. Standard_D2s_v3" });
  const copiesCapacity = namedSource(d)?.useSourceCapacity === true;
  if (desired === undefined && !copiesCapacity)
    problems.push({
      field: "capacity",
      message: "required: capacity.desired or sku.capacity (or source.useSourceCapacity with a source)",
    });
  return problems;
}

/** A user-assigned identity as a description names it: by resource id, or by name in the server group's group. */
export type IdentityRef = { id: string } | { name: string };

/** Azure's names of user-assigned identities: 3-128 letters, digits, '-' and '_', starting with a letter or digit. */
const IDENTITY_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/;
const IDENTITY_ID =
  /^\/subscriptions\/[^/]+\/resourceGroups\/[^/]+\/providers\/Microsoft\.ManagedIdentity\/userAssignedIdentities\/[A-Za-z0-9][A-Za-z0-9_-]{2,127}$/i;

function identityEntries(d: DeployInput): string[] {
  const given = d.userAssignedIdentities;
  if (given === undefined) return [];
  const list = Array.isArray(given) ? given : given.split(",");
  return list.map((s) => s.trim()).filter((s) => s !== "");
}

/** The user-assigned identities a description names, in its order, each once; none when it names none. */
export function identityRefs(d: DeployInput): IdentityRef[] {
  const seen = new Set<string>();
  const out: IdentityRef[] = [];
  for (const entry of identityEntries(d)) {
    if (seen.has(entry.toLowerCase())) continue;
    seen.add(entry.toLowerCase());
    out.push(entry.startsWith("/") ? { id: entry } : { name: entry });
  }
  return out;
}

/** Whether the description asks for the scale set's own (system-assigned) identity: true or 'true'. */
export function wantsSystemIdentity(d: DeployInput): boolean | undefined {
  const v = d.useSystemManagedIdentity;
  return v === undefined ? undefined : v === true || v === "true";
}

/** The resource id of a user-assigned identity the description names. */
export function identityId(ref: IdentityRef, subscriptionId: string, resourceGroup: string): string {
  return "id" in ref
    ? ref.id
    : `/subscriptions/${subscriptionId}/resourceGroups/${resourceGroup}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/${ref.name}`;
}

function identityProblems(d: DeployInput): InputProblem[] {
  return identityEntries(d)
    .filter((e) => !(e.startsWith("/") ? IDENTITY_ID.test(e) : IDENTITY_NAME.test(e)))
    .map((e) => ({
      field: "userAssignedIdentities",
      message: `${JSON.stringify(e)} is neither an identity's name (3-128 letters, digits, '-', '_') nor its resource id (/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.ManagedIdentity/userAssignedIdentities/{name})`,
    }));
}
