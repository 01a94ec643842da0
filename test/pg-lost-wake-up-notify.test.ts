// A task's end on PostgreSQL wakes the replicas that watch: its NOTIFY is sent once the end has committed (in a
// statement of its own, not inside the end's), so whoever it wakes claims the task behind at once.
import t from "tap";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { waitFor } from "../testkit/wait-for.ts";
import { DATABASE_URL, SCALE_SET, LEASE_MS, RESIZE, storeOnFreshSchema } from "./helpers/pg-wake-race.ts";

t.test("a task's end wakes the watchers after it committed: their claim takes the task behind", async (t) => {
  const { schema, store } = await storeOnFreshSchema(t);
  // Another replica: its own store on the same schema, watching.
  const other = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  t.teardown(() => other.close());

  const x = (await store.create({ operations: [RESIZE], scaleSets: [SCALE_SET] })).task;
  const y = (await store.create({ operations: [RESIZE], scaleSets: [SCALE_SET] })).task;
  t.same(
    (await store.claim("r1", LEASE_MS, 10)).map((c) => c.id),
    [x.id],
    "X is claimed; Y waits for it",
  );
  t.ok(await store.update("r1", x.id, { state: "running" }), "X runs");

  // The other replica claims on each wake-up, as the runner does.
  const claimedOnWake: string[] = [];
  let wakeUps = 0;
  const unwatch = await other.watch(() => {
    wakeUps++;
    void other.claim("r2", LEASE_MS, 10).then((tasks) => claimedOnWake.push(...tasks.map((c) => c.id)));
  });
  t.teardown(unwatch);
  t.same(await other.claim("r2", LEASE_MS, 10), [], "nothing to claim while X runs");

  t.ok(await store.update("r1", x.id, { state: "succeeded", finishedAtMs: Date.now() }), "X ends");
  await waitFor(() => claimedOnWake.includes(y.id), {
    what: "the other replica to claim Y on the wake-up of X's end",
    seen: () => ({ wakeUps, claimedOnWake }),
  });
  t.same(claimedOnWake, [y.id], "Y is claimed by the replica the end woke, and only Y");
});
