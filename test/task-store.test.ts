// The TaskStore contract on every implementation: memory, SQLite (a temporary data dir per subtest) and PostgreSQL
// (a schema of its own per subtest, dropped afterwards, so test files running in parallel never meet).
import t, { type Test } from "tap";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { CLAIM_LOCK_CLASS } from "../src/tasks/pg/claim.ts";
import type { TaskStore } from "../src/tasks/task-store.ts";
import { latestVersion, POSTGRES_MIGRATIONS, TaskStoreOpenError } from "../src/tasks/migrations.ts";

const VERSIONS = POSTGRES_MIGRATIONS.map((m) => m.version);
const FUTURE = latestVersion(POSTGRES_MIGRATIONS) + 10;
import { taskStoreSuite, type StoreHandle } from "./task-store-suite.ts";
import { waitFor } from "../testkit/wait-for.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

function memoryStore(): Promise<StoreHandle> {
  const store = new MemoryTaskStore();
  return Promise.resolve({ store, cleanup: () => store.close() });
}

async function sqliteStore(): Promise<StoreHandle> {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-tasks-"));
  const opened: TaskStore[] = [];
  const open = async () => {
    const s = await SqliteTaskStore.open({ dataDir });
    opened.push(s);
    return s;
  };
  return {
    store: await open(),
    replica: open,
    cleanup: async () => {
      for (const s of opened) await s.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function postgresStore(): Promise<StoreHandle> {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const opened: TaskStore[] = [];
  const open = async () => {
    const s = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema, poolMax: 12 });
    opened.push(s);
    return s;
  };
  return {
    store: await open(),
    replica: open,
    cleanup: async () => {
      for (const s of opened) await s.close();
      await withAdmin((a) => a.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`));
    },
  };
}

async function withAdmin<T>(fn: (admin: pg.Client) => Promise<T>): Promise<T> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    return await fn(admin);
  } finally {
    await admin.end();
  }
}

/** A schema name of its own, dropped when the test ends. */
function ownSchema(t: Test): string {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  t.teardown(() => withAdmin((a) => a.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`)));
  return schema;
}

// The three stores run side by side (each subtest makes its own store); within a store, one subtest at a time.
t.jobs = 3;
for (const [name, make] of [
  ["memory", memoryStore],
  ["sqlite", sqliteStore],
  ["postgres", postgresStore],
] as const) {
  t.test(name, { buffered: true }, (t) => {
    taskStoreSuite(t, name, make);
    t.end();
  });
}

t.test("postgres: start-up, migrations and connection errors", { buffered: true }, async (t) => {
  t.test("replicas that start at once migrate once", async (t) => {
    const schema = ownSchema(t);
    const stores = await Promise.all(
      Array.from({ length: 6 }, () => PostgresTaskStore.open({ connectionString: DATABASE_URL, schema, poolMax: 2 })),
    );
    t.teardown(() => Promise.all(stores.map((s) => s.close())));
    const created = await Promise.all(
      stores.map((s, i) =>
        s.create({ operations: [{ name: "scaleDown", description: { serverGroupName: `sg-${i}` } }] }),
      ),
    );
    t.equal((await stores[0].list({ limit: 50 })).tasks.length, 6, "one shared table");
    t.same(
      created.map((c) => c.created),
      [true, true, true, true, true, true],
    );
    const versions = await withAdmin((a) =>
      a.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`),
    );
    t.same(
      versions.rows.map((r) => r.version),
      VERSIONS,
      "each version once",
    );
    const reopened = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    t.equal((await reopened.list({ limit: 50 })).tasks.length, 6, "tasks survive a re-open");
    await reopened.close();
  });

  t.test("tables autovacuum leaves alone are named in the warnings the service logs at start", async (t) => {
    const schema = ownSchema(t);
    const first = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    await first.close();
    t.notOk(
      first.openWarnings.some((w) => w.includes("autovacuum_enabled")),
      "a fresh schema: every table left to the server's autovacuum",
    );
    await withAdmin(async (a) => {
      await a.query(`ALTER TABLE "${schema}".tasks SET (autovacuum_enabled = false)`);
      await a.query(`ALTER TABLE "${schema}".task_wakes SET (autovacuum_enabled = false)`);
    });
    const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    t.teardown(() => store.close());
    const named = store.openWarnings.filter((w) => w.includes("autovacuum_enabled = false"));
    t.equal(named.length, 1, "one line for the tables");
    t.match(named[0], /tables task_wakes, tasks have autovacuum_enabled = false \(PostgreSQL .*schema vmss_ops_test_/);
    t.match(named[0], /vacuum the store's tables on a schedule, or turn autovacuum on/, "what to do about it");
    // The server's own setting, as the server says it: a line about it exactly when it is off.
    const server = await withAdmin((a) => a.query<{ autovacuum: string }>("SHOW autovacuum"));
    t.equal(
      store.openWarnings.some((w) => w.includes("runs with autovacuum = off")),
      server.rows[0].autovacuum === "off",
      `the server's autovacuum is ${server.rows[0].autovacuum}`,
    );
  });

  t.test("a schema from before targets were stored: migrated, and its tasks read back without targets", async (t) => {
    const schema = ownSchema(t);
    const first = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    await first.close();
    // Back to the version before targets, with a task stored then.
    const before = POSTGRES_MIGRATIONS.find((m) => m.description.startsWith("targets:"))!.version;
    await withAdmin(async (a) => {
      await a.query(`ALTER TABLE "${schema}".tasks DROP COLUMN targets`);
      await a.query(`DELETE FROM "${schema}".schema_migrations WHERE version >= ${before}`);
      await a.query(
        `INSERT INTO "${schema}".tasks (id, state, operations, created_at_ms, updated_at_ms)
         VALUES ('old', 'queued', '[{"name":"scaleDown","description":{"serverGroupName":"sg"}}]', 1, 1)`,
      );
    });
    const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    t.teardown(() => store.close());
    const old = await store.get("old");
    t.same(old?.operations, [{ name: "scaleDown", description: { serverGroupName: "sg" } }], "the old task is there");
    t.notOk(old && "targets" in old, "without targets: its run locates it, as before");
    const versions = await withAdmin((a) =>
      a.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`),
    );
    t.same(
      versions.rows.map((r) => r.version),
      VERSIONS,
      "migrated to the code's version",
    );
  });

  t.test(
    "a schema at version 14 with tasks in it: migrated, its tasks read, ended and pruned with their lines",
    async (t) => {
      const schema = ownSchema(t);
      // The schema as version 14 made it, foreign keys and all, with a task queued and one that ended, as it wrote them.
      await withAdmin(async (a) => {
        await a.query(`CREATE SCHEMA "${schema}"`);
        await a.query(`SET search_path TO "${schema}"`);
        await a.query(
          "CREATE TABLE schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
        );
        for (const m of POSTGRES_MIGRATIONS.filter((m) => m.version <= 14)) {
          await a.query(m.sql);
          await a.query("INSERT INTO schema_migrations (version, description) VALUES ($1, $2)", [
            m.version,
            m.description,
          ]);
        }
        await a.query(
          `INSERT INTO tasks (id, state, operations, created_at_ms, updated_at_ms, finished_at_ms)
         VALUES ('old-queued', 'queued', '[{"name":"resizeServerGroup","description":{"serverGroupName":"sg-1"}}]', 1, 1, NULL),
                ('old-done', 'succeeded', '[{"name":"scaleDown","description":{"serverGroupName":"sg-2"}}]', 1, 2, 2)`,
        );
        await a.query(
          `INSERT INTO task_scale_sets (task_seq, scale_set) SELECT seq, 'a/r/rg/sg-1' FROM tasks WHERE id = 'old-queued'`,
        );
        await a.query(`INSERT INTO task_ready (task_seq) SELECT seq FROM tasks WHERE id = 'old-queued'`);
        await a.query(
          `INSERT INTO task_history (task_id, phase, status, time_ms) VALUES ('old-queued', 'SUBMIT', 'one', 1), ('old-done', 'SUBMIT', 'two', 1), ('old-done', 'END', 'three', 2)`,
        );
        await a.query("RESET search_path");
      });
      const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
      t.teardown(() => store.close());
      const versions = await withAdmin((a) =>
        a.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`),
      );
      t.same(
        versions.rows.map((r) => r.version),
        VERSIONS,
        "migrated to the code's version",
      );
      t.same(
        (await store.get("old-done"))?.history.map((h) => h.status),
        ["two", "three"],
        "the lines written before, in order",
      );
      t.same(
        (await store.list({ limit: 10, serverGroup: "sg-1" })).tasks.map((x) => x.id),
        ["old-queued"],
        "found by server group",
      );
      t.same(
        (await store.list({ limit: 10, state: "succeeded" })).tasks.map((x) => x.id),
        ["old-done"],
        "listed by state",
      );
      t.same((await store.backlog()).queued, 1, "the queued one in the backlog");
      const [claimed] = await store.claim("r1", 60_000, 1);
      t.equal(claimed?.id, "old-queued", "the queued one is claimed");
      t.same(
        (await store.list({ limit: 10, serverGroup: "sg-1" })).tasks.map((x) => x.id),
        ["old-queued"],
        "found by server group once claimed",
      );
      t.ok(
        await store.update("r1", "old-queued", {
          state: "running",
          history: [{ phase: "RUN", status: "four", timeMs: 3 }],
        }),
      );
      t.ok(
        await store.update("r1", "old-queued", {
          state: "succeeded",
          finishedAtMs: 4,
          history: [{ phase: "END", status: "five", timeMs: 4 }],
        }),
        "and ended",
      );
      t.same(
        (await store.list({ limit: 10, operation: "resizeServerGroup" })).tasks.map((x) => x.id),
        ["old-queued"],
        "found by operation once ended",
      );
      t.same(
        (await store.list({ limit: 1, state: "succeeded" })).nextCursor !== undefined,
        true,
        "a page of the succeeded, and more",
      );
      const ended = await store.get("old-queued");
      t.same(
        ended?.history.map((h) => h.status),
        ["one", "four", "five"],
        "its lines, old and new, in order",
      );
      t.equal(ended?.leaseOwner, undefined, "its lease given up");
      t.equal(await store.prune(Number.MAX_SAFE_INTEGER), 2, "both pruned");
      const left = await withAdmin((a) =>
        a.query(
          `SELECT (SELECT count(*) FROM "${schema}".task_history)::int AS lines, (SELECT count(*) FROM "${schema}".task_scale_sets)::int AS keys,
                (SELECT count(*) FROM "${schema}".task_ready)::int AS ready`,
        ),
      );
      t.same(left.rows[0], { lines: 0, keys: 0, ready: 0 }, "their lines, scale sets and candidacy gone with them");
    },
  );

  t.test("a schema newer than the code is refused, and left alone", async (t) => {
    const schema = ownSchema(t);
    const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    await store.close();
    await withAdmin((a) =>
      a.query(`INSERT INTO "${schema}".schema_migrations (version, description) VALUES (${FUTURE}, 'future')`),
    );
    await t.rejects(PostgresTaskStore.open({ connectionString: DATABASE_URL, schema }), {
      name: "TaskStoreOpenError",
      message: new RegExp(
        `schema ${schema} has task store schema version ${FUTURE}, newer than this version of vmss-ops knows \\(${latestVersion(POSTGRES_MIGRATIONS)}\\)`,
      ),
    });
    const versions = await withAdmin((a) =>
      a.query(`SELECT version FROM "${schema}".schema_migrations ORDER BY version`),
    );
    t.same(
      versions.rows.map((r) => r.version),
      [...VERSIONS, FUTURE],
      "nothing changed",
    );
  });

  t.test("a tasks table that is not ours is refused", async (t) => {
    const schema = ownSchema(t);
    await withAdmin(async (a) => {
      await a.query(`CREATE SCHEMA "${schema}"`);
      await a.query(`CREATE TABLE "${schema}".tasks (id int)`);
    });
    await t.rejects(PostgresTaskStore.open({ connectionString: DATABASE_URL, schema }), {
      name: "TaskStoreOpenError",
      message: /not a vmss-ops task store/,
    });
    const tables = await withAdmin((a) =>
      a.query("SELECT table_name FROM information_schema.tables WHERE table_schema = $1", [schema]),
    );
    t.same(
      tables.rows.map((r) => r.table_name),
      ["tasks"],
      "nothing created",
    );
  });

  t.test("bad schema names and unreachable databases: clear errors, no password", async (t) => {
    await t.rejects(PostgresTaskStore.open({ connectionString: DATABASE_URL, schema: 'x"; DROP TABLE y; --' }), {
      name: "TaskStoreOpenError",
      message: /not a plain identifier/,
    });
    const err = await PostgresTaskStore.open({
      connectionString: "postgres://me:hunter2@127.0.0.1:1/nowhere",
      connectionTimeoutMs: 2000,
    }).catch((e: Error) => e);
    t.type(err, TaskStoreOpenError);
    t.match(
      (err as Error).message,
      /cannot connect to the task store database \(postgres:\/\/me:\*\*\*@127\.0\.0\.1:1\/nowhere\): .*ECONNREFUSED/,
    );
    t.notMatch((err as Error).message, /hunter2/);
  });

  t.test("U+0000, which PostgreSQL cannot store, becomes U+FFFD instead of failing the write", async (t) => {
    const schema = ownSchema(t);
    const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    t.teardown(() => store.close());
    const { task } = await store.create({
      clientRequestId: "id\u0000",
      operations: [{ name: "scaleDown", description: { serverGroupName: "sg", note: "a\u0000b", path: "c:\\u0000" } }],
    });
    t.same(
      task.operations[0].description,
      { serverGroupName: "sg", note: "a\ufffdb", path: "c:\\u0000" },
      "only the real NUL is replaced",
    );
    t.equal(task.clientRequestId, "id\ufffd");
    await store.claim("o", 60_000, 1);
    t.ok(await store.appendHistory("o", task.id, { phase: "P\u0000", status: "s\u0000", timeMs: 1 }));
    t.ok(
      await store.update("o", task.id, {
        failure: { operation: "scaleDown", code: "X", message: "m\u0000", retryable: false },
      }),
    );
    const got = (await store.get(task.id))!;
    t.same(got.history, [{ phase: "P\ufffd", status: "s\ufffd", timeMs: 1 }]);
    t.equal(got.failure?.message, "m\ufffd");
    t.equal(
      (await store.create({ clientRequestId: "id\u0000", operations: [] })).created,
      false,
      "dedupe still finds it",
    );
  });

  t.test(
    "creates asked for together go as one statement: one NOTIFY for all; a create that cannot be stored fails alone",
    async (t) => {
      const schema = ownSchema(t);
      const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
      t.teardown(() => store.close());
      const listener = new pg.Client({ connectionString: DATABASE_URL });
      await listener.connect();
      t.teardown(() => listener.end());
      let notifications = 0;
      listener.on("notification", () => notifications++);
      await listener.query(`LISTEN "vmss_ops_work_${schema}"`);
      const ten = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          store.create({ operations: [{ name: "scaleDown", description: { serverGroupName: `sg-${i}` } }] }),
        ),
      );
      // Every create has committed: once the first notification has come, the listener has read the queue past
      // every commit, and a round trip on its connection delivers whatever else it read.
      await waitFor(() => notifications > 0, { what: "a NOTIFY from the ten creates" });
      await listener.query("SELECT 1");
      t.equal(ten.filter((r) => r.created).length, 10);
      t.equal(notifications, 1, "one commit for the ten (a transaction's identical notifications go as one)");

      // More than one statement holds: still in the order asked, each waiting for the one before it.
      const many = await Promise.all(
        Array.from({ length: 450 }, (_, i) =>
          store.create({
            operations: [{ name: "scaleDown", description: { serverGroupName: `m-${i}` } }],
            scaleSets: ["m"],
          }),
        ),
      );
      for (let i = 1; i < many.length; i++) {
        if (!many[i].task.history[0]?.status.startsWith(`Waiting for task ${many[i - 1].task.id} `))
          t.fail(`create ${i} does not wait for create ${i - 1}: ${many[i].task.history[0]?.status}`);
      }
      t.same(
        (await store.claim("r", 60_000, 500)).map((x) => x.id).filter((id) => many.some((m) => m.task.id === id)),
        [many[0].task.id],
        "the first of them goes first",
      );

      const bad = { phase: "P", status: null as unknown as string, timeMs: 1 };
      const results = await Promise.allSettled([
        store.create({ operations: [{ name: "scaleDown", description: { serverGroupName: "good-1" } }] }),
        store.create({ operations: [{ name: "scaleDown", description: { serverGroupName: "bad" } }], history: [bad] }),
        store.create({ operations: [{ name: "scaleDown", description: { serverGroupName: "good-2" } }] }),
      ]);
      t.same(
        results.map((r) => r.status),
        ["fulfilled", "rejected", "fulfilled"],
      );
      t.match((results[1] as PromiseRejectedResult).reason, { message: /null value in column "status"/ });
      const names = (await store.list({ limit: 50 })).tasks.map((x) => x.operations[0].description.serverGroupName);
      t.same(names.slice(0, 2), ["good-2", "good-1"], "the good ones, in the order asked, and nothing of the bad one");
      t.notOk(names.includes("bad"));
    },
  );

  t.test("a claim waiting for another claim's turn sees what that claim committed", async (t) => {
    const schema = ownSchema(t);
    const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
    t.teardown(() => store.close());
    const a = (
      await store.create({
        operations: [{ name: "scaleDown", description: { serverGroupName: "a" } }],
        scaleSets: ["k"],
      })
    ).task;
    const b = (
      await store.create({
        operations: [{ name: "scaleDown", description: { serverGroupName: "b" } }],
        scaleSets: ["k"],
      })
    ).task;
    // Another replica's turn: it holds the claim lock, runs a to its end, and commits only once our claim waits.
    const other = new pg.Client({ connectionString: DATABASE_URL });
    await other.connect();
    t.teardown(() => other.end());
    await other.query("BEGIN");
    await other.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [CLAIM_LOCK_CLASS, schema]);
    await other.query(`UPDATE "${schema}".tasks SET state = 'succeeded', finished_at_ms = 1 WHERE id = $1`, [a.id]);
    await other.query(
      `DELETE FROM "${schema}".task_scale_sets WHERE task_seq = (SELECT seq FROM "${schema}".tasks WHERE id = $1)`,
      [a.id],
    );
    const claiming = store.claim("r", 60_000, 10);
    const waiting = async () =>
      (
        await withAdmin((x) =>
          x.query("SELECT 1 FROM pg_stat_activity WHERE wait_event = 'advisory' AND query LIKE $1", [
            `%"${schema}".tasks%`,
          ]),
        )
      ).rowCount;
    await waitFor(waiting, { what: "the claim to wait for the advisory lock the other transaction holds" });
    await other.query("COMMIT");
    t.same(
      (await claiming).map((x) => x.id),
      [b.id],
      "it saw a finished: b is first on its scale set now",
    );
  });

  t.test("the server dropping idle connections does not crash the process; the store carries on", async (t) => {
    const schema = ownSchema(t);
    const errors: Error[] = [];
    const store = await PostgresTaskStore.open({
      connectionString: DATABASE_URL,
      schema,
      onPoolError: (e) => errors.push(e),
    });
    t.teardown(() => store.close());
    // Open several pooled connections, each of which has run a query that names our schema (concurrent creates go as
    // one statement, so concurrent reads open them).
    await Promise.all(
      Array.from({ length: 4 }, (_, i) =>
        store.create({ operations: [{ name: "scaleDown", description: { serverGroupName: `sg-${i}` } }] }),
      ),
    );
    await Promise.all(Array.from({ length: 4 }, () => store.list({ limit: 10 })));
    const killed = await withAdmin((a) =>
      a.query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND application_name = 'vmss-ops' AND query LIKE $1",
        [`%"${schema}"%`],
      ),
    );
    t.ok(killed.rowCount! >= 1, `terminated ${killed.rowCount} idle connections`);
    // Reads are sent again on a fresh connection if theirs turns out dead; the first ones may meet one.
    for (let i = 0; i < 3; i++) t.equal((await store.list({ limit: 10 })).tasks.length, 4, "reads go on working");
    await waitFor(() => errors.length >= 1, { what: "onPoolError to report a terminated connection" });
    t.ok(errors.length >= 1, `the pool reported them through onPoolError (${errors.length}): ${errors[0]?.message}`);
    const [claimed] = await store.claim("o", 60_000, 1);
    t.ok(await store.update("o", claimed.id, { state: "running" }), "writes too");
  });
});
