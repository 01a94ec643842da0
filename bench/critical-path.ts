// Azure's critical path of a run, read from the simulator's call log and its operations: the longest chain of ARM
// operations each of which began after the one before it ended, measured by Azure's own time in them (the gaps
// between them are not Azure's: they are the service's polls, reads, queueing and CPU, or its caller's). Pure
// functions of the log, so a test can hand them a log with chains, parallel branches and overlapping calls.
//
// What counts as an ARM operation's time:
// - a write Azure accepted as a long-running operation: from Azure's startTime to its endTime (GET /_sim/operations);
// - a synchronous write (PUT, PATCH, DELETE or POST answered at once): its arrival to its answer;
// - the load balancer's health probe after an operation started VMs: from its end for probeMs, the time Azure takes to
//   find them healthy (a deploy waits for it; no call of ours can shorten it).
// Reads (GETs, the status polls among them) are not: at the simulator they last its own CPU, not Azure's, and they are
// what the service chooses to ask; their time is published as ours.
import type { CallRecord, OperationRecord } from "vmss-simulator";

/** One span of Azure's time. */
export interface Span {
  start: number;
  end: number;
  label: string;
}

export interface CriticalPath {
  /** Azure's time on the chain: the sum of its spans' lengths (the gaps between them excluded). */
  ms: number;
  /** The chain, in time order. */
  chain: Span[];
}

/**
 * The longest chain of spans, each starting no earlier than the one before it ended, by the sum of their lengths.
 * Spans that overlap are parallel branches: at most one of them is on the chain. O(n log n).
 */
export function criticalPath(spans: readonly Span[]): CriticalPath {
  const byEnd = spans.filter((s) => s.end >= s.start).sort((a, b) => a.end - b.end || a.start - b.start);
  // best[i]: the longest chain ending with byEnd[i]; upTo[i]: index of the longest among byEnd[0..i].
  const best: number[] = [];
  const before: number[] = [];
  const upTo: number[] = [];
  for (let i = 0; i < byEnd.length; i++) {
    const s = byEnd[i];
    const j = lastEndingBy(byEnd, i, s.start);
    const prev = j < 0 ? -1 : upTo[j];
    best.push(s.end - s.start + (prev < 0 ? 0 : best[prev]));
    before.push(prev);
    upTo.push(i > 0 && best[upTo[i - 1]] >= best[i] ? upTo[i - 1] : i);
  }
  if (byEnd.length === 0) return { ms: 0, chain: [] };
  const chain: Span[] = [];
  for (let k = upTo[byEnd.length - 1]; k >= 0; k = before[k]) chain.unshift(byEnd[k]);
  return { ms: best[upTo[byEnd.length - 1]], chain };
}

/** The last index below `i` of a span (sorted by end) that ended by `t`; -1 when none did. */
function lastEndingBy(byEnd: readonly Span[], i: number, t: number): number {
  let lo = 0;
  let hi = i - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (byEnd[mid].end <= t) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

const WRITE_METHODS = new Set(["PUT", "PATCH", "DELETE", "POST"]);

/**
 * Azure's spans of a run from its call log and operations: each long-running write from Azure's start to its end,
 * each synchronous write from arrival to answer, and a health probe of probeMs after each operation that started VMs.
 * Only calls for which `ours` holds (default: every call but Azure's own, autoscale's) and that arrived within
 * [from, to] count.
 */
export function azureSpans(
  calls: readonly CallRecord[],
  operations: readonly OperationRecord[],
  options: { probeMs: number; from?: number; to?: number; ours?: (c: CallRecord) => boolean },
): Span[] {
  const ops = new Map(operations.map((o) => [o.id, o]));
  const ours = options.ours ?? ((c: CallRecord) => c.origin === undefined);
  const within = (c: CallRecord) => c.time >= (options.from ?? -Infinity) && c.time <= (options.to ?? Infinity);
  const spans: Span[] = [];
  for (const c of calls) {
    if (!WRITE_METHODS.has(c.method) || !ours(c) || !within(c)) continue;
    const op = c.operationId === undefined ? undefined : ops.get(c.operationId);
    const label = `${c.method} ${c.path.replace(/^\/subscriptions\/[^/]+\/resourceGroups\//i, "")}`;
    if (op?.endTime !== undefined) {
      spans.push({ start: op.startedAt, end: op.endTime, label: `${label} (${op.kind})` });
      if (op.vmsStarted > 0 && options.probeMs > 0)
        spans.push({
          start: op.endTime,
          end: op.endTime + options.probeMs,
          label: `health probe of ${op.vmsStarted} VM(s) of ${op.scaleSet}`,
        });
    } else if (op === undefined && c.answeredAt !== undefined && c.status !== null && c.status < 400)
      spans.push({ start: c.time, end: c.answeredAt, label });
  }
  return spans;
}

/**
 * How long after each long-running operation ended its end was noticed: the first status poll of it (a GET naming its
 * id) that arrived at or after its end. Operations never polled after their end (noticed some other way) are left out.
 */
export function pollLags(
  calls: readonly CallRecord[],
  operations: readonly OperationRecord[],
): { operation: string; lagMs: number }[] {
  const out: { operation: string; lagMs: number }[] = [];
  for (const op of operations) {
    if (op.endTime === undefined) continue;
    const id = op.id.toLowerCase();
    const poll = calls.find(
      (c) => c.method === "GET" && c.time >= op.endTime! && c.path.toLowerCase().endsWith(`/operations/${id}`),
    );
    if (poll) out.push({ operation: op.id, lagMs: poll.time - op.endTime });
  }
  return out;
}

/** A task of the run, as the service reports it: from its creation to its end. */
export interface TaskWindow {
  start: number;
  end: number;
  label: string;
}

/** Where the time off Azure's critical path went, in ms. */
export interface GapShares {
  /** Between the caller's tasks: the caller's own polls and reads (Orca's), not the service's. */
  orcaMs: number;
  /** A task created but not yet calling Azure: waiting for a claim, and its run's start. */
  queueMs: number;
  /** From Azure ending a span of the path to the service's next read (a status poll, a health read): our polls. */
  pollMs: number;
  /** Within our reads of Azure (GETs), once the end was noticed: our confirming reads. */
  readMs: number;
  /** The rest: the service's own CPU, its store, between its calls. */
  otherMs: number;
}

/**
 * Splits the time of [t0, t1] off the chain (before its first span, between its spans, after its last) by what was
 * happening, each instant counted once, in this order: outside every task (the caller's), a task not yet calling
 * Azure (queueing), after a span's end until the service's next GET arrived (polls), within a GET (reads), else ours.
 */
export function attributeGaps(
  chain: readonly Span[],
  calls: readonly CallRecord[],
  tasks: readonly TaskWindow[],
  t0: number,
  t1: number,
): GapShares {
  const gets = calls.filter((c) => c.method === "GET" && c.answeredAt !== undefined).sort((a, b) => a.time - b.time);
  const firstCall = tasks.map(
    (task) => calls.find((c) => c.time >= task.start && c.time <= task.end)?.time ?? task.end,
  );
  const gaps: { from: number; to: number; afterSpan: boolean }[] = [];
  let at = t0;
  let afterSpan = false;
  for (const s of chain) {
    gaps.push({ from: at, to: Math.min(s.start, t1), afterSpan });
    at = Math.max(at, s.end);
    afterSpan = true;
  }
  gaps.push({ from: at, to: t1, afterSpan });
  const out: GapShares = { orcaMs: 0, queueMs: 0, pollMs: 0, readMs: 0, otherMs: 0 };
  for (const gap of gaps.filter((g) => g.to > g.from)) {
    const noticed = gap.afterSpan ? (gets.find((c) => c.time >= gap.from)?.time ?? gap.to) : gap.from;
    const inGap = gets.filter((c) => c.answeredAt! > gap.from && c.time < gap.to);
    const cuts = new Set([gap.from, gap.to, noticed, ...tasks.flatMap((t) => [t.start, t.end]), ...firstCall]);
    for (const c of inGap) cuts.add(c.time).add(c.answeredAt!);
    const points = [...cuts].filter((x) => x >= gap.from && x <= gap.to).sort((a, b) => a - b);
    for (let i = 0; i + 1 < points.length; i++) {
      const m = (points[i] + points[i + 1]) / 2;
      const share = shareAt(m, { tasks, firstCall, noticed, reads: inGap });
      out[share] += points[i + 1] - points[i];
    }
  }
  return out;
}

function shareAt(
  m: number,
  at: { tasks: readonly TaskWindow[]; firstCall: number[]; noticed: number; reads: readonly CallRecord[] },
): keyof GapShares {
  const task = at.tasks.findIndex((t) => m >= t.start && m <= t.end);
  if (task < 0) return "orcaMs";
  if (m < at.firstCall[task]) return "queueMs";
  if (m < at.noticed) return "pollMs";
  if (at.reads.some((c) => m >= c.time && m <= c.answeredAt!)) return "readMs";
  return "otherMs";
}
