// The task's states and moves (src/tasks/task-state.ts): one table, which every store enforces (the contract suite,
// test/task-store-suite.ts, refuses a move on all three; the SQL stores require statesBefore() in their UPDATE).
import t from "tap";
import {
  CLAIMABLE_STATES,
  canMove,
  FINISHED_STATES,
  sqlStateList,
  statesBefore,
  TASK_STATES,
  TRANSITIONS,
} from "../src/tasks/task-state.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";

t.test("the table", async (t) => {
  t.same(Object.keys(TRANSITIONS).sort(), [...TASK_STATES].sort(), "every state has a row");
  t.same([...FINISHED_STATES].sort(), ["canceled", "failed", "succeeded"]);
  t.same(CLAIMABLE_STATES, ["queued", "running"]);
  for (const s of ["succeeded", "canceled"] as const) t.same(TRANSITIONS[s], [], `${s} is for good`);
  t.same(TRANSITIONS.failed, ["queued"], "a failure goes back only to the queue (resume)");
  t.notOk(canMove("canceled", "running"), "a canceled task never runs again");
  t.notOk(canMove("running", "queued"), "a running task is not queued again (its owner changes, not its state)");
  t.ok(canMove("queued", "canceled"));
  t.equal(sqlStateList(FINISHED_STATES), "('succeeded', 'failed', 'canceled')");
  t.same(statesBefore("queued"), ["queued", "failed"], "what an UPDATE to queued requires");
  t.same(statesBefore("running"), ["queued", "running"]);
  t.same(statesBefore("canceled"), ["queued", "running", "canceled"]);
});

t.test("the memory store refuses a move the table does not have", async (t) => {
  const store = new MemoryTaskStore();
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  await store.claim("me", 60_000, 1);
  t.ok(await store.update("me", task.id, { state: "running" }));
  await t.rejects(store.update("me", task.id, { state: "queued" }), /no move from running to queued/);
  t.equal((await store.get(task.id))!.state, "running", "and changes nothing");
});
