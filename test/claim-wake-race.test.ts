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
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { createBatch, createSql, type PendingCreate } from "../src/tasks/pg/create.ts";
import type { PgConnection } from "../src/tasks/pg/connection.ts";
import { pgTables } from "../src/tasks/pg/tables.ts";
import type { Task } from "../src/tasks/task.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
const SCALE_SET = "sub/rg/web-v001";
const op = {
  name: "resizeServerGroup",
  description: { credentials: "demo", region: "eastus", serverGroupName: "web-v001" },
};
const LEASE_MS = 60_000;

/** Runs `pending` through the store's create statement on `client`, inside whatever transaction it has open. */
async function createOn(
  client: pg.Client,
  schema: string,
  pending: Omit<PendingCreate, "resolve" | "reject" | "askedAtMs">,
): Promise<Task> {
  const tables = pgTables(schema);
  const db = { query: (sql: string, params: unknown[]) => client.query(sql, params) } as unknown as PgConnection;
  let created: Task | undefined;
  let failed: unknown;
  await createBatch({ db, t: tables, sql: createSql(tables) }, [
    { ...pending, askedAtMs: Date.now(), resolve: ({ task }) => (created = task), reject: (err) => (failed = err) },
  ]);
  if (!created) throw failed instanceof Error ? failed : new Error(`the create returned no task (${String(failed)})`);
  return created;
}

t.test("a create uncommitted while the task ahead ends and a claim runs is claimable once it commits", async (t) => {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  const a = new pg.Client({ connectionString: DATABASE_URL });
  await a.connect();
  t.teardown(async () => {
    await a.query("ROLLBACK").catch(() => {});
    await a.end();
    await store.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const wakes = async () => Number((await a.query(`SELECT count(*) AS n FROM "${schema}".task_wakes`)).rows[0].n);

  // 1. X runs on S; a wake-up for S waits, left by Z (created behind X, canceled before any claim).
  const x = (await store.create({ operations: [op], scaleSets: [SCALE_SET] })).task;
  t.same(
    (await store.claim("r", LEASE_MS, 10)).map((c) => c.id),
    [x.id],
    "X is claimed",
  );
  t.ok(await store.update("r", x.id, { state: "running" }), "X runs");
  const z = (await store.create({ operations: [op], scaleSets: [SCALE_SET] })).task;
  const lines = {
    canceled: { phase: "ORCHESTRATION", status: "canceled", timeMs: Date.now() },
    requested: { phase: "ORCHESTRATION", status: "cancel requested", timeMs: Date.now() },
  };
  t.equal((await store.requestCancel(z.id, lines)).outcome, "canceled", "Z is canceled before any claim");
  t.ok((await wakes()) > 0, "a wake-up for S is there");

  // 2. Y's create, uncommitted: it sees X ahead of it.
  await a.query("BEGIN");
  const y = await createOn(a, schema, {
    clientRequestId: undefined,
    operations: [op],
    scaleSets: [SCALE_SET],
    history: [],
  });
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
