// A held read that times out on a task still running leaves nothing behind in the waiter: every task id it keeps is
// one somebody still waits on, so its maps are bounded by the requests held, not by every task ever waited on.
import t from "tap";
import { TaskWaiter } from "../src/tasks/task-waiter.ts";
import type { Task } from "../src/tasks/task.ts";

function runningTask(id: string): Task {
  return { id, state: "running", revision: 3 } as unknown as Task;
}

t.test("a wait that times out on a running task keeps no entry for it", async (t) => {
  const store = {
    get: (id: string) => Promise.resolve(runningTask(id)),
    revisions: (ids: readonly string[]) =>
      Promise.resolve(new Map(ids.map((id) => [id, { revision: 3, state: "running" as const }]))),
  };
  const waiter = new TaskWaiter({ store, pollMs: 60_000 });
  t.teardown(() => waiter.close());
  for (const id of ["a", "b", "c"]) {
    const answered = await waiter.waitForEnd(id, 1);
    t.equal(answered?.state, "running", `${id} is answered as it is`);
  }
  const read = runningTask("d");
  await waiter.waitForEnd("d", 0, undefined, read);
  t.equal(waiter.waiters, 0, "no request is held");
  t.equal(waiter.tasksKept, 0, "no task id is kept once nobody waits on it");
});

t.test("a task waited on is kept while its request is held, and let go when it ends", async (t) => {
  let state: Task["state"] = "running";
  const store = {
    get: (id: string) => Promise.resolve({ ...runningTask(id), state }),
    revisions: (ids: readonly string[]) => Promise.resolve(new Map(ids.map((id) => [id, { revision: 3, state }]))),
  };
  const waiter = new TaskWaiter({ store, pollMs: 60_000 });
  t.teardown(() => waiter.close());
  const held = waiter.waitForEnd("x", 60_000);
  await t.resolves(waitUntilHeld(waiter));
  t.equal(waiter.tasksKept, 1, "the task held is kept");
  state = "succeeded";
  waiter.notify("x");
  t.equal((await held)?.state, "succeeded");
  t.equal(waiter.tasksKept, 0, "let go once it ended");
});

async function waitUntilHeld(waiter: TaskWaiter): Promise<void> {
  while (waiter.waiters === 0) await new Promise<void>((resolve) => setImmediate(resolve));
}
