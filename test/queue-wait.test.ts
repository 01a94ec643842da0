// The time a task waited in the queue, as logged and counted when it starts, is read on the store's clock alone: a
// replica whose clock runs ahead of the database's does not add its skew.
import t from "tap";
import { queueWaitMs } from "../src/tasks/task-run.ts";

const LEASE = 30_000;

t.test("from the task's creation to its claim, both on the store's clock", async (t) => {
  const created = 1_000_000;
  const claimedByStore = created + 2_000;
  const task = { createdAtMs: created, leaseExpiresAtMs: claimedByStore + LEASE };
  t.equal(queueWaitMs(task, LEASE, claimedByStore), 2_000, "a replica on the database's clock");
  t.equal(queueWaitMs(task, LEASE, claimedByStore + 30_000), 2_000, "a replica 30 s ahead reads the same 2 s");
});

t.test("without a lease read back, the replica's clock; never negative", async (t) => {
  t.equal(queueWaitMs({ createdAtMs: 1_000 }, LEASE, 1_500), 500);
  t.equal(queueWaitMs({ createdAtMs: 5_000, leaseExpiresAtMs: 5_000 + LEASE - 100 }, LEASE, 0), 0);
});
