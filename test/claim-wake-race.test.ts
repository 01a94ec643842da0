// A wake-up is never lost on PostgreSQL: a task created behind another becomes claimable once the one ahead of it ends,
// even when a claim consumed its scale set's wake-ups with a snapshot from before the create committed.
//
// The interleaving is held by hand on real connections, not hoped for under a burst. The create runs the store's own
// statement on a connection of its own inside BEGIN, and stays uncommitted while the task ahead ends and a claim runs:
//   1. X runs on scale set S. A wake-up for S is already there (a task created behind X and canceled before any claim).
//   2. A: BEGIN; Y's create. Its snapshot sees X unfinished, so Y waits for X and wakes S.
//   3. X ends (committed): it frees S and wakes S.
//   4. A claim: its snapshot sees X's end but not Y. It consumes the wake-ups it sees, and S has no first task.
//   5. A: COMMIT. The next claim must take Y.
// With one wake row per scale set (before migration 7), the wake-ups of steps 2 and 3 found the row of step 1 there
// already (ON CONFLICT DO NOTHING) and relied on it; the claim of step 4 took it away, and Y stayed queued for good.
import t from "tap";
import pg from "pg";
import {
  DATABASE_URL,
  SCALE_SET,
  LEASE_MS,
  createOn,
  storeOnFreshSchema,
  xRunningWithAWakeUpLeft,
} from "./helpers/pg-wake-race.ts";

t.test("a create uncommitted while the task ahead ends and a claim runs is claimable once it commits", async (t) => {
  const { schema, store } = await storeOnFreshSchema(t);
  const a = new pg.Client({ connectionString: DATABASE_URL });
  await a.connect();
  t.teardown(async () => {
    await a.query("ROLLBACK").catch(() => {});
    await a.end();
  });
  const wakes = async () => Number((await a.query(`SELECT count(*) AS n FROM "${schema}".task_wakes`)).rows[0].n);

  // 1. X runs on S; a wake-up for S waits, left by Z (created behind X, canceled before any claim).
  const x = await xRunningWithAWakeUpLeft(t, store);
  t.ok((await wakes()) > 0, "a wake-up for S is there");

  // 2. Y's create, uncommitted: it sees X ahead of it.
  await a.query("BEGIN");
  const y = await createOn(a, schema);
  t.match(
    y.history[0]?.status ?? "",
    new RegExp(`^Waiting for task ${x.id} on scale set ${SCALE_SET}`),
    "Y waits for X",
  );

  // 3. X ends, committed.
  t.ok(await store.update("r", x.id, { state: "succeeded", finishedAtMs: Date.now() }), "X ends");

  // 4. A claim that cannot see Y yet consumes the wake-ups it sees.
  t.same(await store.claim("r", LEASE_MS, 10), [], "nothing to claim while Y is uncommitted");

  // 5. Y commits: the next claim takes it.
  await a.query("COMMIT");
  const claimed = await store.claim("r", LEASE_MS, 10);
  t.same(
    claimed.map((c) => c.id),
    [y.id],
    "Y is claimable: its wake-up was not lost",
  );
  t.equal(await wakes(), 0, "every wake-up consumed");
});
