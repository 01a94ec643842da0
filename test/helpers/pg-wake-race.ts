// What the PostgreSQL wake-up race tests share: a schema of their own with a store on it, dropped at the end; the
// store's own create statement run on a connection the test holds inside a transaction; and the race's first step
// (X running on the scale set, a wake-up for it already there).
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresTaskStore } from "../../src/tasks/postgres-task-store.ts";
import { createBatch, createSql } from "../../src/tasks/pg/create.ts";
import type { PgConnection } from "../../src/tasks/pg/connection.ts";
import { pgTables } from "../../src/tasks/pg/tables.ts";
import type { Task } from "../../src/tasks/task.ts";

export const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
export const SCALE_SET = "sub/rg/web-v001";
export const RESIZE = {
  name: "resizeServerGroup",
  description: { credentials: "demo", region: "eastus", serverGroupName: "web-v001" },
};
export const LEASE_MS = 60_000;

interface Teardown {
  teardown(fn: () => Promise<void>): void;
}

/** A fresh schema and a store on it; the store is closed and the schema dropped when `t` ends (after `t`'s others). */
export async function storeOnFreshSchema(t: Teardown): Promise<{ schema: string; store: PostgresTaskStore }> {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  t.teardown(async () => {
    await store.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return { schema, store };
}

/** Y's create: the store's create statement for a resize of SCALE_SET, run on `client` inside the transaction it has open. */
export async function createOn(client: pg.Client, schema: string): Promise<Task> {
  const tables = pgTables(schema);
  const db = { query: (sql: string, params: unknown[]) => client.query(sql, params) } as unknown as PgConnection;
  let created: Task | undefined;
  let failed: unknown;
  await createBatch({ db, t: tables, sql: createSql(tables) }, [
    {
      clientRequestId: undefined,
      operations: [RESIZE],
      scaleSets: [SCALE_SET],
      history: [],
      askedAtMs: Date.now(),
      resolve: ({ task }) => (created = task),
      reject: (err) => (failed = err),
    },
  ]);
  if (!created) throw failed instanceof Error ? failed : new Error(`the create returned no task (${String(failed)})`);
  return created;
}

/**
 * The race's first step: X is claimed by replica "r" and runs on SCALE_SET, and a wake-up for it is there already,
 * left by Z (created behind X and canceled before any claim). Returns X.
 */
export async function xRunningWithAWakeUpLeft(
  t: {
    same: (a: unknown, b: unknown, m: string) => void;
    ok: (v: unknown, m: string) => void;
    equal: (a: unknown, b: unknown, m: string) => void;
  },
  store: PostgresTaskStore,
): Promise<Task> {
  const x = (await store.create({ operations: [RESIZE], scaleSets: [SCALE_SET] })).task;
  t.same(
    (await store.claim("r", LEASE_MS, 10)).map((c) => c.id),
    [x.id],
    "X is claimed",
  );
  t.ok(await store.update("r", x.id, { state: "running" }), "X runs");
  const z = (await store.create({ operations: [RESIZE], scaleSets: [SCALE_SET] })).task;
  const lines = {
    canceled: { phase: "ORCHESTRATION", status: "canceled", timeMs: Date.now() },
    requested: { phase: "ORCHESTRATION", status: "cancel requested", timeMs: Date.now() },
  };
  t.equal((await store.requestCancel(z.id, lines)).outcome, "canceled", "Z is canceled before any claim");
  return x;
}
