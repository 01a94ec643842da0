import t from "tap";
import type { RetryConfig } from "../src/azure/retry-policy.ts";
import type { ArmFailure } from "../src/azure/arm-failure.ts";
import { kindForStatus } from "../src/azure/arm-failure.ts";
import {
  busyReadIntervalMs,
  decideBusyWait,
  decideRetry,
  formatDuration,
  isRetryableKind,
} from "../src/azure/retry-policy.ts";

const config: RetryConfig = {
  maxAttempts: 8,
  deadlineMs: 60_000,
  conflictBaseDelayMs: 200,
  busyPollIntervalMs: 500,
  transientBaseDelayMs: 1000,
  throttleDefaultDelayMs: 5000,
  maxDelayMs: 30_000,
  busyReadShare: 0.25,
  scaleSetReadsPerMinute: 12,
  scaleSetReadBurst: 36,
  maxRedrives: 2,
};

t.test("which statuses are retryable: status → kind → retryable, each rule in one place", async (t) => {
  const table: [number, string | undefined, boolean][] = [
    [400, "InvalidParameter", false],
    [401, undefined, false],
    [403, undefined, false],
    [404, "ResourceNotFound", false],
    [405, undefined, false],
    [408, undefined, true],
    [409, "ConflictingConcurrentWriteNotAllowed", true],
    [409, undefined, true],
    [409, "InvalidResourceLocation", false],
    [409, "PropertyChangeNotAllowed", false],
    [409, "ScopeLocked", false],
    [412, "PreconditionFailed", true],
    [413, undefined, false],
    [422, undefined, false],
    [429, "TooManyRequests", true],
    [500, undefined, true],
    [502, undefined, true],
    [503, undefined, true],
    [504, undefined, true],
    // As the Azure SDK has it (@typespec/ts-http-runtime, dist/esm/retryStrategies/exponentialRetryStrategy.js
    // l.42-48, isExponentialRetryResponse: 408, or ≥ 500 except 501 and 505): Not Implemented and HTTP Version Not
    // Supported answer the same however often they are asked.
    [501, "NotImplemented", false],
    [505, undefined, false],
    [511, undefined, true],
  ];
  for (const [status, code, retryable] of table)
    t.equal(isRetryableKind(kindForStatus(status, code)), retryable, `${status} ${code ?? ""}`);
});

t.test("decisions, table-driven, with a fixed random", async (t) => {
  const f = (kind: ArmFailure["kind"], extra: Partial<ArmFailure> = {}): ArmFailure => ({
    kind,
    message: "m",
    ...extra,
  });
  const cases: {
    name: string;
    failure: ArmFailure;
    attempt: number;
    elapsedMs?: number;
    random?: number;
    config?: Partial<RetryConfig>;
    want: { retry: boolean; delayMs?: number };
  }[] = [
    { name: "404 is final at once", failure: f("notFound", { status: 404 }), attempt: 1, want: { retry: false } },
    { name: "400 is final", failure: f("terminal", { status: 400 }), attempt: 1, want: { retry: false } },
    {
      name: "409 starts small",
      failure: f("conflict", { status: 409 }),
      attempt: 1,
      random: 0.5,
      want: { retry: true, delayMs: 200 },
    },
    {
      name: "409 doubles",
      failure: f("conflict", { status: 409 }),
      attempt: 3,
      random: 0.5,
      want: { retry: true, delayMs: 800 },
    },
    { name: "jitter low end", failure: f("conflict"), attempt: 1, random: 0, want: { retry: true, delayMs: 160 } },
    {
      name: "jitter high end",
      failure: f("conflict"),
      attempt: 1,
      random: 0.999999,
      want: { retry: true, delayMs: 240 },
    },
    {
      name: "412 like a conflict",
      failure: f("precondition", { status: 412 }),
      attempt: 2,
      random: 0.5,
      want: { retry: true, delayMs: 400 },
    },
    {
      name: "5xx uses the transient base",
      failure: f("server", { status: 503 }),
      attempt: 1,
      random: 0.5,
      want: { retry: true, delayMs: 1000 },
    },
    {
      name: "network errors retry",
      failure: f("network"),
      attempt: 2,
      random: 0.5,
      want: { retry: true, delayMs: 2000 },
    },
    {
      name: "transient LRO failure retries",
      failure: f("operationFailedTransient"),
      attempt: 1,
      random: 0.5,
      want: { retry: true, delayMs: 1000 },
    },
    {
      name: "429 without Retry-After",
      failure: f("throttled", { status: 429 }),
      attempt: 1,
      random: 0.5,
      want: { retry: true, delayMs: 5000 },
    },
    {
      name: "Retry-After wins over backoff",
      failure: f("throttled", { status: 429, retryAfterMs: 17_000 }),
      attempt: 1,
      random: 0.1,
      want: { retry: true, delayMs: 17_000 },
    },
    {
      name: "Retry-After honoured on 409 too",
      failure: f("conflict", { retryAfterMs: 50 }),
      attempt: 1,
      want: { retry: true, delayMs: 50 },
    },
    {
      name: "short hints again and again: the backoff one step behind grows past them",
      failure: f("conflict", { retryAfterMs: 50 }),
      attempt: 4,
      random: 0.5,
      want: { retry: true, delayMs: 800 },
    },
    {
      name: "Retry-After: 1 on the fifth 503 waits 8 s, not 1",
      failure: f("server", { status: 503, retryAfterMs: 1000 }),
      attempt: 5,
      random: 0.5,
      want: { retry: true, delayMs: 8000 },
    },
    {
      name: "a long hint wins over the backoff",
      failure: f("throttled", { status: 429, retryAfterMs: 20_000 }),
      attempt: 3,
      random: 0.5,
      want: { retry: true, delayMs: 20_000 },
    },
    {
      name: "429 past maxAttempts, within the deadline: retried",
      failure: f("throttled", { status: 429 }),
      attempt: 8,
      elapsedMs: 10_000,
      random: 0.5,
      want: { retry: true, delayMs: 30_000 },
    },
    {
      name: "503 past maxAttempts, within the deadline: retried",
      failure: f("server", { status: 503 }),
      attempt: 20,
      random: 0.5,
      want: { retry: true, delayMs: 30_000 },
    },
    {
      name: "network failures past maxAttempts: retried",
      failure: f("network"),
      attempt: 9,
      random: 0.5,
      want: { retry: true, delayMs: 30_000 },
    },
    {
      name: "a read someone waits on: a few attempts bound a 503 too",
      failure: f("server", { status: 503 }),
      attempt: 8,
      config: { attemptsBoundEverything: true },
      want: { retry: false },
    },
    {
      name: "a transient operation failure stops at maxAttempts",
      failure: f("operationFailedTransient"),
      attempt: 8,
      want: { retry: false },
    },
    {
      name: "capped by maxDelayMs",
      failure: f("server"),
      attempt: 7,
      random: 0.5,
      want: { retry: true, delayMs: 30_000 },
    },
    { name: "last attempt gives up", failure: f("conflict"), attempt: 8, want: { retry: false } },
    {
      name: "deadline stops a wait that would cross it",
      failure: f("server"),
      attempt: 2,
      elapsedMs: 58_500,
      random: 0.5,
      want: { retry: false },
    },
    {
      name: "Retry-After is honoured beyond maxDelayMs",
      failure: f("throttled", { status: 429, retryAfterMs: 45_000 }),
      attempt: 1,
      want: { retry: true, delayMs: 45_000 },
    },
    {
      name: "429 past maxAttempts gives up at the deadline",
      failure: f("throttled", { status: 429 }),
      attempt: 12,
      elapsedMs: 40_000,
      random: 0.5,
      want: { retry: false },
    },
    {
      name: "Retry-After beyond the deadline gives up",
      failure: f("throttled", { retryAfterMs: 120_000 }),
      attempt: 1,
      elapsedMs: 40_000,
      want: { retry: false },
    },
    {
      name: "a canceled write re-reads soon",
      failure: f("canceled"),
      attempt: 1,
      random: 0.5,
      want: { retry: true, delayMs: 200 },
    },
    {
      name: "a programming error is never retried",
      failure: f("programming", { code: "TypeError" }),
      attempt: 1,
      want: { retry: false },
    },
  ];
  for (const c of cases) {
    const d = decideRetry({
      failure: c.failure,
      attempt: c.attempt,
      elapsedMs: c.elapsedMs ?? 0,
      config: { ...config, ...c.config },
      random: c.random ?? 0.5,
    });
    t.equal(d.retry, c.want.retry, `${c.name}: retry`);
    if (d.retry && c.want.delayMs !== undefined) t.equal(d.delayMs, c.want.delayMs, `${c.name}: delay`);
    t.ok(d.reason.length > 0, `${c.name}: has a reason`);
  }
});

t.test("re-reads of a busy scale set stay within a quarter of Azure's read refill", async (t) => {
  // Azure refills a scale set's GET budget by 12 a minute; a quarter of that is 3 a minute: one GET every 20 s.
  t.equal(busyReadIntervalMs({ ...config, maxDelayMs: 60_000 }), 20_000);
  const cfg = { ...config, maxDelayMs: 60_000, deadlineMs: 600_000 };
  t.same(decideBusyWait({ elapsedMs: 0, config: cfg, random: 0 }), { wait: true, delayMs: 20_000 });
  t.same(
    decideBusyWait({ elapsedMs: 0, config: cfg, remainingReads: 30, random: 0 }),
    { wait: true, delayMs: 20_000 },
    "plenty left",
  );
  // Our share of the burst of 36 is 9: at or below it, wait until the refill has brought it above (7 → 10: 3 reads, 15 s;
  // the share interval is longer still).
  t.same(decideBusyWait({ elapsedMs: 0, config: cfg, remainingReads: 7, random: 0 }), { wait: true, delayMs: 20_000 });
  // 0 left: 10 reads to refill, 50 s.
  t.same(decideBusyWait({ elapsedMs: 0, config: cfg, remainingReads: 0, random: 0 }), { wait: true, delayMs: 50_000 });
  t.same(
    decideBusyWait({ elapsedMs: 0, config: { ...cfg, maxDelayMs: 30_000 }, remainingReads: 0, random: 0 }),
    { wait: true, delayMs: 30_000 },
    "capped",
  );
  // Jitter only lengthens: the share is a bound, never exceeded on average or otherwise.
  t.same(decideBusyWait({ elapsedMs: 0, config: cfg, random: 0.5 }), { wait: true, delayMs: 24_000 }, "jitter");
  t.same(
    decideBusyWait({ elapsedMs: 0, config: cfg, random: 0.999 }),
    { wait: true, delayMs: 27_992 },
    "jitter high end",
  );
  t.equal(decideBusyWait({ elapsedMs: 590_000, config: cfg, random: 0.5 }).wait, false, "never past the deadline");
  // A simulator that runs 100 times faster refills 1200 a minute: the same share is one GET every 200 ms.
  t.equal(busyReadIntervalMs({ ...cfg, busyPollIntervalMs: 1, scaleSetReadsPerMinute: 1200 }), 200);
  t.equal(
    busyReadIntervalMs({ ...cfg, busyPollIntervalMs: 500, scaleSetReadsPerMinute: 1200 }),
    500,
    "never below the configured floor",
  );
});

t.test("durations read well in history lines", async (t) => {
  t.equal(formatDuration(1400), "1.4 s");
  t.equal(formatDuration(250), "0.25 s");
  t.equal(formatDuration(90_000), "1.5 min");
});
