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
// The levels live in a ledger (ledger.ts): in this process (in-process-ledger.ts) or in PostgreSQL (postgres-ledger.ts), shared
// by every replica. The calls asked for in one turn of the event loop take together, in one step of the ledger (one
// statement when it is shared), in the waiting line's order. Priority: calls made for a task (writes, their polls,
// the reads that plan them) go before reads that only refresh a cache: within a replica by the order of its waiting
// line, across replicas by a reserve the cache reads leave in each bucket.
//
// A shared ledger costs a statement per take, so a replica (1) leases, in the same statement, a slice of each bucket
// it is busy with (tokens taken from the shared level at once: no two replicas spend the same ones), spends it for a
// second without a statement, and gives the rest back with a later take; and (2) when busy, spaces its takes so that
// each serves several calls (leaseWant and takeSpacingMs decide how much and how far apart).
//
// This module is the budget itself: the waiting line, and what Azure answers. Azure's figures are in figures.ts, what
// a call is charged to in routes.ts, a replica's slices in slices.ts, the pipeline policy that asks the budget in
// policy.ts.
import { parseRemainingHeader } from "../rate-limit-budget.ts";
import { budgetFigures, type ArmBudgetFigures, type ArmBudgetOptions } from "./figures.ts";
import type { BudgetLedger, CallAnswer, TakeAnswer, TakeRequest } from "./ledger.ts";
import { takeSpacingMs } from "./pacing.ts";
import { LocalBuckets } from "./local-buckets.ts";
import type { ArmCall, CallPriority, ChargedBucket } from "./routes.ts";
import { ReplicaSlices } from "./slices.ts";

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

  /** A shared ledger's tokens leased to this replica, and what goes back with the next take. */
  readonly #slices: ReplicaSlices;
  /** With a shared ledger, the buckets this replica alone spends (an operation's), kept here: no statement, no row. */
  readonly #local: LocalBuckets | undefined;
  readonly #maxSpacingMs: number;
  #sliceTimer: NodeJS.Timeout | undefined;
  /** Calls sent to the ledger in the current second and the one before: how busy the replica is. */
  #ledgerCalls = { startMs: 0, current: 0, previous: 0 };
  #lastTakeAtMs = 0;
  /** Calls asked for and not done (released): waiting for the budget, or sent and not answered. */
  #outstanding = 0;

  constructor(ledger: BudgetLedger, options: ArmBudgetOptions = {}) {
    this.#ledger = ledger;
    this.#options = options;
    this.figures = budgetFigures(options);
    this.#reserve = options.readReserve ?? 0.1;
    this.#ledgerRetryMs = options.ledgerRetryMs ?? 5000;
    this.#slices = new ReplicaSlices(
      ledger.shared ? (options.leaseMs ?? 1000) : 0,
      options.leaseShare ?? 0.25,
      this.#reserve,
    );
    this.#maxSpacingMs = ledger.shared ? (options.maxTakeSpacingMs ?? 400) : 0;
    this.#local = ledger.shared ? new LocalBuckets() : undefined;
  }

  /** The call as the shared ledger and this replica's slices see it: without the buckets kept here. */
  #sharedPart(call: ArmCall): ArmCall {
    return this.#local && call.buckets.some((b) => b.local)
      ? { ...call, buckets: call.buckets.filter((b) => !b.local) }
      : call;
  }

  /** The call's buckets kept here (none when the ledger is this process's: it keeps them all). */
  #localPart(call: ArmCall): ChargedBucket[] {
    return this.#local ? call.buckets.filter((b) => b.local) : [];
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
      this.#slices.sent();
      return undefined;
    }
    const lease = this.#slices.leaseRequest(order.map((w) => this.#sharedPart(w.call)));
    this.#slices.sent();
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
      if (this.#slices.addLeased(lease, leased)) this.#armSliceTimer();
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
    return this.#sharedPart(call).buckets.map((b) => ({
      key: b.key,
      figures: b.figures,
      need: 1 + (priority === "cache" ? Math.floor(b.figures.burst * this.#reserve) : 0),
    }));
  }

  /**
   * At the first slice's end, and again half a lease later: a busy replica gives its ended slices back with its next
   * take; an idle one sends them back on their own, in one statement.
   */
  #armSliceTimer(): void {
    if (this.#sliceTimer) return;
    const firstEndMs = this.#slices.firstEndMs();
    if (!Number.isFinite(firstEndMs) && !this.#slices.givingBack) return;
    const halfLease = this.#slices.leaseMs / 2;
    const atMs = Number.isFinite(firstEndMs) ? firstEndMs + halfLease : Date.now() + halfLease;
    this.#sliceTimer = setTimeout(
      () => {
        this.#sliceTimer = undefined;
        this.#slices.end(Date.now());
        if (this.#slices.givingBack) this.#schedule();
        else this.#armSliceTimer();
      },
      Math.max(1, atMs - Date.now()),
    );
    this.#sliceTimer.unref?.();
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

  /** Spends the call's tokens from this replica's slices, if they hold them all; whether it did. */
  #spendSlices(call: ArmCall): boolean {
    const local = this.#localPart(call);
    if (local.length > 0 && this.#local!.wait(local).waitMs > 0) return false;
    if (!this.#slices.spend(this.#sharedPart(call))) return false;
    this.#local?.take(local);
    this.counts.local++;
    return true;
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
    this.#slices.noteDemand(this.#sharedPart(call));
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
    this.#slices.end(Date.now());
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
      if (this.#slices.forNextTake) await this.#take([]);
      this.#armSliceTimer();
      return;
    }
    // A call whose bucket kept here is empty waits for it without asking the ledger.
    const localWaits = new Map<Waiter, TakeAnswer>();
    for (const w of order) {
      const local = this.#localPart(w.call);
      if (local.length === 0) continue;
      const { waitMs, emptyKey } = this.#local!.wait(local);
      if (waitMs > 0) localWaits.set(w, { granted: false, waitMs, ...(emptyKey ? { emptyKey } : {}) });
    }
    const asked = order.filter((w) => !localWaits.has(w));
    let ledgerAnswers = asked.length > 0 ? await this.#take(asked) : [];
    this.#armSliceTimer();
    if (ledgerAnswers === undefined) {
      // The ledger is unreachable (the database restarted, or did not answer within its bound): the calls go without
      // the budget rather than failing the operation with the ledger's error, or never going. Not silently: each
      // task whose call goes says so in its history, and the metric counts them.
      for (const w of asked) {
        if (!this.#waiting.has(w)) continue;
        this.counts.unbudgeted++;
        w.onWait?.({ budget: "the ARM budget", waitMs: 0, ledgerUnavailable: this.#ledgerProblem });
      }
      ledgerAnswers = asked.map(() => WITHOUT_BUDGET);
    }
    let next = 0;
    const answers = order.map((w) => localWaits.get(w) ?? ledgerAnswers[next++]);
    let nextMs = Number.POSITIVE_INFINITY;
    order.forEach((w, i) => {
      const answer = answers[i];
      // A call given up while the take was out may hold others: they try again when it would have.
      if (answer !== "held" && !answer.granted) nextMs = Math.min(nextMs, answer.waitMs);
      if (!this.#waiting.has(w)) return;
      if (answer !== "held" && answer.granted) {
        this.#waiting.delete(w);
        this.#local?.take(this.#localPart(w.call));
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
      if (b.local && this.#local) {
        this.#answeredLocal(b, status, headers, remaining);
        continue;
      }
      const armHeader = b.azureName.startsWith("x-ms-") ? headers.get(b.azureName) : undefined;
      const count =
        armHeader !== undefined && /^\d+$/.test(armHeader.trim()) ? Number(armHeader) : remaining.get(b.azureName);
      if (status === 429) {
        // Azure names the empty buckets with a count of 0; when it names none, every bucket of the call waits.
        const named = [...remaining.values()].some((n) => n === 0);
        if (!named || count === 0) {
          // The bucket is empty in Azure: this replica's slice of it is void (spending it would be refused too).
          this.#slices.void(b.key);
          tasks.push(this.#ledger.drain(b.key, b.figures, retryAfterMs(headers)));
        }
      } else if (count !== undefined && count < b.figures.burst / 2) {
        // Only where it matters: a bucket Azure reports more than half full is far from a 429, and each correction is
        // a statement when the ledger is shared. Azure's count includes the tokens of this replica's slice (not spent
        // yet): the ledger is lowered to what is left beside them, and the slice stays this replica's.
        const tokens = Math.max(0, count - this.#slices.tokensOf(b.key));
        if (!this.#ledger.shared) tasks.push(this.#ledger.correct(b.key, b.figures, tokens));
        else {
          // Rides on the next take (a statement each would be one per write when a bucket runs low); the lowest wins.
          this.#slices.cap(b.key, b.figures, tokens);
        }
      }
    }
    if (status === 429) this.counts.throttled++;
    await Promise.all(tasks).catch(() => {});
  }

  /** What Azure answered of a bucket kept here: a 429 empties it, a low count lowers it. */
  #answeredLocal(
    b: ChargedBucket,
    status: number,
    headers: { get(name: string): string | undefined },
    remaining: Map<string, number>,
  ): void {
    const count = remaining.get(b.azureName);
    if (status === 429) {
      const named = [...remaining.values()].some((n) => n === 0);
      if (!named || count === 0) this.#local!.drain(b, retryAfterMs(headers));
    } else if (count !== undefined) this.#local!.correct(b, count);
  }

  async close(): Promise<void> {
    if (this.#timer) clearTimeout(this.#timer);
    if (this.#sliceTimer) clearTimeout(this.#sliceTimer);
    this.#clearTurn();
    const waiting = [...this.#waiting];
    this.#waiting.clear();
    for (const w of waiting) w.reject(new Error("the ARM budget was closed"));
    // This replica's slices go back to the others (one statement), if the ledger answers.
    this.#slices.end(Number.POSITIVE_INFINITY);
    if (this.#slices.givingBack) {
      const { caps, gives } = this.#slices.leaseRequest([]);
      await this.#ledger.takeAndLease([], { caps, gives, wants: [], share: 0 }).catch(() => undefined);
    }
    this.#slices.sent();
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
