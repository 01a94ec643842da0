// Deck's side of a deploy, as tests post it: the deploy dialog's command and its transformer, ported as it is from
// spinnaker/deck packages/azure/src/serverGroup/serverGroup.transformer.js (convertServerGroupCommandToDeployConfiguration,
// l.37-143), and a bake stage's outputs. test/deploy-contract.test.ts runs them through Orca's steps.
import { SimulatorControl } from "vmss-simulator";
import type { Json } from "./json.ts";

const REGION = "eastus";

/** serverGroup.transformer.js l.37-143, line for line (JSON.stringify then drops what is undefined, as Deck posts it). */
export function convertServerGroupCommandToDeployConfiguration(command: Record<string, Json>): Record<string, Json> {
  let tempImage;
  if (command.viewState.mode === "editPipeline" || command.viewState.mode === "createPipeline") {
    tempImage = {
      imageName: "",
      isCustom: "true",
      publisher: "",
      offer: "",
      sku: "",
      version: "",
      region: command.region,
      uri: "",
      ostype: "",
    };
  } else {
    tempImage = command.selectedImage;
  }
  const configuration: Record<string, Json> = {
    name: command.application,
    cloudProvider: command.selectedProvider,
    application: command.application,
    stack: command.stack,
    strategy: command.strategy,
    rollback: { onFailure: command.rollback ? command.rollback.onFailure : null },
    scaleDown: command.scaleDown,
    maxRemainingAsgs: command.maxRemainingAsgs,
    delayBeforeDisableSec: command.delayBeforeDisableSec,
    delayBeforeScaleDownSec: command.delayBeforeScaleDownSec,
    allowDeleteActive: command.strategy === "redblack" ? true : null,
    allowScaleDownActive: command.strategy === "redblack" ? true : null,
    detail: command.freeFormDetails,
    freeFormDetails: command.freeFormDetails,
    healthSettings: command.healthSettings,
    image: command.image,
    account: command.credentials,
    selectedProvider: "azure",
    vnet: command.vnet,
    vnetResourceGroup: command.selectedVnet.resourceGroup,
    subnet: command.subnet,
    useSourceCapacity: false,
    capacity: { min: command.sku.capacity, max: command.sku.capacity },
    credentials: command.credentials,
    region: command.region,
    securityGroupName: command.securityGroupName,
    loadBalancerName: command.loadBalancerName,
    loadBalancerType: command.loadBalancerType,
    user: "[anonymous]",
    upgradePolicy: "Manual",
    type: "createServerGroup",
    sku: { name: "Standard_DS1_v2", tier: "Standard", capacity: command.sku.capacity },
    instanceTags: command.instanceTags,
    dataDisks: command.dataDisks,
    userAssignedIdentities: command.userAssignedIdentities,
    viewState: command.viewState,
    osConfig: { customData: command.osConfig ? command.osConfig.customData : null },
    customScriptsSettings: { fileUris: null, commandToExecute: "" },
    zonesEnabled: command.zonesEnabled,
    zones: command.zonesEnabled ? command.zones : [],
    enableInboundNAT: command.enableInboundNAT,
  };
  if (command.image == null || command.image.isCustom == false) configuration.image = tempImage;
  if (typeof command.stack !== "undefined") configuration.name = configuration.name + "-" + command.stack;
  if (typeof command.freeFormDetails !== "undefined")
    configuration.name = configuration.name + "-" + command.freeFormDetails;
  if (typeof command.customScriptsSettings !== "undefined")
    configuration.customScriptsSettings.commandToExecute = command.customScriptsSettings.commandToExecute;
  if (command.instanceType) {
    const vmsku = command.instanceType;
    configuration.instanceType = command.instanceType;
    configuration.sku.name = vmsku;
    configuration.sku.tier = vmsku.substring(0, vmsku.indexOf("_"));
  }
  configuration.interestingHealthProviderNames = [];
  return JSON.parse(JSON.stringify(configuration));
}

/** What Deck's deploy dialog holds for a cluster of `application` (a pipeline stage unless `adHoc`). */
export function deckCommand(application: string, extra: Record<string, Json> = {}): Record<string, Json> {
  return {
    viewState: { mode: "createPipeline" },
    application,
    stack: "prod",
    selectedProvider: "azure",
    strategy: "redblack",
    rollback: { onFailure: false },
    scaleDown: false,
    maxRemainingAsgs: 2,
    delayBeforeDisableSec: 0,
    delayBeforeScaleDownSec: 0,
    credentials: "demo",
    region: REGION,
    vnet: "demo-rg-vnet",
    selectedVnet: { name: "demo-rg-vnet", resourceGroup: "demo-rg" },
    subnet: "default",
    sku: { capacity: 2 },
    securityGroupName: "demo-nsg",
    loadBalancerName: "demo-lb",
    loadBalancerType: "Azure Load Balancer",
    instanceTags: {},
    dataDisks: [],
    userAssignedIdentities: [],
    zonesEnabled: false,
    zones: [],
    enableInboundNAT: false,
    instanceType: "Standard_B2s",
    ...extra,
  };
}

/** A bake stage's outputs, as AzureServerGroupCreator.groovy l.44-49 reads them. */
export const bake = (sub: string, application: string) => ({
  imageId: `/subscriptions/${sub}/resourceGroups/demo-rg/providers/Microsoft.Compute/images/${application}-1.0.0`,
  osType: "Linux",
  imageName: `${application}-1.0.0`,
});

/**
 * A bake stage run against the simulator: the managed image it leaves behind (as Rosco's bake leaves one in Azure;
 * a scale set may name only an image that exists), and the stage's outputs naming it.
 */
export async function bakeImage(
  sim: { url: string; caPem: string; subscriptionId: string },
  application: string,
): Promise<ReturnType<typeof bake>> {
  const outputs = bake(sim.subscriptionId, application);
  const control = new SimulatorControl(sim);
  try {
    const res = await control.request("PUT", `${outputs.imageId}?api-version=2024-11-01`, {
      headers: { authorization: "Bearer test" },
      body: {
        location: REGION,
        properties: { storageProfile: { osDisk: { osType: "Linux", osState: "Generalized" } } },
      },
    });
    if (res.status !== 200 && res.status !== 201)
      throw new Error(`baking ${application}: ${res.status} ${JSON.stringify(res.body)}`);
  } finally {
    await control.close();
  }
  return outputs;
}
