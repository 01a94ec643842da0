// The task's states and moves (src/tasks/task-state.ts): one table, and the memory store, the reference for the
// store contract, refuses a move the table does not have.
import t from "tap";
import { CLAIMABLE_STATES, canMove, FINISHED_STATES, sqlStateList, TASK_STATES, TRANSITIONS } from "../src/tasks/task-state.ts";
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
});

t.test("the memory store refuses a move the table does not have", async (t) => {
  const store = new MemoryTaskStore();
  const { task } = await store.create({ operations: [{ name: "resizeServerGroup", description: {} }] });
  await store.claim("me", 60_000, 1);
  t.ok(await store.update("me", task.id, { state: "running" }));
  await t.rejects(store.update("me", task.id, { state: "queued" }), /no move from running to queued/);
  t.equal((await store.get(task.id))!.state, "running", "and changes nothing");
});
