// The api-versions Azure serves per resource type, and the check ARM makes of a request's api-version: a malformed one
// is 400 InvalidApiVersionParameter, a well-formed one the resource type does not serve is 400
// NoRegisteredProviderFound, both listing the supported versions. The lists are those Azure's provider registration
// (`GET /subscriptions/{id}/providers/Microsoft.Compute`, `…/Microsoft.Resources`) gives for the types the simulator
// serves, older versions included: Debian's Python SDK speaks 2022-08-01, the Azure CLI's hybrid profile 2020-06-01,
// @azure/arm-compute 25 2026-04-01. Answers leave out what a version does not define (api-version-shapes.ts).
import { ArmError } from "./arm-errors.ts";

/** Microsoft.Compute virtualMachineScaleSets (and their VMs, and locations/operations), and virtualMachines. */
export const COMPUTE_API_VERSIONS: readonly string[] = [
  "2015-06-15",
  "2016-03-30",
  "2016-04-30-preview",
  "2017-03-30",
  "2017-12-01",
  "2018-04-01",
  "2018-06-01",
  "2018-10-01",
  "2019-03-01",
  "2019-07-01",
  "2019-12-01",
  "2020-06-01",
  "2020-12-01",
  "2021-03-01",
  "2021-04-01",
  "2021-07-01",
  "2021-11-01",
  "2022-03-01",
  "2022-08-01",
  "2022-11-01",
  "2023-03-01",
  "2023-07-01",
  "2023-09-01",
  "2024-03-01",
  "2024-07-01",
  "2024-11-01",
  "2025-04-01",
  "2026-04-01",
];

/** Microsoft.Resources: subscriptions, resource groups, providers. */
export const RESOURCES_API_VERSIONS: readonly string[] = [
  "2014-04-01",
  "2015-01-01",
  "2015-11-01",
  "2016-02-01",
  "2016-06-01",
  "2016-07-01",
  "2016-09-01",
  "2017-05-10",
  "2017-08-01",
  "2018-02-01",
  "2018-05-01",
  "2019-03-01",
  "2019-05-01",
  "2019-05-10",
  "2019-06-01",
  "2019-07-01",
  "2019-08-01",
  "2019-10-01",
  "2019-11-01",
  "2020-01-01",
  "2020-06-01",
  "2020-08-01",
  "2020-10-01",
  "2021-01-01",
  "2021-04-01",
  "2022-01-01",
  "2022-09-01",
  "2022-12-01",
  "2023-07-01",
  "2024-03-01",
  "2024-07-01",
  "2024-11-01",
  "2025-03-01",
  "2025-04-01",
];

/** Microsoft.Authorization locks (management locks on a resource). */
export const LOCKS_API_VERSIONS: readonly string[] = ["2015-01-01", "2016-09-01", "2020-05-01"];

const WELL_FORMED = /^\d{4}-\d{2}-\d{2}(-(preview|privatepreview|alpha|beta))?$/i;

interface TypeVersions {
  /** As ARM names it in its message: `virtualMachineScaleSets`, `resourceGroups`, … */
  type: string;
  versions: readonly string[];
}

/** The resource type a path addresses, with its api-versions; undefined for paths the simulator does not serve. */
export function apiVersionsOf(pathname: string): TypeVersions | undefined {
  const parts = pathname
    .toLowerCase()
    .replace(/^\/+|\/+$/g, "")
    .split("/");
  if (parts[0] !== "subscriptions") return undefined;
  if (parts.length <= 2) return { type: "subscriptions", versions: RESOURCES_API_VERSIONS };
  // The last provider named is the type addressed: …/virtualMachines/{vm}/providers/Microsoft.Authorization/locks/{lock}.
  const providers = parts.lastIndexOf("providers");
  if (providers < 0) return { type: "resourceGroups", versions: RESOURCES_API_VERSIONS };
  const namespace = parts[providers + 1];
  if (namespace === "microsoft.authorization" && parts[providers + 2] === "locks")
    return { type: "locks", versions: LOCKS_API_VERSIONS };
  if (namespace === "microsoft.resources" && parts[providers + 2] === "deployments")
    return { type: "deployments", versions: RESOURCES_API_VERSIONS };
  if (namespace !== "microsoft.compute") return undefined;
  const type = parts[providers + 2];
  if (type === undefined) return { type: "providers", versions: RESOURCES_API_VERSIONS };
  if (type === "virtualmachinescalesets") return { type: "virtualMachineScaleSets", versions: COMPUTE_API_VERSIONS };
  if (type === "virtualmachines") return { type: "virtualMachines", versions: COMPUTE_API_VERSIONS };
  if (type === "locations") return { type: "locations/operations", versions: COMPUTE_API_VERSIONS };
  return undefined;
}

/** Throws ARM's 400 when the api-version is malformed or not served for the path's resource type. */
export function checkApiVersion(pathname: string, apiVersion: string): void {
  const served = apiVersionsOf(pathname);
  if (!served) return;
  const list = [...served.versions].reverse().join(", ");
  if (!WELL_FORMED.test(apiVersion)) {
    throw new ArmError(
      400,
      "InvalidApiVersionParameter",
      `The api-version '${apiVersion}' is invalid. The supported versions are '${list}'.`,
    );
  }
  if (!served.versions.some((v) => v.toLowerCase() === apiVersion.toLowerCase())) {
    throw new ArmError(
      400,
      "NoRegisteredProviderFound",
      `No registered resource provider found for API version '${apiVersion}' for type '${served.type}'. The supported api-versions are '${list}'.`,
    );
  }
}
