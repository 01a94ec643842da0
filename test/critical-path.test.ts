// Azure's critical path of a run (bench/critical-path.ts), on small call logs made by hand: a chain, parallel
// branches, overlapping calls, long-running operations with their health probe, and where the time off the path went.
import t from "tap";
import type { CallRecord, OperationRecord } from "vmss-simulator";
import { attributeGaps, azureSpans, criticalPath, pollLags, type Span } from "../bench/critical-path.ts";

const span = (start: number, end: number, label = `${start}-${end}`): Span => ({ start, end, label });

t.test("a chain: every span, the gaps between them left out", async (t) => {
  const path = criticalPath([span(0, 10), span(15, 40), span(40, 45)]);
  t.equal(path.ms, 10 + 25 + 5);
  t.same(
    path.chain.map((s) => s.label),
    ["0-10", "15-40", "40-45"],
    "a span starting at the end of the one before follows it",
  );
});

t.test("parallel branches: the longer one, not both", async (t) => {
  // Two branches after 0-10: 10-20 then 20-30 (20 ms), or 12-50 (38 ms); then 50-60 after both.
  const path = criticalPath([span(0, 10), span(10, 20), span(20, 30), span(12, 50), span(50, 60)]);
  t.equal(path.ms, 10 + 38 + 10);
  t.same(
    path.chain.map((s) => s.label),
    ["0-10", "12-50", "50-60"],
  );
});

t.test("overlapping calls: a span that overlaps another cannot follow it", async (t) => {
  // 0-20 then 25-40 is a chain (20 + 15 = 35); 5-30 overlaps both, so it is alone (25).
  const path = criticalPath([span(5, 30), span(25, 40), span(0, 20)]);
  t.equal(path.ms, 35);
  t.same(
    path.chain.map((s) => s.label),
    ["0-20", "25-40"],
  );
  t.same(criticalPath([]), { ms: 0, chain: [] });
  t.equal(criticalPath([span(0, 100), span(10, 20), span(30, 40)]).ms, 100, "one long call beats two it overlaps");
});

const call = (c: Partial<CallRecord> & Pick<CallRecord, "method" | "path" | "time">): CallRecord => ({
  status: 200,
  ifMatch: null,
  answeredAt: c.time + 1,
  ...c,
});
const op = (o: Partial<OperationRecord> & Pick<OperationRecord, "id" | "startedAt">): OperationRecord => ({
  kind: "update",
  scaleSet: "rg/web",
  status: "Succeeded",
  vmsStarted: 0,
  ...o,
});

t.test(
  "Azure's spans: a write's operation from Azure's start to its end, its health probe, not our reads",
  async (t) => {
    const ops = [op({ id: "a", kind: "createOrUpdate", startedAt: 100, endTime: 700, vmsStarted: 2 })];
    const calls = [
      call({ method: "GET", path: "/s/rg/web", time: 90 }),
      call({
        method: "PUT",
        path: "/subscriptions/x/resourceGroups/rg/web",
        time: 99,
        answeredAt: 102,
        operationId: "a",
      }),
      call({ method: "GET", path: "/s/operations/a", time: 705 }),
      call({ method: "PUT", path: "/autoscale", time: 800, answeredAt: 810 }),
      call({ method: "PATCH", path: "/rg/web", time: 900, status: 202, origin: "autoscale" }),
      call({ method: "PUT", path: "/refused", time: 950, status: 409 }),
    ];
    const spans = azureSpans(calls, ops, { probeMs: 300 });
    t.same(
      spans.map((s) => [s.start, s.end]),
      [
        [100, 700],
        [700, 1000],
        [800, 810],
      ],
      "the create (Azure's times, not the PUT's), the probe after it, the synchronous PUT; no GET, no autoscale write, no refusal",
    );
    t.equal(criticalPath(spans).ms, 900, "create then probe: the synchronous write overlaps the probe");
    t.same(pollLags(calls, ops), [{ operation: "a", lagMs: 5 }], "noticed by the first poll after its end");
  },
);

t.test("the time off the path: Orca's, queueing, polls, reads, the rest", async (t) => {
  // One task 10-200 whose first call is at 20; an operation 20-100 on the path; a poll at 130 (answered 131), a read
  // 140-160; the task ends at 200, Orca's next step at 250, the run ends there.
  const chain = [span(20, 100)];
  const calls = [
    call({ method: "PUT", path: "/w", time: 20, answeredAt: 21 }),
    call({ method: "GET", path: "/operations/a", time: 130, answeredAt: 131 }),
    call({ method: "GET", path: "/w", time: 140, answeredAt: 160 }),
  ];
  const shares = attributeGaps(chain, calls, [{ start: 10, end: 200, label: "task" }], 0, 250);
  t.same(shares, {
    orcaMs: 10 + 50, // 0-10 before the task, 200-250 after it
    queueMs: 10, // 10-20
    pollMs: 30, // 100-130
    readMs: 1 + 20, // the poll itself, and the read
    otherMs: 9 + 40, // 131-140, 160-200
  });
  const total = Object.values(shares).reduce((x, y) => x + y, 0);
  t.equal(total + 80, 250, "with the path, every ms of the run counted once");
});
