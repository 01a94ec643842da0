// The decisions of a task's run (src/tasks/task-outcome.ts): how an operation ended, which checkpoints are worth a
// write, whether a taken name is chosen again, and what the task writes after each operation.
import t from "tap";
import { RefusalError } from "../src/azure/arm-failure.ts";
import { CanceledOnRequestError, GaveUpError } from "../src/azure/harness/failures.ts";
import { NAME_TAKEN } from "../src/operations/operation.ts";
import type { OperationResult } from "../src/operations/server-group-state.ts";
import {
  asOperationFailure,
  changeAfter,
  changeWhenAllDone,
  chooseNameAgain,
  endAfter,
  MAX_NAMINGS,
  openingLine,
  outcomeOfError,
  CheckpointWrites,
  unfinishedLine,
  type TaskEnd,
} from "../src/tasks/task-outcome.ts";
import { canMove, FINISHED_STATES } from "../src/tasks/task-state.ts";

const result = {
  type: "serverGroup",
  account: "demo",
  region: "eastus",
  resourceGroup: "demo-rg",
  serverGroupName: "web-prod-v001",
  capacity: { min: 0, max: 2, desired: 1 },
  disabled: false,
} as OperationResult;
const resize = { name: "resizeServerGroup", description: {} };
const disable = { name: "disableServerGroup", description: {} };

t.test("an error as an outcome: canceled, Azure's failure (with what Azure lists), or an error of ours", async (t) => {
  const canceled = new CanceledOnRequestError("canceled before writing: x", []);
  t.same(outcomeOfError(canceled, "resizeServerGroup"), { kind: "canceled", error: canceled });

  const failure = { kind: "throttled" as const, code: "TooManyRequests", message: "slow down" };
  t.same(outcomeOfError(new GaveUpError("throttled: slow down", failure, 3, result), "resizeServerGroup"), {
    kind: "failed",
    failure: {
      operation: "resizeServerGroup",
      code: "TooManyRequests",
      message: "throttled: slow down",
      retryable: true,
    },
    result,
  });
  const noCode = outcomeOfError(new GaveUpError("gave up", { kind: "terminal", message: "m" }, 1), "x");
  t.same(
    noCode,
    { kind: "failed", failure: { operation: "x", code: "terminal", message: "gave up", retryable: false } },
    "the kind stands in for a missing code; no result, no internal",
  );

  t.same(outcomeOfError(new TypeError("oops"), "x"), {
    kind: "failed",
    failure: { operation: "x", code: "TypeError", message: "oops", retryable: false },
    internal: true,
  });
});

t.test("the line that closes an operation that did not succeed", async (t) => {
  const task = { operations: [resize, disable], operationIndex: 0 };
  t.equal(
    unfinishedLine(outcomeOfError(new Error("unknown operation x"), "x"), task, 0),
    "Failed: unknown operation x",
  );
  t.equal(
    unfinishedLine(
      { kind: "canceled", error: new CanceledOnRequestError("canceled before disableServerGroup", []) },
      task,
      1,
    ),
    "Canceled on request, before disableServerGroup. Done: resizeServerGroup (operation 1). Not done: disableServerGroup (operation 2)",
  );
});

t.test("the first line of a run", async (t) => {
  t.same(openingLine({ state: "queued", operations: [resize], operationIndex: 0 }, "r1"), {
    phase: "INIT",
    status: "Initializing operation: resizeServerGroup",
  });
  t.same(openingLine({ state: "queued", operations: [resize, disable], operationIndex: 0 }, "r1"), {
    phase: "INIT",
    status: "Initializing 2 operations: resizeServerGroup, disableServerGroup",
  });
  t.same(openingLine({ state: "running", operations: [resize, disable], operationIndex: 1 }, "r2"), {
    phase: "DISABLE_SERVER_GROUP",
    status: "Resumed by replica r2: the replica that ran it stopped; continuing from its checkpoint",
  });
  t.equal(
    openingLine({ state: "running", operations: [resize], operationIndex: 1 }, "r2").phase,
    "ORCHESTRATION",
    "every operation done: the orchestration's",
  );
});

t.test(
  "a taken name is chosen again, a bounded number of times, only by an operation that names its scale set",
  async (t) => {
    const taken = new GaveUpError("taken", { kind: "terminal", code: NAME_TAKEN, message: "taken" }, 1);
    const other = new GaveUpError("no", { kind: "terminal", code: "BadRequest", message: "no" }, 1);
    t.ok(chooseNameAgain(taken, true, 1));
    t.ok(chooseNameAgain(taken, true, MAX_NAMINGS - 1));
    t.notOk(chooseNameAgain(taken, true, MAX_NAMINGS), "the last naming's failure stands");
    t.notOk(chooseNameAgain(taken, false, 1), "an operation without prepare cannot choose another name");
    t.notOk(chooseNameAgain(other, true, 1));
    t.notOk(chooseNameAgain(new RefusalError(NAME_TAKEN, "taken"), true, 1), "only the harness's verdict counts");
  },
);

t.test(
  "a failure while choosing the scale set is Azure's, retryable as the policy says; a bug stays a bug",
  async (t) => {
    const wrapped = (() => {
      try {
        asOperationFailure(new RefusalError("Throttled", "slow down", "throttled"));
      } catch (err) {
        return err;
      }
    })() as GaveUpError;
    t.ok(wrapped instanceof GaveUpError);
    t.equal(wrapped.failure.code, "Throttled");
    t.equal(wrapped.retryable, true);
    const bug = new TypeError("undefined is not a function");
    t.throws(() => asOperationFailure(bug), bug);
  },
);

t.test("checkpoints: only one that changes what a process taking over would find is written", async (t) => {
  const fresh = new CheckpointWrites(undefined);
  t.notOk(
    fresh.changedBy({ operationIndex: 0, attempt: 1 }),
    "attempt 1 with nothing in flight is what no checkpoint means",
  );
  const inFlight = { step: { kind: "update" as const, summary: "set capacity 1 → 2" }, poller: "p" };
  t.ok(fresh.changedBy({ operationIndex: 0, attempt: 1, inFlight }));
  t.notOk(fresh.changedBy({ operationIndex: 0, attempt: 1, inFlight }), "the same again");
  t.ok(fresh.changedBy({ operationIndex: 0, attempt: 1 }), "the write ended: nothing in flight any more");
  t.ok(fresh.changedBy({ operationIndex: 0, attempt: 2 }));
  fresh.cleared();
  t.notOk(fresh.changedBy({ operationIndex: 1, attempt: 1 }), "the next operation starts where no checkpoint means");

  const resumed = new CheckpointWrites({ operationIndex: 0, attempt: 3 });
  t.notOk(resumed.changedBy({ operationIndex: 0, attempt: 3 }), "what the store holds already");
  t.ok(resumed.changedBy({ operationIndex: 0, attempt: 1 }), "attempt 1 is news when the store holds attempt 3");
});

t.test("checkpoints: the end of a write in flight, and nothing else, goes with the next write", async (t) => {
  const inFlight = { step: { kind: "update" as const, summary: "set capacity 1 → 2" }, poller: "p" };
  const stored = new CheckpointWrites(undefined);
  t.equal(
    stored.writeOf({ operationIndex: 0, attempt: 1, inFlight }),
    "now",
    "a write Azure accepted: at once, before anything else happens",
  );
  t.equal(
    stored.writeOf({ operationIndex: 0, attempt: 1 }),
    "withNextWrite",
    "it ended: following it again would send nothing",
  );
  t.equal(stored.writeOf({ operationIndex: 0, attempt: 1 }), "unchanged", "taken as stored");
  t.equal(stored.writeOf({ operationIndex: 0, attempt: 1, inFlight }), "now");
  t.equal(stored.writeOf({ operationIndex: 0, attempt: 2 }), "now", "a new attempt: at once");
  t.equal(stored.writeOf({ operationIndex: 0, attempt: 2, inFlight }), "now");
  t.equal(
    stored.writeOf({ operationIndex: 0, attempt: 2, planner: { surge: false } }),
    "now",
    "what the planner learned: at once",
  );
  const resumed = new CheckpointWrites({ operationIndex: 1, attempt: 3, inFlight });
  t.equal(resumed.writeOf({ operationIndex: 1, attempt: 3 }), "withNextWrite", "a resumed write that ended");
});

t.test("after an operation: the next one, or the end", async (t) => {
  const failure = { operation: "resizeServerGroup", code: "BadRequest", message: "no", retryable: false };
  t.equal(endAfter({ kind: "done", result }, false), undefined);
  t.same(endAfter({ kind: "done", result }, true), { state: "succeeded" });
  t.same(endAfter({ kind: "failed", failure }, false), { state: "failed", failure });
  t.same(endAfter({ kind: "canceled", error: new CanceledOnRequestError("canceled before x", []) }, false), {
    state: "canceled",
  });

  const progress = { resultObjects: [result], armCalls: 12 };
  t.same(
    changeAfter(0, undefined, progress, 5),
    { resultObjects: [result], armCalls: 12, checkpoint: null, operationIndex: 1 },
    "on to the next: no state, no end",
  );
  t.same(
    changeAfter(1, { state: "succeeded" }, progress, 5),
    {
      resultObjects: [result],
      armCalls: 12,
      checkpoint: null,
      operationIndex: 2,
      state: "succeeded",
      finishedAtMs: 5,
    },
    "the result and the end in one commit",
  );
  t.same(
    changeAfter(1, { state: "failed", failure }, progress, 5),
    {
      resultObjects: [result],
      armCalls: 12,
      checkpoint: null,
      state: "failed",
      failure,
      finishedAtMs: 5,
    },
    "a failed operation stays the current one",
  );
  t.same(changeAfter(1, { state: "canceled" }, progress, 5), {
    resultObjects: [result],
    armCalls: 12,
    checkpoint: null,
    state: "canceled",
    finishedAtMs: 5,
  });
  t.same(changeWhenAllDone(12, 5), { state: "succeeded", finishedAtMs: 5, armCalls: 12 });
});

t.test(
  "every end is a finished state the task may move to from queued (its first write) and from running",
  async (t) => {
    const ends: TaskEnd[] = [
      { state: "succeeded" },
      { state: "failed", failure: { operation: "x", code: "c", message: "m", retryable: true } },
      { state: "canceled" },
    ];
    t.same(ends.map((e) => e.state).sort(), [...FINISHED_STATES].sort(), "one end per finished state");
    for (const end of ends) {
      const { state } = changeAfter(0, end, { resultObjects: [], armCalls: 0 }, 1);
      t.ok(state && FINISHED_STATES.has(state), `${end.state}: a finished state`);
      t.ok(canMove("queued", state!) && canMove("running", state!), `${end.state}: a move of the table`);
    }
    t.equal(
      changeAfter(0, undefined, { resultObjects: [], armCalls: 0 }, 1).state,
      undefined,
      "going on moves nothing",
    );
    const allDone = changeWhenAllDone(0, 1).state!;
    t.ok(canMove("queued", allDone) && canMove("running", allDone));
  },
);
