// A create that waited past its deadline without being sent is never sent. Its caller was answered 503
// TaskStoreUnavailable, "nothing was done", so a create that went to the database afterwards would make a task nobody
// was told of, and a client that tried again made it twice. Creates go one statement at a time (pg/create-queue.ts):
// behind a statement the database holds up, the next ones wait in the queue. (One whose statement was sent and held
// past its deadline is answered "outcome unknown": test/create-outcome-unknown.test.ts.)
import t from "tap";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { RequestDeadlineError, storeOutageReason } from "../src/tasks/store-outage.ts";
import { withRequestDeadline } from "../src/tasks/request-deadline.ts";
import { waitFor } from "../testkit/wait-for.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** The second create's request: answered by then, whatever the store does. */
const DEADLINE_MS = 50;
const op = {
  name: "resizeServerGroup",
  description: { credentials: "demo", region: "eastus", serverGroupName: "web" },
};

t.test("a create still queued past its deadline is dropped, never sent; the statement before it is not", async (t) => {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  // The lock is held by a client of its own: pg_stat_activity read inside the transaction holding it would be the
  // snapshot taken at its first read (stats_fetch_consistency), blind to a statement that starts waiting afterwards.
  const locker = new pg.Client({ connectionString: DATABASE_URL });
  await locker.connect();
  const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  t.teardown(async () => {
    await locker.end(); // lets the lock go first (a failed step may have left it held): the store's close waits for it
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  // The database holds the first create's statement until the lock is let go.
  await locker.query(`BEGIN; LOCK TABLE "${schema}".tasks IN ACCESS EXCLUSIVE MODE`);
  // Read once before the create, as a loaded machine's first poll may be: the wait below must still see it start.
  await admin.query("SELECT count(*) FROM pg_stat_activity");
  const first = store.create({ operations: [op], scaleSets: ["sub/rg/a"], clientRequestId: "first" });
  await waitFor(
    async () =>
      (
        await admin.query(
          "SELECT 1 FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid WHERE NOT l.granted AND a.query LIKE $1",
          [`%INSERT INTO "${schema}".%`],
        )
      ).rowCount,
    { what: "the first create's statement to wait for the lock" },
  );
  const second = withRequestDeadline(
    performance.now() + DEADLINE_MS,
    () => false,
    () => store.create({ operations: [op], scaleSets: ["sub/rg/b"], clientRequestId: "second" }),
  );
  const secondErr = await second.then(
    () => undefined,
    (err: unknown) => err,
  );
  t.equal(storeOutageReason(secondErr), "RequestDeadline", "the create queued past its deadline is answered an outage");
  t.equal((secondErr as RequestDeadlineError).sent, false, "as one never sent: nothing was done");
  await locker.query("COMMIT");

  t.equal((await first).created, true, "the statement under way when the lock went is answered as the database did");
  const third = await store.create({ operations: [op], scaleSets: ["sub/rg/c"], clientRequestId: "third" });
  t.equal(third.created, true, "a create asked afterwards goes through");
  const rows = await admin.query<{ client_request_id: string }>(
    `SELECT client_request_id FROM "${schema}".tasks ORDER BY client_request_id`,
  );
  t.same(
    rows.rows.map((r) => r.client_request_id),
    ["first", "third"],
    "the dropped create was never sent: no task for it",
  );
});
