import t from "tap";
import type { RetryConfig } from "../src/config.ts";
import type { ArmFailure } from "../src/azure/arm-failure.ts";
import { decideRetry, formatDuration, isRetryableStatus } from "../src/azure/retry-policy.ts";

const config: RetryConfig = {
  maxAttempts: 8,
  deadlineMs: 60_000,
  conflictBaseDelayMs: 200,
  busyPollIntervalMs: 500,
  transientBaseDelayMs: 1000,
  throttleDefaultDelayMs: 5000,
  maxDelayMs: 30_000,
};

t.test("which statuses are retryable", async (t) => {
  const table: [number, boolean][] = [
    [400, false], [401, false], [403, false], [404, false], [405, false], [408, true], [409, true],
    [412, true], [413, false], [422, false], [429, true], [500, true], [501, true], [502, true], [503, true], [504, true],
  ];
  for (const [status, retryable] of table) t.equal(isRetryableStatus(status), retryable, `${status}`);
});

t.test("decisions, table-driven, with a fixed random", async (t) => {
  const f = (kind: ArmFailure["kind"], extra: Partial<ArmFailure> = {}): ArmFailure => ({ kind, message: "m", ...extra });
  const cases: { name: string; failure: ArmFailure; attempt: number; elapsedMs?: number; random?: number; want: { retry: boolean; delayMs?: number } }[] = [
    { name: "404 is final at once", failure: f("notFound", { status: 404 }), attempt: 1, want: { retry: false } },
    { name: "400 is final", failure: f("terminal", { status: 400 }), attempt: 1, want: { retry: false } },
    { name: "409 starts small", failure: f("conflict", { status: 409 }), attempt: 1, random: 0.5, want: { retry: true, delayMs: 200 } },
    { name: "409 doubles", failure: f("conflict", { status: 409 }), attempt: 3, random: 0.5, want: { retry: true, delayMs: 800 } },
    { name: "jitter low end", failure: f("conflict"), attempt: 1, random: 0, want: { retry: true, delayMs: 160 } },
    { name: "jitter high end", failure: f("conflict"), attempt: 1, random: 0.999999, want: { retry: true, delayMs: 240 } },
    { name: "412 like a conflict", failure: f("precondition", { status: 412 }), attempt: 2, random: 0.5, want: { retry: true, delayMs: 400 } },
    { name: "5xx uses the transient base", failure: f("server", { status: 503 }), attempt: 1, random: 0.5, want: { retry: true, delayMs: 1000 } },
    { name: "network errors retry", failure: f("network"), attempt: 2, random: 0.5, want: { retry: true, delayMs: 2000 } },
    { name: "transient LRO failure retries", failure: f("operationFailedTransient"), attempt: 1, random: 0.5, want: { retry: true, delayMs: 1000 } },
    { name: "429 without Retry-After", failure: f("throttled", { status: 429 }), attempt: 1, random: 0.5, want: { retry: true, delayMs: 5000 } },
    { name: "Retry-After wins over backoff", failure: f("throttled", { status: 429, retryAfterMs: 17_000 }), attempt: 1, random: 0.1, want: { retry: true, delayMs: 17_000 } },
    { name: "Retry-After honoured on 409 too", failure: f("conflict", { retryAfterMs: 50 }), attempt: 4, want: { retry: true, delayMs: 50 } },
    { name: "capped by maxDelayMs", failure: f("server"), attempt: 7, random: 0.5, want: { retry: true, delayMs: 30_000 } },
    { name: "last attempt gives up", failure: f("conflict"), attempt: 8, want: { retry: false } },
    { name: "deadline stops a wait that would cross it", failure: f("server"), attempt: 2, elapsedMs: 58_500, random: 0.5, want: { retry: false } },
    { name: "Retry-After beyond the deadline gives up", failure: f("throttled", { retryAfterMs: 120_000 }), attempt: 1, want: { retry: false } },
  ];
  for (const c of cases) {
    const d = decideRetry({ failure: c.failure, attempt: c.attempt, elapsedMs: c.elapsedMs ?? 0, config, random: c.random ?? 0.5 });
    t.equal(d.retry, c.want.retry, `${c.name}: retry`);
    if (d.retry && c.want.delayMs !== undefined) t.equal(d.delayMs, c.want.delayMs, `${c.name}: delay`);
    t.ok(d.reason.length > 0, `${c.name}: has a reason`);
  }
});

t.test("durations read well in history lines", async (t) => {
  t.equal(formatDuration(1400), "1.4 s");
  t.equal(formatDuration(250), "0.25 s");
  t.equal(formatDuration(90_000), "1.5 min");
});
