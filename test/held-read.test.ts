// What a held read (?wait=) may take and what it answers once woken (src/tasks/held-read.ts): a table, no clock, no
// store. test/held-read-deadline.test.ts holds the same on a real service whose store goes silent mid-hold.
import t from "tap";
import { afterWake, heldReadBounds, type AfterWake, type WakeState } from "../src/tasks/held-read.ts";

t.test("the bounds: the deadline the longer of the hold and the request's, the hold within it", async (t) => {
  // Arrived at 1 s, the hold starting 50 ms later.
  t.same(heldReadBounds(1000, 3000, 1000, 1050), { holdEndsAtMs: 2050, deadlineAtMs: 4000, freshForMs: 3000 });
  t.same(heldReadBounds(1000, 3000, 3000, 1050), { holdEndsAtMs: 4000, deadlineAtMs: 4000, freshForMs: 3000 });
  t.same(heldReadBounds(1000, 3000, 60_000, 1050), { holdEndsAtMs: 61_000, deadlineAtMs: 61_000, freshForMs: 3000 });
  // Queued 2.5 s on a held-up event loop: the hold ends at the deadline, shorter than asked.
  t.same(heldReadBounds(1000, 3000, 1000, 3500), { holdEndsAtMs: 4000, deadlineAtMs: 4000, freshForMs: 3000 });
});

t.test("after a wake: the task as confirmed, a read within what is left, or 503", async (t) => {
  // The request deadline is 3 s; the hold was over at 10 s.
  const at = (s: Partial<WakeState>): WakeState => ({
    nowMs: 10_000,
    deadlineAtMs: 10_000,
    confirmedAtMs: 9_500,
    freshForMs: 3000,
    moved: false,
    ...s,
  });
  const table: [string, WakeState, AfterWake][] = [
    ["confirmed by the poll 0.5 s ago, no time left: as confirmed", at({}), { next: "confirmed" }],
    ["confirmed 0.5 s ago, time left: as confirmed, no read", at({ deadlineAtMs: 12_000 }), { next: "confirmed" }],
    [
      "confirmed 4 s ago (the store silent since), time left: read within it",
      at({ confirmedAtMs: 6000, deadlineAtMs: 11_500 }),
      { next: "read", withinMs: 1500 },
    ],
    ["confirmed 4 s ago, no time left: 503", at({ confirmedAtMs: 6000 }), { next: "unavailable" }],
    ["confirmed exactly the span ago: stale", at({ confirmedAtMs: 7000 }), { next: "unavailable" }],
    [
      "past the deadline (a held-up loop), stale: 503",
      at({ nowMs: 10_400, confirmedAtMs: 6000 }),
      { next: "unavailable" },
    ],
    [
      "moved (this replica ended it), time left: read, however fresh",
      at({ moved: true, deadlineAtMs: 10_200 }),
      { next: "read", withinMs: 200 },
    ],
    ["moved, no time left, fresh: the state it had, as confirmed", at({ moved: true }), { next: "confirmed" }],
    ["moved, no time left, stale: 503", at({ moved: true, confirmedAtMs: 6000 }), { next: "unavailable" }],
    [
      "no deadline (none configured), nothing fresh: read, the call's own bound",
      at({ deadlineAtMs: undefined, freshForMs: 0 }),
      { next: "read", withinMs: Infinity },
    ],
  ];
  for (const [what, state, expected] of table) t.same(afterWake(state), expected, what);
});
