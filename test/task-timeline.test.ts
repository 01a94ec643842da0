// The status page's reading of a history (src/ui/task-timeline.ts): the attempt in the harness's own count, what a
// task waits for and until when, the step of a list or of a rolling upgrade, the line that tells the outcome, and the
// segments of its timeline. The lines are written as execute-op.ts, retry-policy.ts and rolling-upgrade.ts write them.
import t from "tap";
import { taskTimeline } from "../src/ui/task-timeline.ts";
import type { Task } from "../src/tasks/task.ts";

const T0 = 1_000_000;
type Input = Parameters<typeof taskTimeline>[0];
const op = (name: string) =>
  ({
    name,
    description: { credentials: "demo", serverGroupName: "web-prod-v001" },
  }) as unknown as Task["operations"][number];
function task(lines: [number, string, string][], extra: Partial<Input> = {}): Input {
  return {
    state: "running",
    operations: [op("resizeServerGroup")],
    operationIndex: 0,
    createdAtMs: T0,
    history: lines.map(([at, phase, status]) => ({ phase, status, timeMs: T0 + at })),
    ...extra,
  };
}
const start: [number, string, string][] = [
  [0, "INIT", "Initializing operation: resizeServerGroup"],
  [
    10,
    "RESIZE_SERVER_GROUP",
    "Starting: resize web-prod-v001 to 4 (account demo, region eastus, resource group demo-rg)",
  ],
  [20, "RESIZE_SERVER_GROUP", 'attempt 1/8: set capacity 3 → 4 (min 1, max 8) (If-Match "1")'],
];

t.test("in a backoff: the attempt that failed, not the next one; waiting until the backoff ends", async (t) => {
  const view = taskTimeline(
    task([...start, [30, "RESIZE_SERVER_GROUP", "attempt 1/8: 500 InternalServerError, retrying in 4.4 s"]]),
    T0 + 1000,
  );
  t.same(view.attempt, { number: 1, of: 8 }, "the history's last attempt line says 1/8, and so does the page");
  t.equal(view.retrying, true);
  t.same(view.waiting, { for: "the backoff before attempt 2", sinceMs: T0 + 30, untilMs: T0 + 30 + 4400 });
  t.match(view.segments, [
    { kind: "queued", fromMs: T0, toMs: T0 + 10 },
    { kind: "attempt", attempt: 1, fromMs: T0 + 10, toMs: T0 + 30, ended: "retry" },
    { kind: "write", fromMs: T0 + 20, toMs: T0 + 30 },
    { kind: "backoff", fromMs: T0 + 30, toMs: T0 + 4430 },
  ]);
});

t.test("the backoff over, before the next attempt writes a line: the next attempt runs", async (t) => {
  const view = taskTimeline(
    task([...start, [30, "RESIZE_SERVER_GROUP", "attempt 1/8: 500 InternalServerError, retrying in 1 min"]]),
    T0 + 61_000,
  );
  t.same(view.attempt, { number: 2, of: 8 });
  t.equal(view.waiting, undefined);
});

t.test("a write under way: waiting for Azure to carry out the write the checkpoint holds", async (t) => {
  const lines: [number, string, string][] = [
    ...start,
    [30, "RESIZE_SERVER_GROUP", "attempt 1/8: 500 InternalServerError, retrying in 0.03 s"],
    [100, "RESIZE_SERVER_GROUP", 'attempt 2/8: set capacity 3 → 4 (min 1, max 8) (If-Match "1")'],
  ];
  const view = taskTimeline(
    task(lines, {
      checkpoint: {
        operationIndex: 0,
        attempt: 2,
        inFlight: { step: { kind: "update", summary: "set capacity 3 → 4 (min 1, max 8)" }, poller: "{}" },
      },
    }),
    T0 + 2000,
  );
  t.same(view.attempt, { number: 2, of: 8 });
  t.equal(view.retrying, false);
  t.same(view.waiting, { for: "Azure to carry out: set capacity 3 → 4 (min 1, max 8)", sinceMs: T0 + 100 });
  const attempt2 = view.segments.find((s) => s.kind === "attempt" && s.attempt === 2);
  t.equal(attempt2?.fromMs, T0 + 60, "attempt 2 began when its backoff ended");
  t.equal(attempt2?.toMs, undefined, "and goes on");
});

t.test("another writer: waiting for it, since when", async (t) => {
  const view = taskTimeline(
    task([
      ...start.slice(0, 2),
      [
        20,
        "RESIZE_SERVER_GROUP",
        "attempt 1/8: web-prod-v001 is Updating (another write in flight); waiting for it to end before planning",
      ],
    ]),
    T0 + 5000,
  );
  t.same(view.waiting, { for: "another write on web-prod-v001 to end (it is Updating)", sinceMs: T0 + 20 });
  t.match(view.segments.at(-1), { kind: "wait", toMs: undefined });
});

t.test("succeeded: the outcome line, not 'Orchestration completed.'", async (t) => {
  const lines: [number, string, string][] = [
    ...start,
    [900, "RESIZE_SERVER_GROUP", "Done: web-prod-v001 has capacity 4 (min 1, max 8), as Azure confirmed"],
    [901, "ORCHESTRATION", "Orchestration completed."],
  ];
  const view = taskTimeline(task(lines, { state: "succeeded", finishedAtMs: T0 + 901 }), T0 + 5000);
  t.equal(view.summary, "Done: web-prod-v001 has capacity 4 (min 1, max 8), as Azure confirmed");
  t.equal(view.waiting, undefined);
  t.ok(
    view.segments.every((s) => s.toMs !== undefined),
    "every segment of a finished task has ended",
  );
});

t.test("failed: the last attempt is the failed one", async (t) => {
  const lines: [number, string, string][] = [
    ...start.slice(0, 2),
    [20, "RESIZE_SERVER_GROUP", "attempt 3/3: 503 ServiceUnavailable: Injected; gave up after 3 attempts"],
    [21, "RESIZE_SERVER_GROUP", "Failed: 503 ServiceUnavailable: Injected"],
  ];
  const view = taskTimeline(task(lines, { state: "failed", finishedAtMs: T0 + 21 }), T0 + 5000);
  t.same(view.attempt, { number: 3, of: 3 });
  t.match(
    view.segments.find((s) => s.kind === "attempt"),
    { ended: "failed", toMs: T0 + 21 },
  );
  t.equal(view.summary, "Failed: 503 ServiceUnavailable: Injected");
});

t.test("steps: operation k of n in a list; batch k of n in a rolling upgrade", async (t) => {
  const list = taskTimeline(
    task(start, {
      operations: [op("disableServerGroup"), op("resizeServerGroup"), op("destroyServerGroup")],
      operationIndex: 1,
    }),
    T0,
  );
  t.same(list.step, { number: 2, of: 3, unit: "operation", name: "resizeServerGroup" });
  const upgrade = taskTimeline(
    task(
      [
        ...start.slice(0, 2),
        [
          20,
          "ROLLING_UPGRADE",
          "attempt 1/8: batch 2/5: waiting for the new instance(s) to be running and healthy in the load balancer's pool",
        ],
      ],
      { operations: [op("rollingUpgrade")] },
    ),
    T0 + 100,
  );
  t.same(upgrade.step, { number: 2, of: 5, unit: "batch" });
  t.same(upgrade.waiting, {
    for: "the new instance(s) to be running and healthy in the load balancer's pool",
    sinceMs: T0 + 20,
  });
});

t.test("queued: waiting for a replica, no attempt yet", async (t) => {
  const view = taskTimeline(
    task([[0, "INIT", "Initializing operation: resizeServerGroup"]], { state: "queued" }),
    T0 + 100,
  );
  t.equal(view.attempt, undefined);
  t.match(view.waiting, { for: /a replica to take it/, sinceMs: T0 });
  t.same(view.segments, [{ kind: "queued", fromMs: T0, label: "queued" }]);
});
