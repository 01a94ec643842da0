// A wake-up is never lost on PostgreSQL when a create commits while a claim is consuming the wake-ups: the claim took
// its snapshot before the create committed, and deletes the wake rows after.
//
// Two connections are held at the race, by the test, on the store's own statements:
//   - A holds the create's transaction open (BEGIN; the store's create statement; no COMMIT yet).
//   - B holds a row lock on the wake rows already committed (SELECT … FOR UPDATE), so the store's claim, started
//     meanwhile, takes its snapshot and then stops at its DELETE of those rows. The test waits until PostgreSQL says
//     the claim is blocked by B (pg_blocking_pids): its snapshot is taken, from before the create commits.
// Then A commits, B lets go, the claim ends without the new task (it cannot see it), and the next claim must take it.
//
// The steps, on scale set S:
//   1. X runs on S. A wake-up for S is there already (Z, created behind X and canceled before any claim).
//   2. A: BEGIN; Y's create. Its snapshot sees X unfinished, so Y waits for X and wakes S.
//   3. X ends, committed: it frees S and wakes S.
//   4. B locks the committed wake rows; a claim starts and stops at them, its snapshot taken (sees X's end, not Y).
//   5. A commits Y. B rolls back. The claim ends with nothing.
//   6. The next claim takes Y.
// With one wake row per scale set (ON CONFLICT DO NOTHING, before migration 7), Y's and X's wake-ups found Z's row
// there and relied on it; the claim of step 5 deleted it, and Y stayed queued for good.
import t from "tap";
import pg from "pg";
import { waitFor } from "../testkit/wait-for.ts";
import {
  DATABASE_URL,
  SCALE_SET,
  LEASE_MS,
  createOn,
  storeOnFreshSchema,
  xRunningWithAWakeUpLeft,
} from "./helpers/pg-wake-race.ts";

t.test("a create that commits while a claim consumes the wake-ups is claimed by the next claim", async (t) => {
  const { schema, store } = await storeOnFreshSchema(t);
  const a = new pg.Client({ connectionString: DATABASE_URL, application_name: "lost-wake-up-create" });
  const b = new pg.Client({ connectionString: DATABASE_URL, application_name: "lost-wake-up-hold" });
  // Outside any transaction: inside one, pg_stat_activity answers the same snapshot until it ends.
  const observer = new pg.Client({ connectionString: DATABASE_URL, application_name: "lost-wake-up-observe" });
  await a.connect();
  await b.connect();
  await observer.connect();
  t.teardown(async () => {
    await a.query("ROLLBACK").catch(() => {});
    await b.query("ROLLBACK").catch(() => {});
    await a.end();
    await b.end();
    await observer.end();
  });
  const wakes = `"${schema}".task_wakes`;

  // 1. X runs on S; a wake-up for S is there, left by Z (created behind X, canceled before any claim).
  const x = await xRunningWithAWakeUpLeft(t, store);

  // 2. A: Y's create, uncommitted. It sees X ahead of it.
  await a.query("BEGIN");
  const y = await createOn(a, schema);
  t.match(
    y.history[0]?.status ?? "",
    new RegExp(`^Waiting for task ${x.id} on scale set ${SCALE_SET}`),
    "Y waits for X",
  );

  // 3. X ends, committed.
  t.ok(await store.update("r", x.id, { state: "succeeded", finishedAtMs: Date.now() }), "X ends");

  // 4. B holds the committed wake rows; a claim starts and stops at them with its snapshot taken.
  await b.query("BEGIN");
  const held = await b.query(`SELECT scale_set FROM ${wakes} FOR UPDATE`);
  t.ok(held.rowCount! > 0, "B holds the wake-ups committed so far");
  const bPid = Number((await b.query("SELECT pg_backend_pid() AS pid")).rows[0].pid);
  const claiming = store.claim("r", LEASE_MS, 10);
  claiming.catch(() => {});
  await waitFor(
    async () =>
      (await observer.query("SELECT pid FROM pg_stat_activity WHERE $1 = ANY (pg_blocking_pids(pid))", [bPid]))
        .rowCount,
    { what: "the claim to wait for the wake rows B holds" },
  );

  // 5. Y commits while the claim is held; then B lets go, and the claim ends without Y (its snapshot predates Y).
  await a.query("COMMIT");
  await b.query("ROLLBACK");
  t.same(await claiming, [], "the held claim, whose snapshot is from before Y committed, claims nothing");

  // 6. The next claim takes Y.
  t.same(
    (await store.claim("r", LEASE_MS, 10)).map((c) => c.id),
    [y.id],
    "Y is claimed: its wake-up was not lost",
  );
  t.equal(Number((await observer.query(`SELECT count(*) AS n FROM ${wakes}`)).rows[0].n), 0, "every wake-up consumed");
});
