// A create's prepare: what is read once before the first write (the cluster's next name, a clone's source, the
// capacity, the VM admin, identities, the network), refused before any write when it cannot be done.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import { RefusalError } from "../../azure/arm-failure.ts";
import type { ScaleSetRef } from "../../azure/vmss-gateway.ts";
import { resolveNetwork, type NetworkChoice } from "./network-by-name.ts";
import { zonesOf } from "./create-time-settings.ts";
import { checkIdentities } from "./identities.ts";
import { refuseZonesNotInRegion } from "./region-zones.ts";
import { listScaleSets } from "../../azure/vmss-gateway.ts";
import { type FieldProblem } from "../description.ts";
import { nextServerGroupName } from "./server-group-name.ts";
import { parseName } from "../../naming/frigga.ts";
import { cloneLimits, notCopiedFields, writableIdentity } from "./scale-set-model.ts";
import { cloneOverrides } from "./clone-unreadable.ts";
import { deployCapacity, identityRefs, namedSource, normalImage } from "./deploy-input.ts";
import { resolveVmAdmin, VmAdminUnavailable, type VmAdminCredentials } from "../../azure/accounts.ts";
import { type PrepareContext, type Prepared, type TaskOrigin } from "../operation.ts";
import { refuseUnsupported } from "../scale-set-kinds.ts";
import {
  disabledMode,
  recordedCapacity,
  readPoolsRecord,
  trafficPools,
  type PoolBinding,
} from "../server-group-state.ts";
import { type AnyCreate } from "./description.ts";
import { cloneSource, clusterOfNewGroup, sourceLocator } from "./checks.ts";
import { settingName, type AutoscaleSettingWire } from "../../azure/autoscale-gateway.ts";
import { describeArmFailure } from "../../azure/arm-failure.ts";
import { copyAutoscaleSetting, type AutoscaleCopy } from "./autoscale-copy.ts";

/** Which request created the scale set: `request:<clientRequestId>` or `task:<taskId>`. */
export const TAG_CREATED_BY = "vmss-ops.created-by";

export function creationMark(origin: TaskOrigin): string {
  return origin.clientRequestId !== undefined ? `request:${origin.clientRequestId}` : `task:${origin.taskId}`;
}

/** What prepare found: the name, the cluster's latest group, the network, the capacity; a clone's source model. */
export interface CreateContext {
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
  /** A clone's copy of its source's autoscale setting, written once the scale set exists; absent: the source has none. */
  autoscale?: AutoscaleCopy;
  /** The fields of a clone's source that Azure never returns and the body did not give (NotCopied.fields). */
  notCopied?: string[];
}

/** A clone's source as read: what the model is copied from, and the autoscale setting that targets it. */
interface ReadSource {
  source: NonNullable<CreateContext["source"]>;
  notCopied: string[];
  setting: AutoscaleSettingWire | null;
  sourceId: string;
}

function scaleSetIdOf(ref: Pick<ScaleSetRef, "subscriptionId" | "resourceGroup" | "name">): string {
  return `/subscriptions/${ref.subscriptionId}/resourceGroups/${ref.resourceGroup}/providers/Microsoft.Compute/virtualMachineScaleSets/${ref.name}`;
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

function locateSource(d: AnyCreate, ctx: PrepareContext): ScaleSetRef {
  const s = cloneSource(d);
  const src = ctx.accounts.locate(sourceLocator(s));
  if (!src.ok) throw invalid(src.problems, "source.");
  return src.ref;
}

/** A clone's source, read once: its model and pools, refused before any write when it cannot be copied. */
async function readCloneSource(d: AnyCreate, ctx: PrepareContext): Promise<ReadSource> {
  const ref = locateSource(d, ctx);
  // userData only when asked for: a GET without $expand=userData leaves it out, and the copy would lose it.
  const read = await ctx.accounts
    .gateway(ref)
    .read({ withInstances: false, withAutoscale: true, signal: ctx.signal, userData: true });
  refuseUnsupported("cloneServerGroup", read.vmss, ref.name); // a kind the copy could not be made of, before any write
  ctx.log(`copying the model of ${ref.name} (${ref.resourceGroup}, ${ref.region})`);
  const overrides = cloneOverrides(d);
  const limits = cloneLimits(read.vmss, overrides);
  if (limits.refusals.length > 0)
    throw new RefusalError("CannotCopySource", `${ref.name} cannot be copied: ${limits.refusals.join("; ")}`);
  for (const note of limits.notes) ctx.log(note);
  return {
    source: { model: read.vmss, pools: sourcePools(read.vmss, ref) },
    notCopied: notCopiedFields(read.vmss, overrides).flatMap((f) => f.fields),
    setting: read.autoscale ?? null,
    sourceId: read.vmss.id ?? scaleSetIdOf(ref),
  };
}

/**
 * The copy of the source's autoscale setting for the new group `name`, under a name no other resource's setting in
 * its resource group holds (one that targets the new group already is its own copy: the same name again).
 */
async function autoscaleCopy(
  d: AnyCreate,
  ctx: PrepareContext,
  target: ScaleSetRef,
  read: Pick<ReadSource, "setting" | "sourceId"> | undefined,
  capacity: { min?: number; max?: number; desired?: number } | undefined,
): Promise<AutoscaleCopy | undefined> {
  if (!read?.setting) return undefined;
  const targetId = scaleSetIdOf(target);
  const settings = await ctx.accounts.autoscale(target.account).list(target.resourceGroup, ctx.signal);
  const taken = settings
    .filter((s) => (s.properties?.targetResourceUri ?? "").toLowerCase() !== targetId.toLowerCase())
    .map((s) => settingName(s).toLowerCase());
  const copy = copyAutoscaleSetting(read.setting, {
    sourceId: read.sourceId,
    sourceName: read.sourceId.split("/").pop() ?? "",
    targetId,
    targetName: target.name,
    region: d.region,
    ...(capacity ? { capacity } : {}),
    inTraffic: d.disabled !== true,
    taken: new Set(taken),
    now: Date.now(),
  });
  if (copy)
    ctx.log(`the source's autoscale setting ${copy.from} is copied to ${target.name} as ${copy.name} once it exists`);
  return copy;
}

/**
 * The autoscale setting that targets the source whose setting the new group gets: a clone's, or (Orca's deploy
 * with a strategy) the cluster's current group's, as Clouddriver's AWS deploy copies the ancestor's scaling policies
 * and scheduled actions unless copySourceScalingPoliciesAndActions is false (BasicAmazonDeployDescription.groovy
 * l.76-82). Without it a red/black would leave the cluster unscaled once the old group's setting goes with it.
 */
async function sourceSetting(
  d: AnyCreate,
  ctx: PrepareContext,
  clone: boolean,
): Promise<Pick<ReadSource, "setting" | "sourceId"> | undefined> {
  if (d.copySourceScalingPoliciesAndActions === false) return undefined;
  const named = clone ? cloneSource(d) : namedSource(d);
  if (!named) return undefined;
  const located = ctx.accounts.locate(sourceLocator(named));
  if (!located.ok) throw invalid(located.problems, "source.");
  const sourceId = scaleSetIdOf(located.ref);
  const autoscale = ctx.accounts.autoscale(located.ref.account);
  return { setting: await autoscale.forScaleSet(located.ref.resourceGroup, sourceId, ctx.signal), sourceId };
}

/**
 * A create this request made already (a repeat, or a run taken over): the copy of its source's autoscale setting is
 * planned again, in case the run before ended between the scale set and the setting (the planner writes it only when
 * no setting targets the new group). A source gone since is said, and nothing copied.
 */
async function resumedCreate(
  d: AnyCreate,
  ctx: PrepareContext,
  found: Prepared,
  target: ScaleSetRef,
  clone: boolean,
): Promise<Prepared> {
  try {
    const read = await sourceSetting(d, ctx, clone);
    const capacity = clone || !read?.setting ? d.capacity : await createCapacity(d, ctx);
    const autoscale = await autoscaleCopy(d, ctx, target, read, capacity);
    return autoscale ? { ...found, context: { ...(found.context as CreateContext), autoscale } } : found;
  } catch (err) {
    if (describeArmFailure(err).kind !== "notFound") throw err;
    ctx.log("the source is gone: its autoscale setting, if it had one, cannot be copied now");
    return found;
  }
}

/** A deploy's capacity: its own, or (Orca's useSourceCapacity) the current group's, min and max too. */
async function createCapacity(d: AnyCreate, ctx: PrepareContext): Promise<CreateContext["capacity"]> {
  const named = namedSource(d);
  let fromSource: { min: number; max: number; desired: number } | undefined;
  if (named?.useSourceCapacity) {
    const src = ctx.accounts.locate(sourceLocator(named));
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

export async function prepareCreate(d: AnyCreate, ctx: PrepareContext, clone: boolean): Promise<Prepared> {
  const located = ctx.accounts.locate({ ...d, serverGroupName: clusterOfNewGroup(d) });
  if (!located.ok) throw invalid(located.problems);
  const cluster = clusterOfNewGroup(d);
  const { account, resourceGroup } = located.ref;
  const listed = await listScaleSets(ctx.accounts.client(account), resourceGroup, ctx.signal);
  const found = alreadyCreated(listed, cluster, ctx);
  if (found) return resumedCreate(d, ctx, found, { ...located.ref, name: found.serverGroupName }, clone);
  const read = clone ? await readCloneSource(d, ctx) : undefined;
  const source = read?.source;
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
  const autoscale = await autoscaleCopy(
    d,
    ctx,
    { ...located.ref, name: next.name },
    read ?? (await sourceSetting(d, ctx, false)),
    clone ? d.capacity : capacity,
  );
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
      ...(autoscale ? { autoscale } : {}),
      ...(read && read.notCopied.length > 0 ? { notCopied: read.notCopied } : {}),
    } satisfies CreateContext,
  };
}
