// The journal of a task's run (src/tasks/task-journal.ts): one write per step, in order, and a refused write read
// as a lost lease. Against a store that only records, and answers when told to.
import t from "tap";
import {
  commitOf,
  interruptionOf,
  LeaseLostError,
  StoreWriteFailedError,
  TaskJournal,
} from "../src/tasks/task-journal.ts";
import type { TaskChange } from "../src/tasks/task-store.ts";
import { waitFor } from "../testkit/wait-for.ts";

/** A store whose writes wait until the test answers them, one at a time, in the order they arrived. */
class HeldStore {
  readonly calls: { op: "update" | "release"; change?: TaskChange }[] = [];
  readonly #pending: ((answer: boolean | Error) => void)[] = [];
  /** Answer every write at once with this, instead of holding it. */
  autoAnswer: boolean | undefined;

  update(_owner: string, _id: string, change: TaskChange): Promise<boolean> {
    this.calls.push({ op: "update", change: structuredClone(change) });
    if (this.autoAnswer !== undefined) return Promise.resolve(this.autoAnswer);
    return new Promise((resolve, reject) => this.#pending.push((a) => (a instanceof Error ? reject(a) : resolve(a))));
  }
  release(): Promise<void> {
    this.calls.push({ op: "release" });
    return Promise.resolve();
  }
  /** How many writes wait for an answer. */
  get held(): number {
    return this.#pending.length;
  }
  answer(a: boolean | Error): void {
    const next = this.#pending.shift();
    if (!next) throw new Error("no write is waiting");
    next(a);
  }
  updates(): TaskChange[] {
    return this.calls.filter((c) => c.op === "update").map((c) => c.change!);
  }
}

const nextTurn = () => new Promise((r) => setImmediate(r));
const statuses = (c: TaskChange) => c.history?.map((h) => h.status);

/** linesWaitMs 0: lines go at the end of the turn that logged them, so that each step below is one turn. */
function journal(store: HeldStore, running = true, linesWaitMs = 0) {
  const interrupt = new AbortController();
  return { interrupt, journal: new TaskJournal({ store, owner: "me", taskId: "t1", running, interrupt, linesWaitMs }) };
}

t.test("lines logged together go with the change that follows them: one write", async (t) => {
  const store = new HeldStore();
  store.autoAnswer = true;
  const { journal: j } = journal(store);
  j.record("P", "one");
  j.record("P", "two");
  await j.change({ armCalls: 3 });
  await nextTurn();
  t.same(
    store.updates().map((c) => ({ ...c, history: statuses(c) })),
    [{ armCalls: 3, history: ["one", "two"] }],
  );
});

t.test("lines that no change follows are written alone, once, after the burst that logged them", async (t) => {
  const store = new HeldStore();
  store.autoAnswer = true;
  const { journal: j } = journal(store);
  j.record("P", "one");
  j.record("P", "two");
  t.equal(store.calls.length, 0, "nothing written while the burst goes on");
  await nextTurn();
  j.record("P", "three");
  await nextTurn();
  t.same(store.updates().map(statuses), [["one", "two"], ["three"]]);
  t.same(
    store.updates().map((c) => Object.keys(c)),
    [["history"], ["history"]],
    "the lines and nothing else",
  );
});

t.test(
  "lines wait linesWaitMs for a change: the opening lines and the line before a write share its checkpoint's commit",
  async (t) => {
    const store = new HeldStore();
    store.autoAnswer = true;
    const { journal: j } = journal(store, false, 60_000);
    j.record("INIT", "Initializing");
    await nextTurn();
    j.record("P", "attempt 1/8: set capacity 1 → 2");
    await nextTurn();
    t.equal(store.calls.length, 0, "the lines wait for a change");
    await j.change({ checkpoint: { operationIndex: 0, attempt: 1 } });
    t.same(
      store.updates().map((c) => ({ ...c, history: statuses(c) })),
      [
        {
          state: "running",
          checkpoint: { operationIndex: 0, attempt: 1 },
          history: ["Initializing", "attempt 1/8: set capacity 1 → 2"],
        },
      ],
    );
  },
);

t.test("lines that no change follows within linesWaitMs are written alone", async (t) => {
  const store = new HeldStore();
  store.autoAnswer = true;
  const { journal: j } = journal(store, true, 5);
  j.record("P", "one");
  await waitFor(() => store.calls.length === 1, { what: "the lines written alone" });
  t.same(store.updates().map(statuses), [["one"]]);
});

t.test("a recorded change goes with the next write, the newer change winning where both say something", async (t) => {
  const store = new HeldStore();
  store.autoAnswer = true;
  const { journal: j } = journal(store, true, 60_000);
  j.recordChange({ checkpoint: { operationIndex: 0, attempt: 1 }, armCalls: 4 });
  j.record("P", "Azure confirmed");
  await nextTurn();
  t.equal(store.calls.length, 0, "nothing written for it alone");
  await j.change({ checkpoint: null, armCalls: 5, state: "succeeded" });
  t.same(
    store.updates().map((c) => ({ ...c, history: statuses(c) })),
    [{ checkpoint: null, armCalls: 5, state: "succeeded", history: ["Azure confirmed"] }],
  );
});

t.test(
  "a recorded change that no write follows is written alone within linesWaitMs; on shutdown, with the ARM calls",
  async (t) => {
    const store = new HeldStore();
    store.autoAnswer = true;
    const alone = journal(store, true, 5).journal;
    alone.recordChange({ checkpoint: { operationIndex: 0, attempt: 1 }, armCalls: 4 });
    await waitFor(() => store.calls.length === 1, { what: "the recorded change written alone" });
    t.same(store.updates(), [{ checkpoint: { operationIndex: 0, attempt: 1 }, armCalls: 4 }]);

    const shutdown = new HeldStore();
    shutdown.autoAnswer = true;
    const j = journal(shutdown, true, 60_000).journal;
    j.recordChange({ checkpoint: { operationIndex: 0, attempt: 2 }, armCalls: 4 });
    await j.interrupted("shutdown", 6);
    t.same(
      shutdown.calls.map((c) => c.change ?? c.op),
      [{ checkpoint: { operationIndex: 0, attempt: 2 }, armCalls: 6 }, "release"],
    );
  },
);

t.test("writes reach the store one at a time, in the order they were asked for", async (t) => {
  const store = new HeldStore();
  const { journal: j } = journal(store);
  j.record("P", "before the checkpoint");
  const first = j.change({ checkpoint: { operationIndex: 0, attempt: 1 } });
  const second = j.change({ operationIndex: 1 });
  j.record("P", "logged in the same turn");
  await nextTurn();
  t.equal(store.held, 1, "the second waits for the first");
  j.record("P", "logged while the first was written");
  store.answer(true);
  await first;
  await nextTurn();
  t.equal(store.held, 1);
  store.answer(true);
  await second;
  await nextTurn();
  t.same(
    store.updates().map((c) => ({ ...c, history: statuses(c) })),
    [
      // The lines are taken when a write leaves for the store, not when it was asked for.
      { checkpoint: { operationIndex: 0, attempt: 1 }, history: ["before the checkpoint", "logged in the same turn"] },
      { operationIndex: 1, history: ["logged while the first was written"] },
    ],
  );
  t.equal(store.held, 0, "the lines went with the second change: no write of their own");
});

t.test("the first write of a queued task marks it running, until one is accepted", async (t) => {
  const store = new HeldStore();
  const { journal: j, interrupt } = journal(store, false);
  const refused = j.change({ armCalls: 1 });
  await nextTurn();
  store.answer(false);
  await t.rejects(refused, LeaseLostError);
  t.ok(interrupt.signal.aborted);
  store.autoAnswer = true;
  await j.change({ armCalls: 2 });
  await j.change({ armCalls: 3 });
  t.same(store.updates(), [{ state: "running", armCalls: 1 }, { state: "running", armCalls: 2 }, { armCalls: 3 }]);
});

t.test(
  "commitOf: a change that ends a queued task keeps its state; an empty change with no lines is no write",
  async (t) => {
    t.same(commitOf({ state: "failed", armCalls: 1 }, [], false), { state: "failed", armCalls: 1 });
    t.same(commitOf({}, [], true), {});
    t.same(commitOf({}, [], false), { state: "running" });
    const lines = [{ phase: "P", status: "s", timeMs: 1 }];
    t.same(commitOf({ armCalls: 1 }, lines, true), { armCalls: 1, history: lines });
  },
);

t.test("nothing to write: no store call", async (t) => {
  const store = new HeldStore();
  const { journal: j } = journal(store);
  await j.change({});
  t.same(store.calls, []);
});

t.test("a refused change throws LeaseLostError and interrupts the run as a lost lease", async (t) => {
  const store = new HeldStore();
  store.autoAnswer = false;
  const { journal: j, interrupt } = journal(store);
  const err = await j.change({ armCalls: 1 }).catch((e) => e);
  t.ok(err instanceof LeaseLostError);
  t.ok(interrupt.signal.reason instanceof LeaseLostError);
  t.equal(interruptionOf(interrupt.signal, err), "leaseLost");
});

t.test("a refused or failed write of lines alone interrupts the run as a lost lease", async (t) => {
  for (const answer of [false, new Error("connection reset")]) {
    const store = new HeldStore();
    const { journal: j, interrupt } = journal(store);
    j.record("P", "alone");
    await nextTurn();
    store.answer(answer);
    await nextTurn();
    t.ok(interrupt.signal.reason instanceof LeaseLostError, String(answer));
  }
});

t.test("a store error on a change is the caller's, not a lost lease", async (t) => {
  const store = new HeldStore();
  const { journal: j, interrupt } = journal(store);
  const p = j.change({ armCalls: 1 });
  await nextTurn();
  store.answer(new Error("disk full"));
  await t.rejects(p, /disk full/);
  t.notOk(interrupt.signal.aborted);
  // The chain goes on after an error.
  store.autoAnswer = true;
  await j.change({ armCalls: 2 });
  t.same(store.updates().at(-1), { armCalls: 2 });
});

t.test(
  "shutdown: the writes under way end first (the lines' own included), then the ARM calls, then the lease goes back",
  async (t) => {
    const store = new HeldStore();
    const { journal: j } = journal(store);
    const checkpoint = j.change({ checkpoint: { operationIndex: 0, attempt: 2 } }).catch(() => {});
    await nextTurn();
    j.record("P", "logged during the write");
    await nextTurn();
    const done = j.interrupted("shutdown", 7);
    store.answer(true);
    await checkpoint;
    while (store.held === 0) await nextTurn();
    store.answer(true);
    while (store.held === 0) await nextTurn();
    store.answer(true);
    await done;
    t.same(
      store.calls.map((c) => (c.change ? { ...c.change, history: statuses(c.change) } : c.op)),
      [
        { checkpoint: { operationIndex: 0, attempt: 2 }, history: undefined },
        { history: ["logged during the write"] },
        { armCalls: 7, history: undefined },
        "release",
      ],
    );
  },
);

t.test("shutdown in the turn that logged lines: they go with the ARM calls before the lease goes back", async (t) => {
  const store = new HeldStore();
  store.autoAnswer = true;
  const { journal: j } = journal(store);
  j.record("P", "the last line");
  await j.interrupted("shutdown", 7);
  t.same(
    store.calls.map((c) => (c.change ? { ...c.change, history: statuses(c.change) } : c.op)),
    [{ armCalls: 7, history: ["the last line"] }, "release"],
  );
});

t.test("a lost lease: the write under way ends, and nothing more is written", async (t) => {
  const store = new HeldStore();
  const { journal: j } = journal(store);
  const p = j.change({ armCalls: 1 }).catch(() => {});
  j.record("P", "never written");
  const done = j.interrupted("leaseLost", 9);
  await nextTurn();
  store.answer(false);
  await p;
  await done;
  t.same(
    store.calls.map((c) => c.op),
    ["update"],
  );
});

const refused = () => Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });

t.test(
  "a store outage on a write stops the run; the task is handed back, lines and all, once the store answers",
  async (t) => {
    const store = new HeldStore();
    const interrupt = new AbortController();
    const j = new TaskJournal({
      store,
      owner: "me",
      taskId: "t1",
      running: true,
      interrupt,
      handBackWithinMs: 60_000,
      handBackEveryMs: 1,
      linesWaitMs: 0,
    });
    j.record("P", "Done: resized");
    const p = j.change({ armCalls: 4 });
    await nextTurn();
    store.answer(refused());
    const err = await p.catch((e) => e);
    t.ok(err instanceof StoreWriteFailedError, "the change throws StoreWriteFailedError");
    t.equal(err.reason, "ECONNREFUSED");
    t.equal(
      interruptionOf(interrupt.signal, err),
      "storeFailed",
      "and the run is interrupted as such, not as a lost lease or a bug",
    );

    const handedBack = j.interrupted("storeFailed", 5);
    // The store is still down for the first tries of the hand-back; then it answers.
    for (let i = 0; i < 2; i++) {
      while (store.held === 0) await nextTurn();
      store.answer(refused());
    }
    while (store.held === 0) await nextTurn();
    store.answer(true);
    await handedBack;
    const last = store.updates().at(-1)!;
    t.equal(last.armCalls, 5);
    t.match(
      statuses(last),
      ["Done: resized", /^The task store could not be written \(ECONNREFUSED\); the task was handed back/],
      "the line that was not stored, then what happened",
    );
    t.equal(store.calls.at(-1)!.op, "release", "then the lease is given back");
  },
);

t.test("a store outage on lines alone stops the run the same way", async (t) => {
  const store = new HeldStore();
  const { journal: j, interrupt } = journal(store);
  j.record("P", "alone");
  await nextTurn();
  store.answer(refused());
  await nextTurn();
  t.ok(interrupt.signal.reason instanceof StoreWriteFailedError);
});

t.test("interruptionOf tells the shutdown from a lost lease, and both from an error", async (t) => {
  const running = new AbortController();
  t.equal(interruptionOf(running.signal, new Error("bug")), undefined, "not interrupted: an error");
  const shutdown = new AbortController();
  shutdown.abort(new Error("shutting down"));
  t.equal(interruptionOf(shutdown.signal, new Error("aborted")), "shutdown");
  const lost = new AbortController();
  lost.abort(new LeaseLostError("lease on t1 lost"));
  t.equal(interruptionOf(lost.signal, new Error("aborted")), "leaseLost");
  // The lease lost during the shutdown: the shutdown's hand-over still runs (the store refuses what it must).
  t.equal(interruptionOf(shutdown.signal, new LeaseLostError("lease on t1 lost")), "shutdown");
});
