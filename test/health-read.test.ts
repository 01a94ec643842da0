// When the health wait re-reads a scale set (src/azure/health-read.ts): a table of cases, Azure's figures (12 GETs a
// minute, burst 36, a quarter of it ours: one read back every 20 s, 9 at most) and a probe of 5 s × 2.
import t from "tap";
import { decideHealthRead, shareCapacity, type HealthReadInput } from "../src/azure/health-read.ts";
import type { RetryConfig } from "../src/azure/retry-policy.ts";

const config: RetryConfig = {
  maxAttempts: 8,
  deadlineMs: 600_000,
  conflictBaseDelayMs: 200,
  busyPollIntervalMs: 500,
  transientBaseDelayMs: 1000,
  throttleDefaultDelayMs: 5000,
  maxDelayMs: 60_000,
  busyReadShare: 0.25,
  scaleSetReadsPerMinute: 12,
  scaleSetReadBurst: 36,
  maxRedrives: 2,
};

const T0 = 1_800_000_000_000;
/** VMs running at T0, healthy at the earliest 10 s later, the probe answering every 5 s. */
const expect = { runningSinceMs: T0, firstHealthSeconds: 10, probeIntervalSeconds: 5 };
const at = (s: number) => T0 + s * 1000;

t.test("the share of a wait: a quarter of the burst of 36", async (t) => {
  t.equal(shareCapacity(config), 9);
  t.equal(shareCapacity({ ...config, scaleSetReadBurst: 2 }), 1, "at least one read");
});

t.test("when to read next: a table of cases", async (t) => {
  const cases: {
    name: string;
    input: Partial<HealthReadInput>;
    want: { delayMs: number; tokens?: number } | "stop";
  }[] = [
    {
      name: "probe unreadable: the old schedule (the busy pace, 20 s)",
      input: { nowMs: at(1), lastReadAtMs: at(1) },
      want: { delayMs: 20_000 },
    },
    {
      name: "probe unreadable, Azure's bucket nearly empty: the old schedule's refill wait",
      input: { nowMs: at(1), lastReadAtMs: at(1), remainingReads: 0 },
      want: { delayMs: 50_000 },
    },
    {
      name: "before health can be reported: the first read at that moment, not before",
      input: { nowMs: at(1), lastReadAtMs: at(1), expect },
      want: { delayMs: 9000, tokens: 8 },
    },
    {
      name: "a slower probe (15 s × 2): at 30 s",
      input: { nowMs: at(1), lastReadAtMs: at(1), expect: { ...expect, firstHealthSeconds: 30 } },
      want: { delayMs: 29_000, tokens: 8 },
    },
    {
      name: "after it: one probe interval after the last read, while the share has tokens",
      input: { nowMs: at(10), lastReadAtMs: at(10), expect, share: { tokens: 8, atMs: at(10) } },
      want: { delayMs: 5000, tokens: 7.25 },
    },
    {
      name: "jitter only lengthens the probe interval (×1.2 at most)",
      input: { nowMs: at(10), lastReadAtMs: at(10), expect, share: { tokens: 8, atMs: at(10) }, random: 0.5 },
      want: { delayMs: 5500, tokens: 7.275 },
    },
    {
      name: "VMs started long ago, the last read older than the probe interval: read now",
      input: { nowMs: at(3600), lastReadAtMs: at(3590), expect },
      want: { delayMs: 0, tokens: 8 },
    },
    {
      name: "VMs started long ago, just read: one probe interval",
      input: { nowMs: at(3600), lastReadAtMs: at(3600), expect },
      want: { delayMs: 5000, tokens: 8 },
    },
    {
      name: "the share spent: wait for its next token (20 s a token)",
      input: { nowMs: at(40), lastReadAtMs: at(40), expect, share: { tokens: 0, atMs: at(40) } },
      want: { delayMs: 20_000, tokens: 0 },
    },
    {
      name: "half a token left: the probe interval is not enough, the refill decides",
      input: { nowMs: at(40), lastReadAtMs: at(40), expect, share: { tokens: 0.5, atMs: at(40) } },
      want: { delayMs: 10_000, tokens: 0 },
    },
    {
      name: "Azure's bucket nearly empty (7 left, our share of the burst is 9): at its refill, 15 s",
      input: { nowMs: at(12), lastReadAtMs: at(12), expect, remainingReads: 7 },
      want: { delayMs: 15_000, tokens: 8 },
    },
    {
      name: "Azure's bucket with plenty: the probe's pace",
      input: { nowMs: at(12), lastReadAtMs: at(12), expect, remainingReads: 30 },
      want: { delayMs: 5000, tokens: 8 },
    },
    {
      name: "a probe of seconds is never read faster than the configured floor",
      input: {
        nowMs: at(12),
        lastReadAtMs: at(12),
        expect: { ...expect, probeIntervalSeconds: 0.1 },
      },
      want: { delayMs: 500, tokens: 8 },
    },
    {
      name: "a simulator at time scale 0.02: the probe's 10 s are 200 ms, its 5 s 100 ms",
      input: {
        nowMs: at(0.05),
        lastReadAtMs: at(0.05),
        expect,
        config: { ...config, azureTimeScale: 0.02, busyPollIntervalMs: 10, scaleSetReadsPerMinute: 600 },
      },
      want: { delayMs: 150, tokens: 8 },
    },
    {
      name: "a long grace: capped by maxDelayMs",
      input: { nowMs: at(1), lastReadAtMs: at(1), expect: { ...expect, firstHealthSeconds: 1800 } },
      want: { delayMs: 60_000, tokens: 8 },
    },
    {
      name: "never past the deadline",
      input: { nowMs: at(1), lastReadAtMs: at(1), expect, elapsedMs: 595_000 },
      want: "stop",
    },
  ];
  for (const c of cases) {
    const d = decideHealthRead({ elapsedMs: 0, config, random: 0, ...c.input } as HealthReadInput);
    if (c.want === "stop") {
      t.equal(d.wait, false, c.name);
      continue;
    }
    if (!d.wait) {
      t.fail(`${c.name}: stopped (${d.reason})`);
      continue;
    }
    t.equal(d.delayMs, c.want.delayMs, `${c.name}: delay`);
    if (c.want.tokens !== undefined) t.equal(Number(d.share?.tokens.toFixed(3)), c.want.tokens, `${c.name}: tokens`);
    t.ok(d.why.length > 0, `${c.name}: says why`);
  }
});

t.test("over a wait, the reads stay within the share: its burst and its refill", async (t) => {
  // Health at 30 s, a probe of 5 s × 2: read as the loop would, until a read sees it healthy.
  const healthyAtMs = at(30);
  let nowMs = at(0.2);
  let share: HealthReadInput["share"];
  const reads: number[] = [];
  for (;;) {
    const d = decideHealthRead({
      nowMs,
      lastReadAtMs: nowMs,
      expect,
      share,
      elapsedMs: nowMs - T0,
      config,
      random: 0.999,
    });
    if (!d.wait) throw new Error(d.reason);
    nowMs += d.delayMs;
    share = d.share;
    reads.push((nowMs - T0) / 1000);
    if (nowMs >= healthyAtMs) break;
  }
  t.ok(reads[0] === 10, `the first at 10 s: ${reads.join(", ")}`);
  t.ok((nowMs - healthyAtMs) / 1000 <= 6, `noticed within the probe interval ×1.2: ${(nowMs - healthyAtMs) / 1000} s`);
  // Within any window of w seconds, at most 9 + w / 20 reads.
  for (const from of reads)
    for (const to of reads.filter((r) => r >= from)) {
      const within = reads.filter((r) => r >= from && r <= to).length;
      t.ok(within <= 9 + (to - from) / 20 + 1e-9, `${within} reads in [${from}, ${to}]`);
    }
  // A wait that never sees health: after the burst, one read per 20 s.
  nowMs = at(0.2);
  share = undefined;
  const long: number[] = [];
  while (nowMs < at(600)) {
    const d = decideHealthRead({ nowMs, lastReadAtMs: nowMs, expect, share, elapsedMs: 0, config, random: 0 });
    if (!d.wait) throw new Error(d.reason);
    nowMs += d.delayMs;
    share = d.share;
    long.push((nowMs - T0) / 1000);
  }
  t.ok(long.length <= 9 + 600 / 20, `${long.length} reads in 600 s: no more than the share allows`);
  const late = long.filter((s) => s > 120);
  t.ok(
    late.every((s, i) => i === 0 || s - late[i - 1] >= 20 - 1e-6),
    `after the burst, 20 s apart: ${late.slice(0, 5).join(", ")}`,
  );
});
