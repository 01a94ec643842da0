// Azure Compute's throttling (CRP), as https://learn.microsoft.com/azure/virtual-machines/compute-throttling-limits
// describes it: token buckets per policy ("kind of call"), one per resource and one per subscription. A request takes
// a token from both buckets of its policy or, when either is empty, is refused with 429 OperationNotAllowed,
// Retry-After and x-ms-ratelimit-remaining-resource, taking nothing. On by default with Azure's figures; the header
// names are those of the recordings (test/fixtures/azure-recordings). ARM's own per-subscription read/write/delete
// budgets are reported in x-ms-ratelimit-remaining-subscription-{reads,writes,deletes}. Which route falls under which
// policy is said in the one route table (arm-routes.ts). See docs/simulator.md ("Throttling").
import { ArmError, type ArmErrorDetail } from "./arm-errors.ts";
import {
  fullBucket,
  levelAt,
  msUntilToken,
  remainingOf,
  retryAfterSeconds,
  settle,
  take,
  type Bucket,
  type BucketLimit,
} from "./token-bucket.ts";

// ---- policies and Azure's figures ----

export const POLICY_NAMES = [
  "GetVMScaleSet",
  "HighCostGetVMScaleSet",
  "GetVMScaleSetVM",
  "CreateVMScaleSet",
  "VMScaleSetActions",
  "DeleteVMScaleSet",
  "GetOperation",
] as const;
export type PolicyName = (typeof POLICY_NAMES)[number];
export type BucketScope = "resource" | "subscription";

export interface BucketFigures {
  /** Maximum bucket capacity: the requests a full bucket allows in a burst. */
  burst: number;
  /** Bucket refill rate, tokens per minute (of Azure's time: divided by the simulator's timeScale). */
  refillPerMinute: number;
}

export interface PolicyFigures {
  /** Per resource (scale set, VM, or operation for GetOperation); null where Azure applies only the subscription limit. */
  resource: BucketFigures | null;
  /** Per subscription. */
  subscription: BucketFigures;
}

/**
 * Azure's published figures (compute-throttling-limits, "Throttling limits for Virtual Machine Scale Sets", "... Scale
 * Set Virtual Machines", and "Get Operation" from the Virtual Machines table). The recordings agree: a first call
 * reports burst − 1 (GetVMScaleSetSubscriptionMaximum;2399, CreateVMScaleSetResource;11, GetOperationResource;44,
 * DeleteVMScaleSetSubscriptionMaximum;524).
 */
export const AZURE_POLICIES: Readonly<Record<PolicyName, Readonly<PolicyFigures>>> = {
  /** GET one scale set (the "Low Cost Get" figures; recorded name GetVMScaleSet, update[3]). */
  GetVMScaleSet: { resource: { burst: 36, refillPerMinute: 12 }, subscription: { burst: 2400, refillPerMinute: 800 } },
  /** GET …/virtualMachines (per scale set), scale-set lists (subscription only). */
  HighCostGetVMScaleSet: {
    resource: { burst: 30, refillPerMinute: 10 },
    subscription: { burst: 1080, refillPerMinute: 360 },
  },
  /** GET one VM of a scale set, per VM (py[16]). */
  GetVMScaleSetVM: {
    resource: { burst: 36, refillPerMinute: 12 },
    subscription: { burst: 6000, refillPerMinute: 2000 },
  },
  /** PUT that creates a scale set (update[0]). */
  CreateVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 375, refillPerMinute: 125 } },
  /** PATCH and PUT of an existing scale set (update[11]); POST …/delete and …/manualupgrade, subscription only (py[39], py[48]). */
  VMScaleSetActions: {
    resource: { burst: 12, refillPerMinute: 4 },
    subscription: { burst: 1500, refillPerMinute: 500 },
  },
  /** DELETE of a scale set (delete[4]). */
  DeleteVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 525, refillPerMinute: 175 } },
  /** Status polls, per operation and per subscription (update[1]). */
  GetOperation: { resource: { burst: 45, refillPerMinute: 15 }, subscription: { burst: 15000, refillPerMinute: 5000 } },
};

/** Policies whose recorded header lists the resource bucket first (GetOperation); the others list the subscription first. */
const RESOURCE_FIRST: ReadonlySet<PolicyName> = new Set(["GetOperation"]);

/** Writes: the VMs they touch are charged to this subscription bucket (x-ms-request-charge), then VmssQueuedVMOperations. */
export const BATCHED_VM_REQUESTS: BucketFigures = { burst: 6000, refillPerMinute: 2000 };

/** ARM's per-subscription budgets (the classic hourly limits the 2023 recording reports: 11999 reads, 1199 writes, 14999 deletes). */
export const ARM_BUDGETS = {
  reads: { burst: 12000, refillPerMinute: 200 },
  writes: { burst: 1200, refillPerMinute: 20 },
  deletes: { burst: 15000, refillPerMinute: 250 },
} as const satisfies Record<string, BucketFigures>;
export type ArmBudgetKind = keyof typeof ARM_BUDGETS;

/** The name a bucket has in x-ms-ratelimit-remaining-resource, as recorded: `Microsoft.Compute/<policy>Resource|SubscriptionMaximum`. */
export function bucketName(policy: PolicyName, scope: BucketScope): string {
  return `Microsoft.Compute/${policy}${scope === "resource" ? "Resource" : "SubscriptionMaximum"}`;
}

export const THROTTLING_MESSAGE =
  "The server rejected the request because too many requests have been received for this subscription.";

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
    if (!allowed.includes(key))
      throw new ThrottlingConfigError(`unknown field "${where}${key}" (known: ${allowed.join(", ")})`);
  }
}

function parseFigures(where: string, value: unknown): Partial<BucketFigures> {
  if (!isPlainObject(value))
    throw new ThrottlingConfigError(`"${where}" must be an object { burst?, refillPerMinute? }`);
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
      throw new ThrottlingConfigError(
        `"${where}.refillPerMinute" must be a number above 0, at most ${MAX_REFILL_PER_MINUTE}`,
      );
    }
    out.refillPerMinute = r;
  }
  return out;
}

/** Validates the "throttling" field of PUT /_sim/config. Throws ThrottlingConfigError with a readable message. */
export function parseThrottlingUpdate(value: unknown): ThrottlingUpdate {
  if (!isPlainObject(value))
    throw new ThrottlingConfigError('"throttling" must be an object { enabled?, scale?, policies? }');
  onlyKeys("throttling.", value, ["enabled", "scale", "policies"]);
  const out: ThrottlingUpdate = {};
  if (value.enabled !== undefined) {
    if (typeof value.enabled !== "boolean")
      throw new ThrottlingConfigError('"throttling.enabled" must be true or false');
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
    if (!isPlainObject(value.policies))
      throw new ThrottlingConfigError('"throttling.policies" must be an object keyed by policy name');
    const policies: Partial<Record<PolicyName, PolicyOverride>> = {};
    for (const [rawName, rawOverride] of Object.entries(value.policies)) {
      const name = POLICY_NAMES.find((p) => p.toLowerCase() === rawName.toLowerCase());
      if (!name) throw new ThrottlingConfigError(`unknown policy "${rawName}" (known: ${POLICY_NAMES.join(", ")})`);
      const where = `throttling.policies.${name}`;
      if (!isPlainObject(rawOverride))
        throw new ThrottlingConfigError(`"${where}" must be an object { resource?, subscription? }`);
      onlyKeys(`${where}.`, rawOverride, ["resource", "subscription"]);
      const override: PolicyOverride = {};
      if (rawOverride.resource !== undefined) {
        if (AZURE_POLICIES[name].resource === null) {
          throw new ThrottlingConfigError(
            `"${where}.resource": ${name} has no per-resource bucket (Azure applies only the subscription limit)`,
          );
        }
        override.resource = parseFigures(`${where}.resource`, rawOverride.resource);
      }
      if (rawOverride.subscription !== undefined)
        override.subscription = parseFigures(`${where}.subscription`, rawOverride.subscription);
      policies[name] = override;
    }
    out.policies = policies;
  }
  return out;
}

// ---- what a request is charged to ----

export interface Charge {
  policy: PolicyName;
  /** Lower-case subscription id from the path. */
  subscriptionId: string;
  /** Lower-case resource key; absent where only the subscription limit applies. */
  resource?: string;
  /** ARM's budget the request counts against (by method). */
  budget: ArmBudgetKind;
}

// ---- the buckets ----

interface BucketEntry {
  name: string;
  /** A policy, or "arm:<budget>" / "batchedVMRequests" for the buckets that are not a Compute policy's. */
  policy: string;
  scope: BucketScope;
  subscriptionId: string;
  resource: string | null;
  figures: () => BucketFigures;
  bucket: Bucket;
}

export interface BucketSnapshot {
  name: string;
  policy: string;
  scope: BucketScope;
  subscriptionId: string;
  /** The resource key (lower-case) for per-resource buckets, null for subscription buckets. */
  resource: string | null;
  burst: number;
  /** Azure's figure (or the override), per Azure minute: before `scale` and timeScale. */
  refillPerMinute: number;
  /** Exact level now (3 decimals). */
  tokens: number;
  /** Whole tokens, as the header reports them. */
  remaining: number;
  /** ms until one whole token is there (0 when there is one), on the simulator's clock. */
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
  | { allowed: true; headers: Record<string, string> }
  | {
      allowed: false;
      headers: Record<string, string>;
      retryAfterMs: number;
      /** ARM's own subscription budget ran out (429 SubscriptionRequestsThrottled), not a Compute policy. */
      armBudget: boolean;
      /** The buckets that were empty, with how long each needs for one token. */
      empty: { name: string; burst: number; msUntilToken: number }[];
    };

function copyConfig(config: ThrottlingConfig): ThrottlingConfig {
  return structuredClone(config);
}

export class Throttler {
  #config: ThrottlingConfig = { enabled: true, scale: 1, policies: {} };
  readonly #buckets = new Map<string, BucketEntry>();
  readonly #now: () => number;
  readonly #timeScale: () => number;

  /** `timeScale`: the simulator's time factor; a bucket refills 1/timeScale times faster on the simulator's clock. */
  constructor(now: () => number = Date.now, timeScale: () => number = () => 1, enabled = true) {
    this.#now = now;
    this.#timeScale = timeScale;
    this.#config.enabled = enabled;
  }

  get enabled(): boolean {
    return this.#config.enabled;
  }

  get config(): ThrottlingConfig {
    return copyConfig(this.#config);
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
      this.settleAll(now);
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

  /** Brings every bucket's level up to now: call before the refill speed (scale, timeScale) changes. */
  settleAll(now = this.#now()): void {
    for (const entry of this.#buckets.values()) entry.bucket = settle(entry.bucket, this.#limitOf(entry), now);
  }

  /** Every bucket full again (POST /_sim/reset). The configuration stays. */
  reset(): void {
    this.#buckets.clear();
  }

  /**
   * Takes a token from each bucket of the request's policy and from ARM's budget, or none when one is empty.
   * The answer's headers: x-ms-ratelimit-remaining-resource and x-ms-ratelimit-remaining-subscription-<budget>.
   */
  charge(charge: Charge): ChargeResult {
    const now = this.#now();
    const figures = this.figures(charge.policy);
    const policyEntries: BucketEntry[] = [];
    const resource =
      figures.resource && charge.resource !== undefined
        ? this.#policyEntry(charge, "resource", charge.resource, now)
        : undefined;
    const subscription = this.#policyEntry(charge, "subscription", null, now);
    if (resource && RESOURCE_FIRST.has(charge.policy)) policyEntries.push(resource, subscription);
    else policyEntries.push(subscription, ...(resource ? [resource] : []));
    const arm = this.#armEntry(charge.subscriptionId, charge.budget, now);
    const entries = [...policyEntries, arm];
    const result = this.#take(entries, 1, now);
    const remaining = result.remaining;
    const headers = {
      "x-ms-ratelimit-remaining-resource": policyEntries.map((e, i) => `${e.name};${remaining[i]}`).join(","),
      [arm.name]: String(remaining[remaining.length - 1]),
    };
    if (result.allowed) return { allowed: true, headers };
    return {
      allowed: false,
      headers,
      retryAfterMs: result.retryAfterMs,
      armBudget: result.empty.includes(entries.length - 1),
      empty: this.#emptyOf(entries, result.empty, now),
    };
  }

  /**
   * ARM's budget alone, for the routes no Compute policy covers (the subscription, resource groups, providers, usages,
   * permissions, Microsoft.Network, locks): ARM reports x-ms-ratelimit-remaining-subscription-<budget> on every answer
   * under a subscription, whichever provider serves it.
   */
  chargeArm(subscriptionId: string, budget: ArmBudgetKind): ChargeResult {
    const now = this.#now();
    const arm = this.#armEntry(subscriptionId, budget, now);
    const result = this.#take([arm], 1, now);
    const headers = { [arm.name]: String(result.remaining[0]) };
    if (result.allowed) return { allowed: true, headers };
    return {
      allowed: false,
      headers,
      retryAfterMs: result.retryAfterMs,
      armBudget: true,
      empty: this.#emptyOf([arm], result.empty, now),
    };
  }

  /**
   * Another caller of the subscription spends `tokens` of ARM's budget (as many as are there): the control API's way to
   * leave a client few reads, as a busy subscription does. Returns the whole tokens left.
   */
  spendArm(subscriptionId: string, budget: ArmBudgetKind, tokens: number): number {
    const now = this.#now();
    const arm = this.#armEntry(subscriptionId, budget, now);
    const level = levelAt(arm.bucket, this.#limitOf(arm), now);
    arm.bucket = { tokens: Math.max(0, level - tokens), at: Math.max(now, arm.bucket.at) };
    return remainingOf(arm.bucket.tokens);
  }

  /**
   * A write's VMs, charged to VMScaleSetBatchedVMRequestsSubscriptionMaximum (`count` tokens, all or nothing). The
   * header continues x-ms-ratelimit-remaining-resource with that bucket and VmssQueuedVMOperations (always 0 in the
   * recordings).
   */
  chargeVms(
    subscriptionId: string,
    count: number,
  ): {
    allowed: boolean;
    header: string;
    retryAfterMs: number;
    empty: { name: string; burst: number; msUntilToken: number }[];
  } {
    const now = this.#now();
    const entry = this.#entry(
      "batchedVMRequests",
      "Microsoft.Compute/VMScaleSetBatchedVMRequestsSubscriptionMaximum",
      "subscription",
      subscriptionId,
      null,
      () => BATCHED_VM_REQUESTS,
      now,
    );
    const result = this.#take([entry], count, now);
    const header = `${entry.name};${result.remaining[0]},Microsoft.Compute/VmssQueuedVMOperations;0`;
    return {
      allowed: result.allowed,
      header,
      retryAfterMs: result.retryAfterMs,
      empty: this.#emptyOf([entry], result.empty, now, count),
    };
  }

  snapshot(): ThrottlingSnapshot {
    const now = this.#now();
    const policies = Object.fromEntries(POLICY_NAMES.map((p) => [p, this.figures(p)])) as Record<
      PolicyName,
      PolicyFigures
    >;
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
          refillPerMinute: e.figures().refillPerMinute,
          tokens: Math.round(level * 1000) / 1000,
          remaining: remainingOf(level),
          msUntilToken: msUntilToken(level, limit),
        };
      })
      .sort((a, b) => a.name.localeCompare(b.name) || (a.resource ?? "").localeCompare(b.resource ?? ""));
    return { enabled: this.#config.enabled, scale: this.#config.scale, policies, buckets };
  }

  /** `count` tokens from every bucket or none. */
  #take(entries: BucketEntry[], count: number, now: number) {
    const result = take(
      entries.map((e) => e.bucket),
      entries.map((e) => this.#limitOf(e)),
      now,
      count,
    );
    entries.forEach((e, i) => (e.bucket = result.buckets[i]));
    return result;
  }

  #emptyOf(entries: BucketEntry[], empty: number[], now: number, count = 1) {
    return empty.map((i) => {
      const limit = this.#limitOf(entries[i]);
      return {
        name: entries[i].name,
        burst: limit.burst,
        msUntilToken: msUntilToken(levelAt(entries[i].bucket, limit, now), limit, count),
      };
    });
  }

  /** The bucket's limit on the simulator's clock: refill × scale / timeScale. */
  #limitOf(entry: BucketEntry): BucketLimit {
    const f = entry.figures();
    return { burst: f.burst, refillPerMinute: (f.refillPerMinute * this.#config.scale) / this.#timeScale() };
  }

  #armEntry(subscriptionId: string, budget: ArmBudgetKind, now: number): BucketEntry {
    const name = `x-ms-ratelimit-remaining-subscription-${budget}`;
    return this.#entry(`arm:${budget}`, name, "subscription", subscriptionId, null, () => ARM_BUDGETS[budget], now);
  }

  #policyEntry(charge: Charge, scope: BucketScope, resource: string | null, now: number): BucketEntry {
    const policy = charge.policy;
    // a resource entry exists only for policies that have a per-resource bucket
    const figures = () => (scope === "resource" ? this.figures(policy).resource! : this.figures(policy).subscription);
    return this.#entry(policy, bucketName(policy, scope), scope, charge.subscriptionId, resource, figures, now);
  }

  #entry(
    policy: string,
    name: string,
    scope: BucketScope,
    subscriptionId: string,
    resource: string | null,
    figures: () => BucketFigures,
    now: number,
  ): BucketEntry {
    const key = `${policy}|${scope}|${subscriptionId}|${resource ?? ""}`;
    let entry = this.#buckets.get(key);
    if (!entry) {
      const created: BucketEntry = {
        name,
        policy,
        scope,
        subscriptionId,
        resource,
        figures,
        bucket: { tokens: 0, at: now },
      };
      created.bucket = fullBucket(this.#limitOf(created), now);
      this.#buckets.set(key, created);
      entry = created;
    }
    return entry;
  }
}

/**
 * The 429 for a refused charge, as CRP answers throttling (OperationNotAllowed with one TooManyRequests detail per
 * empty bucket) or, when ARM's own subscription budget ran out, as ARM does (SubscriptionRequestsThrottled).
 */
export function tooManyRequests(
  result: {
    headers: Record<string, string>;
    retryAfterMs: number;
    armBudget?: boolean;
    empty: { name: string; burst: number; msUntilToken: number }[];
  },
  now: number,
): ArmError {
  const headers = { ...result.headers, "retry-after": String(retryAfterSeconds(result.retryAfterMs)) };
  if (result.armBudget) {
    return new ArmError(
      429,
      "SubscriptionRequestsThrottled",
      `Number of requests for subscription exceeded the limit. Please try again after '${retryAfterSeconds(result.retryAfterMs)}' seconds.`,
      { headers },
    );
  }
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
    headers,
    details,
    innerError: { internalErrorCode: "TooManyRequestsReceived" },
  });
}
