// PostgreSQL: the writes of running tasks that do not end them share a statement (src/tasks/pg/update-queue.ts), and
// sharing gives up no guarantee: each write is answered only once its statement committed (a checkpoint is in the
// database, for any connection to read, when the runner goes on to send its Azure write), each keeps its own fence
// and its own refusal of an illegal move, and a task's lines land in the order written.
import t, { type Test } from "tap";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { IllegalMoveError } from "../src/tasks/task-state.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

async function openStore(t: Test): Promise<{ store: PostgresTaskStore; reader: pg.Client; schema: string }> {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema, poolMax: 12 });
  // Another connection than the store's: what it reads is committed.
  const reader = new pg.Client({ connectionString: DATABASE_URL });
  await reader.connect();
  t.teardown(async () => {
    await store.close();
    await reader.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await reader.end();
  });
  return { store, reader, schema };
}

/** `n` tasks, each claimed by the owner of its index. */
async function claimedTasks(store: PostgresTaskStore, n: number): Promise<{ id: string; owner: string }[]> {
  const claimed: { id: string; owner: string }[] = [];
  for (let i = 0; i < n; i++) {
    await store.create({
      operations: [{ name: "resizeServerGroup", description: { serverGroupName: `uq-${i}` } }],
      scaleSets: [`demo/eastus/rg/uq-${i}`],
    });
    const [task] = await store.claim(`owner-${i}`, 60_000, 1);
    claimed.push({ id: task.id, owner: `owner-${i}` });
  }
  return claimed;
}

const line = (status: string) => ({ phase: "RESIZE", status, timeMs: Date.now() });

t.test("concurrent tasks' history lines go in fewer statements than tasks, every line stored in order", async (t) => {
  const { store } = await openStore(t);
  const tasks = await claimedTasks(store, 20);
  const before = { ...store.updates.sent };
  // Asked for in one turn of the event loop, as the journals of 20 running tasks flushing their lines at once.
  const written = await Promise.all(
    tasks.flatMap(({ id, owner }) => [
      store.update(owner, id, { history: [line("a"), line("b")] }),
      store.update(owner, id, { history: [line("c")], armCalls: 3 }),
    ]),
  );
  t.ok(written.every(Boolean), "every write held its fence");
  const statements = store.updates.sent.statements - before.statements;
  t.equal(store.updates.sent.updates - before.updates, 40);
  // Each task's second write waits for the statement after its first: two statements, not forty.
  t.ok(statements < 20, `40 writes of 20 tasks in ${statements} statements`);
  for (const { id } of tasks) {
    const task = await store.get(id);
    t.same(
      task?.history.slice(-3).map((h) => h.status),
      ["a", "b", "c"],
      "the task's lines, in the order written",
    );
    t.equal(task?.armCalls, 3);
  }
});

t.test("a checkpoint is committed, for another connection to read, when its write is answered", async (t) => {
  const { store, reader, schema } = await openStore(t);
  const tasks = await claimedTasks(store, 8);
  const read = async (id: string) =>
    (await reader.query<{ checkpoint: unknown }>(`SELECT checkpoint FROM "${schema}".tasks WHERE id = $1`, [id]))
      .rows[0].checkpoint;
  // Each caller reads, the moment its write is answered, what another connection sees: as the runner sends its
  // Azure write the moment the checkpoint's write is answered.
  const seen = await Promise.all(
    tasks.map(async ({ id, owner }, i) => {
      const checkpoint = { operationIndex: 0, attempt: i + 1 };
      await store.update(owner, id, { state: "running", checkpoint, history: [line("before the write")] });
      return { wanted: checkpoint, read: await read(id) };
    }),
  );
  for (const s of seen) t.same(s.read, s.wanted);
  t.ok(store.updates.sent.statements < 8 + 1, "the checkpoints shared statements");
});

t.test("in a shared statement each write keeps its own fence and its own refusal", async (t) => {
  const { store } = await openStore(t);
  const [a, b, c] = await claimedTasks(store, 3);
  await store.update(c.owner, c.id, { state: "running" });
  const outcomes = await Promise.allSettled([
    store.update(a.owner, a.id, { checkpoint: { operationIndex: 0, attempt: 1 }, history: [line("a")] }),
    // Not b's lease holder: refused by the fence, its line not written.
    store.update("someone-else", b.id, { history: [line("b")] }),
    // running → queued is no move of the table.
    store.update(c.owner, c.id, { state: "queued" }),
  ]);
  t.same(outcomes[0], { status: "fulfilled", value: true });
  t.same(outcomes[1], { status: "fulfilled", value: false });
  t.equal(outcomes[2].status, "rejected");
  t.ok(outcomes[2].status === "rejected" && outcomes[2].reason instanceof IllegalMoveError);
  t.equal((await store.get(a.id))?.checkpoint?.attempt, 1);
  t.notOk(
    (await store.get(b.id))?.history.some((h) => h.status === "b"),
    "no line past a fence that did not hold",
  );
  t.equal((await store.get(c.id))?.state, "running");
});
