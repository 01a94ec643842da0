// The create and clone descriptions: what Deck and Orca send, as the schemas that validate and type it.
import { Type, type Static } from "@sinclair/typebox";
import { createTimeSettingFields } from "./create-time-settings.ts";
import { AccountName, InstanceCount, RegionName, ResourceGroupName, ScaleSetName } from "../description.ts";
import { SERVER_GROUP_RESOURCE_GROUP_RULE } from "../../naming/frigga.ts";
import type { SourceInput } from "./deploy-input.ts";

/** Frigga's NAME_CHARS for application and stack; the detail may hold '-' too (Azure takes no '~' or '^'). */
const AppName = Type.String({
  pattern: "^[A-Za-z0-9._]+$",
  maxLength: 40,
  description: "the application: letters, digits, '.' and '_'",
});
const StackName = Type.String({
  pattern: "^[A-Za-z0-9._]*$",
  maxLength: 20,
  description: "the stack: letters, digits, '.' and '_'",
});
const DetailName = Type.String({
  pattern: "^[A-Za-z0-9._-]*$",
  maxLength: 40,
  description: "the detail: letters, digits, '.', '_' and '-'",
});

const ArmId = (type: string, example: string) =>
  Type.String({
    pattern: `^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/${type.replace(/\./g, "\\.")}$`,
    maxLength: 1024,
    description: `an Azure resource id: ${example}`,
  });

const SubnetId = ArmId(
  "Microsoft.Network/virtualNetworks/[^/]+/subnets/[^/]+",
  "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet}",
);
const LoadBalancerPoolId = ArmId(
  "Microsoft.Network/loadBalancers/[^/]+/backendAddressPools/[^/]+",
  "…/Microsoft.Network/loadBalancers/{lb}/backendAddressPools/{pool}",
);
const AppGatewayPoolId = ArmId(
  "Microsoft.Network/applicationGateways/[^/]+/backendAddressPools/[^/]+",
  "…/Microsoft.Network/applicationGateways/{agw}/backendAddressPools/{pool}",
);
const SecurityGroupId = ArmId(
  "Microsoft.Network/networkSecurityGroups/[^/]+",
  "…/Microsoft.Network/networkSecurityGroups/{nsg}",
);
const ImageId = Type.String({
  pattern: "^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\\.Compute/.+$",
  maxLength: 1024,
  description: "a custom image or gallery image version id",
});

// Deck's pipeline placeholder image has "" in every field and isCustom 'true', a string (serverGroup.transformer.js
// l.40-51): "" is read as absent.
const ImagePart = Type.String({ pattern: "^[A-Za-z0-9._-]{0,100}$" });
const Image = Type.Object(
  {
    isCustom: Type.Optional(
      Type.Union([Type.Boolean(), Type.Literal("true"), Type.Literal("false")], {
        description: "a custom image: uri is its resource id ('true' as Deck sends it)",
      }),
    ),
    uri: Type.Optional(Type.Union([Type.Literal(""), ImageId])),
    publisher: Type.Optional(ImagePart),
    offer: Type.Optional(ImagePart),
    sku: Type.Optional(ImagePart),
    version: Type.Optional(ImagePart),
    imageName: Type.Optional(Type.String({ maxLength: 200 })),
    ostype: Type.Optional(
      Type.Union([
        Type.Literal(""),
        Type.Literal("linux"),
        Type.Literal("windows"),
        Type.Literal("Linux"),
        Type.Literal("Windows"),
      ]),
    ),
  },
  {
    additionalProperties: true,
    description:
      'clouddriver-azure\'s AzureNamedImage: marketplace (publisher, offer, sku, version) or custom (isCustom, uri); "" is absent',
  },
);

/** Azure's names of network resources: 1-80 letters, digits, '_', '.', '-'. */
const NetworkName = (what: string) =>
  Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,79}$", description: `the ${what}'s name` });

/** Deck sends {min, max} and the size as sku.capacity (serverGroup.transformer.js l.81-84, l.93-97). */
const DeployCapacity = Type.Object(
  { min: Type.Optional(InstanceCount), max: Type.Optional(InstanceCount), desired: Type.Optional(InstanceCount) },
  {
    additionalProperties: false,
    description: "instance counts; desired defaults to sku.capacity, min and max to desired",
  },
);

/** A field no value of which is accepted (JSON Schema's `not: {}`); its reason is the message of the 400. */
function Refused(reason: string) {
  return Type.Unsafe<never>({ not: {}, description: reason });
}

const OsConfig = Type.Object(
  {
    adminUserName: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$" })),
    adminPassword: Type.Optional(
      Refused(
        "refused, whatever its value: a password is not taken in a request; name an environment variable of the service in osConfig.adminPasswordEnv",
      ),
    ),
    adminPasswordEnv: Type.Optional(
      Type.String({
        pattern: "^[A-Z_][A-Z0-9_]{0,127}$",
        description:
          "the name of an environment variable of this service that holds the admin password; read when the PUT is sent, never stored",
      }),
    ),
    sshPublicKeys: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 8192, pattern: "^(ssh-|ecdsa-)" }), { maxItems: 10 }),
    ),
    computerNamePrefix: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9-]{0,57}$" })),
    customData: Type.Optional(
      Type.String({ maxLength: 65535, description: "cloud-init or script text; sent base64-encoded" }),
    ),
  },
  { additionalProperties: false, description: "OS admin settings; secrets only by reference" },
);

const modelFields = {
  image: Type.Optional(Image),
  sku: Type.Optional(
    Type.Object(
      {
        name: Type.Optional(
          Type.String({ pattern: "^[A-Za-z0-9_]{1,64}$", description: "a VM size, e.g. Standard_D2s_v3" }),
        ),
        tier: Type.Optional(Type.String({ pattern: "^(Standard|Basic)$" })),
        capacity: Type.Optional(InstanceCount),
      },
      { additionalProperties: false },
    ),
  ),
  capacity: Type.Optional(DeployCapacity),
  upgradePolicy: Type.Optional(
    Type.Union([Type.Literal("Automatic"), Type.Literal("Manual"), Type.Literal("Rolling")], {
      description: "Azure's upgrade mode (default Manual; a clone keeps its source's); Rolling needs health to watch",
    }),
  ),
  ...createTimeSettingFields,
  orchestrationMode: Type.Optional(
    Type.Union([Type.Literal("Uniform"), Type.Literal("Flexible")], {
      description:
        "Azure's orchestration mode of the new scale set: Uniform (the REST API's default) unless given; a clone keeps its source's unless given",
    }),
  ),
  subnetId: Type.Optional(SubnetId),
  securityGroupId: Type.Optional(SecurityGroupId),
  loadBalancerBackendPoolId: Type.Optional(LoadBalancerPoolId),
  appGatewayBapId: Type.Optional(AppGatewayPoolId),
  zones: Type.Optional(Type.Array(Type.String({ pattern: "^[1-3]$" }), { maxItems: 3, uniqueItems: true })),
  instanceTags: Type.Optional(
    Type.Record(Type.String({ pattern: "^(?!vmss-ops\\.)[^<>%&\\\\?/]{1,512}$" }), Type.String({ maxLength: 256 }), {
      description:
        "tags for the scale set (Azure: up to 50 names of ≤512 characters and values of ≤256; names starting vmss-ops. are ours)",
    }),
  ),
  customScriptsSettings: Type.Optional(
    Type.Object(
      {
        fileUris: Type.Optional(Type.Array(Type.String({ pattern: "^https://", maxLength: 2048 }), { maxItems: 20 })),
        commandToExecute: Type.Optional(Type.String({ maxLength: 8192 })),
      },
      {
        additionalProperties: false,
        description: "a script to run; an empty commandToExecute is none (Deck sends one always)",
      },
    ),
  ),
  healthSettings: Type.Optional(
    Type.Object(
      {
        protocol: Type.Union([Type.Literal("http"), Type.Literal("https"), Type.Literal("tcp")]),
        // clouddriver-azure's AzureExtensionHealthSettings.port is a String: "8080" is taken as well as 8080.
        port: Type.Union([Type.Integer({ minimum: 1, maximum: 65535 }), Type.String({ pattern: "^[1-9][0-9]{0,4}$" })]),
        requestPath: Type.Optional(Type.String({ pattern: "^/", maxLength: 1024 })),
      },
      { additionalProperties: false },
    ),
  ),
  dataDisks: Type.Optional(
    Type.Array(
      Type.Object(
        {
          lun: Type.Integer({ minimum: 0, maximum: 63 }),
          diskSizeGB: Type.Integer({ minimum: 1, maximum: 32767 }),
          caching: Type.Optional(
            Type.Union([Type.Literal("None"), Type.Literal("ReadOnly"), Type.Literal("ReadWrite")]),
          ),
          storageAccountType: Type.Optional(
            Type.Union([
              Type.Literal("Standard_LRS"),
              Type.Literal("Premium_LRS"),
              Type.Literal("StandardSSD_LRS"),
              Type.Literal("Premium_ZRS"),
              Type.Literal("StandardSSD_ZRS"),
            ]),
          ),
        },
        // clouddriver-azure takes the SDK's VirtualMachineScaleSetDataDisk: its other fields are accepted and not used.
        { additionalProperties: true },
      ),
      { maxItems: 64 },
    ),
  ),
  osConfig: Type.Optional(OsConfig),
  enableIpForwarding: Type.Optional(Type.Boolean()),
  disabled: Type.Optional(
    Type.Boolean({
      description:
        "start out of traffic (default false): the backend pools are recorded, and enableServerGroup puts them on",
    }),
  ),
  healthyTimeoutSeconds: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 3600,
      description:
        "how long the new instances may take to become healthy behind the load balancer before the create fails (default 600; the retry deadline bounds it too)",
    }),
  ),
  // Networking by name, as Deck sends it and clouddriver-azure resolves it.
  vnet: Type.Optional(NetworkName("virtual network")),
  subnet: Type.Optional(NetworkName("subnet")),
  vnetResourceGroup: Type.Optional({
    ...ResourceGroupName,
    description: "the virtual network's resource group (default: the server group's)",
  }),
  securityGroupName: Type.Optional(NetworkName("network security group")),
  loadBalancerName: Type.Optional(NetworkName("load balancer (or application gateway)")),
  loadBalancerType: Type.Optional(
    Type.Union([Type.Literal("Azure Load Balancer"), Type.Literal("Azure Application Gateway")]),
  ),
  appGatewayName: Type.Optional(NetworkName("application gateway")),
  useSourceCapacity: Type.Optional(
    Type.Boolean({ description: "take the capacity of source (the cluster's current group)" }),
  ),
  copySourceScalingPoliciesAndActions: Type.Optional(
    Type.Boolean({
      description:
        "copy the Azure Monitor autoscale setting of the source (a clone's, or a deploy's current group) to the new group, the capacity asked for on its profile in force (default true, as Clouddriver's AWS deploy: BasicAmazonDeployDescription.groovy l.76-82)",
    }),
  ),
  useSystemManagedIdentity: Type.Optional(
    Type.Union([Type.Boolean(), Type.Literal("true"), Type.Literal("false")], {
      description:
        "give the scale set a system-assigned identity (clouddriver-azure's field; default false, a clone keeps its source's)",
    }),
  ),
  userAssignedIdentities: Type.Optional(
    Type.Union([Type.String({ maxLength: 8192 }), Type.Array(Type.String({ maxLength: 1024 }), { maxItems: 20 })], {
      description:
        "user-assigned identities: a comma-separated string (as Deck sends it) or a list, each a name in the server group's resource group or a resource id; each must exist. \"\" is none; a clone keeps its source's unless given",
    }),
  ),
  zonesEnabled: Type.Optional(
    Type.Boolean({ description: "Deck's switch: false means no zones, whatever `zones` holds" }),
  ),
};

const SourceServerGroup = Type.Object(
  {
    account: AccountName,
    region: RegionName,
    serverGroupName: Type.Optional({ ...ScaleSetName, description: "the scale set to copy; or asgName" }),
    asgName: Type.Optional({
      ...ScaleSetName,
      description:
        "Orca's name of the source (SourceResolver.groovy l.122, DetermineSourceServerGroupTask.groovy l.71): the same as serverGroupName, which may be left out",
    }),
    resourceGroup: Type.Optional(ResourceGroupName),
  },
  { additionalProperties: true, description: "the server group to copy (Orca's clone stage `source`)" },
);

/** Orca's deploy `source` (DetermineSourceServerGroupTask.groovy l.69-81): the current group, or {} for none. */
const DeploySource = Type.Object(
  {
    account: Type.Optional(AccountName),
    region: Type.Optional(RegionName),
    serverGroupName: Type.Optional(ScaleSetName),
    asgName: Type.Optional(ScaleSetName),
    resourceGroup: Type.Optional(ResourceGroupName),
    useSourceCapacity: Type.Optional(Type.Boolean()),
  },
  {
    additionalProperties: true,
    description:
      "the cluster's current group, as Orca names it; its model is not copied (its capacity with useSourceCapacity, its autoscale setting unless copySourceScalingPoliciesAndActions is false); {} is none",
  },
);

const createFields = {
  credentials: Type.Optional({ ...AccountName, description: "the account name (Clouddriver's field)" }),
  account: Type.Optional({ ...AccountName, description: "the account name; an alias of credentials" }),
  region: RegionName,
  resourceGroup: Type.Optional({ ...ResourceGroupName, description: SERVER_GROUP_RESOURCE_GROUP_RULE }),
  application: AppName,
  stack: Type.Optional(StackName),
  detail: Type.Optional(DetailName),
  ...modelFields,
};

const SUBNET_EXAMPLE =
  "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Network/virtualNetworks/demo-rg-vnet/subnets/default";
const POOL_EXAMPLE =
  "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/web-lb/backendAddressPools/web-pool";

export const CreateServerGroupDescription = Type.Object(
  { ...createFields, source: Type.Optional(DeploySource) },
  {
    $id: "CreateServerGroupDescription",
    additionalProperties: true,
    description: "clouddriver-azure's AzureServerGroupDescription, for a scale set, as Deck and Orca send it",
    examples: [
      {
        credentials: "demo",
        region: "eastus",
        application: "web",
        stack: "prod",
        image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "latest" },
        sku: { name: "Standard_D2s_v3", tier: "Standard" },
        capacity: { min: 2, max: 6, desired: 3 },
        upgradePolicy: "Manual",
        subnetId: SUBNET_EXAMPLE,
        loadBalancerBackendPoolId: POOL_EXAMPLE,
        healthSettings: { protocol: "http", port: 8080, requestPath: "/health" },
        osConfig: {
          adminUserName: "azureuser",
          sshPublicKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… deploy@example"],
        },
      },
    ],
  },
);
export type CreateServerGroupDescription = Static<typeof CreateServerGroupDescription>;

export const CloneServerGroupDescription = Type.Object(
  { ...createFields, application: Type.Optional(AppName), source: SourceServerGroup },
  {
    $id: "CloneServerGroupDescription",
    additionalProperties: true,
    description: "Orca's cloneServerGroup: the source's model, with these fields as overrides",
    examples: [
      {
        credentials: "demo",
        region: "eastus",
        source: { account: "demo", region: "eastus", serverGroupName: "web-prod-v001" },
        image: { publisher: "Canonical", offer: "ubuntu-24_04-lts", sku: "server", version: "24.04.202611" },
      },
    ],
  },
);

/** A create's or a clone's description: a clone names no application, and its source by serverGroupName or asgName. */
export type AnyCreate = Omit<CreateServerGroupDescription, "application" | "source"> & {
  application?: string;
  source?: SourceInput;
};
