// What `vmss-ops conformance` makes and runs, and how it judges each step, as data: the names and the tag of a run,
// which resources of a group are a run's own, the steps against a Uniform and a Flexible scale set with what the
// service's read of Azure must show after each, and the cost estimate. Nothing here does I/O.
import { generateKeyPairSync, randomInt } from "node:crypto";
import type { Schemas } from "./client.ts";

/** The tag every scale set a run makes carries: its value is the run's id. Only tagged sets are ever destroyed. */
export const CONFORMANCE_TAG = "vmss-ops-conformance";
export const CONFORMANCE_APPLICATION = "vmssconf";
const SCALE_SET_TYPE = "microsoft.compute/virtualmachinescalesets";

export type ServerGroupRead = Schemas["ServerGroup"];
export type GroupResource = Schemas["ResourceGroupContents"]["resources"][number];

/** A run's id: six lower-case letters and digits, a letter first (a Frigga stack name). */
export function newRunId(): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  const alphabet = `${letters}0123456789`;
  let id = letters[randomInt(letters.length)];
  while (id.length < 6) id += alphabet[randomInt(alphabet.length)];
  return id;
}

/** The scale sets of a group that a run tagged (any run when runId is not given). */
export function taggedScaleSets(resources: readonly GroupResource[], runId?: string): GroupResource[] {
  return resources.filter(
    (r) =>
      r.type.toLowerCase() === SCALE_SET_TYPE &&
      r.tags[CONFORMANCE_TAG] !== undefined &&
      (runId === undefined || r.tags[CONFORMANCE_TAG] === runId),
  );
}

/**
 * A run's own resources: its tagged scale sets, and what Azure made for them and names after them (a Flexible
 * set's virtual machines, their NICs and disks: `{scale set}_…`), which carry no tag of their own.
 */
export function isRunResource(r: GroupResource, resources: readonly GroupResource[], runId?: string): boolean {
  const sets = taggedScaleSets(resources, runId);
  if (sets.some((s) => s.id.toLowerCase() === r.id.toLowerCase())) return true;
  return sets.some((s) => r.name.toLowerCase().startsWith(`${s.name.toLowerCase()}_`));
}

/** What a group holds that no run made: a run refuses to start there. */
export function foreignResources(resources: readonly GroupResource[]): GroupResource[] {
  return resources.filter((r) => !isRunResource(r, resources));
}

// ---- the size ----

export type RegionVmSizes = Schemas["RegionVmSizes"];

export type SizeChoice = { size: string; why: string } | { size?: undefined; why: string };

/**
 * The smallest size the region offers the subscription (Azure's resource SKUs, smallest first) that it may use there
 * (no restriction such as NotAvailableForSubscription) with quota for `instances` of it at once; the sizes passed
 * over, and why, in the sentence.
 */
export function smallestSize(read: RegionVmSizes, instances: number): SizeChoice {
  const passed: string[] = [];
  for (const s of read.sizes) {
    if (s.restriction) {
      passed.push(`${s.name} (${s.restriction})`);
      continue;
    }
    const need = s.vCPUs * instances;
    if (s.freeVCPUs < need) {
      passed.push(`${s.name} (needs ${need} vCPUs of ${s.family} quota, ${s.freeVCPUs} free)`);
      continue;
    }
    const over = passed.length > 0 ? `; passed over ${passed.join(", ")}` : "";
    return {
      size: s.name,
      why: `the smallest size ${read.region} offers the subscription with quota for ${instances} instance(s) (${s.vCPUs} vCPU, ${s.memoryGB} GB)${over}`,
    };
  }
  return {
    why:
      read.sizes.length === 0
        ? `Azure lists no VM size in ${read.region} for the subscription`
        : `no size in ${read.region} is both allowed to the subscription and within its quota for ${instances} instance(s): ${passed.join(", ")}`,
  };
}

// ---- cost ----

/**
 * Pay-as-you-go list prices of small sizes, Linux, East US, USD per hour (Azure's retail prices API, read 2026-11).
 * An estimate only: regions, discounts and currencies differ, and the bill is Azure's.
 */
export const PRICE_USD_PER_HOUR: Readonly<Record<string, number>> = {
  Standard_B1ls: 0.0052,
  Standard_B1s: 0.0104,
  Standard_B1ms: 0.0207,
  Standard_B2s: 0.0416,
  Standard_D2s_v3: 0.096,
  Standard_D2s_v5: 0.096,
  Standard_D2as_v5: 0.086,
  Standard_F2s_v2: 0.0846,
};

/** How long an instance of a run may live, at most: its steps on a slow day. */
export const INSTANCE_MINUTES = 30;

export interface CostEstimate {
  /** Instance-hours at most. */
  instanceHours: number;
  usd?: number;
  text: string;
}

export function estimateCost(size: string, instances: number): CostEstimate {
  const instanceHours = (instances * INSTANCE_MINUTES) / 60;
  const price = Object.entries(PRICE_USD_PER_HOUR).find(([name]) => name.toLowerCase() === size.toLowerCase())?.[1];
  if (price === undefined)
    return {
      instanceHours,
      text: `at most ${instanceHours} instance-hours of ${size} (no price known for it here: see the Azure pricing calculator)`,
    };
  const usd = Math.ceil(instanceHours * price * 1000) / 1000;
  return {
    instanceHours,
    usd,
    text: `at most ${instanceHours} instance-hours of ${size} at $${price}/h: about $${usd.toFixed(3)} (an estimate from list prices; the bill is Azure's)`,
  };
}

// ---- the steps ----

export interface RunSettings {
  account: string;
  region: string;
  resourceGroup: string;
  runId: string;
  size: string;
  image: Image;
  upgradeImage: Image;
  subnetId: string;
  loadBalancerPoolId?: string;
  sshPublicKey: string;
}

export interface Image {
  publisher: string;
  offer: string;
  sku: string;
  version: string;
}

export function parseImage(text: string): Image | undefined {
  const parts = text.split(":");
  if (parts.length !== 4 || parts.some((p) => !p)) return undefined;
  const [publisher, offer, sku, version] = parts;
  return { publisher, offer, sku, version };
}

/** What Azure reports after a step: the server group, or that it is gone (404). */
export type Observed = ServerGroupRead | "gone";

export interface Step {
  /** `resize 0 → 1`, as the report names it. */
  label: string;
  operation: string;
  /** The description to submit, from the read before it (an instance to terminate). */
  body(before: ServerGroupRead | undefined): Record<string, unknown>;
  /** What the read after must show; a sentence when it does not. */
  judge(after: Observed): string | undefined;
}

export interface ScaleSetPlan {
  kind: "Uniform" | "Flexible";
  name: string;
  /** The most instances it has at once. */
  maxInstances: number;
  /** Instances made over the whole plan (a rolling upgrade's surge included): what the cost estimate counts. */
  instancesMade: number;
  steps: Step[];
}

const present = (after: Observed, check: (g: ServerGroupRead) => string | undefined) =>
  after === "gone" ? "Azure reports no such scale set" : check(after);

const capacityIs = (desired: number) => (after: Observed) =>
  present(after, (g) =>
    g.capacity.desired === desired && g.instanceCount === desired
      ? undefined
      : `Azure reports capacity ${g.capacity.desired} with ${g.instanceCount} running instance(s), not ${desired}`,
  );

const disabledIs = (disabled: boolean) => (after: Observed) =>
  present(after, (g) =>
    g.disabled === disabled ? undefined : `Azure reports it ${g.disabled ? "disabled" : "enabled"}`,
  );

function capacityStep(
  target: Record<string, unknown>,
  from: number,
  to: number,
  max: number,
  operation = "resizeServerGroup",
): Step {
  return {
    label: operation === "scaleDown" ? `scale down ${from} → ${to}` : `resize ${from} → ${to}`,
    operation,
    body: () => ({ ...target, capacity: { min: 0, max, desired: to } }),
    judge: capacityIs(to),
  };
}

function terminateStep(target: Record<string, unknown>): Step {
  let chosen: string | undefined;
  return {
    label: "terminate an instance",
    operation: "terminateInstances",
    body: (before) => {
      chosen = before?.instances[0]?.instanceId ?? "0";
      return { ...target, instanceIds: [chosen] };
    },
    judge: (after) =>
      present(after, (g) =>
        g.instances.some((i) => i.instanceId === chosen) ? `Azure still lists instance ${chosen}` : undefined,
      ),
  };
}

function simpleStep(label: string, operation: string, target: Record<string, unknown>, judge: Step["judge"]): Step {
  return { label, operation, body: () => ({ ...target }), judge };
}

function createStep(s: RunSettings, kind: ScaleSetPlan["kind"], name: string): Step {
  return {
    label: `create (${kind}, ${s.size}, capacity 0)`,
    operation: "createServerGroup",
    body: () => ({
      credentials: s.account,
      region: s.region,
      resourceGroup: s.resourceGroup,
      application: CONFORMANCE_APPLICATION,
      stack: s.runId,
      ...(kind === "Flexible" ? { detail: "flex", orchestrationMode: "Flexible" } : {}),
      image: s.image,
      sku: { name: s.size, tier: "Standard" },
      capacity: { min: 0, max: 1, desired: 0 },
      subnetId: s.subnetId,
      ...(s.loadBalancerPoolId ? { loadBalancerBackendPoolId: s.loadBalancerPoolId } : {}),
      osConfig: { sshPublicKeys: [s.sshPublicKey] },
      instanceTags: { [CONFORMANCE_TAG]: s.runId },
    }),
    judge: (after) =>
      present(after, (g) =>
        g.name !== name
          ? `Azure reports ${g.name}, not ${name}`
          : g.tags[CONFORMANCE_TAG] !== s.runId
            ? `the scale set does not carry ${CONFORMANCE_TAG}=${s.runId}`
            : capacityIs(0)(g),
      ),
  };
}

const destroyStep = (target: Record<string, unknown>): Step =>
  simpleStep("destroy", "destroyServerGroup", target, (after) =>
    after === "gone" ? undefined : "Azure still reports the scale set",
  );

/** The Uniform set: every operation the service has, resize 0 → 1 → 0 first. */
export function uniformPlan(s: RunSettings): ScaleSetPlan {
  const name = `${CONFORMANCE_APPLICATION}-${s.runId}-v000`;
  const target = { credentials: s.account, region: s.region, resourceGroup: s.resourceGroup, serverGroupName: name };
  const steps: Step[] = [
    createStep(s, "Uniform", name),
    capacityStep(target, 0, 1, 1),
    capacityStep(target, 1, 0, 1),
    capacityStep(target, 0, 2, 2),
    simpleStep("disable", "disableServerGroup", target, disabledIs(true)),
    simpleStep("enable", "enableServerGroup", target, disabledIs(false)),
    {
      label: `rolling upgrade to ${Object.values(s.upgradeImage).join(":")}`,
      operation: "rollingUpgrade",
      body: () => ({ ...target, image: s.upgradeImage }),
      judge: (after) =>
        present(after, (g) =>
          g.instances.some((i) => i.latestModelApplied === false)
            ? "Azure reports an instance without the latest model"
            : capacityIs(2)(g),
        ),
    },
    terminateStep(target),
    capacityStep(target, 1, 0, 2, "scaleDown"),
    destroyStep(target),
  ];
  return { kind: "Uniform", name, maxInstances: 2, instancesMade: 4, steps };
}

/** The Flexible set: create, resize, traffic, terminate, destroy (its instances are virtual machines of their own). */
export function flexiblePlan(s: RunSettings): ScaleSetPlan {
  const name = `${CONFORMANCE_APPLICATION}-${s.runId}-flex-v000`;
  const target = { credentials: s.account, region: s.region, resourceGroup: s.resourceGroup, serverGroupName: name };
  const steps: Step[] = [
    createStep(s, "Flexible", name),
    capacityStep(target, 0, 1, 1),
    simpleStep("disable", "disableServerGroup", target, disabledIs(true)),
    simpleStep("enable", "enableServerGroup", target, disabledIs(false)),
    terminateStep(target),
    destroyStep(target),
  ];
  return { kind: "Flexible", name, maxInstances: 1, instancesMade: 1, steps };
}

/** A throwaway SSH public key: its private half is never kept, so nobody can log in to the instances. */
export function throwawaySshKey(): string {
  const { publicKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(-32);
  const field = (b: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(b.length);
    return Buffer.concat([length, b]);
  };
  const blob = Buffer.concat([field(Buffer.from("ssh-ed25519")), field(raw)]);
  return `ssh-ed25519 ${blob.toString("base64")} vmss-ops-conformance`;
}
