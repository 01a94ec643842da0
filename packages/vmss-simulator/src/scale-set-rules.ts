// What Microsoft.Compute decides about a scale-set model beyond its limits: the defaults a create gets, the 100-VM
// limit of a single placement group, and the orchestration mode (Flexible's own rules are in flexible.ts).
import { ArmError, invalidParameter, missingParameter } from "./arm-errors.ts";
import { checkFlexibleRules, FLEXIBLE_CREATE_DEFAULTS } from "./flexible.ts";
import { clone, getPath, isObject, type JsonObject } from "./json.ts";
import { capacityOf, isFlexibleModel } from "./vmss-model.ts";

/** A single placement group holds 0–100 VMs; several (singlePlacementGroup false) up to 1,000. */
export const SINGLE_PLACEMENT_GROUP_MAX = 100;

/**
 * The properties a create that omits them comes back with (poweroff[0], update[0]: a PUT of sku, upgradePolicy and
 * virtualMachineProfile answered with these). An update applies none of them: omitted properties stay as they are.
 */
const CREATE_DEFAULTS: Readonly<JsonObject> = {
  singlePlacementGroup: true,
  orchestrationMode: "Uniform",
  upgradePolicy: { mode: "Manual" },
  overprovision: true,
  doNotRunExtensionsOnOverprovisionedVMs: false,
  platformFaultDomainCount: 5,
};

/** The model of a create with Azure's defaults filled in where the body gave nothing. */
export function withCreateDefaults(model: JsonObject): JsonObject {
  const out = clone(model);
  const properties = isObject(out.properties) ? out.properties : (out.properties = {});
  const defaults = isFlexibleModel(out) ? FLEXIBLE_CREATE_DEFAULTS : CREATE_DEFAULTS;
  for (const [key, value] of Object.entries(defaults)) {
    if (properties[key] === undefined || properties[key] === null) properties[key] = clone(value);
  }
  return out;
}

function singlePlacementGroupOf(model: JsonObject): boolean {
  return getPath(model, "properties", "singlePlacementGroup") !== false;
}

function orchestrationModeOf(model: JsonObject): string {
  const mode = getPath(model, "properties", "orchestrationMode");
  return typeof mode === "string" ? mode : "Uniform";
}

/**
 * Each extension of the VM profile names its handler: `properties.publisher` and `properties.type` (the REST spec's
 * VirtualMachineScaleSetExtensionProperties; a VM cannot run an extension whose type it is not told), else 400
 * "Required parameter … is missing (null)." naming it.
 */
function checkExtensions(model: JsonObject): void {
  const extensions = getPath(model, "properties", "virtualMachineProfile", "extensionProfile", "extensions");
  if (!Array.isArray(extensions)) return;
  extensions.forEach((extension, i) => {
    for (const key of ["publisher", "type"]) {
      const value = isObject(extension) ? getPath(extension, "properties", key) : undefined;
      if (typeof value !== "string" || value === "")
        throw missingParameter(`virtualMachineProfile.extensionProfile.extensions[${i}].properties.${key}`);
    }
  });
}

/**
 * The rules a create or an update (`previous` given) must meet, checked on the model as it would be after the write:
 * - the orchestration mode of an existing scale set cannot change;
 * - a Flexible model meets Flexible's rules (flexible.ts), and the placement-group rules below are Uniform's;
 * - singlePlacementGroup can go from true to false, never back (REST spec: "singlePlacementGroup … if set to false,
 *   it cannot be modified to true");
 * - more than 100 VMs need singlePlacementGroup false: 409 OperationNotAllowed, in the words Azure answers it with
 *   (reported by Terraform and Ansible users: "Unable to create or update VirtualMachineScaleSet '…' as it exceeds
 *   the total limit of '100' Virtual Machine instances."), plus what to change.
 */
export function checkScaleSetRules(name: string, model: JsonObject, previous?: JsonObject): void {
  checkExtensions(model);
  const mode = orchestrationModeOf(model);
  if (previous !== undefined && mode.toLowerCase() !== orchestrationModeOf(previous).toLowerCase()) {
    throw invalidParameter(
      `Changing property 'orchestrationMode' is not allowed: the scale set '${name}' is ${orchestrationModeOf(previous)}.`,
      "orchestrationMode",
    );
  }
  if (mode.toLowerCase() === "flexible") {
    checkFlexibleRules(model);
    return;
  }
  if (mode.toLowerCase() !== "uniform") {
    throw invalidParameter(
      `The value '${mode}' of parameter 'orchestrationMode' is invalid. Allowed values are: Uniform, Flexible.`,
      "orchestrationMode",
    );
  }
  if (previous !== undefined && !singlePlacementGroupOf(previous) && singlePlacementGroupOf(model)) {
    throw invalidParameter(
      `Changing property 'singlePlacementGroup' from false to true is not allowed: a scale set with several placement groups cannot go back to one.`,
      "singlePlacementGroup",
    );
  }
  const capacity = capacityOf(model);
  if (singlePlacementGroupOf(model) && capacity > SINGLE_PLACEMENT_GROUP_MAX) {
    throw new ArmError(
      409,
      "OperationNotAllowed",
      `Unable to create or update VirtualMachineScaleSet '${name}' as it exceeds the total limit of '${SINGLE_PLACEMENT_GROUP_MAX}' Virtual Machine instances. ` +
        `A scale set with singlePlacementGroup true holds at most ${SINGLE_PLACEMENT_GROUP_MAX} VMs (${capacity} requested); set properties.singlePlacementGroup to false for up to 1000.`,
    );
  }
}
