// createServerGroup and cloneServerGroup: the first stage of a red/black deploy. The scale set is named by Spinnaker's
// rules (the next `app-stack-detail-vNNN` of the cluster, create/server-group-name.ts), created with one PUT carrying
// If-None-Match: * (never replacing a scale set, ours or another's), out of traffic unless asked otherwise, and done
// only when Azure confirms it: Succeeded, with as many running instances as its capacity.
//
// One request creates at most one scale set. The scale set records which request made it (TAG_CREATED_BY: the
// clientRequestId, or the task when there is none); a task that finds a scale set of its cluster with its own record
// follows that one instead of creating another. So a crash, a retry, a 412 after a lost response, or the same
// clientRequestId submitted again never make a second one; a new request without a clientRequestId is a new deploy.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import { Type, type Static } from "@sinclair/typebox";
import { OperationError } from "../azure/arm-failure.ts";
import type { ScaleSetRef } from "../azure/vmss-gateway.ts";
import { listScaleSets } from "../azure/vmss-gateway.ts";
import { AccountName, Capacity, checkCapacityOrder, InstanceCount, RegionName, ResourceGroupName, ScaleSetName, type FieldProblem } from "./description.ts";
import { clusterName, nextServerGroupName } from "./create/server-group-name.ts";
import { parseName } from "../naming/frigga.ts";
import { describedPools, desiredCapacity, modelFromDescription, modelFromSource, rebindPools, type ModelSpec } from "./create/scale-set-model.ts";
import { defineOperation, NAME_TAKEN, type LocatedDescription, type PrepareContext, type Prepared, type RunContext, type TaskOrigin } from "./operation.ts";
import { refuseUnsupported } from "./scale-set-kinds.ts";
import {
  disabledMode,
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
const AppName = Type.String({ pattern: "^[A-Za-z0-9._]+$", maxLength: 40, description: "the application: letters, digits, '.' and '_'" });
const StackName = Type.String({ pattern: "^[A-Za-z0-9._]*$", maxLength: 20, description: "the stack: letters, digits, '.' and '_'" });
const DetailName = Type.String({ pattern: "^[A-Za-z0-9._-]*$", maxLength: 40, description: "the detail: letters, digits, '.', '_' and '-'" });

const ArmId = (type: string, example: string) =>
  Type.String({
    pattern: `^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/${type.replace(/\./g, "\\.")}$`,
    maxLength: 1024,
    description: `an Azure resource id: ${example}`,
  });

const SubnetId = ArmId("Microsoft.Network/virtualNetworks/[^/]+/subnets/[^/]+", "/subscriptions/{s}/resourceGroups/{rg}/providers/Microsoft.Network/virtualNetworks/{vnet}/subnets/{subnet}");
const LoadBalancerPoolId = ArmId("Microsoft.Network/loadBalancers/[^/]+/backendAddressPools/[^/]+", "…/Microsoft.Network/loadBalancers/{lb}/backendAddressPools/{pool}");
const AppGatewayPoolId = ArmId("Microsoft.Network/applicationGateways/[^/]+/backendAddressPools/[^/]+", "…/Microsoft.Network/applicationGateways/{agw}/backendAddressPools/{pool}");
const SecurityGroupId = ArmId("Microsoft.Network/networkSecurityGroups/[^/]+", "…/Microsoft.Network/networkSecurityGroups/{nsg}");
const ImageId = Type.String({ pattern: "^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\\.Compute/.+$", maxLength: 1024, description: "a custom image or gallery image version id" });

const Image = Type.Object(
  {
    isCustom: Type.Optional(Type.Boolean({ description: "a custom image: uri is its resource id" })),
    uri: Type.Optional(ImageId),
    publisher: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$" })),
    offer: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$" })),
    sku: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$" })),
    version: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9._-]{1,100}$" })),
    imageName: Type.Optional(Type.String({ maxLength: 200 })),
    ostype: Type.Optional(Type.Union([Type.Literal("linux"), Type.Literal("windows"), Type.Literal("Linux"), Type.Literal("Windows")])),
  },
  { additionalProperties: true, description: "clouddriver-azure's AzureNamedImage: marketplace (publisher, offer, sku, version) or custom (isCustom, uri)" },
);

const OsConfig = Type.Object(
  {
    adminUserName: Type.Optional(Type.String({ pattern: "^[A-Za-z_][A-Za-z0-9_.-]{0,63}$" })),
    adminPassword: Type.Optional(Type.Unknown({ description: "refused: a password is taken only by reference (adminPasswordEnv)" })),
    adminPasswordEnv: Type.Optional(
      Type.String({ pattern: "^[A-Z_][A-Z0-9_]{0,127}$", description: "the name of an environment variable of this service that holds the admin password; read when the PUT is sent, never stored" }),
    ),
    sshPublicKeys: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 8192, pattern: "^(ssh-|ecdsa-)" }), { maxItems: 10 })),
    computerNamePrefix: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9-]{0,57}$" })),
    customData: Type.Optional(Type.String({ maxLength: 65535, description: "cloud-init or script text; sent base64-encoded" })),
  },
  { additionalProperties: false, description: "OS admin settings; secrets only by reference" },
);

const modelFields = {
  image: Type.Optional(Image),
  sku: Type.Optional(
    Type.Object(
      { name: Type.Optional(Type.String({ pattern: "^[A-Za-z0-9_]{1,64}$", description: "a VM size, e.g. Standard_D2s_v3" })), tier: Type.Optional(Type.String({ pattern: "^(Standard|Basic)$" })), capacity: Type.Optional(InstanceCount) },
      { additionalProperties: false },
    ),
  ),
  capacity: Type.Optional(Type.Ref(Capacity)),
  upgradePolicy: Type.Optional(Type.Union([Type.Literal("Automatic"), Type.Literal("Manual")])),
  subnetId: Type.Optional(SubnetId),
  securityGroupId: Type.Optional(SecurityGroupId),
  loadBalancerBackendPoolId: Type.Optional(LoadBalancerPoolId),
  appGatewayBapId: Type.Optional(AppGatewayPoolId),
  zones: Type.Optional(Type.Array(Type.String({ pattern: "^[1-3]$" }), { maxItems: 3, uniqueItems: true })),
  instanceTags: Type.Optional(
    Type.Record(Type.String({ pattern: "^(?!vmss-ops\\.)[^<>%&\\\\?/]{1,512}$" }), Type.String({ maxLength: 256 }), {
      description: "tags for the scale set (Azure: up to 50 names of ≤512 characters and values of ≤256; names starting vmss-ops. are ours)",
    }),
  ),
  customScriptsSettings: Type.Optional(
    Type.Object(
      { fileUris: Type.Optional(Type.Array(Type.String({ pattern: "^https://", maxLength: 2048 }), { maxItems: 20 })), commandToExecute: Type.String({ minLength: 1, maxLength: 8192 }) },
      { additionalProperties: false },
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
          caching: Type.Optional(Type.Union([Type.Literal("None"), Type.Literal("ReadOnly"), Type.Literal("ReadWrite")])),
          storageAccountType: Type.Optional(Type.Union([Type.Literal("Standard_LRS"), Type.Literal("Premium_LRS"), Type.Literal("StandardSSD_LRS"), Type.Literal("Premium_ZRS"), Type.Literal("StandardSSD_ZRS")])),
        },
        // clouddriver-azure takes the SDK's VirtualMachineScaleSetDataDisk: its other fields are accepted and not used.
        { additionalProperties: true },
      ),
      { maxItems: 64 },
    ),
  ),
  osConfig: Type.Optional(OsConfig),
  enableIpForwarding: Type.Optional(Type.Boolean()),
  disabled: Type.Optional(Type.Boolean({ description: "start out of traffic (default true): the backend pools are recorded, and enableServerGroup puts them on" })),
};

const SourceServerGroup = Type.Object(
  {
    account: AccountName,
    region: RegionName,
    serverGroupName: ScaleSetName,
    resourceGroup: Type.Optional(ResourceGroupName),
  },
  { additionalProperties: true, description: "the server group to copy (Orca's clone stage `source`)" },
);

const createFields = {
  credentials: Type.Optional({ ...AccountName, description: "the account name (Clouddriver's field)" }),
  account: Type.Optional({ ...AccountName, description: "the account name; an alias of credentials" }),
  region: RegionName,
  resourceGroup: Type.Optional({ ...ResourceGroupName, description: "defaults to the account's defaultResourceGroup" }),
  application: AppName,
  stack: Type.Optional(StackName),
  detail: Type.Optional(DetailName),
  ...modelFields,
};

const SUBNET_EXAMPLE = "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Network/virtualNetworks/demo-rg-vnet/subnets/default";
const POOL_EXAMPLE = "/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/demo-rg/providers/Microsoft.Network/loadBalancers/web-lb/backendAddressPools/web-pool";

export const CreateServerGroupDescription = Type.Object(
  { ...createFields, source: Type.Optional(SourceServerGroup) },
  {
    $id: "CreateServerGroupDescription",
    additionalProperties: true,
    description: "clouddriver-azure's AzureServerGroupDescription, for a scale set; with source, a clone",
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
        osConfig: { adminUserName: "azureuser", sshPublicKeys: ["ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAA… deploy@example"] },
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

type AnyCreate = Omit<CreateServerGroupDescription, "application"> & { application?: string };

/** The application of the new group: given, or the source's (a clone into the same cluster by default). */
function applicationOf(d: AnyCreate): string {
  return d.application ?? (d.source ? parseName(d.source.serverGroupName)?.app : undefined) ?? "";
}

function clusterOf(d: AnyCreate): string {
  if (d.application === undefined && d.source && d.stack === undefined && d.detail === undefined) {
    // A clone without naming fields stays in its source's cluster.
    return parseName(d.source.serverGroupName)?.cluster ?? d.source.serverGroupName;
  }
  return clusterName(applicationOf(d), d.stack || undefined, d.detail || undefined);
}

function modelSpec(d: AnyCreate): ModelSpec {
  const health = d.healthSettings ? { healthSettings: { ...d.healthSettings, port: Number(d.healthSettings.port) } } : {};
  return { ...d, ...health, networkSecurityGroupId: d.securityGroupId } as ModelSpec;
}

export function checkCreate(d: AnyCreate): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (d.osConfig?.adminPassword !== undefined) {
    problems.push({ field: "osConfig.adminPassword", message: "a password is not taken in a request; name an environment variable of the service in osConfig.adminPasswordEnv" });
  }
  if (d.capacity) problems.push(...checkCapacityOrder(d.capacity));
  if (d.capacity && d.sku?.capacity !== undefined && d.sku.capacity !== d.capacity.desired) {
    problems.push({ field: "sku.capacity", message: `sku.capacity (${d.sku.capacity}) and capacity.desired (${d.capacity.desired}) differ; give one` });
  }
  const cluster = clusterOf(d);
  if (`${cluster}-v000`.length > 64) problems.push({ field: "detail", message: `the server group name ${cluster}-vNNN would exceed Azure's 64 characters` });
  if (d.source) return problems;
  if (!d.image) problems.push({ field: "image", message: "required: a marketplace image (publisher, offer, sku) or a custom one (isCustom, uri)" });
  else if (d.image.isCustom || d.image.uri) {
    if (!d.image.uri) problems.push({ field: "image.uri", message: "required for a custom image: its resource id" });
  } else {
    for (const f of ["publisher", "offer", "sku"] as const) if (!d.image[f]) problems.push({ field: `image.${f}`, message: "required for a marketplace image" });
  }
  if (!d.sku?.name) problems.push({ field: "sku.name", message: "required: the VM size, e.g. Standard_D2s_v3" });
  if (desiredCapacity(d) === undefined) problems.push({ field: "capacity", message: "required: capacity.desired (or sku.capacity)" });
  if (!d.subnetId) problems.push({ field: "subnetId", message: "required: the subnet's resource id" });
  if (!d.osConfig?.sshPublicKeys?.length && !d.osConfig?.adminPasswordEnv) {
    problems.push({ field: "osConfig", message: "required: sshPublicKeys, or adminPasswordEnv naming the variable that holds the password" });
  }
  return problems;
}

/** What prepare found: the name, the cluster's latest group, the source's model and pools for a clone. */
interface CreateContext {
  cluster: string;
  ancestor?: string;
  /** A scale set of the cluster carries this request's mark: it is followed, not created again. */
  found: boolean;
  source?: { model: VirtualMachineScaleSet; pools: PoolBinding[] };
}

function sourcePools(vmss: VirtualMachineScaleSet, ref: ScaleSetRef): PoolBinding[] {
  // A disabled source still names the pools it serves from: in its record.
  const onNics = trafficPools(vmss);
  return disabledMode(vmss) === "pools" ? [...onNics, ...readPoolsRecord(vmss, ref)] : onNics;
}

async function prepareCreate(d: AnyCreate, ctx: PrepareContext): Promise<Prepared> {
  const located = ctx.accounts.resolve({ ...d, serverGroupName: clusterOf(d) });
  if (!located.ok) throw new OperationError("InvalidDescription", located.problems.map((p) => `${p.field}: ${p.message}`).join("; "));
  const cluster = clusterOf(d);
  const { account, resourceGroup } = located.ref;
  const listed = await listScaleSets(ctx.accounts.client(account), resourceGroup, ctx.signal);
  const mark = creationMark(ctx.origin);
  const ours = listed.find((v) => v.tags?.[TAG_CREATED_BY] === mark && v.name !== undefined && parseName(v.name)?.cluster === cluster);
  const slots = (among: VirtualMachineScaleSet[]) =>
    among.map((v) => ({ name: v.name ?? "", createdTime: v.timeCreated ? new Date(v.timeCreated).getTime() : undefined }));
  if (ours?.name) {
    // Nothing more to create: the source is not read again (it may be gone by now, the copy exists).
    ctx.log(`${ours.name} was created for this request already (${TAG_CREATED_BY}=${mark}): following it, not creating another`);
    const before = nextServerGroupName(cluster, slots(listed.filter((v) => v !== ours)));
    const ancestor = before.ok ? before.ancestor : undefined;
    return { serverGroupName: ours.name, context: { cluster, ancestor, found: true } satisfies CreateContext };
  }
  let source: CreateContext["source"];
  if (d.source) {
    const src = ctx.accounts.resolve({ credentials: d.source.account, region: d.source.region, serverGroupName: d.source.serverGroupName, ...(d.source.resourceGroup ? { resourceGroup: d.source.resourceGroup } : {}) });
    if (!src.ok) throw new OperationError("InvalidDescription", src.problems.map((p) => `source.${p.field}: ${p.message}`).join("; "));
    const read = await ctx.accounts.gateway(src.ref).read({ withInstances: false, signal: ctx.signal });
    refuseUnsupported("cloneServerGroup", read.vmss, src.ref.name); // a kind the copy could not be made of, before any write
    source = { model: read.vmss, pools: sourcePools(read.vmss, src.ref) };
    ctx.log(`copying the model of ${src.ref.name} (${src.ref.resourceGroup}, ${src.ref.region})`);
  }
  const next = nextServerGroupName(cluster, slots(listed));
  if (!next.ok) throw new OperationError("NoServerGroupNameLeft", next.reason);
  ctx.log(next.ancestor ? `found ancestor server group ${next.ancestor}; the next name is ${next.name}` : `no server group in cluster ${cluster} yet; the first name is ${next.name}`);
  return { serverGroupName: next.name, context: { cluster, ancestor: next.ancestor, found: false, source } satisfies CreateContext };
}

/** The admin password, read from the variable the description names, when the PUT is built. */
function adminPassword(d: AnyCreate, env: NodeJS.ProcessEnv): string | undefined {
  const name = d.osConfig?.adminPasswordEnv;
  if (!name) return undefined;
  const value = env[name];
  if (value === undefined || value === "") throw new OperationError("AdminPasswordNotSet", `osConfig.adminPasswordEnv names ${name}, which is not set in this service's environment`);
  return value;
}

function creationTags(d: AnyCreate, target: ScaleSetRef, pools: PoolBinding[], inTraffic: boolean, mark: string, capacity: number): Tags {
  const min = d.capacity?.min ?? capacity;
  const max = d.capacity?.max ?? capacity;
  let tags: Tags = withCapacityTags({ [TAG_CREATED_BY]: mark }, min, max);
  // Out of traffic the way disableServerGroup leaves a scale set, so that enableServerGroup puts these pools on.
  if (!inTraffic && pools.length > 0) tags = withPoolsRecord(tags, pools, target);
  return tags;
}

function createdResult(snapshot: Parameters<typeof serverGroupResult>[0], target: ScaleSetRef, context: CreateContext | undefined): CreatedServerGroupResult {
  const base = serverGroupResult(snapshot, target);
  const pools = disabledMode(snapshot.vmss) === "pools" ? readPoolsRecord(snapshot.vmss, target) : trafficPools(snapshot.vmss);
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

function createPlanner(d: AnyCreate, target: ScaleSetRef, run: RunContext | undefined, env: NodeJS.ProcessEnv = process.env) {
  if (!run?.prepared) throw new Error("createServerGroup runs only after prepare chose its name");
  const context = run.prepared.context as CreateContext;
  const mark = creationMark(run.origin);
  const inTraffic = d.disabled === false;
  return {
    readsInstances: true,
    resultOnFailure: true,
    createWhenMissing() {
      if (context.found) {
        // Listed with this request's mark, then gone: someone deleted it. One request makes one server group.
        throw new OperationError("CreatedServerGroupGone", `${target.name} was created for this request and no longer exists; not creating it again`);
      }
      const spec = modelSpec(d);
      const password = adminPassword(d, env);
      let model: VirtualMachineScaleSet;
      let pools: PoolBinding[];
      if (context.source) {
        pools = rebindPools([...context.source.pools, ...describedPools(target.name, spec)], target.name);
        const capacity = desiredCapacity(spec) ?? context.source.model.sku?.capacity ?? 0;
        const tags = creationTags(d, target, pools, inTraffic, mark, capacity);
        model = modelFromSource(context.source.model, spec, pools, { name: target.name, tags, inTraffic, ...(password !== undefined ? { adminPassword: password } : {}) });
      } else {
        pools = describedPools(target.name, spec);
        const tags = creationTags(d, target, pools, inTraffic, mark, desiredCapacity(spec) ?? 0);
        model = modelFromDescription(spec, { name: target.name, tags, inTraffic, ...(password !== undefined ? { adminPassword: password } : {}) });
      }
      const traffic = pools.length === 0 ? "no backend pools" : inTraffic ? `in traffic in ${pools.length} backend pool(s)` : `out of traffic, ${pools.length} backend pool(s) recorded for enable`;
      return { kind: "create" as const, summary: `create ${target.name} with capacity ${model.sku?.capacity ?? 0}, ${traffic}${context.source ? " (model copied from the source)" : ""}`, model };
    },
    plan(snapshot: Parameters<typeof serverGroupResult>[0]) {
      const madeBy = snapshot.vmss.tags?.[TAG_CREATED_BY];
      if (madeBy !== mark) {
        throw new OperationError(NAME_TAKEN, `${target.name} exists and was not created by this request (${TAG_CREATED_BY}: ${madeBy ?? "none"})`);
      }
      return { kind: "done" as const, summary: `${target.name} created (capacity ${snapshot.vmss.sku?.capacity ?? 0})` };
    },
    result: (snapshot: Parameters<typeof serverGroupResult>[0]) => createdResult(snapshot, target, context),
  };
}

function describeCreate(d: AnyCreate): string {
  return d.source ? `clone ${d.source.serverGroupName} into cluster ${clusterOf(d)}` : `create a server group in cluster ${clusterOf(d)}`;
}

/** Locates the cluster (for account checks and for the order of tasks) until prepare names the scale set. */
function locator(d: AnyCreate): LocatedDescription {
  return { ...d, serverGroupName: clusterOf(d) } as LocatedDescription;
}

export const createServerGroup = defineOperation({
  name: "createServerGroup",
  summary: "Create the next server group of a cluster (app-stack-detail-vNNN), out of traffic, done when Azure confirms its instances; with source, a clone",
  schema: CreateServerGroupDescription,
  check: checkCreate,
  describe: describeCreate,
  locator,
  prepare: prepareCreate,
  planner: (d, target, run) => createPlanner(d, target, run),
});

export const cloneServerGroup = defineOperation({
  name: "cloneServerGroup",
  summary: "Create the next server group of a cluster with the source's model and the given overrides (Orca's clone stage)",
  schema: CloneServerGroupDescription,
  check: checkCreate,
  describe: describeCreate,
  locator,
  prepare: prepareCreate,
  planner: (d, target, run) => createPlanner(d, target, run),
});
