// `GET /metadata/endpoints`: the cloud's endpoints, as Azure Resource Manager serves them to any caller without a
// token (the Azure CLI's `az cloud register --endpoint-resource-manager`, Azure Stack tooling). Every endpoint that
// the simulator serves points at it: Resource Manager, and the login endpoint (its token endpoint is
// `/{tenant}/oauth2/v2.0/token`). The audiences are Azure's, which the token endpoint accepts. api-version
// 2019-05-01 up to 2022-09-01 (exclusive) answer a list of clouds; 2022-09-01 and later one cloud; older ones the
// original flat shape.
import { IMAGE_ALIAS_DOC_PATH } from "./image-catalogue.ts";
import type { JsonObject } from "./json.ts";

export const METADATA_ENDPOINTS_PATH = "/metadata/endpoints";
export const SIMULATOR_CLOUD_NAME = "ArmSimulator";

const AUDIENCES = ["https://management.core.windows.net/", "https://management.azure.com/"];

function cloud(baseUrl: string): JsonObject {
  const url = `${baseUrl}/`;
  return {
    portal: url,
    authentication: { loginEndpoint: url, audiences: AUDIENCES, tenant: "common", identityProvider: "AAD" },
    media: url,
    graphAudience: "https://graph.windows.net/",
    graph: "https://graph.windows.net/",
    name: SIMULATOR_CLOUD_NAME,
    suffixes: {
      azureDataLakeStoreFileSystem: "azuredatalakestore.net",
      acrLoginServer: "azurecr.io",
      sqlServerHostname: ".database.windows.net",
      azureDataLakeAnalyticsCatalogAndJob: "azuredatalakeanalytics.net",
      keyVaultDns: "vault.azure.net",
      storage: "core.windows.net",
      azureFrontDoorEndpointSuffix: "azurefd.net",
    },
    batch: "https://batch.core.windows.net/",
    resourceManager: url,
    vmImageAliasDoc: `${baseUrl}${IMAGE_ALIAS_DOC_PATH}`,
    activeDirectoryDataLake: "https://datalake.azure.net/",
    sqlManagement: "https://management.core.windows.net:8443/",
    gallery: "https://gallery.azure.com/",
  };
}

/** The body for an api-version (absent: the list shape). */
export function metadataEndpoints(baseUrl: string, apiVersion: string | null): unknown {
  const version = apiVersion ?? "2019-05-01";
  if (version >= "2022-09-01") return cloud(baseUrl);
  if (version >= "2019-05-01") return [cloud(baseUrl)];
  return {
    galleryEndpoint: "https://gallery.azure.com/",
    graphEndpoint: "https://graph.windows.net/",
    portalEndpoint: `${baseUrl}/`,
    authentication: { loginEndpoint: `${baseUrl}/`, audiences: AUDIENCES },
  };
}
