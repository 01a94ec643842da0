// The throttling budget Azure reports on every response (x-ms-ratelimit-remaining-resource), remembered per
// scale set and policy, so an operator (and later the status page) can see how close we run to a 429.

export interface BudgetEntry {
  /**
   * "subscriptions/{sub}/resourceGroups/{rg}/virtualMachineScaleSets/{name}", or "subscriptions/{sub}" for polls
   * and for subscription-wide policies.
   */
  scope: string;
  /** Azure's policy name, e.g. Microsoft.Compute/UpdateVMScaleSetResource. */
  policy: string;
  remaining: number;
  atMs: number;
}

const SCALE_SET_PATH =
  /\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.Compute\/virtualMachineScaleSets\/([^/?]+)/i;
const SUBSCRIPTION_PATH = /\/subscriptions\/([^/]+)/i;

/** The last header parsed and what it read: each response's header is read by three listeners in turn. */
let lastHeader: { value: string; counts: readonly (readonly [string, number])[] } | undefined;

/**
 * "Microsoft.Compute/LowCostGet;35,Microsoft.Compute/LowCostGetSub;2399" → [[policy, 35], …]; junk is skipped. The
 * answer is shared with the next caller given the same header (the budget, the read probe and this file's budget
 * read each response's): it is read-only.
 */
export function parseRemainingHeader(value: string): readonly (readonly [string, number])[] {
  if (lastHeader?.value === value) return lastHeader.counts;
  const out: [string, number][] = [];
  for (const part of value.split(",")) {
    const m = /^\s*([^;\s][^;]*?)\s*;\s*(\d+)\s*$/.exec(part);
    if (m) out.push([m[1], Number(m[2])]);
  }
  const counts = Object.freeze(out.map((c) => Object.freeze(c)));
  lastHeader = { value, counts };
  return counts;
}

/**
 * Where a policy's count applies: Azure's subscription-wide policies (…SubscriptionMaximum, e.g.
 * Microsoft.Compute/VMScaleSetActionsSubscriptionMaximum) to the subscription, whichever scale set's answer
 * reported them; the others (…Resource, …3Min) to the scope of the call.
 */
export function policyScope(scope: string, policy: string): string {
  return /SubscriptionMaximum$/i.test(policy) ? scope.split("/").slice(0, 2).join("/") : scope;
}

export function scopeOf(url: string): string | undefined {
  // The path: what comes before the query or fragment (the patterns start at /subscriptions/, wherever the host ends).
  const end = url.search(/[?#]/);
  const path = end < 0 ? url : url.slice(0, end);
  const vmss = SCALE_SET_PATH.exec(path);
  if (vmss)
    return `subscriptions/${vmss[1]}/resourceGroups/${vmss[2]}/virtualMachineScaleSets/${vmss[3]}`.toLowerCase();
  const sub = SUBSCRIPTION_PATH.exec(path);
  return sub ? `subscriptions/${sub[1]}`.toLowerCase() : undefined;
}

export class RateLimitBudget {
  readonly #entries = new Map<string, BudgetEntry>();
  readonly #maxEntries: number;

  /**
   * At most maxEntries scope and policy pairs, the least recently reported going first: each is a series of the
   * throttling-budget gauge, and at 5,000 they held 1.9 MB after a run over 1,000 scale sets.
   */
  constructor(maxEntries = 1000) {
    this.#maxEntries = maxEntries;
  }

  onArmResponse(info: { url: string; headers: { get(name: string): string | undefined } }): void {
    const header = info.headers.get("x-ms-ratelimit-remaining-resource");
    if (!header) return;
    const scope = scopeOf(info.url);
    if (!scope) return;
    const atMs = Date.now();
    for (const [policy, remaining] of parseRemainingHeader(header)) {
      const at = policyScope(scope, policy);
      const key = `${at}\n${policy}`;
      this.#entries.delete(key); // re-insert: the map stays in recency order for eviction
      this.#entries.set(key, { scope: at, policy, remaining, atMs });
    }
    while (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  /** Newest first; the lowest remaining counts are what matters. */
  snapshot(): BudgetEntry[] {
    return [...this.#entries.values()].reverse();
  }
}
