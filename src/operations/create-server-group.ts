// createServerGroup and cloneServerGroup: the first stage of a red/black deploy. The scale set is named by Spinnaker's
// rules (the next `app-stack-detail-vNNN` of the cluster, create/server-group-name.ts), created with one PUT carrying
// If-None-Match: * (never replacing a scale set, ours or another's), and done only when Azure confirms it:
// Succeeded, with as many running instances as its capacity.
//
// A new group serves at the end of its create, as clouddriver-azure's does (CreateAzureServerGroupAtomicOperation
// .groovy l.225-242 enables it), because Orca's strategies disable or destroy the older groups next: its NICs are in
// its backend pools from the start, where the load balancer sends traffic only to instances its probe finds healthy,
// and the create ends only once every instance is. One whose instances do not become healthy within
// healthyTimeoutSeconds is taken out of its pools again (as disableServerGroup does) and the create fails with the
// reason, so that Orca stops before it touches the older groups. `disabled: true` creates it out of traffic.
//
// A createServerGroup builds the model from its description alone. Orca's `source` (DetermineSourceServerGroupTask)
// names the cluster's current group: it is not copied (cloneServerGroup copies); only what Orca asks of it is taken,
// its capacity when useSourceCapacity.
//
// One request creates at most one scale set. The scale set records which request made it (TAG_CREATED_BY: the
// clientRequestId, or the task when there is none); a task that finds a scale set of its cluster with its own record
// follows that one instead of creating another. So a crash, a retry, a 412 after a lost response, or the same
// clientRequestId submitted again never make a second one; a new request without a clientRequestId is a new deploy.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import { Type, type Static } from "@sinclair/typebox";
import { RefusalError } from "../azure/arm-failure.ts";
import type { ScaleSetRef, ScaleSetSnapshot } from "../azure/vmss-gateway.ts";
import type { Creator, PlannedStep, ResultOnFailure, ScaleSetPlanner } from "../azure/planner.ts";
import { resolveNetwork, type NetworkChoice } from "./create/network-by-name.ts";
import {
  createTimeSettingFields,
  createTimeSettingProblems,
  createTimeSpec,
  zonesOf,
} from "./create/create-time-settings.ts";
import { checkIdentities } from "./create/identities.ts";
import { refuseZonesNotInRegion } from "./create/region-zones.ts";
import { listScaleSets } from "../azure/vmss-gateway.ts";
import {
  AccountName,
  InstanceCount,
  RegionName,
  ResourceGroupName,
  ScaleSetName,
  type FieldProblem,
} from "./description.ts";
import { clusterName, nextServerGroupName } from "./create/server-group-name.ts";
import { parseName, SERVER_GROUP_RESOURCE_GROUP_RULE } from "../naming/frigga.ts";
import {
  cloneLimits,
  writableIdentity,
  describedPools,
  desiredCapacity,
  modelFromDescription,
  modelFromSource,
  rebindPools,
  type ModelSpec,
} from "./create/scale-set-model.ts";
import {
  deployCapacity,
  deployProblems,
  identityRefs,
  namedSource,
  normalImage,
  scriptOf,
  wantsSystemIdentity,
} from "./create/deploy-input.ts";
import { resolveVmAdmin, VmAdminUnavailable, type VmAdminCredentials } from "../azure/accounts.ts";
import { isReady } from "./rolling-upgrade-model.ts";
import { confirmation, isActionableInstance, kindOf } from "../azure/scale-set-state.ts";
import { disableServerGroup } from "./disable-server-group.ts";
import {
  defineOperation,
  NAME_TAKEN,
  type LocatedDescription,
  type PrepareContext,
  type Prepared,
  type RunContext,
  type TaskOrigin,
} from "./operation.ts";
import { refuseUnsupported } from "./scale-set-kinds.ts";
import {
  disabledMode,
  recordedCapacity,
  readPoolsRecord,
  serverGroupResult,
  trafficPools,
  withCapacityTags,
  withPoolsRecord,
  type CreatedServerGroupResult,
  type PoolBinding,
  type Tags,
} from "./server-group-state.ts";

/** Which request created the scale set: `request:<clientRequestId>` or `task:<taskId>`. */
export const TAG_CREATED_BY = "vmss-ops.created-by";

export function creationMark(origin: TaskOrigin): string {
  return origin.clientRequestId !== undefined ? `request:${origin.clientRequestId}` : `task:${origin.taskId}`;
}

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
      "the cluster's current group, as Orca names it; not copied (only its capacity, with useSourceCapacity); {} is none",
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

type AnyCreate = Omit<CreateServerGroupDescription, "application" | "source"> & {
  application?: string;
  source?: {
    account?: string;
    region?: string;
    serverGroupName?: string;
    asgName?: string;
    resourceGroup?: string;
    useSourceCapacity?: boolean;
  };
};

/** The name of a clone's source: serverGroupName, or Orca's asgName. */
function sourceName(d: AnyCreate): string | undefined {
  return d.source?.serverGroupName ?? d.source?.asgName;
}

/** A clone names its source by serverGroupName or asgName (Orca sends both, the same); not two different ones. */
function sourceNameProblems(d: AnyCreate): FieldProblem[] {
  const s = d.source;
  if (!s) return [];
  if (s.serverGroupName === undefined && s.asgName === undefined)
    return [{ field: "source.serverGroupName", message: "required: the server group to copy (or source.asgName)" }];
  if (s.serverGroupName !== undefined && s.asgName !== undefined && s.serverGroupName !== s.asgName)
    return [
      {
        field: "source.asgName",
        message: `names ${s.asgName}, but source.serverGroupName names ${s.serverGroupName}: one source, named once or the same twice`,
      },
    ];
  return [];
}

/** The clone's source: its name checked by checkClone, the rest required by its schema. */
function cloneSource(d: AnyCreate): {
  account: string;
  region: string;
  serverGroupName: string;
  resourceGroup?: string;
} {
  const s = d.source!;
  return {
    account: s.account!,
    region: s.region!,
    serverGroupName: sourceName(d)!,
    ...(s.resourceGroup ? { resourceGroup: s.resourceGroup } : {}),
  };
}

/** The application of the new group: given, or (a clone) the source's. */
function applicationOf(d: AnyCreate): string {
  const source = sourceName(d);
  return d.application ?? (source ? parseName(source)?.app : undefined) ?? "";
}

function clusterOf(d: AnyCreate): string {
  const source = sourceName(d);
  if (d.application === undefined && source && d.stack === undefined && d.detail === undefined) {
    // A clone without naming fields stays in its source's cluster.
    return parseName(source)?.cluster ?? source;
  }
  return clusterName(applicationOf(d), d.stack || undefined, d.detail || undefined);
}

/** The model's input: the description as it means it, with what prepare resolved. */
function modelSpec(
  d: AnyCreate,
  network: NetworkChoice,
  desired: number | undefined,
  admin: Pick<VmAdminCredentials, "adminUserName" | "sshPublicKeys"> | undefined,
  userIdentities: string[] | undefined,
): ModelSpec {
  const system = wantsSystemIdentity(d);
  const identity = {
    ...(system !== undefined ? { system } : {}),
    ...(userIdentities !== undefined ? { userAssigned: userIdentities } : {}),
  };
  const zones = zonesOf(d);
  const script = scriptOf(d);
  const image = normalImage(d.image);
  const osConfig =
    d.osConfig || admin
      ? {
          ...d.osConfig,
          ...(admin
            ? { adminUserName: d.osConfig?.adminUserName ?? admin.adminUserName, sshPublicKeys: admin.sshPublicKeys }
            : {}),
        }
      : undefined;
  return {
    region: d.region,
    ...(image ? { image } : {}),
    ...(d.sku ? { sku: { name: d.sku.name, tier: d.sku.tier } } : {}),
    ...(desired !== undefined ? { capacity: { desired } } : {}),
    ...(d.upgradePolicy ? { upgradePolicy: d.upgradePolicy } : {}),
    ...createTimeSpec(d),
    ...(Object.keys(identity).length > 0 ? { identity } : {}),
    ...(d.orchestrationMode ? { orchestrationMode: d.orchestrationMode } : {}),
    subnetId: network.subnetId,
    networkSecurityGroupId: network.securityGroupId,
    loadBalancerBackendPoolId: network.loadBalancerPoolId,
    loadBalancerInboundNatPoolId: network.natPoolId,
    appGatewayBapId: network.appGatewayPoolId,
    ...(zones !== undefined ? { zones } : {}),
    ...(d.instanceTags ? { instanceTags: d.instanceTags } : {}),
    ...(script ? { customScriptsSettings: script } : {}),
    ...(d.healthSettings ? { healthSettings: { ...d.healthSettings, port: Number(d.healthSettings.port) } } : {}),
    ...(d.dataDisks ? { dataDisks: d.dataDisks } : {}),
    ...(osConfig ? { osConfig } : {}),
    ...(d.enableIpForwarding !== undefined ? { enableIpForwarding: d.enableIpForwarding } : {}),
  };
}

function commonProblems(d: AnyCreate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (d.osConfig?.adminPassword !== undefined) {
    problems.push({
      field: "osConfig.adminPassword",
      message:
        "a password is not taken in a request; name an environment variable of the service in osConfig.adminPasswordEnv",
    });
  }
  const cluster = clusterOf(d);
  if (`${cluster}-v000`.length > 64)
    problems.push({
      field: "detail",
      message: `the server group name ${cluster}-vNNN would exceed Azure's 64 characters`,
    });
  if (d.subnet && !d.vnet)
    problems.push({ field: "vnet", message: "required with subnet: the virtual network the subnet is in" });
  if (d.vnet && !d.subnet && !d.subnetId)
    problems.push({ field: "subnet", message: "required with vnet: the subnet's name" });
  if (d.subnetId && d.subnet) problems.push({ field: "subnet", message: "give subnetId or vnet and subnet, not both" });
  if (d.loadBalancerType === "Azure Application Gateway" && !d.appGatewayName && !d.loadBalancerName) {
    problems.push({ field: "appGatewayName", message: "required with loadBalancerType Azure Application Gateway" });
  }
  return problems;
}

export function checkCreate(d: AnyCreate): FieldProblem[] {
  const problems = [
    ...commonProblems(d),
    ...deployProblems(d, { clone: false }),
    ...createTimeSettingProblems(d, { clone: false }),
  ];
  if (!d.subnetId && !d.subnet)
    problems.push({ field: "subnet", message: "required: vnet and subnet (by name, as Deck sends them), or subnetId" });
  return problems;
}

export function checkClone(d: AnyCreate): FieldProblem[] {
  return [
    ...sourceNameProblems(d),
    ...commonProblems(d),
    ...deployProblems(d, { clone: true }),
    ...createTimeSettingProblems(d, { clone: true }),
  ];
}

/** What prepare found: the name, the cluster's latest group, the network, the capacity; a clone's source model. */
interface CreateContext {
  cluster: string;
  ancestor?: string;
  /** A scale set of the cluster carries this request's mark: it is followed, not created again. */
  found: boolean;
  network?: NetworkChoice;
  capacity?: { min: number; max: number; desired: number };
  /** The account's VM admin, when the request names none (its password only as a function that reads it). */
  admin?: Omit<VmAdminCredentials, "password"> & { password?: () => string | undefined };
  source?: { model: VirtualMachineScaleSet; pools: PoolBinding[] };
  /** The user-assigned identities the description names, as resource ids, each read and found; absent: none named. */
  userIdentities?: string[];
}

function sourcePools(vmss: VirtualMachineScaleSet, ref: ScaleSetRef): PoolBinding[] {
  // A disabled source still names the pools it serves from: in its record.
  const onNics = trafficPools(vmss);
  return disabledMode(vmss) === "pools" ? [...onNics, ...readPoolsRecord(vmss, ref)] : onNics;
}

function invalid(problems: FieldProblem[], prefix = ""): RefusalError {
  return new RefusalError("InvalidDescription", problems.map((p) => `${prefix}${p.field}: ${p.message}`).join("; "));
}

/** The VM admin: the request's when it gives a key or a password reference, else the account's. */
async function chooseAdmin(d: AnyCreate, ctx: PrepareContext, account: string): Promise<CreateContext["admin"]> {
  if (d.osConfig?.sshPublicKeys?.length || d.osConfig?.adminPasswordEnv) return undefined;
  const config = ctx.accounts.get(account);
  try {
    const admin = config ? await resolveVmAdmin(config, process.env, ctx.signal) : undefined;
    if (!admin) {
      throw new RefusalError(
        "NoVmAdminCredentials",
        `account ${account} names no VM admin credentials (vmAdmin in its configuration) and the request gives none (osConfig.sshPublicKeys or osConfig.adminPasswordEnv)`,
      );
    }
    if (config?.vmAdmin?.keyVaultUrl)
      ctx.log(`VM admin ${admin.adminUserName} from Key Vault ${config.vmAdmin.keyVaultUrl}`);
    // The password stays out of the context's data (a function is never serialised): read again for the PUT.
    const { password, ...kept } = admin;
    const fromEnv = config?.vmAdmin?.passwordEnv;
    return {
      ...kept,
      ...(password !== undefined ? { password: fromEnv ? () => process.env[fromEnv] : () => password } : {}),
    };
  } catch (err) {
    if (err instanceof VmAdminUnavailable) throw new RefusalError("VmAdminUnavailable", err.message);
    throw err;
  }
}

/** Names of a resource group's scale sets with their creation times, as the next-name rule reads them. */
function nameSlots(among: VirtualMachineScaleSet[]) {
  return among.map((v) => ({
    name: v.name ?? "",
    createdTime: v.timeCreated ? new Date(v.timeCreated).getTime() : undefined,
  }));
}

/** A scale set this request made already (a repeat, or a run taken over): followed, not created again. */
function alreadyCreated(listed: VirtualMachineScaleSet[], cluster: string, ctx: PrepareContext): Prepared | undefined {
  const mark = creationMark(ctx.origin);
  const ours = listed.find(
    (v) => v.tags?.[TAG_CREATED_BY] === mark && v.name !== undefined && parseName(v.name)?.cluster === cluster,
  );
  if (!ours?.name) return undefined;
  // Nothing more to create: the source is not read again (it may be gone by now, the copy exists).
  ctx.log(
    `${ours.name} was created for this request already (${TAG_CREATED_BY}=${mark}): following it, not creating another`,
  );
  const before = nextServerGroupName(cluster, nameSlots(listed.filter((v) => v !== ours)));
  const ancestor = before.ok ? before.ancestor : undefined;
  return { serverGroupName: ours.name, context: { cluster, ancestor, found: true } satisfies CreateContext };
}

/** A clone's source, read once: its model and pools, refused before any write when it cannot be copied. */
async function readCloneSource(d: AnyCreate, ctx: PrepareContext): Promise<NonNullable<CreateContext["source"]>> {
  const s = cloneSource(d);
  const src = ctx.accounts.locate({
    credentials: s.account,
    region: s.region,
    serverGroupName: s.serverGroupName,
    ...(s.resourceGroup ? { resourceGroup: s.resourceGroup } : {}),
  });
  if (!src.ok) throw invalid(src.problems, "source.");
  // userData only when asked for: a GET without $expand=userData leaves it out, and the copy would lose it.
  const read = await ctx.accounts.gateway(src.ref).read({ withInstances: false, signal: ctx.signal, userData: true });
  refuseUnsupported("cloneServerGroup", read.vmss, src.ref.name); // a kind the copy could not be made of, before any write
  ctx.log(`copying the model of ${src.ref.name} (${src.ref.resourceGroup}, ${src.ref.region})`);
  const system = wantsSystemIdentity(d);
  const limits = cloneLimits(read.vmss, {
    region: d.region,
    ...(system !== undefined ? { identity: { system } } : {}),
    ...(d.osConfig?.customData !== undefined ? { osConfig: { customData: d.osConfig.customData } } : {}),
    ...(scriptOf(d) ? { customScriptsSettings: scriptOf(d) } : {}),
  });
  if (limits.refusals.length > 0)
    throw new RefusalError("CannotCopySource", `${src.ref.name} cannot be copied: ${limits.refusals.join("; ")}`);
  for (const note of limits.notes) ctx.log(note);
  return { model: read.vmss, pools: sourcePools(read.vmss, src.ref) };
}

/** A deploy's capacity: its own, or (Orca's useSourceCapacity) the current group's, min and max too. */
async function createCapacity(d: AnyCreate, ctx: PrepareContext): Promise<CreateContext["capacity"]> {
  const named = namedSource(d);
  let fromSource: { min: number; max: number; desired: number } | undefined;
  if (named?.useSourceCapacity) {
    const src = ctx.accounts.locate({
      credentials: named.account,
      region: named.region,
      serverGroupName: named.serverGroupName,
      ...(named.resourceGroup ? { resourceGroup: named.resourceGroup } : {}),
    });
    if (!src.ok) throw invalid(src.problems, "source.");
    const read = await ctx.accounts.gateway(src.ref).read({ withInstances: false, signal: ctx.signal });
    fromSource = recordedCapacity(read.vmss);
    ctx.log(
      `capacity from ${named.serverGroupName} (useSourceCapacity): min ${fromSource.min}, max ${fromSource.max}, desired ${fromSource.desired}`,
    );
  } else if (named) {
    ctx.log(
      `the cluster's current group is ${named.serverGroupName}; the new group is built from the description, not copied from it`,
    );
  }
  return deployCapacity(d, fromSource);
}

/** The cluster's next free name, said in the history with the ancestor it follows. */
function chooseName(cluster: string, listed: VirtualMachineScaleSet[], ctx: PrepareContext) {
  const next = nextServerGroupName(cluster, nameSlots(listed));
  if (!next.ok) throw new RefusalError("NoServerGroupNameLeft", next.reason);
  ctx.log(
    next.ancestor
      ? `found ancestor server group ${next.ancestor}; the next name is ${next.name}`
      : `no server group in cluster ${cluster} yet; the first name is ${next.name}`,
  );
  return next;
}

/**
 * Every user-assigned identity the new set will carry exists (a missing one refused, naming it). Given (even ""),
 * the description's identities replace a clone's source's; not given, the source's are checked.
 */
async function checkedIdentities(
  d: AnyCreate,
  source: CreateContext["source"],
  ref: ScaleSetRef,
  ctx: PrepareContext,
): Promise<CreateContext["userIdentities"]> {
  if (d.userAssignedIdentities !== undefined) return checkIdentities(identityRefs(d), ref, ctx);
  if (source)
    await checkIdentities(
      writableIdentity(source.model.identity).userAssigned.map((id) => ({ id })),
      ref,
      ctx,
    );
  return undefined;
}

async function prepareCreate(d: AnyCreate, ctx: PrepareContext, clone: boolean): Promise<Prepared> {
  const located = ctx.accounts.locate({ ...d, serverGroupName: clusterOf(d) });
  if (!located.ok) throw invalid(located.problems);
  const cluster = clusterOf(d);
  const { account, resourceGroup } = located.ref;
  const listed = await listScaleSets(ctx.accounts.client(account), resourceGroup, ctx.signal);
  const found = alreadyCreated(listed, cluster, ctx);
  if (found) return found;
  const source = clone ? await readCloneSource(d, ctx) : undefined;
  const capacity = clone ? undefined : await createCapacity(d, ctx);
  const admin = clone ? undefined : await chooseAdmin(d, ctx, account);
  const next = chooseName(cluster, listed, ctx);
  await refuseZonesNotInRegion(
    zonesOf(d) ?? source?.model.zones,
    d.region,
    d.sku?.name ?? source?.model.sku?.name,
    ctx.accounts.client(account),
    ctx,
  );
  const windows = (normalImage(d.image)?.ostype ?? "").toLowerCase() === "windows";
  const userIdentities = await checkedIdentities(d, source, located.ref, ctx);
  const network = await resolveNetwork(d, { ...located.ref, name: next.name }, ctx, windows);
  return {
    serverGroupName: next.name,
    context: {
      cluster,
      ancestor: next.ancestor,
      found: false,
      source,
      network,
      ...(capacity ? { capacity } : {}),
      ...(admin ? { admin } : {}),
      ...(userIdentities ? { userIdentities } : {}),
    } satisfies CreateContext,
  };
}

/** The admin password, read from the variable the description (or the account) names, when the PUT is built. */
function adminPassword(name: string | undefined, env: NodeJS.ProcessEnv, field: string): string | undefined {
  if (!name) return undefined;
  const value = env[name];
  if (value === undefined || value === "")
    throw new RefusalError(
      "AdminPasswordNotSet",
      `${field} names ${name}, which is not set in this service's environment`,
    );
  return value;
}

function accountPassword(read: () => string | undefined, account: string): string {
  const value = read();
  if (!value)
    throw new RefusalError("AdminPasswordNotSet", `account ${account}'s VM admin password is not available any more`);
  return value;
}

function creationTags(
  target: ScaleSetRef,
  pools: PoolBinding[],
  inTraffic: boolean,
  mark: string,
  capacity: { min: number; max: number },
): Tags {
  let tags: Tags = withCapacityTags({ [TAG_CREATED_BY]: mark }, capacity.min, capacity.max);
  // Out of traffic the way disableServerGroup leaves a scale set, so that enableServerGroup puts these pools on.
  if (!inTraffic && pools.length > 0) tags = withPoolsRecord(tags, pools, target);
  return tags;
}

function createdResult(
  snapshot: Parameters<typeof serverGroupResult>[0],
  target: ScaleSetRef,
  context: CreateContext | undefined,
): CreatedServerGroupResult {
  const base = serverGroupResult(snapshot, target);
  const pools =
    disabledMode(snapshot.vmss) === "pools" ? readPoolsRecord(snapshot.vmss, target) : trafficPools(snapshot.vmss);
  return {
    ...base,
    type: "createdServerGroup",
    serverGroupNames: [`${target.region}:${target.name}`],
    serverGroupNameByRegion: { [target.region]: target.name },
    serverGroups: { [target.region]: { name: target.name } },
    ...(context?.ancestor ? { ancestorServerGroupNameByRegion: { [target.region]: context.ancestor } } : {}),
    loadBalancerPools: pools.map((p) => p.id),
  };
}

/** Written when the new group is taken out of traffic because its instances did not become healthy: why. */
export const TAG_NOT_HEALTHY = "vmss-ops.not-healthy";

/** clouddriver-azure waits up to an hour (SERVER_WAIT_TIMEOUT); ten minutes stays inside the retry deadline. */
export const DEFAULT_HEALTHY_TIMEOUT_SECONDS = 600;

/** What a create writes besides the description: its request's mark, whether it starts in traffic, the environment. */
interface CreateWriteOptions {
  mark: string;
  inTraffic: boolean;
  env: NodeJS.ProcessEnv;
}

/** A clone's model: its source's, with the description's overrides and the new group's own name, pools and tags. */
function copiedModel(
  d: AnyCreate,
  target: ScaleSetRef,
  context: CreateContext,
  source: NonNullable<CreateContext["source"]>,
  o: CreateWriteOptions,
): { model: VirtualMachineScaleSet; pools: PoolBinding[] } {
  const spec = modelSpec(
    d,
    context.network ?? {},
    desiredCapacity({
      capacity: d.capacity?.desired !== undefined ? { desired: d.capacity.desired } : undefined,
      sku: d.sku,
    }),
    undefined,
    context.userIdentities,
  );
  const password = adminPassword(d.osConfig?.adminPasswordEnv, o.env, "osConfig.adminPasswordEnv");
  const pools = rebindPools([...source.pools, ...describedPools(target.name, spec)], target.name);
  const desired = desiredCapacity(spec) ?? source.model.sku?.capacity ?? 0;
  const tags = creationTags(target, pools, o.inTraffic, o.mark, {
    min: d.capacity?.min ?? desired,
    max: d.capacity?.max ?? desired,
  });
  const model = modelFromSource(source.model, spec, pools, {
    name: target.name,
    tags,
    inTraffic: o.inTraffic,
    ...(password !== undefined ? { adminPassword: password } : {}),
  });
  return { model, pools };
}

/** A create's model: the description's, with what prepare resolved (network, capacity, admin, identities). */
function describedModel(
  d: AnyCreate,
  target: ScaleSetRef,
  context: CreateContext,
  o: CreateWriteOptions,
): { model: VirtualMachineScaleSet; pools: PoolBinding[] } {
  const capacity = context.capacity ?? { min: 0, max: 0, desired: 0 };
  const spec = modelSpec(d, context.network ?? {}, capacity.desired, context.admin, context.userIdentities);
  const password = context.admin?.password
    ? accountPassword(context.admin.password, target.account)
    : adminPassword(d.osConfig?.adminPasswordEnv, o.env, "osConfig.adminPasswordEnv");
  const pools = describedPools(target.name, spec);
  const tags = creationTags(target, pools, o.inTraffic, o.mark, capacity);
  const model = modelFromDescription(spec, {
    name: target.name,
    tags,
    inTraffic: o.inTraffic,
    ...(password !== undefined ? { adminPassword: password } : {}),
  });
  return { model, pools };
}

/** The create write: the model, and a history line saying its capacity and where its traffic goes. */
function createStep(d: AnyCreate, target: ScaleSetRef, context: CreateContext, o: CreateWriteOptions) {
  const { model, pools } = context.source
    ? copiedModel(d, target, context, context.source, o)
    : describedModel(d, target, context, o);
  const traffic =
    pools.length === 0
      ? "no backend pools"
      : o.inTraffic
        ? `in ${pools.length} backend pool(s), serving once healthy`
        : `out of traffic (disabled), ${pools.length} backend pool(s) recorded for enable`;
  return {
    kind: "create" as const,
    summary: `create ${target.name} with capacity ${model.sku?.capacity ?? 0}, ${traffic}${context.source ? " (model copied from the source)" : ""}`,
    model,
  };
}

function createPlanner(
  d: AnyCreate,
  target: ScaleSetRef,
  run: RunContext | undefined,
  env: NodeJS.ProcessEnv = process.env,
  now: () => number = Date.now,
): ScaleSetPlanner<CreatedServerGroupResult> & Creator & ResultOnFailure {
  if (!run?.prepared) throw new Error("createServerGroup runs only after prepare chose its name");
  const context = run.prepared.context as CreateContext;
  const mark = creationMark(run.origin);
  const inTraffic = d.disabled !== true;
  const boundMs = (d.healthyTimeoutSeconds ?? DEFAULT_HEALTHY_TIMEOUT_SECONDS) * 1000;
  const takeOut = disableServerGroup.planner({ ...target, serverGroupName: target.name }, target);
  return {
    readsInstances: true,
    resultOnFailure: true,
    createWhenMissing() {
      if (context.found) {
        // Listed with this request's mark, then gone: someone deleted it. One request makes one server group.
        throw new RefusalError(
          "CreatedServerGroupGone",
          `${target.name} was created for this request and no longer exists; not creating it again`,
        );
      }
      return createStep(d, target, context, { mark, inTraffic, env });
    },
    plan(snapshot: ScaleSetSnapshot): PlannedStep {
      const { vmss } = snapshot;
      const madeBy = vmss.tags?.[TAG_CREATED_BY];
      if (madeBy !== mark) {
        throw new RefusalError(
          NAME_TAKEN,
          `${target.name} exists and was not created by this request (${TAG_CREATED_BY}: ${madeBy ?? "none"})`,
        );
      }
      const created = `${target.name} created (capacity ${vmss.sku?.capacity ?? 0})`;
      const notHealthy = vmss.tags?.[TAG_NOT_HEALTHY];
      const pools = trafficPools(vmss);
      if (notHealthy === undefined && (!inTraffic || pools.length === 0 || disabledMode(vmss) !== undefined))
        return { kind: "done", summary: created };
      // Azure first: a create it left Failed or short of instances is the harness's to confirm or re-drive.
      if (notHealthy === undefined && !confirmation(snapshot).confirmed) return { kind: "done", summary: created };
      const health = healthOf(snapshot);
      if (notHealthy === undefined && health.ready)
        return { kind: "done", summary: `${created}, in traffic: ${health.summary}` };
      const since = vmss.timeCreated ? new Date(vmss.timeCreated).getTime() : now();
      if (notHealthy === undefined && now() - since < boundMs) {
        return {
          kind: "wait",
          summary: `waiting for the instances of ${target.name} to be healthy behind the load balancer before it serves: ${health.summary}`,
        };
      }
      // Not healthy in time: out of its pools, as disableServerGroup takes a group out, then the create fails.
      const reason = notHealthy ?? `not healthy within ${Math.round(boundMs / 1000)} s: ${health.summary}`;
      const step = takeOut.plan(snapshot);
      if (step.kind === "done") {
        throw new RefusalError(
          "ServerGroupNotHealthy",
          `${target.name} was taken out of traffic: its instances were ${reason}; the older server groups were not touched`,
        );
      }
      if (step.kind === "update")
        return {
          ...step,
          summary: `${reason}: ${step.summary}`,
          patch: {
            ...step.patch,
            tags: { ...(step.patch.tags ?? vmss.tags), [TAG_NOT_HEALTHY]: reason.slice(0, 256) },
          },
        };
      return step;
    },
    result: (snapshot: ScaleSetSnapshot) => createdResult(snapshot, target, context),
  };
}

/**
 * Whether every instance is running and healthy behind the load balancer, and a line saying how many are. Where
 * Azure reports no health for any of them, ready means running in the pools, and the line says so: a Flexible VM
 * reports health only from the Application Health extension (healthSettings), never the load balancer's probe.
 */
function healthOf(snapshot: ScaleSetSnapshot): { ready: boolean; summary: string } {
  const desired = snapshot.vmss.sku?.capacity ?? 0;
  const vms = (snapshot.vms ?? []).filter(isActionableInstance);
  const ready = vms.filter((vm) => isReady(vm, true)).length;
  const reported = vms.some((vm) => vm.instanceView?.vmHealth?.status?.code !== undefined);
  const why =
    kindOf(snapshot.vmss).orchestration === "Flexible"
      ? "a Flexible VM reports health only from the Application Health extension, which its model lacks (healthSettings)"
      : "no health probe or Application Health extension watches them";
  const summary =
    reported || vms.length === 0
      ? `${ready}/${desired} healthy`
      : `${ready}/${desired} running in the pools; Azure reports no health for them (${why}), so this says they run in the pools, not that they answer`;
  return { ready: ready >= desired && vms.length >= desired, summary };
}

function describeCreate(d: AnyCreate): string {
  return `create a server group in cluster ${clusterOf(d)}`;
}

function describeClone(d: AnyCreate): string {
  return `clone ${sourceName(d)} into cluster ${clusterOf(d)}`;
}

/** Locates the cluster (for account checks and for the order of tasks) until prepare names the scale set. */
function locator(d: AnyCreate): LocatedDescription {
  return { ...d, serverGroupName: clusterOf(d) };
}

export const createServerGroup = defineOperation({
  name: "createServerGroup",
  summary:
    "Create the next server group of a cluster (app-stack-detail-vNNN), in traffic once its instances are healthy (Deck's and Orca's deploy)",
  schema: CreateServerGroupDescription,
  check: checkCreate,
  describe: describeCreate,
  locator,
  prepare: (d, ctx) => prepareCreate(d, ctx, false),
  planner: (d, target, run) => createPlanner(d, target, run),
});

export const cloneServerGroup = defineOperation({
  name: "cloneServerGroup",
  summary:
    "Create the next server group of a cluster with the source's model and the given overrides (Orca's clone stage)",
  schema: CloneServerGroupDescription,
  check: checkClone,
  describe: describeClone,
  locator,
  prepare: (d, ctx) => prepareCreate(d, ctx, true),
  planner: (d, target, run) => createPlanner(d, target, run),
});
