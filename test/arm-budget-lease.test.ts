// A replica's slices of a shared ARM budget (src/azure/arm-budget/): how big a slice it asks for and how far apart a
// busy replica sends its takes (pure decisions), and what the budget does with slices: calls they cover go without a
// statement; a 429 voids the slice of the bucket it names; Azure's lower count is taken less the slice; the unspent
// tokens go back when the budget closes. The ledger here is the in-process one behind a shared face, counting steps.
import t from "tap";
import { ArmBudget } from "../src/azure/arm-budget/budget.ts";
import type { BucketFigures } from "../src/azure/arm-budget/figures.ts";
import { InProcessLedger } from "../src/azure/arm-budget/in-process-ledger.ts";
import type { BudgetLedger, LeaseRequest, TakeRequest } from "../src/azure/arm-budget/ledger.ts";
import {
  BUSY_CALLS,
  CALLS_PER_TAKE,
  STEADY_SPACING_MS,
  leaseWant,
  takeSpacingMs,
} from "../src/azure/arm-budget/pacing.ts";
import type { ArmCall } from "../src/azure/arm-budget/routes.ts";
import { waitFor } from "../testkit/wait-for.ts";

void t.test("leaseWant: the calls of the last lease, less the slice held, at most a share of the burst", async (t) => {
  const figures: BucketFigures = { burst: 1200, refillPerMinute: 20 };
  const cases: [recent: number, slice: number, share: number, want: number, why: string][] = [
    [0, 0, 0.25, 0, "a bucket not used lately: nothing"],
    [1, 0, 0.25, 1, "one call lately: one more expected"],
    [40, 0, 0.25, 40, "as many as lately"],
    [40, 15, 0.25, 25, "less what the slice still holds"],
    [40, 60, 0.25, 0, "a slice bigger than the demand: nothing"],
    [5000, 0, 0.25, 300, "at most a quarter of the burst"],
    [5000, 0, 0, 0, "a share of 0 leases nothing"],
  ];
  for (const [recent, slice, share, want, why] of cases)
    t.equal(leaseWant(recent, slice, figures, share), want, `${recent} calls, slice ${slice}: ${why}`);
  t.equal(leaseWant(10, 0, { burst: 12, refillPerMinute: 4 }, 0.25), 3, "a scale set's bucket: 3 of its 12");
});

void t.test(
  "takeSpacingMs: about six calls a take when busy, or when calls come steadily and fast; never a slow replica's",
  async (t) => {
    t.equal(takeSpacingMs(0, 0, 250), 0, "idle");
    t.equal(takeSpacingMs(20, BUSY_CALLS - 1, 250), 0, "a few calls a second, few outstanding: never held back");
    t.equal(
      takeSpacingMs(1000 * (CALLS_PER_TAKE / STEADY_SPACING_MS) - 1, 1, 250),
      0,
      "just too slow to fill a take within the steady spacing: none",
    );
    t.equal(
      takeSpacingMs(1000 * (CALLS_PER_TAKE / STEADY_SPACING_MS), 1, 250),
      STEADY_SPACING_MS,
      "fast enough: six calls within the steady spacing",
    );
    t.equal(takeSpacingMs(60, 1, 250), 100, "60 calls a second, answered fast: a take every 100 ms");
    t.equal(takeSpacingMs(60, 1, 80), 0, "not beyond the bound either");
    t.equal(takeSpacingMs(100, BUSY_CALLS, 250), 60, "busy, 100 calls a second to the ledger: a take every 60 ms");
    t.equal(takeSpacingMs(400, 32, 250), 15, "busier: closer");
    t.equal(takeSpacingMs(10, 32, 250), 250, "busy with slow calls: never more than the bound");
    t.equal(takeSpacingMs(0, 32, 250), 250, "no rate yet: the bound");
    t.equal(takeSpacingMs(400, 32, 0), 0, "a bound of 0 turns it off");
    t.equal(takeSpacingMs(400, 1, 0), 0, "a bound of 0 turns it off when not busy too");
  },
);

/** The in-process ledger as if shared: its takes and corrections counted as statements. */
class CountingLedger implements BudgetLedger {
  readonly inner = new InProcessLedger();
  readonly shared = true;
  statements = 0;
  readonly leases: LeaseRequest[] = [];
  readonly corrections: number[] = [];
  takeInOrder(calls: TakeRequest[][]) {
    this.statements++;
    return this.inner.takeInOrder(calls);
  }
  takeAndLease(calls: TakeRequest[][], lease: LeaseRequest) {
    this.statements++;
    this.leases.push(lease);
    return this.inner.takeAndLease(calls, lease);
  }
  correct(key: string, figures: BucketFigures, remaining: number) {
    this.statements++;
    this.corrections.push(remaining);
    return this.inner.correct(key, figures, remaining);
  }
  drain(key: string, figures: BucketFigures, blockMs: number) {
    this.statements++;
    return this.inner.drain(key, figures, blockMs);
  }
  close() {
    return this.inner.close();
  }
}

const WRITES: BucketFigures = { burst: 1200, refillPerMinute: 20 };
const call: ArmCall = {
  method: "PATCH",
  subscriptionId: "sub",
  buckets: [
    {
      key: "sub/arm:writes",
      figures: WRITES,
      label: "subscription ARM write budget",
      azureName: "x-ms-ratelimit-remaining-subscription-writes",
    },
  ],
};
const headers = (h: Record<string, string>) => ({ get: (name: string) => h[name] });

void t.test("calls a slice covers go without a statement; a 429 voids the slice", async (t) => {
  const ledger = new CountingLedger();
  // A lease longer than the test: what ends it here is the 429, not the clock.
  const budget = new ArmBudget(ledger, { leaseMs: 600_000 });
  t.teardown(() => budget.close());
  for (let i = 0; i < 40; i++) await budget.acquire(call, "task");
  t.equal(budget.counts.calls, 40);
  t.ok(budget.counts.local >= 30, `${budget.counts.local} of 40 calls served by the slice`);
  t.ok(ledger.statements <= 10, `${ledger.statements} statements for 40 calls, one at a time`);
  t.equal(budget.counts.local + ledger.leases.length, 40, "every other call took in a statement");

  await budget.answered(call, 429, headers({ "retry-after": "600" }));
  const next = budget.acquire(call, "task");
  // Refused by the ledger (the bucket drained): the slice, which still held tokens, was not spent.
  await waitFor(() => budget.counts.waited === 1, { what: "the call after the 429 to wait for the ledger" });
  t.pass("after the 429 the call asks the ledger, and waits out the Retry-After: the slice is void");
  await budget.close();
  await next.catch(() => {});
});

void t.test("Azure's lower count rides on the next take, less the slice this replica holds", async (t) => {
  const ledger = new CountingLedger();
  const budget = new ArmBudget(ledger, { leaseMs: 600_000 });
  t.teardown(() => budget.close());
  for (let i = 0; i < 10; i++) await budget.acquire(call, "task");
  t.ok(budget.counts.local > 0, "some calls were served by the slice");
  const statements = ledger.statements;
  await budget.answered(call, 200, headers({ "x-ms-ratelimit-remaining-subscription-writes": "100" }));
  t.equal(ledger.statements, statements, "no statement of its own");
  // The slice may cover the next call: one that is not covered takes, and carries the count.
  const other: ArmCall = { ...call, buckets: [...call.buckets, { ...call.buckets[0], key: "sub/other" }] };
  await budget.acquire(other, "task");
  const caps = ledger.leases.at(-1)!.caps;
  t.equal(caps.length, 1, "the next take carries it");
  t.ok(caps[0].tokens < 100, `lowered to ${caps[0].tokens}: Azure's 100 less the slice's tokens`);
});

void t.test("a budget that closes gives its slices' unspent tokens back", async (t) => {
  const ledger = new CountingLedger();
  const budget = new ArmBudget(ledger, { leaseMs: 600_000 });
  for (let i = 0; i < 10; i++) await budget.acquire(call, "task");
  await budget.close();
  const last = ledger.leases.at(-1)!;
  t.equal(last.gives.length, 1, "one bucket given back");
  const leased = ledger.leases.reduce((n, l) => n + l.wants.reduce((m, w) => m + w.tokens, 0), 0);
  t.ok(last.gives[0].tokens >= 1 && last.gives[0].tokens <= leased, `${last.gives[0].tokens} tokens back`);
});

void t.test("with the ledger in this process, no slices: every call takes from it", async (t) => {
  const budget = new ArmBudget(new InProcessLedger());
  t.teardown(() => budget.close());
  for (let i = 0; i < 10; i++) await budget.acquire(call, "task");
  t.equal(budget.counts.local, 0);
});

void t.test(
  "a replica whose calls come steadily, each answered at once, takes for several in one statement",
  async (t) => {
    // Many tasks, each with one call out at a time on a resource of its own (a poll of its operation): no slice covers
    // them, and never BUSY_CALLS outstanding. Before, every call was a statement of its own.
    const ledger = new CountingLedger();
    const budget = new ArmBudget(ledger);
    t.teardown(() => budget.close());
    const poll = (i: number): ArmCall => ({
      method: "GET",
      subscriptionId: "sub",
      buckets: [
        { ...call.buckets[0], key: `sub/GetOperation/op-${i}`, figures: { burst: 45, refillPerMinute: 15 } },
        { ...call.buckets[0], key: "sub/arm:reads", figures: { burst: 12000, refillPerMinute: 200 } },
      ],
    });
    const calls = 600;
    const done: Promise<void>[] = [];
    for (let i = 0; i < calls; i++) {
      // One call a turn, a couple of ms apart: far above the steady rate even on a slow machine.
      await new Promise((resolve) => setTimeout(resolve, 2));
      done.push(budget.acquire(poll(i), "task").then(() => budget.release()));
    }
    await Promise.all(done);
    t.equal(budget.counts.calls, calls, "every call was given");
    // One statement a call without the spacing; about a third with it on a quiet machine, and 0.55 measured at load
    // average 20 on 2 cores, where the 2 ms between calls stretch towards the spacing itself.
    t.ok(
      ledger.statements <= calls * 0.75,
      `${ledger.statements} statements for ${calls} calls (one each without spacing)`,
    );
  },
);
