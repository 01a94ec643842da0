// The create's one write: the scale set's model (described, or copied from a clone's source) with its tags.
import type { VirtualMachineScaleSet } from "@azure/arm-compute";
import { RefusalError } from "../../azure/arm-failure.ts";
import type { ScaleSetRef } from "../../azure/vmss-gateway.ts";
import { type NetworkChoice } from "./network-by-name.ts";
import { createTimeSpec, zonesOf } from "./create-time-settings.ts";
import {
  describedPools,
  desiredCapacity,
  modelFromDescription,
  modelFromSource,
  rebindPools,
  type ModelSpec,
} from "./scale-set-model.ts";
import { normalImage, scriptOf, wantsSystemIdentity } from "./deploy-input.ts";
import { type VmAdminCredentials } from "../../azure/accounts.ts";
import { withCapacityTags, withPoolsRecord, type PoolBinding, type Tags } from "../server-group-state.ts";
import { type AnyCreate } from "./description.ts";
import { TAG_CREATED_BY, type CreateContext } from "./prepare.ts";
import { formatAdditions, TAG_BALANCER_ADDED, type BalancerAdditions } from "../balancer-additions.ts";

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
  added: BalancerAdditions | undefined,
): Tags {
  let tags: Tags = withCapacityTags({ [TAG_CREATED_BY]: mark }, capacity.min, capacity.max);
  // What prepare added to a shared balancer, in this same PUT: the group's destroy removes exactly that.
  if (added) tags = { ...tags, [TAG_BALANCER_ADDED]: formatAdditions(added) };
  // Out of traffic the way disableServerGroup leaves a scale set, so that enableServerGroup puts these pools on.
  if (!inTraffic && pools.length > 0) tags = withPoolsRecord(tags, pools, target);
  return tags;
}

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
  const tags = creationTags(
    target,
    pools,
    o.inTraffic,
    o.mark,
    { min: d.capacity?.min ?? desired, max: d.capacity?.max ?? desired },
    context.network?.added,
  );
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
  const tags = creationTags(target, pools, o.inTraffic, o.mark, capacity, context.network?.added);
  const model = modelFromDescription(spec, {
    name: target.name,
    tags,
    inTraffic: o.inTraffic,
    ...(password !== undefined ? { adminPassword: password } : {}),
  });
  return { model, pools };
}

/** The create write: the model, and a history line saying its capacity and where its traffic goes. */
export function createStep(d: AnyCreate, target: ScaleSetRef, context: CreateContext, o: CreateWriteOptions) {
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
