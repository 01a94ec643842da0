// Azure Compute's throttling (CRP), as https://learn.microsoft.com/azure/virtual-machines/compute-throttling-limits
// describes it: token buckets per policy ("kind of call"), one per resource and one per subscription. A request takes
// a token from both buckets of its policy or, when either is empty, is refused with 429 OperationNotAllowed,
// Retry-After and x-ms-ratelimit-remaining-resource, taking nothing. Off by default; switched on through
// PUT /_sim/config {"throttling":{...}}. See docs/simulator.md ("Throttling") for the figures and their sources.
import { ArmError, type ArmErrorDetail } from "./arm-errors.ts";
import { ARM_PATHS } from "./arm-routes.ts";
import type { ArmStep } from "./pipeline.ts";
import { Router, type RouteParams } from "./router.ts";
import type { SimState } from "./state.ts";
import { scaleSetKey } from "./vmss-model.ts";
import { fullBucket, levelAt, msUntilToken, remainingOf, retryAfterSeconds, settle, take, type Bucket, type BucketLimit } from "./token-bucket.ts";

// ---- policies and Azure's figures ----

export const POLICY_NAMES = ["PutVMScaleSet", "UpdateVMScaleSet", "LowCostGetVMScaleSet", "HighCostGetVMScaleSet", "GetVMScaleSetVM", "GetOperation"] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];
export type BucketScope = "resource" | "subscription";

export interface BucketFigures {
  /** Maximum bucket capacity: the requests a full bucket allows in a burst. */
  burst: number;
  /** Bucket refill rate, tokens per minute. */
  refillPerMinute: number;
}

export interface PolicyFigures {
  /** Per resource (scale set, or VM for GetVMScaleSetVM); null where Azure applies only the subscription limit. */
  resource: BucketFigures | null;
  /** Per subscription. */
  subscription: BucketFigures;
}

/**
 * Azure's published figures (compute-throttling-limits, "Throttling limits for Virtual Machine Scale Sets" and
 * "... Scale Set Virtual Machines"; GetOperation from the Virtual Machines table, subscription level only).
 */
export const AZURE_POLICIES: Readonly<Record<PolicyName, Readonly<PolicyFigures>>> = {
  /** PUT that creates a scale set ("Put (Create new scale set)"). */
  PutVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 375, refillPerMinute: 125 } },
  /** PUT on an existing scale set, PATCH, POST …/delete (deleteInstances), POST …/manualupgrade (updateInstances). */
  UpdateVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 1500, refillPerMinute: 500 } },
  /** GET one scale set ("Low Cost Get"). */
  LowCostGetVMScaleSet: { resource: { burst: 36, refillPerMinute: 12 }, subscription: { burst: 2400, refillPerMinute: 800 } },
  /** GET …/virtualMachines (per scale set and subscription); scale-set lists in a resource group / subscription (subscription only). */
  HighCostGetVMScaleSet: { resource: { burst: 30, refillPerMinute: 10 }, subscription: { burst: 1080, refillPerMinute: 360 } },
  /** GET one VM of a scale set ("Get scale set VMs"), per VM. */
  GetVMScaleSetVM: { resource: { burst: 36, refillPerMinute: 12 }, subscription: { burst: 6000, refillPerMinute: 2000 } },
  /** Status polls: …/operations/{id} and …/operationResults/{id} ("Get Operation"), subscription level only. */
  GetOperation: { resource: null, subscription: { burst: 15000, refillPerMinute: 5000 } },
};

/** The name a bucket has in x-ms-ratelimit-remaining-resource: `Microsoft.Compute/<policy><Resource|Subscription>`. */
export function bucketName(policy: PolicyName, scope: BucketScope): string {
  return `Microsoft.Compute/${policy}${scope === "resource" ? "Resource" : "Subscription"}`;
}

export const THROTTLING_MESSAGE = "The server rejected the request because too many requests have been received for this subscription.";

// ---- configuration ----

export interface PolicyOverride {
  resource?: Partial<BucketFigures>;
  subscription?: Partial<BucketFigures>;
}

export interface ThrottlingConfig {
  enabled: boolean;
  /** Multiplies every refill rate (1000: a minute of refill takes 60 ms). */
  scale: number;
  /** Per-policy changes to Azure's figures (only what was given). */
  policies: Partial<Record<PolicyName, PolicyOverride>>;
}

/** A PUT /_sim/config "throttling" value: omitted fields keep their current value; `policies` replaces as a whole. */
export type ThrottlingUpdate = Partial<ThrottlingConfig>;

export const MAX_SCALE = 1_000_000;
export const MAX_BURST = 1_000_000;
export const MAX_REFILL_PER_MINUTE = 10_000_000;

export class ThrottlingConfigError extends Error {
  override name = "ThrottlingConfigError";
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function onlyKeys(where: string, value: Record<string, unknown>, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) throw new ThrottlingConfigError(`unknown field "${where}${key}" (known: ${allowed.join(", ")})`);
  }
}

function parseFigures(where: string, value: unknown): Partial<BucketFigures> {
  if (!isPlainObject(value)) throw new ThrottlingConfigError(`"${where}" must be an object { burst?, refillPerMinute? }`);
  onlyKeys(`${where}.`, value, ["burst", "refillPerMinute"]);
  const out: Partial<BucketFigures> = {};
  if (value.burst !== undefined) {
    const b = value.burst;
    if (typeof b !== "number" || !Number.isInteger(b) || b < 1 || b > MAX_BURST) {
      throw new ThrottlingConfigError(`"${where}.burst" must be a whole number from 1 to ${MAX_BURST}`);
    }
    out.burst = b;
  }
  if (value.refillPerMinute !== undefined) {
    const r = value.refillPerMinute;
    if (typeof r !== "number" || !Number.isFinite(r) || r <= 0 || r > MAX_REFILL_PER_MINUTE) {
      throw new ThrottlingConfigError(`"${where}.refillPerMinute" must be a number above 0, at most ${MAX_REFILL_PER_MINUTE}`);
    }
    out.refillPerMinute = r;
  }
  return out;
}

/** Validates the "throttling" field of PUT /_sim/config. Throws ThrottlingConfigError with a readable message. */
export function parseThrottlingUpdate(value: unknown): ThrottlingUpdate {
  if (!isPlainObject(value)) throw new ThrottlingConfigError('"throttling" must be an object { enabled?, scale?, policies? }');
  onlyKeys("throttling.", value, ["enabled", "scale", "policies"]);
  const out: ThrottlingUpdate = {};
  if (value.enabled !== undefined) {
    if (typeof value.enabled !== "boolean") throw new ThrottlingConfigError('"throttling.enabled" must be true or false');
    out.enabled = value.enabled;
  }
  if (value.scale !== undefined) {
    const s = value.scale;
    if (typeof s !== "number" || !Number.isFinite(s) || s <= 0 || s > MAX_SCALE) {
      throw new ThrottlingConfigError(`"throttling.scale" must be a number above 0, at most ${MAX_SCALE}`);
    }
    out.scale = s;
  }
  if (value.policies !== undefined) {
    if (!isPlainObject(value.policies)) throw new ThrottlingConfigError('"throttling.policies" must be an object keyed by policy name');
    const policies: Partial<Record<PolicyName, PolicyOverride>> = {};
    for (const [rawName, rawOverride] of Object.entries(value.policies)) {
      const name = POLICY_NAMES.find((p) => p.toLowerCase() === rawName.toLowerCase());
      if (!name) throw new ThrottlingConfigError(`unknown policy "${rawName}" (known: ${POLICY_NAMES.join(", ")})`);
      const where = `throttling.policies.${name}`;
      if (!isPlainObject(rawOverride)) throw new ThrottlingConfigError(`"${where}" must be an object { resource?, subscription? }`);
      onlyKeys(`${where}.`, rawOverride, ["resource", "subscription"]);
      const override: PolicyOverride = {};
      if (rawOverride.resource !== undefined) {
        if (AZURE_POLICIES[name].resource === null) {
          throw new ThrottlingConfigError(`"${where}.resource": ${name} has no per-resource bucket (Azure applies only the subscription limit)`);
        }
        override.resource = parseFigures(`${where}.resource`, rawOverride.resource);
      }
      if (rawOverride.subscription !== undefined) override.subscription = parseFigures(`${where}.subscription`, rawOverride.subscription);
      policies[name] = override;
    }
    out.policies = policies;
  }
  return out;
}

// ---- which policy a request falls under ----

export interface Charge {
  policy: PolicyName;
  /** Lower-case subscription id from the path. */
  subscriptionId: string;
  /** `resourcegroup/scaleset` (or `…/virtualmachines/id`), lower-case; absent where only the subscription limit applies. */
  resource?: string;
}

type Classifier = (params: RouteParams, state: SimState) => Charge;

function scaleSetResource(params: RouteParams): string {
  return scaleSetKey(params.resourceGroup, params.name);
}

function on(policy: PolicyName, resourceOf?: (params: RouteParams) => string): Classifier {
  return (params) => ({
    policy,
    subscriptionId: params.subscriptionId.toLowerCase(),
    ...(resourceOf ? { resource: resourceOf(params) } : {}),
  });
}

const classifier = new Router<Classifier>()
  .add("GET", `${ARM_PATHS.subscription}/providers/Microsoft.Compute/virtualMachineScaleSets`, on("HighCostGetVMScaleSet"))
  .add("GET", ARM_PATHS.scaleSets, on("HighCostGetVMScaleSet"))
  .add("GET", `${ARM_PATHS.scaleSets}/:name`, on("LowCostGetVMScaleSet", scaleSetResource))
  .add("PUT", `${ARM_PATHS.scaleSets}/:name`, (params, state) => {
    const exists = state.isSubscription(params.subscriptionId) && state.getScaleSet(params.resourceGroup, params.name) !== undefined;
    return on(exists ? "UpdateVMScaleSet" : "PutVMScaleSet", scaleSetResource)(params, state);
  })
  .add("PATCH", `${ARM_PATHS.scaleSets}/:name`, on("UpdateVMScaleSet", scaleSetResource))
  .add("DELETE", `${ARM_PATHS.scaleSets}/:name`, on("UpdateVMScaleSet", scaleSetResource))
  .add("POST", `${ARM_PATHS.scaleSets}/:name/delete`, on("UpdateVMScaleSet", scaleSetResource))
  .add("POST", `${ARM_PATHS.scaleSets}/:name/manualupgrade`, on("UpdateVMScaleSet", scaleSetResource))
  .add("GET", `${ARM_PATHS.scaleSets}/:name/virtualMachines`, on("HighCostGetVMScaleSet", scaleSetResource))
  .add("GET", `${ARM_PATHS.scaleSets}/:name/virtualMachines/:instanceId`, on("GetVMScaleSetVM", (p) => `${scaleSetResource(p)}/virtualmachines/${p.instanceId.toLowerCase()}`))
  .add("GET", `${ARM_PATHS.operations}/operations/:operationId`, on("GetOperation"))
  .add("GET", `${ARM_PATHS.operations}/operationResults/:operationId`, on("GetOperation"));

/** The policy (and buckets) a request is charged to; undefined for requests no policy covers (unknown paths/methods). */
export function classifyRequest(method: string, pathname: string, state: SimState): Charge | undefined {
  const route = classifier.match(method, pathname);
  return route.kind === "found" ? route.handler(route.params, state) : undefined;
}

// ---- the buckets ----

interface BucketEntry {
  name: string;
  policy: PolicyName;
  scope: BucketScope;
  subscriptionId: string;
  resource: string | null;
  bucket: Bucket;
}

export interface BucketSnapshot {
  name: string;
  policy: PolicyName;
  scope: BucketScope;
  subscriptionId: string;
  /** resourcegroup/scaleset (lower-case) for per-resource buckets, null for subscription buckets. */
  resource: string | null;
  burst: number;
  /** Azure's figure (or the override), before `scale`. */
  refillPerMinute: number;
  /** Exact level now (3 decimals). */
  tokens: number;
  /** Whole tokens, as the header reports them. */
  remaining: number;
  /** ms until one whole token is there (0 when there is one), on the simulator's clock with `scale` applied. */
  msUntilToken: number;
}

export interface ThrottlingSnapshot {
  enabled: boolean;
  scale: number;
  /** The figures in force for each policy (Azure's, with overrides applied; before `scale`). */
  policies: Record<PolicyName, PolicyFigures>;
  /** Buckets used since the last reset / (re)configuration; any other bucket is full. */
  buckets: BucketSnapshot[];
}

export type ChargeResult =
  | { allowed: true; header: string }
  | {
      allowed: false;
      header: string;
      retryAfterMs: number;
      /** The buckets that were empty, with how long each needs for one token. */
      empty: { name: string; burst: number; msUntilToken: number }[];
    };

function copyConfig(config: ThrottlingConfig): ThrottlingConfig {
  return structuredClone(config);
}

export class Throttler {
  #config: ThrottlingConfig = { enabled: false, scale: 1, policies: {} };
  readonly #buckets = new Map<string, BucketEntry>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  get enabled(): boolean {
    return this.#config.enabled;
  }

  get config(): ThrottlingConfig {
    return copyConfig(this.#config);
  }

  /** Off, scale 1, Azure's figures: the state /_sim/config does not mention. */
  isDefault(): boolean {
    return !this.#config.enabled && this.#config.scale === 1 && Object.keys(this.#config.policies).length === 0;
  }

  figures(policy: PolicyName): PolicyFigures {
    const azure = AZURE_POLICIES[policy];
    const override = this.#config.policies[policy] ?? {};
    return {
      resource: azure.resource ? { ...azure.resource, ...override.resource } : null,
      subscription: { ...azure.subscription, ...override.subscription },
    };
  }

  /**
   * Applies a validated update. Turning throttling on or off, or giving `policies`, refills every bucket (they start
   * again full); a new `scale` keeps the levels and changes only how fast they refill from now on.
   */
  configure(update: ThrottlingUpdate): void {
    const now = this.#now();
    if (update.scale !== undefined && update.scale !== this.#config.scale) {
      for (const entry of this.#buckets.values()) entry.bucket = settle(entry.bucket, this.#limitOf(entry), now);
      this.#config.scale = update.scale;
    }
    if (update.enabled !== undefined && update.enabled !== this.#config.enabled) {
      this.#config.enabled = update.enabled;
      this.#buckets.clear();
    }
    if (update.policies !== undefined) {
      this.#config.policies = structuredClone(update.policies);
      this.#buckets.clear();
    }
  }

  /** Every bucket full again (POST /_sim/reset). The configuration stays. */
  reset(): void {
    this.#buckets.clear();
  }

  /** Takes a token from each bucket of the request's policy, or none when one is empty. */
  charge(charge: Charge): ChargeResult {
    const now = this.#now();
    const figures = this.figures(charge.policy);
    const entries: BucketEntry[] = [];
    if (figures.resource && charge.resource !== undefined) entries.push(this.#entry(charge, "resource", charge.resource, now));
    entries.push(this.#entry(charge, "subscription", null, now));
    const limits = entries.map((e) => this.#limitOf(e));
    const result = take(
      entries.map((e) => e.bucket),
      limits,
      now,
    );
    entries.forEach((e, i) => (e.bucket = result.buckets[i]));
    const header = entries.map((e, i) => `${e.name};${result.remaining[i]}`).join(",");
    if (result.allowed) return { allowed: true, header };
    return {
      allowed: false,
      header,
      retryAfterMs: result.retryAfterMs,
      empty: result.empty.map((i) => ({
        name: entries[i].name,
        burst: limits[i].burst,
        msUntilToken: msUntilToken(levelAt(result.buckets[i], limits[i], now), limits[i]),
      })),
    };
  }

  snapshot(): ThrottlingSnapshot {
    const now = this.#now();
    const policies = Object.fromEntries(POLICY_NAMES.map((p) => [p, this.figures(p)])) as Record<PolicyName, PolicyFigures>;
    const buckets = [...this.#buckets.values()]
      .map((e): BucketSnapshot => {
        const limit = this.#limitOf(e);
        const level = levelAt(e.bucket, limit, now);
        return {
          name: e.name,
          policy: e.policy,
          scope: e.scope,
          subscriptionId: e.subscriptionId,
          resource: e.resource,
          burst: limit.burst,
          refillPerMinute: this.#figuresOf(e).refillPerMinute,
          tokens: Math.round(level * 1000) / 1000,
          remaining: remainingOf(level),
          msUntilToken: msUntilToken(level, limit),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name) || (a.resource ?? "").localeCompare(b.resource ?? ""));
    return { enabled: this.#config.enabled, scale: this.#config.scale, policies, buckets };
  }

  #figuresOf(entry: BucketEntry): BucketFigures {
    const figures = this.figures(entry.policy);
    // a resource entry exists only for policies that have a per-resource bucket
    return entry.scope === "resource" ? figures.resource! : figures.subscription;
  }

  /** The bucket's limit on the simulator's clock: the figures with the refill rate multiplied by `scale`. */
  #limitOf(entry: BucketEntry): BucketLimit {
    const f = this.#figuresOf(entry);
    return { burst: f.burst, refillPerMinute: f.refillPerMinute * this.#config.scale };
  }

  #entry(charge: Charge, scope: BucketScope, resource: string | null, now: number): BucketEntry {
    const key = `${charge.policy}|${scope}|${charge.subscriptionId}|${resource ?? ""}`;
    let entry = this.#buckets.get(key);
    if (!entry) {
      const created: BucketEntry = {
        name: bucketName(charge.policy, scope),
        policy: charge.policy,
        scope,
        subscriptionId: charge.subscriptionId,
        resource,
        bucket: { tokens: 0, at: now },
      };
      created.bucket = fullBucket(this.#limitOf(created), now);
      this.#buckets.set(key, created);
      entry = created;
    }
    return entry;
  }
}

// ---- the pipeline step ----

function tooManyRequests(result: Extract<ChargeResult, { allowed: false }>, now: number): ArmError {
  const details: ArmErrorDetail[] = result.empty.map((e) => ({
    code: "TooManyRequests",
    target: e.name,
    message: JSON.stringify({
      operationGroup: e.name,
      startTime: new Date(now).toISOString(),
      endTime: new Date(now + e.msUntilToken).toISOString(),
      allowedRequestCount: e.burst,
    }),
  }));
  return new ArmError(429, "OperationNotAllowed", THROTTLING_MESSAGE, {
    headers: {
      "retry-after": String(retryAfterSeconds(result.retryAfterMs)),
      "x-ms-ratelimit-remaining-resource": result.header,
    },
    details,
    innerError: { internalErrorCode: "TooManyRequestsReceived" },
  });
}

/**
 * Compute's throttling, before dispatch. When on, a request that a policy covers is charged to its buckets: allowed →
 * its answer (whatever the route then says, 404/409/412 included) carries x-ms-ratelimit-remaining-resource; refused →
 * 429 OperationNotAllowed with Retry-After and the header, and no token is taken.
 */
export const throttle: ArmStep = (ctx, sim) => {
  if (!sim.throttling.enabled) return false;
  const charge = classifyRequest(ctx.method, ctx.pathname, sim.state);
  if (!charge) return false;
  const result = sim.throttling.charge(charge);
  if (!result.allowed) throw tooManyRequests(result, sim.state.now());
  ctx.responseHeaders = { ...ctx.responseHeaders, "x-ms-ratelimit-remaining-resource": result.header };
  return false;
};
