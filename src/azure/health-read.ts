// When to re-read a scale set while its new instances are waited on to be healthy: the same read budget as any
// wait (busyReadShare of the scale set's read refill, retry-policy.ts), spent where the answer can change. Pure: no
// clock, no I/O, randomness passed in, so a table of cases tests it (test/health-read.test.ts); the loop that waits
// is src/azure/harness/reads.ts.
//
// A VM's health is reported by a probe (the load balancer's, or the Application Health extension's) that answers
// every `intervalInSeconds` and reports healthy after `numberOfProbes` answers: nothing can change before the VM has
// run that long, and afterwards at most once per interval. So the first re-read is at that moment, then one per
// probe interval while the wait's share of the read budget has tokens, then at the share's refill. The share is a
// token bucket as Azure's own are: busyReadShare of the refill, and as much of the burst (9 of 36 GETs with Azure's
// figures, one back every 20 s), full when the wait begins; over any stretch of a wait, the reads stay within its
// share of what Azure allows over it. Where the probe cannot be read, the re-reads keep the busy pace (decideBusyWait).
import {
  busyReadIntervalMs,
  crossesDeadline,
  decideBusyWait,
  formatDuration,
  type RetryConfig,
} from "./retry-policy.ts";

/** When health can first be reported, and how often it can change after: from the VMs' start and their probe. */
export interface HealthExpectation {
  /** When the last of the awaited VMs started running (its ProvisioningState status time), ms since the epoch. */
  runningSinceMs: number;
  /** Azure seconds from running to the earliest healthy report: the probe's interval × its count. */
  firstHealthSeconds: number;
  /** Azure seconds between two answers of the probe: the report changes no more often than this. */
  probeIntervalSeconds: number;
}

/** The wait's share of the scale set's read budget: its tokens at `atMs` (a read's time). */
export interface ReadShare {
  tokens: number;
  atMs: number;
}

export interface HealthReadInput {
  nowMs: number;
  /** When the snapshot that was just planned on was read. */
  lastReadAtMs: number;
  /** Undefined: the probe could not be read, or the VMs' start is not known (the busy pace). */
  expect?: HealthExpectation;
  /** Undefined at the wait's first read: full. */
  share?: ReadShare;
  /** What Azure last reported as left of the scale set's read budget, if known. */
  remainingReads?: number;
  /** Time spent on this wait so far. */
  elapsedMs: number;
  config: RetryConfig;
  random: number;
}

export type HealthReadDecision =
  { wait: true; delayMs: number; share?: ReadShare; why: string } | { wait: false; reason: string };

/** The tokens a wait's share holds: full (floor(burst × share), at least 1) when it begins. */
export function shareCapacity(config: RetryConfig): number {
  return Math.max(1, Math.floor(config.scaleSetReadBurst * config.busyReadShare));
}

/**
 * How long to wait before the next re-read of a scale set whose instances are waited on to be healthy, and the
 * wait's share once that read is taken. Never before health can first be reported; after it, one read per probe
 * interval (×1 to ×1.2 jitter) while the share has a token, else when its refill brings one; when Azure reports its
 * own bucket nearly spent (no more than our share of its burst left), when its refill has brought it above that.
 * Capped by maxDelayMs, and never past the deadline.
 */
export function decideHealthRead(input: HealthReadInput): HealthReadDecision {
  const { nowMs, lastReadAtMs, expect, share, remainingReads, elapsedMs, config, random } = input;
  if (!expect) {
    const busy = decideBusyWait({
      elapsedMs,
      config,
      random,
      ...(remainingReads !== undefined ? { remainingReads } : {}),
    });
    return busy.wait ? { ...busy, why: "at the busy pace: the probe or the VMs' start is not known" } : busy;
  }
  const scale = config.azureTimeScale ?? 1;
  const refillMs = busyReadIntervalMs(config);
  const capacity = shareCapacity(config);
  const level = (t: number) =>
    share ? Math.min(capacity, share.tokens + Math.max(0, t - share.atMs) / refillMs) : capacity;
  const firstAtMs = expect.runningSinceMs + expect.firstHealthSeconds * 1000 * scale;
  const probeMs = Math.max(config.busyPollIntervalMs, expect.probeIntervalSeconds * 1000 * scale);
  let atMs: number;
  let why: string;
  if (nowMs < firstAtMs) {
    atMs = firstAtMs;
    why = `health can first be reported ${formatDuration(firstAtMs - nowMs)} from now`;
  } else {
    atMs = Math.max(nowMs, lastReadAtMs + probeMs * (1 + 0.2 * random));
    why = "the probe answers again";
  }
  const tokens = level(atMs);
  if (tokens < 1) {
    atMs += (1 - tokens) * refillMs;
    why = "the wait's share of the read budget is spent: at its refill";
  }
  const reserve = Math.floor(config.scaleSetReadBurst * config.busyReadShare);
  if (remainingReads !== undefined && remainingReads <= reserve) {
    const refilledAtMs = nowMs + ((reserve - remainingReads + 1) * 60_000) / config.scaleSetReadsPerMinute;
    if (refilledAtMs > atMs) [atMs, why] = [refilledAtMs, `Azure reports ${remainingReads} reads left: at its refill`];
  }
  const delayMs = Math.round(Math.max(0, Math.min(config.maxDelayMs, atMs - nowMs)));
  if (crossesDeadline(delayMs, elapsedMs, config)) {
    return { wait: false, reason: `the ${formatDuration(config.deadlineMs)} deadline would pass before the next read` };
  }
  const readAtMs = nowMs + delayMs;
  return { wait: true, delayMs, share: { tokens: level(readAtMs) - 1, atMs: readAtMs }, why };
}
