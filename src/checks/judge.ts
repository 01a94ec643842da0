// The decisions of `vmss-ops doctor`, one pure function per check: what was read goes in, OK / WARN / FAIL comes out
// with what was found and the exact fix. The reads are in account-checks.ts; nothing here does I/O, so each verdict is
// table-tested without Azure.
import type { ActionScope } from "../azure/arm-actions.ts";
import {
  AZURE_ARM_BUDGETS,
  AZURE_COMPUTE_POLICIES,
  type ArmBudgetFigures,
  type BucketFigures,
} from "../azure/arm-budget/figures.ts";

export type CheckStatus = "OK" | "WARN" | "FAIL";

export interface CheckResult {
  /** What is checked, e.g. `permissions on demo-rg`. */
  check: string;
  status: CheckStatus;
  /** What was found, in a sentence. */
  found: string;
  /** What to do about a WARN or FAIL: a command or a step, exact. */
  fix?: string;
}

const RANK: Record<CheckStatus, number> = { OK: 0, WARN: 1, FAIL: 2 };

/** The worst status of the checks (OK when there are none). */
export function worstOf(checks: readonly { status: CheckStatus }[]): CheckStatus {
  return checks.reduce<CheckStatus>((worst, c) => (RANK[c.status] > RANK[worst] ? c.status : worst), "OK");
}

// ---- the credential ----

/** Clock skew beyond this makes tokens look expired or not yet valid to Azure (Entra ID allows five minutes). */
export const MAX_CLOCK_SKEW_MS = 5 * 60_000;
/** A skew beyond this is worth a warning: half of what Entra ID tolerates is gone. */
export const WARN_CLOCK_SKEW_MS = 2 * 60_000;

export interface CredentialReading {
  kind: string;
  /** The token's expiry (ms since the epoch), or the error getting one. */
  token: { expiresOnTimestamp: number } | { error: string };
  now: number;
}

export function judgeCredential(r: CredentialReading): CheckResult {
  const check = "credential";
  if ("error" in r.token)
    return {
      check,
      status: "FAIL",
      found: `${r.kind}: no token: ${r.token.error}`,
      fix: 'check the account\'s credential settings (docs/real-azure.md, "The account") and that the identity exists in the tenant',
    };
  const minutes = Math.round((r.token.expiresOnTimestamp - r.now) / 60_000);
  if (minutes <= 0)
    return {
      check,
      status: "FAIL",
      found: `${r.kind}: the token acquired is already expired (${-minutes} min ago)`,
      fix: "set the clock of the machine the service runs on right (NTP)",
    };
  return { check, status: "OK", found: `${r.kind}: token acquired, valid for ${minutes} more min` };
}

/** The local clock against Azure's `Date` header (whole seconds: a second of rounding is no skew). */
export function judgeClockSkew(azureDate: string | undefined, receivedAt: number): CheckResult {
  const check = "clock";
  const azure = azureDate ? Date.parse(azureDate) : Number.NaN;
  if (Number.isNaN(azure))
    return { check, status: "WARN", found: "Azure's answer carried no Date header: the clock was not compared" };
  const skewMs = receivedAt - azure;
  const seconds = Math.round(skewMs / 1000);
  const found = `this machine's clock is ${Math.abs(seconds)} s ${skewMs >= 0 ? "ahead of" : "behind"} Azure's`;
  const fix = "synchronise the clock of the machine the service runs on (NTP: timedatectl set-ntp true)";
  if (Math.abs(skewMs) > MAX_CLOCK_SKEW_MS) return { check, status: "FAIL", found, fix };
  if (Math.abs(skewMs) > WARN_CLOCK_SKEW_MS) return { check, status: "WARN", found, fix };
  return { check, status: "OK", found };
}

// ---- the subscription and its providers ----

export type Answer<T> = { ok: true; body: T } | { ok: false; status: number; code?: string; message?: string };

function refused(a: { status: number; code?: string; message?: string }): string {
  return `${a.status}${a.code ? ` ${a.code}` : ""}${a.message ? `: ${a.message.slice(0, 200)}` : ""}`;
}

export function judgeSubscription(subscriptionId: string, a: Answer<{ state?: string }>): CheckResult {
  const check = "subscription";
  if (!a.ok) {
    if (a.status === 403)
      return {
        check,
        status: "WARN",
        found: `subscription ${subscriptionId} could not be read (${refused(a)}): its state was not checked`,
        fix: `assign the "vmss-ops subscription reader" role (docs/real-azure.md) on /subscriptions/${subscriptionId}`,
      };
    return {
      check,
      status: "FAIL",
      found: `subscription ${subscriptionId}: ${refused(a)}`,
      fix: "check the account's subscriptionId and tenantId, and that the identity belongs to that tenant",
    };
  }
  const state = a.body.state ?? "unknown";
  if (state === "Enabled") return { check, status: "OK", found: `subscription ${subscriptionId} is Enabled` };
  if (state === "Warned" || state === "PastDue")
    return {
      check,
      status: "WARN",
      found: `subscription ${subscriptionId} is ${state}: Azure may disable it`,
      fix: "settle the subscription's billing in the Azure portal (Cost Management + Billing)",
    };
  return {
    check,
    status: "FAIL",
    found: `subscription ${subscriptionId} is ${state}: Azure refuses writes`,
    fix: "re-enable the subscription in the Azure portal, or point the account at an enabled one",
  };
}

export interface ProviderReading {
  namespace: string;
  /** The resource type and api-version the service calls it with. */
  resourceType: string;
  apiVersion: string;
}

export function judgeProvider(
  subscriptionId: string,
  want: ProviderReading,
  a: Answer<{ registrationState?: string; resourceTypes?: { resourceType?: string; apiVersions?: string[] }[] }>,
): CheckResult {
  const check = `provider ${want.namespace}`;
  if (!a.ok)
    return {
      check,
      status: "WARN",
      found: `${want.namespace} could not be read (${refused(a)}): its registration was not checked`,
      fix: `assign the "vmss-ops subscription reader" role (docs/real-azure.md) on /subscriptions/${subscriptionId}`,
    };
  const state = a.body.registrationState ?? "unknown";
  if (state !== "Registered")
    return {
      check,
      status: "FAIL",
      found: `${want.namespace} is ${state} in subscription ${subscriptionId}`,
      fix: `az provider register --namespace ${want.namespace} --subscription ${subscriptionId} --wait`,
    };
  const type = a.body.resourceTypes?.find((t) => t.resourceType?.toLowerCase() === want.resourceType.toLowerCase());
  const versions = type?.apiVersions ?? [];
  if (!versions.some((v) => v.toLowerCase() === want.apiVersion.toLowerCase()))
    return {
      check,
      status: "FAIL",
      found: `${want.namespace}/${want.resourceType} does not offer api-version ${want.apiVersion} (it offers ${versions.slice(0, 5).join(", ") || "none"}…)`,
      fix: "this cloud lags the public one: run a vmss-ops release built for its api-versions, or ask Azure support when the version arrives",
    };
  return {
    check,
    status: "OK",
    found: `${want.namespace} is Registered and offers ${want.resourceType} at ${want.apiVersion}`,
  };
}

// ---- the ARM budget ----

export interface ArmBudgetReading {
  subscriptionId: string;
  /** What the service allows itself per subscription; absent when it does not count its calls (ARM_BUDGET=false). */
  figures?: ArmBudgetFigures;
  /** The built-in simulator, whose clock runs faster: its budgets refill as much faster. */
  simulator: boolean;
  /** ARM's x-ms-ratelimit-remaining-subscription-reads on doctor's read of the subscription. */
  remainingReads?: number;
  /** The simulator's clock the service paces itself by (only against the simulator alone). */
  clock?: SimulatorPace;
}

/** The simulator's clock as the service paces itself by it, and where it learned it. */
export interface SimulatorPace {
  timeScale: number;
  /** simulator: stated by the simulator; environment: SIMULATOR_TIME_SCALE; azure: not learned yet (Azure's pace). */
  source: "simulator" | "environment" | "azure";
  /** The re-reads of a scale set are paced within this refill (AZURE_SCALE_SET_READS_PER_MINUTE, or the clock's). */
  scaleSetReadsPerMinute: number;
}

const PACE_SOURCES: Record<SimulatorPace["source"], string> = {
  simulator: "as the simulator states it",
  environment: "from SIMULATOR_TIME_SCALE",
  azure: "Azure's: the simulator has not stated its own yet",
};

/** e.g. "; paced by the simulator's clock, time scale 0.001 (as the simulator states it): …". */
function paceLine(pace: SimulatorPace | undefined): string {
  if (!pace) return "";
  return `; paced by the simulator's clock, time scale ${pace.timeScale} (${PACE_SOURCES[pace.source]}): re-reads of a busy scale set within ${pace.scaleSetReadsPerMinute} a minute`;
}

/** Below this share of the hour's reads left, another caller is spending the subscription's budget. */
export const LOW_READS_SHARE = 0.1;

/**
 * The per-subscription budget the service will spend (ARM's reads, writes and deletes an hour, and each Compute
 * policy's per-minute bucket) against Azure's published limits: a budget above Azure's makes the service meet 429s
 * instead of waiting its turn, and every tool of the subscription with it.
 */
export function judgeArmBudget(r: ArmBudgetReading): CheckResult {
  const check = "ARM budget";
  if (!r.figures)
    return {
      check,
      status: "WARN",
      found: `the service does not count its ARM calls (ARM_BUDGET=false): a burst of tasks can spend subscription ${r.subscriptionId}'s budget, and every caller in it meets 429s`,
      fix: "ARM_BUDGET=true (the default; docs/configuration.md)",
    };
  const over: string[] = [];
  const compare = (name: string, ours: BucketFigures, azure: BucketFigures, per: "h" | "min") => {
    const rate = (f: BucketFigures) => (per === "h" ? f.refillPerMinute * 60 : f.refillPerMinute);
    if (ours.burst > azure.burst || rate(ours) > rate(azure) * 1.000001)
      over.push(
        `${name} ${Math.round(rate(ours))}/${per} (burst ${ours.burst}) against Azure's ${rate(azure)}/${per} (burst ${azure.burst})`,
      );
  };
  for (const kind of ["reads", "writes", "deletes"] as const)
    compare(`ARM ${kind}`, r.figures.arm[kind], AZURE_ARM_BUDGETS[kind], "h");
  for (const [policy, azure] of Object.entries(AZURE_COMPUTE_POLICIES))
    compare(
      policy,
      r.figures.compute[policy as keyof typeof AZURE_COMPUTE_POLICIES].subscription,
      azure.subscription,
      "min",
    );
  const spends = `at most ${r.figures.arm.writes.refillPerMinute * 60} writes, ${r.figures.arm.reads.refillPerMinute * 60} reads and ${r.figures.arm.deletes.refillPerMinute * 60} deletes an hour in subscription ${r.subscriptionId}`;
  const left = r.remainingReads === undefined ? "" : `; Azure reports ${r.remainingReads} reads left this hour`;
  if (over.length > 0 && !r.simulator)
    return {
      check,
      status: "FAIL",
      found: `the service would spend more than Azure allows a subscription: ${over.join("; ")}`,
      fix: "ARM_BUDGET_REFILL_SCALE=1 (Azure refills at its own rate; a larger scale is for the simulator's clock)",
    };
  if (r.remainingReads !== undefined && r.remainingReads < LOW_READS_SHARE * AZURE_ARM_BUDGETS.reads.burst)
    return {
      check,
      status: "WARN",
      found: `${spends}${left}: another caller is spending the subscription's budget, and tasks will wait for it`,
      fix: "find the caller in the subscription's activity log (az monitor activity-log list --caller …) before deploying",
    };
  return {
    check,
    status: "OK",
    found: `${spends}, within Azure's published limits${r.simulator && over.length > 0 ? " (refilled faster, as the simulator's clock runs)" : ""}${left}${r.simulator ? paceLine(r.clock) : ""}`,
  };
}

// ---- permissions ----

export interface Permission {
  actions?: string[];
  notActions?: string[];
  dataActions?: string[];
  notDataActions?: string[];
}

/**
 * An RBAC action pattern against an action, case-insensitively as Azure does: `*` stands for any run of characters
 * (`*`, `Microsoft.Compute/*`, and a read of every provider, written star-slash-read).
 */
export function actionMatches(pattern: string, action: string): boolean {
  const escaped = pattern
    .split("*")
    .map((part) => part.replace(/[.+?^$()|[\]{}\\]/g, "\\$&"))
    .join(".*");
  return new RegExp(`^${escaped}$`, "i").test(action);
}

/** Is an action granted by a list of permissions (any entry allows it and does not exclude it)? */
export function isAllowed(permissions: readonly Permission[], action: string, data: boolean): boolean {
  return permissions.some((p) => {
    const allow = (data ? p.dataActions : p.actions) ?? [];
    const deny = (data ? p.notDataActions : p.notActions) ?? [];
    return allow.some((a) => actionMatches(a, action)) && !deny.some((a) => actionMatches(a, action));
  });
}

export interface ScopeReading {
  /** How the check names the scope: `demo-rg`, `the subscription`. */
  name: string;
  /** The ARM id, for the fix. */
  id: string;
  scope: Exclude<ActionScope, "vault">;
  needed: readonly string[];
}

export function judgePermissions(s: ScopeReading, a: Answer<{ value?: Permission[] }>): CheckResult {
  const check = `permissions on ${s.name}`;
  const role = s.scope === "resourceGroup" ? "vmss-ops operator" : "vmss-ops subscription reader";
  const assign = `az role assignment create --assignee-object-id "$PRINCIPAL_ID" --assignee-principal-type ServicePrincipal --role "${role}" --scope ${s.id}`;
  if (!a.ok)
    return {
      check,
      status: a.status === 404 ? "FAIL" : "WARN",
      found: `the effective permissions could not be read (${refused(a)})`,
      fix: a.status === 404 ? `create the resource group, or name the right one: ${s.id}` : assign,
    };
  const missing = s.needed.filter((action) => !isAllowed(a.body.value ?? [], action, false));
  if (missing.length === 0) return { check, status: "OK", found: `all ${s.needed.length} actions the service needs` };
  // The subscription's actions are doctor's own reads: without them the operations still work, and doctor warns.
  return {
    check,
    status: s.scope === "subscription" ? "WARN" : "FAIL",
    found: `missing ${missing.length} of ${s.needed.length} actions: ${missing.join(", ")}`,
    fix: `${assign}   (the role's actions: docs/real-azure.md, generated from src/azure/arm-actions.ts)`,
  };
}

// ---- quota ----

export interface Usage {
  name?: { value?: string; localizedValue?: string };
  currentValue?: number;
  limit?: number;
}

export interface ServerGroupNeed {
  name: string;
  sku: string;
  /** The capacity now and the largest it may be resized to (the recorded max). */
  capacity: number;
  max: number;
}

export interface SkuSize {
  name: string;
  family?: string;
  vCPUs?: number;
}

/**
 * Headroom in a region against the server group that may grow most: its growth to `max` in vCPUs, counted against
 * the regional cores and its VM family's cores; a red/black deploy makes a second group as large, so headroom for
 * one growth but not two is a WARN. One scale set more is needed for a create.
 */
export function judgeQuota(
  subscriptionId: string,
  region: string,
  groups: readonly ServerGroupNeed[],
  sizes: readonly SkuSize[],
  a: Answer<{ value?: Usage[] }>,
): CheckResult {
  const check = `quota in ${region}`;
  if (!a.ok)
    return {
      check,
      status: "WARN",
      found: `the Compute usages of ${region} could not be read (${refused(a)})`,
      fix: `assign the "vmss-ops subscription reader" role (docs/real-azure.md) on /subscriptions/${subscriptionId}`,
    };
  const usage = (name: string) => a.body.value?.find((u) => u.name?.value?.toLowerCase() === name.toLowerCase());
  const headroom = (u: Usage | undefined) => (u ? (u.limit ?? 0) - (u.currentValue ?? 0) : Number.POSITIVE_INFINITY);
  const sizeOf = (sku: string) => sizes.find((s) => s.name.toLowerCase() === sku.toLowerCase());
  const problems: { status: CheckStatus; text: string; quota: string; need: number }[] = [];
  const judge = (what: string, quota: string, free: number, need: number) => {
    if (need <= 0) return;
    if (free < need) problems.push({ status: "FAIL", text: `${what}: needs ${need}, ${free} free`, quota, need });
    else if (free < 2 * need)
      problems.push({
        status: "WARN",
        text: `${what}: needs ${need}, ${free} free (not twice, as a red/black deploy needs)`,
        quota,
        need,
      });
  };
  let largest: { group: ServerGroupNeed; vCPUs: number; family?: string } | undefined;
  for (const g of groups) {
    const size = sizeOf(g.sku);
    const vCPUs = Math.max(0, g.max - g.capacity) * (size?.vCPUs ?? 1);
    if (!largest || vCPUs > largest.vCPUs) largest = { group: g, vCPUs, family: size?.family };
  }
  if (largest) {
    const g = largest.group;
    const what = `${g.name} (${g.sku}) growing ${g.capacity} → ${g.max}`;
    judge(`${what}, regional vCPUs`, "cores", headroom(usage("cores")), largest.vCPUs);
    if (largest.family)
      judge(`${what}, ${largest.family} vCPUs`, largest.family, headroom(usage(largest.family)), largest.vCPUs);
  }
  judge("a new scale set", "virtualMachineScaleSets", headroom(usage("virtualMachineScaleSets")), 1);
  const summary = `${groups.length} server group(s); regional vCPUs ${usage("cores")?.currentValue ?? "?"} of ${usage("cores")?.limit ?? "?"} used`;
  if (problems.length === 0) return { check, status: "OK", found: summary };
  const worst = worstOf(problems);
  const first = problems.find((p) => p.status === worst)!;
  const current = usage(first.quota);
  return {
    check,
    status: worst,
    found: `${problems.map((p) => p.text).join("; ")} (${summary})`,
    fix: `request more ${first.quota} quota in ${region}: az quota update --resource-name ${first.quota} --scope /subscriptions/${subscriptionId}/providers/Microsoft.Compute/locations/${region} --limit-object value=${(current?.limit ?? 0) + 2 * first.need} (or Azure portal → Quotas)`,
  };
}

// ---- named resources ----

export interface NamedResource {
  /** `load balancer`, `application gateway`, `subnet`, `Key Vault secret`. */
  kind: string;
  id: string;
  /** Who names it: `web-prod-v001`, `the account's vmAdmin`. */
  namedBy: string;
}

export function judgeNamedResource(r: NamedResource, a: Answer<unknown>): CheckResult {
  const check = `${r.kind} ${r.id.split("/").slice(-1)[0]}`;
  if (a.ok) return { check, status: "OK", found: `readable (${r.id}, named by ${r.namedBy})` };
  if (a.status === 404)
    return {
      check,
      status: "FAIL",
      found: `${r.id}, named by ${r.namedBy}, does not exist (${refused(a)})`,
      fix:
        r.kind === "Key Vault secret"
          ? `create it: az keyvault secret set --id ${r.id} --value …`
          : `create it, or change ${r.namedBy} to name one that exists`,
    };
  if (a.status === 401 || a.status === 403) {
    const scope = r.kind === "Key Vault secret" ? "the vault" : r.id.split("/providers/")[0];
    return {
      check,
      status: "FAIL",
      found: `${r.id}, named by ${r.namedBy}, cannot be read: ${refused(a)}`,
      fix:
        r.kind === "Key Vault secret"
          ? `az role assignment create --assignee-object-id "$PRINCIPAL_ID" --assignee-principal-type ServicePrincipal --role "Key Vault Secrets User" --scope <the vault's resource id>  (or an access policy with secret get on ${scope})`
          : `az role assignment create --assignee-object-id "$PRINCIPAL_ID" --assignee-principal-type ServicePrincipal --role "vmss-ops operator" --scope ${scope}`,
    };
  }
  return {
    check,
    status: "WARN",
    found: `${r.id}, named by ${r.namedBy}: ${refused(a)}`,
    fix: "run doctor again; if it stays, the resource's service is failing",
  };
}
