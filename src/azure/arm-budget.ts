// One budget per subscription (and per scale set) for every ARM call this service sends, so that the service finds
// Azure's throttling limits by counting, not by hitting them. Azure Compute throttles with token buckets per policy
// ("kind of call"), one per resource and one per subscription, and ARM adds its own per-subscription read, write and
// delete budgets (https://learn.microsoft.com/azure/virtual-machines/compute-throttling-limits, and
// https://learn.microsoft.com/azure/azure-resource-manager/management/request-limits-and-throttling).
//
// Each call takes a token from every bucket it is charged to before it is sent (all or nothing). An empty bucket
// makes the call wait here, and the task it serves says so in its history, instead of being sent to be refused.
// Azure's own counts (x-ms-ratelimit-remaining-*) lower a level that is higher than Azure's word; a 429 that still
// arrives (another tool spent the budget) empties the bucket it names and blocks it for its Retry-After.
//
// The levels live in a ledger: in this process (InProcessLedger) or in PostgreSQL (arm-budget-postgres.ts), shared
// by every replica. The calls asked for in one turn of the event loop take together, in one step of the ledger (one
// statement when it is shared), in the waiting line's order. Priority: calls made for a task (writes, their polls,
// the reads that plan them) go before reads that only refresh a cache: within a replica by the order of its waiting
// line, across replicas by a reserve the cache reads leave in each bucket.
//
// A shared ledger costs a statement per take, so a replica (1) leases, in the same statement, a slice of each bucket
// it is busy with (tokens taken from the shared level at once: no two replicas spend the same ones), spends it for a
// second without a statement, and gives the rest back with a later take; and (2) when busy, spaces its takes so that
// each serves several calls (leaseWant and takeSpacingMs decide how much and how far apart).
import type { PipelinePolicy, PipelineRequest } from "@azure/core-rest-pipeline";
import { armCallWaiting } from "./arm-listeners.ts";
import { parseRemainingHeader } from "./rate-limit-budget.ts";

// ---- Azure's figures ----
// The simulator keeps its own copy of these figures and this arithmetic (throttling.ts, token-bucket.ts) on purpose:
// it plays Azure and imports nothing outside its package (packages/vmss-simulator), and a copy shared with it would let one mistake pass both.

export interface BucketFigures {
  /** Capacity: the calls a full bucket allows at once. */
  burst: number;
  /** Tokens back per minute. */
  refillPerMinute: number;
}

export interface PolicyFigures {
  /** Per resource (scale set, VM, operation); null where Azure counts only per subscription. */
  resource: BucketFigures | null;
  subscription: BucketFigures;
}

export type ComputePolicy =
  | "GetVMScaleSet"
  | "HighCostGetVMScaleSet"
  | "GetVMScaleSetVM"
  | "CreateVMScaleSet"
  | "VMScaleSetActions"
  | "DeleteVMScaleSet"
  | "GetOperation";

export type ArmBudgetKind = "reads" | "writes" | "deletes";

/** Azure's published Compute figures ("Throttling limits for Virtual Machine Scale Sets", and Get Operation). */
export const AZURE_COMPUTE_POLICIES: Readonly<Record<ComputePolicy, PolicyFigures>> = {
  GetVMScaleSet: { resource: { burst: 36, refillPerMinute: 12 }, subscription: { burst: 2400, refillPerMinute: 800 } },
  HighCostGetVMScaleSet: {
    resource: { burst: 30, refillPerMinute: 10 },
    subscription: { burst: 1080, refillPerMinute: 360 },
  },
  GetVMScaleSetVM: {
    resource: { burst: 36, refillPerMinute: 12 },
    subscription: { burst: 6000, refillPerMinute: 2000 },
  },
  CreateVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 375, refillPerMinute: 125 } },
  VMScaleSetActions: {
    resource: { burst: 12, refillPerMinute: 4 },
    subscription: { burst: 1500, refillPerMinute: 500 },
  },
  DeleteVMScaleSet: { resource: { burst: 12, refillPerMinute: 4 }, subscription: { burst: 525, refillPerMinute: 175 } },
  GetOperation: { resource: { burst: 45, refillPerMinute: 15 }, subscription: { burst: 15000, refillPerMinute: 5000 } },
};

/** ARM's per-subscription budgets, as the recordings report them (11999 reads, 1199 writes, 14999 deletes an hour). */
export const AZURE_ARM_BUDGETS: Readonly<Record<ArmBudgetKind, BucketFigures>> = {
  reads: { burst: 12000, refillPerMinute: 200 },
  writes: { burst: 1200, refillPerMinute: 20 },
  deletes: { burst: 15000, refillPerMinute: 250 },
};

export interface ArmBudgetFigures {
  compute: Record<ComputePolicy, PolicyFigures>;
  arm: Record<ArmBudgetKind, BucketFigures>;
}

export interface ArmBudgetOptions {
  /** Changes to Azure's figures (only what is given). */
  compute?: Partial<Record<ComputePolicy, Partial<PolicyFigures>>>;
  arm?: Partial<Record<ArmBudgetKind, BucketFigures>>;
  /**
   * Multiplies every refill rate: 1 for Azure; a simulator running at a time scale refills that much faster.
   */
  refillScale?: number;
  /** Share of each bucket that reads for a cache leave to calls made for a task (default 0.1). */
  readReserve?: number;
  /**
   * After the ledger did not answer, calls go without it for this long before a take asks it again (default 5000):
   * a ledger out of reach costs one call its bound, not every call.
   */
  ledgerRetryMs?: number;
  /**
   * With a shared ledger: how long a replica spends a slice of a bucket it leased (tokens taken ahead of its calls)
   * before it gives the unspent ones back (default 1000 ms). Slices are sized by the replica's calls to the bucket in
   * the last lease (leaseWant).
   */
  leaseMs?: number;
  /** The most of a bucket one lease takes: this share of its burst, and of what is left above the reserve (0.25). */
  leaseShare?: number;
  /** With a shared ledger: the longest a busy replica leaves between two take statements (takeSpacingMs; 400 ms). */
  maxTakeSpacingMs?: number;
}

export function budgetFigures(options: ArmBudgetOptions = {}): ArmBudgetFigures {
  const scale = options.refillScale ?? 1;
  const scaled = (f: BucketFigures): BucketFigures => ({ burst: f.burst, refillPerMinute: f.refillPerMinute * scale });
  const compute = {} as Record<ComputePolicy, PolicyFigures>;
  for (const [name, figures] of Object.entries(AZURE_COMPUTE_POLICIES) as [ComputePolicy, PolicyFigures][]) {
    const override = options.compute?.[name];
    const resource =
      override?.resource === null ? null : figures.resource && { ...figures.resource, ...override?.resource };
    compute[name] = {
      resource: resource && scaled(resource),
      subscription: scaled({ ...figures.subscription, ...override?.subscription }),
    };
  }
  const arm = {} as Record<ArmBudgetKind, BucketFigures>;
  for (const kind of ["reads", "writes", "deletes"] as const)
    arm[kind] = scaled(options.arm?.[kind] ?? AZURE_ARM_BUDGETS[kind]);
  return { compute, arm };
}

// ---- what a call is charged to ----

/** One bucket a call takes from: its key in the ledger, its figures, and what a person calls it. */
export interface ChargedBucket {
  key: string;
  figures: BucketFigures;
  /** e.g. "subscription write budget", "scale set read budget". */
  label: string;
  /** The name Azure gives it in x-ms-ratelimit-remaining-resource, or the ARM header's name. */
  azureName: string;
}

export type CallPriority = "task" | "cache";

export interface ArmCall {
  method: string;
  /** Lower case. */
  subscriptionId: string;
  buckets: ChargedBucket[];
}

const SUB = "/subscriptions/([^/]+)";
const VMSS = `${SUB}/resourceGroups/([^/]+)/providers/Microsoft\\.Compute/virtualMachineScaleSets`;
const ROUTES: [
  method: string,
  pattern: RegExp,
  policy: ComputePolicy | ((request: PipelineRequest) => ComputePolicy),
  resource: "scaleSet" | "vm" | "operation" | null,
][] = [
  [
    "GET",
    new RegExp(`^${SUB}/providers/Microsoft\\.Compute/virtualMachineScaleSets$`, "i"),
    "HighCostGetVMScaleSet",
    null,
  ],
  ["GET", new RegExp(`^${VMSS}$`, "i"), "HighCostGetVMScaleSet", null],
  ["GET", new RegExp(`^${VMSS}/([^/]+)$`, "i"), "GetVMScaleSet", "scaleSet"],
  // A PUT with If-Match changes a scale set (an action); without, it creates one.
  [
    "PUT",
    new RegExp(`^${VMSS}/([^/]+)$`, "i"),
    (r) => (r.headers.get("if-match") ? "VMScaleSetActions" : "CreateVMScaleSet"),
    "scaleSet",
  ],
  ["PATCH", new RegExp(`^${VMSS}/([^/]+)$`, "i"), "VMScaleSetActions", "scaleSet"],
  ["DELETE", new RegExp(`^${VMSS}/([^/]+)$`, "i"), "DeleteVMScaleSet", "scaleSet"],
  ["GET", new RegExp(`^${VMSS}/([^/]+)/virtualMachines$`, "i"), "HighCostGetVMScaleSet", "scaleSet"],
  ["GET", new RegExp(`^${VMSS}/([^/]+)/virtualMachines/([^/]+)$`, "i"), "GetVMScaleSetVM", "vm"],
  ["POST", new RegExp(`^${VMSS}/([^/]+)/[^/]+$`, "i"), "VMScaleSetActions", null],
  [
    "GET",
    new RegExp(`^${SUB}/providers/Microsoft\\.Compute/locations/([^/]+)/(?:operations|operationResults)/([^/]+)$`, "i"),
    "GetOperation",
    "operation",
  ],
];

const KIND_OF: Record<ComputePolicy, "read" | "write" | "poll"> = {
  GetVMScaleSet: "read",
  HighCostGetVMScaleSet: "read",
  GetVMScaleSetVM: "read",
  CreateVMScaleSet: "write",
  VMScaleSetActions: "write",
  DeleteVMScaleSet: "write",
  GetOperation: "poll",
};

function armKindOf(method: string): ArmBudgetKind {
  return method === "GET" || method === "HEAD" ? "reads" : method === "DELETE" ? "deletes" : "writes";
}

/** The buckets a request is charged to, or undefined for a call Compute does not throttle (tokens, metadata). */
export function chargeOf(request: PipelineRequest, figures: ArmBudgetFigures): ArmCall | undefined {
  const path = new URL(request.url).pathname.replace(/\/+$/, "");
  const method = request.method.toUpperCase();
  for (const [m, pattern, policyOf, resourceKind] of ROUTES) {
    if (m !== method) continue;
    const match = pattern.exec(path);
    if (!match) continue;
    const policy = typeof policyOf === "function" ? policyOf(request) : policyOf;
    const sub = match[1].toLowerCase();
    const kind = KIND_OF[policy];
    const f = figures.compute[policy];
    const buckets: ChargedBucket[] = [
      {
        key: `${sub}/${policy}`,
        figures: f.subscription,
        label: `subscription ${kind} budget`,
        azureName: `Microsoft.Compute/${policy}SubscriptionMaximum`,
      },
    ];
    if (f.resource && resourceKind) {
      const resource =
        resourceKind === "scaleSet"
          ? `${match[2]}/${match[3]}`
          : resourceKind === "vm"
            ? `${match[2]}/${match[3]}/${match[4]}`
            : match[3];
      const label = resourceKind === "scaleSet" ? "scale set" : resourceKind === "vm" ? "VM" : "operation";
      buckets.push({
        key: `${sub}/${policy}/${resource.toLowerCase()}`,
        figures: f.resource,
        label: `${label} ${kind} budget`,
        azureName: `Microsoft.Compute/${policy}Resource`,
      });
    }
    const arm = armKindOf(method);
    buckets.push({
      key: `${sub}/arm:${arm}`,
      figures: figures.arm[arm],
      label: `subscription ARM ${arm.slice(0, -1)} budget`,
      azureName: `x-ms-ratelimit-remaining-subscription-${arm}`,
    });
    return { method, subscriptionId: sub, buckets };
  }
  return undefined;
}

// ---- the ledger: where the levels live ----

export interface TakeRequest {
  key: string;
  figures: BucketFigures;
  /** Tokens the bucket must hold for the take (1, or 1 + the reserve for a cache read). */
  need: number;
}

export interface TakeAnswer {
  granted: boolean;
  /** When not granted: ms until the emptiest bucket can give (by the ledger's clock). */
  waitMs: number;
  /** When not granted: the key of the bucket that waits longest. */
  emptyKey?: string;
}

/**
 * What the ledger answered one call of a take: its answer, or "held" when it was not tried, because an earlier call
 * of the same take was refused a bucket it shares.
 */
export type CallAnswer = TakeAnswer | "held";

/** A bucket's tokens asked for, or handed back, beyond the calls of a take: a replica's slice of it. */
export interface SliceTokens {
  key: string;
  figures: BucketFigures;
  tokens: number;
}

/**
 * What a take does besides its calls: Azure's counts since the replica's last take lower the levels above them
 * (`caps`, first: corrections ride on the next take rather than each costing a statement); the unspent tokens of
 * slices that ended are put back (never into a bucket a 429 blocks); and, after every call, slices of the buckets the replica is busy with, from what is left above
 * each one's `floor` (the reserve that cache reads leave) and at most `share` of it, never from a bucket a call of
 * the take was refused or a 429 blocks.
 */
export interface LeaseRequest {
  caps: SliceTokens[];
  gives: SliceTokens[];
  wants: (SliceTokens & { floor: number })[];
  share: number;
}

export interface TakeResult {
  answers: CallAnswer[];
  /** The tokens leased, per bucket key (a whole number, at least 1, or absent). */
  leased: Map<string, number>;
}

/** The levels of the buckets. Every method is atomic over the buckets it names. */
export interface BudgetLedger {
  /** Round trips to a shared ledger since start (PostgreSQL statements); 0 for one in this process. */
  readonly statements: number;
  /** Whether replicas share it: only then does a replica lease slices of its buckets (ArmBudgetOptions.leaseMs). */
  readonly shared: boolean;
  /** takeInOrder, and the slices of `lease`, in the same step (one statement when shared). */
  takeAndLease(calls: TakeRequest[][], lease: LeaseRequest): Promise<TakeResult>;
  /**
   * Takes for several calls (each its buckets' requests), in the order given. Each call is all or nothing, as if
   * alone: one token from every bucket if each holds `need`, otherwise nothing. A call refused holds its buckets for
   * the rest of the take, so a later call that shares one is not tried ("held") and never takes the token an
   * earlier one waits for.
   */
  takeInOrder(calls: TakeRequest[][]): Promise<CallAnswer[]>;
  /** Azure's count: the level is lowered to `remaining` if it is above. */
  correct(key: string, figures: BucketFigures, remaining: number): Promise<void>;
  /** A 429: the bucket is empty, gives nothing for `blockMs`, and then holds one token (Azure's Retry-After). */
  drain(key: string, figures: BucketFigures, blockMs: number): Promise<void>;
  close(): Promise<void>;
}

interface Level {
  tokens: number;
  atMs: number;
  blockedUntilMs: number;
  figures: BucketFigures;
}

/** Every this many takes, buckets back at their burst are forgotten (one per operation polled, per VM read). */
const SWEEP_EVERY = 1000;

/** The level at `now`: refilled linearly since it was written, up to the burst. */
export function levelAt(level: Level, figures: BucketFigures, now: number): number {
  return Math.min(figures.burst, level.tokens + (Math.max(0, now - level.atMs) * figures.refillPerMinute) / 60_000);
}

/** ms until a bucket at `level` holds `need` tokens. */
export function msUntil(level: number, need: number, figures: BucketFigures): number {
  if (level >= need) return 0;
  return Math.max(1, Math.ceil(((need - level) * 60_000) / figures.refillPerMinute));
}

/** The levels in this process: one replica (or a test). */
export class InProcessLedger implements BudgetLedger {
  readonly #levels = new Map<string, Level>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  #takes = 0;

  #level(key: string, figures: BucketFigures, now: number): Level {
    let level = this.#levels.get(key);
    if (!level) this.#levels.set(key, (level = { tokens: figures.burst, atMs: now, blockedUntilMs: 0, figures }));
    return level;
  }

  /** Buckets held: a full one is the same as none, and is forgotten (see SWEEP_EVERY). */
  get size(): number {
    return this.#levels.size;
  }

  #sweep(now: number): void {
    for (const [key, level] of this.#levels) {
      if (level.blockedUntilMs <= now && levelAt(level, level.figures, now) >= level.figures.burst)
        this.#levels.delete(key);
    }
  }

  readonly statements = 0;
  readonly shared = false;

  async takeInOrder(calls: TakeRequest[][]): Promise<CallAnswer[]> {
    return (await this.takeAndLease(calls, { caps: [], gives: [], wants: [], share: 0 })).answers;
  }

  async takeAndLease(calls: TakeRequest[][], lease: LeaseRequest): Promise<TakeResult> {
    const now = this.#now();
    for (const c of lease.caps) await this.correct(c.key, c.figures, c.tokens);
    for (const g of lease.gives) {
      const level = this.#level(g.key, g.figures, now);
      if (level.blockedUntilMs > now) continue;
      Object.assign(level, { tokens: Math.min(g.figures.burst, levelAt(level, g.figures, now) + g.tokens), atMs: now });
    }
    const held = new Set<string>();
    const answers = calls.map((requests): CallAnswer => {
      if (requests.some((r) => held.has(r.key))) return "held";
      const answer = this.#take(requests);
      if (!answer.granted) for (const r of requests) held.add(r.key);
      return answer;
    });
    const leased = new Map<string, number>();
    for (const w of lease.wants) {
      if (held.has(w.key) || w.tokens < 1) continue;
      const level = this.#level(w.key, w.figures, now);
      if (level.blockedUntilMs > now) continue;
      const tokens = levelAt(level, w.figures, now);
      const extra = Math.min(Math.floor(w.tokens), Math.floor((tokens - w.floor) * lease.share));
      if (extra < 1) continue;
      Object.assign(level, { tokens: tokens - extra, atMs: now });
      leased.set(w.key, extra);
    }
    return { answers, leased };
  }

  /** One call's take, all or nothing. */
  #take(requests: TakeRequest[]): TakeAnswer {
    const now = this.#now();
    if (++this.#takes % SWEEP_EVERY === 0) this.#sweep(now);
    let waitMs = 0;
    let emptyKey: string | undefined;
    const levels = requests.map((r) => {
      const level = this.#level(r.key, r.figures, now);
      const tokens = levelAt(level, r.figures, now);
      const wait = Math.max(level.blockedUntilMs - now, msUntil(tokens, r.need, r.figures));
      if (wait > waitMs) [waitMs, emptyKey] = [wait, r.key];
      return tokens;
    });
    if (waitMs > 0) return { granted: false, waitMs, ...(emptyKey ? { emptyKey } : {}) };
    requests.forEach((r, i) => Object.assign(this.#level(r.key, r.figures, now), { tokens: levels[i] - 1, atMs: now }));
    return { granted: true, waitMs: 0 };
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the budget's interface is asynchronous (PostgreSQL's is); this one answers from memory
  async correct(key: string, figures: BucketFigures, remaining: number): Promise<void> {
    const now = this.#now();
    const level = this.#level(key, figures, now);
    const tokens = levelAt(level, figures, now);
    if (remaining < tokens) Object.assign(level, { tokens: remaining, atMs: now });
  }

  // eslint-disable-next-line @typescript-eslint/require-await -- the budget's interface is asynchronous (PostgreSQL's is); this one answers from memory
  async drain(key: string, figures: BucketFigures, blockMs: number): Promise<void> {
    const now = this.#now();
    // Azure's Retry-After is when its bucket holds a token again: one, then.
    Object.assign(this.#level(key, figures, now), { tokens: 1, atMs: now + blockMs, blockedUntilMs: now + blockMs });
  }

  async close(): Promise<void> {}
}

// ---- the budget: waiting in line, and what Azure answers ----

/** What a task is told while its call waits, or when it goes without the budget. */
export interface ArmWait {
  /** "subscription write budget". */
  budget: string;
  waitMs: number;
  /** The ledger did not answer (why): the call was sent without the budget, at once. */
  ledgerUnavailable?: string;
}

/**
 * The history line of a task whose call waits: "Waiting for subscription write budget, ~4 s"; or whose call went
 * without the budget, its ledger out of reach.
 */
export function armWaitLine(wait: ArmWait): string {
  if (wait.ledgerUnavailable !== undefined)
    return `Sent an Azure call without the ARM budget: its ledger did not answer (${wait.ledgerUnavailable}); Azure's own throttling (429 with Retry-After) still applies`;
  return `Waiting for ${wait.budget}, ~${Math.max(1, Math.ceil(wait.waitMs / 1000))} s`;
}

interface Waiter {
  call: ArmCall;
  priority: CallPriority;
  seq: number;
  resolve: () => void;
  reject: (err: unknown) => void;
  onWait?: (wait: ArmWait) => void;
  told: boolean;
  /** Not given at its first take: counted once in counts.waited. */
  waited: boolean;
  /** Sent to the ledger once already: counted once in how busy the replica is. */
  asked: boolean;
  signal?: AbortSignal;
}

/** The waiting line's order: tasks' calls first, then by arrival. */
function lineOrder(a: Waiter, b: Waiter): number {
  return a.priority === b.priority ? a.seq - b.seq : a.priority === "task" ? -1 : 1;
}

/** Why the ledger did not answer, in a few words: the driver's code or message. */
function ledgerProblem(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown } | null;
  const text = typeof e?.message === "string" ? e.message : String(err);
  return typeof e?.code === "string" ? `${e.code}: ${text}` : text;
}

/** What a take answers when the ledger cannot: the call goes without the budget. */
const WITHOUT_BUDGET: TakeAnswer = { granted: true, waitMs: 0 };

/** A replica's slice of a bucket: tokens taken from the shared ledger ahead of its calls, spent here until untilMs. */
interface Slice {
  figures: BucketFigures;
  tokens: number;
  /** Date.now() at which its unspent tokens go back to the ledger (with the next take), no longer spent here. */
  untilMs: number;
}

/** How many calls a replica charged to one bucket lately: in the current lease-long window and the one before. */
interface Demand {
  startMs: number;
  current: number;
  previous: number;
}

/**
 * The calls one take statement should serve when a replica is busy: a sixth of a statement per call, so that with
 * the statements that are not takes (a slice given back by an idle replica, a 429's drain, a sweep) a busy
 * replica stays below a quarter.
 */
export const CALLS_PER_TAKE = 6;

/**
 * The tokens a replica asks to lease from a bucket beyond its take's calls: as many as it charged to the bucket in
 * the last lease (the calls it expects in the next), less what its slice still holds, and at most `maxShare` of the
 * bucket's burst. The ledger gives at most its share of what is left above the reserve, so one busy replica never
 * empties a bucket that others spend.
 */
export function leaseWant(recentCalls: number, sliceTokens: number, figures: BucketFigures, maxShare: number): number {
  const cap = Math.floor(figures.burst * maxShare);
  return Math.max(0, Math.min(cap, Math.floor(recentCalls) - Math.floor(sliceTokens)));
}

/** Calls outstanding (waiting for the budget, or sent and not answered) from which a replica is busy. */
export const BUSY_CALLS = 8;

/**
 * The longest a replica that is not busy leaves between two take statements. A replica whose calls come steadily but
 * are answered fast (few outstanding at any moment: many tasks, each one call at a time) still spaces its takes, but
 * only when CALLS_PER_TAKE of its calls come within this long (40 or more a second to the ledger): a replica with
 * fewer calls never holds one back, and a call waits for its statement at most this long.
 */
export const STEADY_SPACING_MS = 150;

/**
 * How long a replica leaves between two take statements, so that one serves about CALLS_PER_TAKE calls. Busy (at
 * least BUSY_CALLS of its calls outstanding): as long as CALLS_PER_TAKE calls to the ledger take at its recent rate,
 * at most `maxMs` (a call waits no longer for its statement). Not busy: the same, but only when that is at most
 * STEADY_SPACING_MS (and `maxMs`); otherwise none, so that one task's calls one after another are never held back.
 */
export function takeSpacingMs(ledgerCallsPerSecond: number, outstandingCalls: number, maxMs: number): number {
  if (maxMs <= 0) return 0;
  const busy = outstandingCalls >= BUSY_CALLS;
  if (ledgerCallsPerSecond <= 0) return busy ? maxMs : 0;
  const spacing = Math.round((CALLS_PER_TAKE * 1000) / ledgerCallsPerSecond);
  if (busy) return Math.min(maxMs, spacing);
  return spacing <= Math.min(maxMs, STEADY_SPACING_MS) ? spacing : 0;
}

export class ArmBudget {
  /** Changed only by setRefillScale. */
  figures: ArmBudgetFigures;
  readonly #options: ArmBudgetOptions;
  readonly #ledger: BudgetLedger;
  readonly #reserve: number;
  /** Calls not given yet: those asked for in this turn, and those told to wait. */
  readonly #waiting = new Set<Waiter>();
  #seq = 0;
  #timer: NodeJS.Timeout | undefined;
  /** The take at the end of this turn (or after the spacing of a busy replica), once a call is asked for. */
  #turn: NodeJS.Immediate | NodeJS.Timeout | undefined;
  #turnIsTimer = false;
  #pumping = false;
  #pumpAgain = false;
  /**
   * Calls asked for, calls served from this replica's slices without a statement, calls not given at their first
   * take (they waited for a bucket), 429s that arrived anyway, and calls sent without the budget because its ledger
   * did not answer, since start: for the benchmark, the status page and the metrics
   * (vmssops_arm_budget_calls_total, vmssops_arm_budget_unbudgeted_calls_total).
   */
  readonly counts = { calls: 0, local: 0, waited: 0, throttled: 0, unbudgeted: 0 };

  readonly #ledgerRetryMs: number;
  /** Date.now() until which takes go without the ledger (it did not answer), and why. */
  #ledgerDownUntilMs = 0;
  #ledgerProblem = "";

  /** 0 when the ledger is this process's: slices save statements, and there are none. */
  readonly #leaseMs: number;
  readonly #leaseShare: number;
  readonly #maxSpacingMs: number;
  readonly #slices = new Map<string, Slice>();
  /** Unspent tokens of slices that ended, given back with the next take. */
  readonly #gives = new Map<string, SliceTokens>();
  readonly #demand = new Map<string, Demand>();
  #sliceTimer: NodeJS.Timeout | undefined;
  /** Calls sent to the ledger in the current second and the one before: how busy the replica is. */
  #ledgerCalls = { startMs: 0, current: 0, previous: 0 };
  #lastTakeAtMs = 0;
  /** Calls asked for and not done (released): waiting for the budget, or sent and not answered. */
  #outstanding = 0;
  /** Azure's counts since the last take, lowering the shared levels with the next one (LeaseRequest.caps). */
  readonly #caps = new Map<string, SliceTokens>();

  constructor(ledger: BudgetLedger, options: ArmBudgetOptions = {}) {
    this.#ledger = ledger;
    this.#options = options;
    this.figures = budgetFigures(options);
    this.#reserve = options.readReserve ?? 0.1;
    this.#ledgerRetryMs = options.ledgerRetryMs ?? 5000;
    this.#leaseMs = ledger.shared ? (options.leaseMs ?? 1000) : 0;
    this.#leaseShare = options.leaseShare ?? 0.25;
    this.#maxSpacingMs = ledger.shared ? (options.maxTakeSpacingMs ?? 400) : 0;
  }

  /** The ledger's statements since start (PostgreSQL's; 0 in process). */
  get statements(): number {
    return this.#ledger.statements;
  }

  /**
   * Azure's refill rates × `refillScale` from now on (the simulator's clock changed): the levels stay, and refill at
   * the new rate from the next take.
   */
  setRefillScale(refillScale: number): void {
    this.figures = budgetFigures({ ...this.#options, refillScale });
  }

  /** The ledger's answers, or undefined when it did not answer (now, or lately: then it is not asked). */
  async #take(order: Waiter[]): Promise<CallAnswer[] | undefined> {
    if (Date.now() < this.#ledgerDownUntilMs) {
      this.#gives.clear();
      this.#caps.clear();
      return undefined;
    }
    const lease = this.#leaseRequest(order);
    this.#gives.clear();
    this.#caps.clear();
    this.#lastTakeAtMs = Date.now();
    // How busy: the calls new to the ledger, not those waiting for a refill and asking again.
    let fresh = 0;
    for (const w of order) if (!w.asked) [w.asked, fresh] = [true, fresh + 1];
    this.#countLedgerCalls(fresh);
    try {
      const { answers, leased } = await this.#ledger.takeAndLease(
        order.map((w) => this.#requests(w.call, w.priority)),
        lease,
      );
      this.#addSlices(lease, leased);
      return answers;
    } catch (err) {
      // Tokens given back by a statement that failed may have been put back all the same: they are not given twice
      // (they lapse, which only slows the budget).
      this.#ledgerProblem = ledgerProblem(err);
      this.#ledgerDownUntilMs = Date.now() + this.#ledgerRetryMs;
      return undefined;
    }
  }

  #requests(call: ArmCall, priority: CallPriority): TakeRequest[] {
    return call.buckets.map((b) => ({
      key: b.key,
      figures: b.figures,
      need: 1 + (priority === "cache" ? Math.floor(b.figures.burst * this.#reserve) : 0),
    }));
  }

  // ---- slices: a shared ledger's tokens leased to this replica ----

  /** What the next take gives back and asks to lease: slices of the buckets of its calls, as busy as they were. */
  #leaseRequest(order: Waiter[]): LeaseRequest {
    const wants: LeaseRequest["wants"] = [];
    if (this.#leaseMs > 0) {
      const now = Date.now();
      const seen = new Set<string>();
      for (const w of order)
        for (const b of w.call.buckets) {
          if (seen.has(b.key)) continue;
          seen.add(b.key);
          const slice = this.#slices.get(b.key);
          const tokens = leaseWant(this.#recentCalls(b.key, now), slice?.tokens ?? 0, b.figures, this.#leaseShare);
          if (tokens >= 1)
            wants.push({ key: b.key, figures: b.figures, tokens, floor: Math.floor(b.figures.burst * this.#reserve) });
        }
    }
    return { caps: [...this.#caps.values()], gives: [...this.#gives.values()], wants, share: this.#leaseShare };
  }

  #addSlices(lease: LeaseRequest, leased: Map<string, number>): void {
    if (leased.size === 0) return;
    const untilMs = Date.now() + this.#leaseMs;
    for (const w of lease.wants) {
      const tokens = leased.get(w.key);
      if (!tokens) continue;
      const slice = this.#slices.get(w.key);
      if (slice) Object.assign(slice, { tokens: slice.tokens + tokens, untilMs });
      else this.#slices.set(w.key, { figures: w.figures, tokens, untilMs });
    }
    this.#armSliceTimer();
  }

  /** Spends a token of every bucket of the call from this replica's slices, if each holds one; whether it did. */
  #spendSlices(call: ArmCall): boolean {
    if (this.#slices.size === 0) return false;
    const now = Date.now();
    for (const b of call.buckets) {
      const slice = this.#slices.get(b.key);
      if (!slice || slice.tokens < 1 || slice.untilMs <= now) return false;
    }
    for (const b of call.buckets) this.#slices.get(b.key)!.tokens--;
    this.counts.local++;
    return true;
  }

  /** Slices past their lease are spent here no more: their unspent tokens go back with the next take. */
  #endSlices(now: number): void {
    for (const [key, slice] of this.#slices) {
      if (slice.untilMs > now && slice.tokens >= 1) continue;
      this.#slices.delete(key);
      if (slice.tokens < 1) continue;
      const give = this.#gives.get(key);
      if (give) give.tokens += slice.tokens;
      else this.#gives.set(key, { key, figures: slice.figures, tokens: slice.tokens });
    }
  }

  /**
   * At the first slice's end, and again half a lease later: a busy replica gives its ended slices back with its next
   * take; an idle one sends them back on their own, in one statement.
   */
  #armSliceTimer(): void {
    if (this.#sliceTimer) return;
    let first = Number.POSITIVE_INFINITY;
    for (const slice of this.#slices.values()) first = Math.min(first, slice.untilMs);
    if (!Number.isFinite(first) && this.#gives.size === 0) return;
    const atMs = Number.isFinite(first) ? first + this.#leaseMs / 2 : Date.now() + this.#leaseMs / 2;
    this.#sliceTimer = setTimeout(
      () => {
        this.#sliceTimer = undefined;
        this.#endSlices(Date.now());
        if (this.#gives.size > 0) this.#schedule();
        else this.#armSliceTimer();
      },
      Math.max(1, atMs - Date.now()),
    );
    this.#sliceTimer.unref?.();
  }

  /** A 429 or Azure's lower count for a bucket: this replica's slice of it is not spent, nor given back. */
  #voidSlice(key: string): void {
    this.#slices.delete(key);
    this.#gives.delete(key);
    this.#caps.delete(key);
  }

  #noteDemand(call: ArmCall): void {
    if (this.#leaseMs <= 0) return;
    const now = Date.now();
    if (this.#demand.size > 10_000) {
      for (const [key, d] of this.#demand)
        if (now - d.startMs >= 2 * this.#leaseMs && !this.#slices.has(key)) this.#demand.delete(key);
    }
    for (const b of call.buckets) {
      const d = this.#demand.get(b.key);
      if (!d) this.#demand.set(b.key, { startMs: now, current: 1, previous: 0 });
      else {
        this.#roll(d, now);
        d.current++;
      }
    }
  }

  #roll(d: Demand, now: number): void {
    const age = now - d.startMs;
    if (age < this.#leaseMs) return;
    d.previous = age < 2 * this.#leaseMs ? d.current : 0;
    d.current = 0;
    d.startMs = now;
  }

  #recentCalls(key: string, now: number): number {
    const d = this.#demand.get(key);
    if (!d) return 0;
    this.#roll(d, now);
    return Math.max(d.current, d.previous);
  }

  #countLedgerCalls(n: number): void {
    const now = Date.now();
    const c = this.#ledgerCalls;
    if (now - c.startMs >= 1000) {
      c.previous = now - c.startMs < 2000 ? c.current : 0;
      c.current = 0;
      c.startMs = now;
    }
    c.current += n;
  }

  /** ms until the next take may go: a busy replica spaces its statements (takeSpacingMs). */
  #spacingLeftMs(): number {
    if (this.#maxSpacingMs <= 0) return 0;
    const c = this.#ledgerCalls;
    const rate = Date.now() - c.startMs < 2000 ? Math.max(c.previous, c.current) : 0;
    const spacing = takeSpacingMs(rate, this.#outstanding, this.#maxSpacingMs);
    return Math.max(0, this.#lastTakeAtMs + spacing - Date.now());
  }

  /** The next pass: at the end of this turn, or when the spacing of a busy replica has passed. */
  #schedule(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    if (this.#turn) return;
    const wait = this.#spacingLeftMs();
    this.#turnIsTimer = wait > 0;
    this.#turn = wait > 0 ? setTimeout(() => this.#pump(), wait) : setImmediate(() => this.#pump());
  }

  #clearTurn(): void {
    if (!this.#turn) return;
    if (this.#turnIsTimer) clearTimeout(this.#turn as NodeJS.Timeout);
    else clearImmediate(this.#turn as NodeJS.Immediate);
    this.#turn = undefined;
  }

  /**
   * Resolves when the call may be sent: every bucket it is charged to gave a token. A call whose every bucket has a
   * token in this replica's slices (a shared ledger's, leased) spends them and goes at once, when no call waits
   * before it. Otherwise it joins the waiting line, and the calls that joined in this turn of the event loop take at
   * its end, together with those told to wait: one step of the ledger (one statement when it is shared) for all of
   * them, not one each.
   */
  async acquire(
    call: ArmCall,
    priority: CallPriority,
    onWait?: (wait: ArmWait) => void,
    signal?: AbortSignal,
  ): Promise<void> {
    this.counts.calls++;
    this.#outstanding++;
    this.#noteDemand(call);
    // Slices are leased above the reserve that cache reads leave: a cache read may spend them too.
    if (this.#waiting.size === 0 && this.#spendSlices(call)) return;
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        call,
        priority,
        seq: this.#seq++,
        resolve,
        reject,
        ...(onWait ? { onWait } : {}),
        told: false,
        waited: false,
        asked: false,
        ...(signal ? { signal } : {}),
      };
      this.#waiting.add(waiter);
      signal?.addEventListener("abort", () => this.#cancel(waiter), { once: true });
      this.#schedule();
    });
  }

  /** Tells the task (if the call is a task's) which budget it waits for and how long; whether it was told. */
  #tell(call: ArmCall, answer: TakeAnswer, onWait: ((wait: ArmWait) => void) | undefined): boolean {
    if (!onWait) return false;
    const bucket = call.buckets.find((b) => b.key === answer.emptyKey) ?? call.buckets[0];
    onWait({ budget: bucket.label, waitMs: answer.waitMs });
    return true;
  }

  #cancel(waiter: Waiter): void {
    if (!this.#waiting.delete(waiter)) return;
    waiter.reject(waiter.signal?.reason ?? new Error("aborted"));
  }

  /** A call acquired (or given up) is done: answered, or failed without an answer. */
  release(): void {
    this.#outstanding = Math.max(0, this.#outstanding - 1);
  }

  /**
   * One pass over the waiting line, tasks' calls first, then by arrival: the calls this replica's slices cover go at
   * once; one take of the ledger for every other. A call that cannot take holds its buckets for the rest of the take,
   * so a later (or lower) one never takes the token it waits for. Calls asked for during a pass go in the next.
   */
  #pump(): void {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#clearTurn();
    this.#pumping = true;
    void this.#pass().finally(() => {
      this.#pumping = false;
      if (this.#pumpAgain) {
        this.#pumpAgain = false;
        this.#schedule();
      }
    });
  }

  async #pass(): Promise<void> {
    this.#endSlices(Date.now());
    const order: Waiter[] = [];
    for (const w of [...this.#waiting].sort(lineOrder)) {
      if (!this.#spendSlices(w.call)) order.push(w);
      else {
        this.#waiting.delete(w);
        w.resolve();
      }
    }
    if (order.length === 0) {
      // Nothing to take: the ended slices go back on their own.
      if (this.#gives.size > 0 || this.#caps.size > 0) await this.#take([]);
      this.#armSliceTimer();
      return;
    }
    let answers = await this.#take(order);
    this.#armSliceTimer();
    if (answers === undefined) {
      // The ledger is unreachable (the database restarted, or did not answer within its bound): the calls go without
      // the budget rather than failing the operation with the ledger's error, or never going. Not silently: each
      // task whose call goes says so in its history, and the metric counts them.
      for (const w of order) {
        if (!this.#waiting.has(w)) continue;
        this.counts.unbudgeted++;
        w.onWait?.({ budget: "the ARM budget", waitMs: 0, ledgerUnavailable: this.#ledgerProblem });
      }
      answers = order.map(() => WITHOUT_BUDGET);
    }
    let nextMs = Number.POSITIVE_INFINITY;
    order.forEach((w, i) => {
      const answer = answers[i];
      // A call given up while the take was out may hold others: they try again when it would have.
      if (answer !== "held" && !answer.granted) nextMs = Math.min(nextMs, answer.waitMs);
      if (!this.#waiting.has(w)) return;
      if (answer !== "held" && answer.granted) {
        this.#waiting.delete(w);
        w.resolve();
        return;
      }
      if (!w.waited) this.counts.waited++;
      w.waited = true;
      if (answer === "held") return;
      // Said at the first refusal: by the time the next pass tries again the wait may be over, and it still happened.
      if (!w.told) w.told = this.#tell(w.call, answer, w.onWait);
    });
    if (this.#waiting.size > 0 && Number.isFinite(nextMs)) {
      // A busy replica's calls waiting for a refill try again no sooner than its spacing: the tokens refilled
      // meanwhile wait for them in the bucket, and one statement takes them for every call then waiting.
      this.#timer = setTimeout(() => this.#pump(), Math.max(1, nextMs, this.#spacingLeftMs()));
      this.#timer.unref?.();
    }
  }

  /** What Azure answered: its counts correct the levels; a 429 empties the buckets it names for its Retry-After. */
  async answered(call: ArmCall, status: number, headers: { get(name: string): string | undefined }): Promise<void> {
    const tasks: Promise<void>[] = [];
    const remaining = new Map<string, number>(
      parseRemainingHeader(headers.get("x-ms-ratelimit-remaining-resource") ?? ""),
    );
    for (const b of call.buckets) {
      const armHeader = b.azureName.startsWith("x-ms-") ? headers.get(b.azureName) : undefined;
      const count =
        armHeader !== undefined && /^\d+$/.test(armHeader.trim()) ? Number(armHeader) : remaining.get(b.azureName);
      if (status === 429) {
        // Azure names the empty buckets with a count of 0; when it names none, every bucket of the call waits.
        const named = [...remaining.values()].some((n) => n === 0);
        if (!named || count === 0) {
          // The bucket is empty in Azure: this replica's slice of it is void (spending it would be refused too).
          this.#voidSlice(b.key);
          tasks.push(this.#ledger.drain(b.key, b.figures, retryAfterMs(headers)));
        }
      } else if (count !== undefined && count < b.figures.burst / 2) {
        // Only where it matters: a bucket Azure reports more than half full is far from a 429, and each correction is
        // a statement when the ledger is shared. Azure's count includes the tokens of this replica's slice (not spent
        // yet): the ledger is lowered to what is left beside them, and the slice stays this replica's.
        const slice = this.#slices.get(b.key)?.tokens ?? 0;
        const tokens = Math.max(0, count - slice);
        if (!this.#ledger.shared) tasks.push(this.#ledger.correct(b.key, b.figures, tokens));
        else {
          // Rides on the next take (a statement each would be one per write when a bucket runs low); the lowest wins.
          const cap = this.#caps.get(b.key);
          if (!cap || tokens < cap.tokens) this.#caps.set(b.key, { key: b.key, figures: b.figures, tokens });
        }
      }
    }
    if (status === 429) this.counts.throttled++;
    await Promise.all(tasks).catch(() => {});
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#sliceTimer) clearTimeout(this.#sliceTimer);
    this.#clearTurn();
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const w of waiting) w.reject(new Error("the ARM budget was closed"));
    // This replica's slices go back to the others (one statement), if the ledger answers.
    this.#endSlices(Number.POSITIVE_INFINITY);
    if (this.#gives.size > 0)
      await this.#ledger
        .takeAndLease([], { caps: [...this.#caps.values()], gives: [...this.#gives.values()], wants: [], share: 0 })
        .catch(() => undefined);
    this.#gives.clear();
    await this.#ledger.close();
  }
}

/** Retry-After in ms: seconds (fractions allowed) or an HTTP date; 1 s when absent or unreadable. */
export function retryAfterMs(headers: { get(name: string): string | undefined }): number {
  const value = headers.get("retry-after")?.trim();
  if (!value) return 1000;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? 1000 : Math.max(0, at - Date.now());
}

/**
 * The pipeline policy: every request takes from its buckets before it is sent (per retry: a retry is another call
 * Azure counts), and its answer corrects them. A call made for a task is a task's (see armCallWaiting).
 */
export function armBudgetPolicy(budget: ArmBudget): PipelinePolicy {
  return {
    name: "vmssOpsArmBudget",
    async sendRequest(request, next) {
      const call = chargeOf(request, budget.figures);
      if (!call) return next(request);
      const waiting = armCallWaiting();
      try {
        await budget.acquire(call, waiting ? "task" : "cache", waiting, request.abortSignal as AbortSignal | undefined);
      } catch (err) {
        budget.release();
        throw err;
      }
      try {
        const response = await next(request);
        await budget.answered(call, response.status, response.headers);
        return response;
      } catch (err) {
        const response = (err as { response?: { status: number; headers: { get(name: string): string | undefined } } })
          .response;
        if (response) await budget.answered(call, response.status, response.headers);
        throw err;
      } finally {
        budget.release();
      }
    },
  };
}
