// A claim on PostgreSQL costs the same with 10 or 10,000 tasks waiting: it reads the candidates (task_ready) and the
// scale sets woken since the last claim, never the queue behind a busy scale set. Shown by the plan PostgreSQL runs
// (EXPLAIN ANALYZE, rolled back): which indexes it uses and how many rows it reads, not by timing it.
import t, { type Test } from "tap";
import { randomBytes } from "node:crypto";
import pg from "pg";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { claimSql } from "../src/tasks/pg/claim.ts";
import { taskJustBeforeSql } from "../src/tasks/ordering.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Actual Loops"?: number;
  "Rows Removed by Filter"?: number;
  "Index Cond"?: string;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}

function* nodes(plan: PlanNode): Generator<PlanNode> {
  yield plan;
  for (const p of plan.Plans ?? []) yield* nodes(p);
}

async function withSchema(t: Test, queued: number) {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const store = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  t.teardown(async () => {
    await store.close();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const op = {
    name: "resizeServerGroup",
    description: { credentials: "demo", region: "eastus", serverGroupName: "web" },
  };
  // One running task on each of two scale sets, and the queue behind the first.
  await store.create({ operations: [op], scaleSets: ["sub/rg/busy"] });
  await store.create({ operations: [op], scaleSets: ["sub/rg/other"] });
  await Promise.all(
    Array.from({ length: queued }, () => store.create({ operations: [op], scaleSets: ["sub/rg/busy"] })),
  );
  const running = await store.claim("r", 60_000, 100);
  t.equal(running.length, 2, "the first of each scale set is claimed; the queue waits");
  return { schema, store, admin, running };
}

/** Runs the claim under EXPLAIN ANALYZE and rolls it back: the plan, with what each node read (rows and pages). */
async function claimPlan(admin: pg.Client, schema: string): Promise<PlanNode> {
  const q = (n: string) => `"${schema}".${n}`;
  const statements = claimSql(
    {
      schema,
      tasks: q("tasks"),
      scaleSets: q("task_scale_sets"),
      ready: q("task_ready"),
      wakes: q("task_wakes"),
      columns: "t.id",
    },
    "explain",
    60_000,
    10,
  )
    .split(/;\s*/)
    .filter((x) => x.trim());
  const claim = statements.pop()!;
  await admin.query("BEGIN");
  try {
    for (const statement of statements) await admin.query(statement);
    if (process.env.SHOW_PLAN)
      console.error((await admin.query(`EXPLAIN (ANALYZE) ${claim}`)).rows.map((r) => r["QUERY PLAN"]).join("\n"));
    const { rows } = await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${claim}`);
    return (rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0].Plan;
  } finally {
    await admin.query("ROLLBACK");
  }
}

/** Scans of the task tables that ran (a subplan the executor never reached has no loops). */
function scansRun(plan: PlanNode): PlanNode[] {
  return [...nodes(plan)].filter(
    (n) => /Scan/.test(n["Node Type"]) && n["Relation Name"] && (n["Actual Loops"] ?? 0) > 0,
  );
}

/** Rows read from the task tables, over every loop of every scan. */
function rowsRead(plan: PlanNode): number {
  let n = 0;
  for (const node of nodes(plan)) {
    if (/Scan/.test(node["Node Type"]) && /^(tasks|task_scale_sets|task_ready)$/.test(node["Relation Name"] ?? "")) {
      n += ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0)) * (node["Actual Loops"] ?? 1);
    }
  }
  return n;
}

t.test(
  "with 10,000 tasks queued behind a busy scale set, a claim reads through indexes a few rows, not the queue",
  async (t) => {
    const { schema, admin, store, running } = await withSchema(t, 10_000);
    const check = async (when: string) => {
      const plan = await claimPlan(admin, schema);
      const scans = scansRun(plan);
      const described = scans
        .map((n) => `${n["Node Type"]} ${n["Relation Name"]} ${n["Index Name"] ?? ""} ×${n["Actual Loops"]}`)
        .join("; ");
      t.notOk(
        scans.some((n) => n["Node Type"] === "Seq Scan" && /^(tasks|task_scale_sets)$/.test(n["Relation Name"]!)),
        `${when}: tasks and task_scale_sets are read through indexes only: ${described}`,
      );
      t.ok(
        scans.some((n) => n["Relation Name"] === "task_ready"),
        `${when}: candidates come from task_ready`,
      );
      return rowsRead(plan);
    };
    const deep = await check("while the first task runs");
    t.ok(deep < 50, `rows read by the claim: ${deep}`);
    // The busy scale set's task ends: the claim wakes the next of its queue and checks it against the order.
    t.ok(await store.update("r", running[0].id, { state: "succeeded", finishedAtMs: Date.now() }));
    const woken = await check("after it ended");
    t.ok(woken < 50, `rows read by the claim that wakes the next: ${woken}`);

    const shallow = await withSchema(t, 10);
    const few = rowsRead(await claimPlan(shallow.admin, shallow.schema));
    t.ok(deep <= few + 10, `about as many rows as with 10 queued (${few})`);
  },
);

t.test("a store migrated from before task_ready: its waiting and running tasks are candidates, in order", async (t) => {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  t.teardown(async () => {
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  const op = {
    name: "resizeServerGroup",
    description: { credentials: "demo", region: "eastus", serverGroupName: "web" },
  };
  const before = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  const a = (await before.create({ operations: [op], scaleSets: ["sub/rg/a"] })).task;
  const b = (await before.create({ operations: [op], scaleSets: ["sub/rg/a"] })).task;
  const c = (await before.create({ operations: [op], scaleSets: ["sub/rg/c"] })).task;
  await before.close();
  // Back to schema version 4, as a store written by the version before this migration.
  await admin.query(
    `DROP TABLE "${schema}".task_ready, "${schema}".task_wakes, "${schema}".arm_budget, "${schema}".audit_entries;
     DROP FUNCTION "${schema}".arm_budget_take, "${schema}".arm_budget_take_calls, "${schema}".arm_budget_take_lease;
     ALTER TABLE "${schema}".tasks DROP COLUMN targets;
     DELETE FROM "${schema}".schema_migrations WHERE version >= 5`,
  );
  const after = await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema });
  t.teardown(() => after.close());
  t.same(
    (await after.claim("r", 60_000, 10)).map((x) => x.id),
    [a.id, c.id],
    "the first of each scale set",
  );
  t.ok(await after.update("r", a.id, { state: "succeeded", finishedAtMs: Date.now() }));
  t.same(
    (await after.claim("r", 60_000, 10)).map((x) => x.id),
    [b.id],
    "then the next",
  );
});

/**
 * A schema with one task running on sub/rg/busy and `queued` tasks waiting behind it, the queue written in one
 * statement (as many creates would leave it), then analyzed as autovacuum does: with most rows on one scale set, the
 * statistics say any scale set holds the whole table.
 */
async function deepAnalyzedQueue(t: Test, queued: number) {
  const { schema, store, admin } = await withSchema(t, 0);
  const q = (n: string) => `"${schema}".${n}`;
  await admin.query(
    `WITH ins AS (
       INSERT INTO ${q("tasks")} (id, state, operations, created_at_ms, updated_at_ms)
       SELECT 'queued-' || g, 'queued', '[]', 0, 0 FROM generate_series(1, ${queued}) g RETURNING seq)
     INSERT INTO ${q("task_scale_sets")} (task_seq, scale_set) SELECT seq, 'sub/rg/busy' FROM ins`,
  );
  await admin.query(`ANALYZE ${q("tasks")}, ${q("task_scale_sets")}, ${q("task_ready")}`);
  return { schema, store, admin, q };
}

/** Index pages and heap pages the plan's scans of task_scale_sets touched, over every loop. */
function scaleSetPagesRead(plan: PlanNode): number {
  let n = 0;
  for (const node of nodes(plan)) {
    if (/Scan/.test(node["Node Type"]) && node["Relation Name"] === "task_scale_sets")
      n += (node["Shared Hit Blocks"] ?? 0) + (node["Shared Read Blocks"] ?? 0);
  }
  return n;
}

t.test(
  "with 50,000 tasks queued on one scale set and the tables analyzed, the first of another scale set's queue is one index probe",
  async (t) => {
    const { schema, store, admin } = await deepAnalyzedQueue(t, 50_000);
    const op = {
      name: "resizeServerGroup",
      description: { credentials: "demo", region: "eastus", serverGroupName: "free" },
    };
    // A task on a free scale set: the claim checks it against the first of its queue (itself).
    await store.create({ operations: [op], scaleSets: ["sub/rg/free"] });
    const plan = await claimPlan(admin, schema);
    const probes = [...nodes(plan)].filter(
      (n) =>
        n["Relation Name"] === "task_scale_sets" &&
        /\(scale_set [<>]?= /.test(n["Index Cond"] ?? "") &&
        (n["Actual Loops"] ?? 0) > 0,
    );
    t.ok(probes.length > 0, "the claim looked up a scale set's queue");
    t.same(
      probes.map((n) => n["Index Name"]),
      probes.map(() => "task_scale_sets_order"),
      "each lookup of a scale set's queue goes through the index on (scale_set, task_seq)",
    );
    const pages = scaleSetPagesRead(plan);
    t.ok(pages < 50, `pages of task_scale_sets the claim read: ${pages} (the queue alone is about 200 index pages)`);
    const claimed = await store.claim("r", 60_000, 10);
    t.same(
      claimed.map((x) => x.operations[0].description.serverGroupName),
      ["free"],
      "the free scale set's task is claimed",
    );
  },
);

t.test(
  "with 50,000 tasks queued on one scale set and the tables analyzed, the task just before a new one is one index probe",
  async (t) => {
    const { store, admin, q } = await deepAnalyzedQueue(t, 50_000);
    // The scale set arrives as an outer column, as in the create statement: the planner cannot see which it is.
    const sql = `SELECT ${taskJustBeforeSql({ tasks: q("tasks"), scaleSets: q("task_scale_sets") }, "x.scale_set", "x.seq")}
      FROM (VALUES ('sub/rg/free', 9223372036854775807::bigint), ('sub/rg/busy', 9223372036854775807::bigint)) x(scale_set, seq)`;
    const { rows } = await admin.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${sql}`);
    const plan = (rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0].Plan;
    const pages = scaleSetPagesRead(plan);
    t.ok(pages < 50, `pages of task_scale_sets read to find the task before, on a free and a busy scale set: ${pages}`);
    const answers = (await admin.query(sql)).rows.map((r) => Object.values(r)[0]);
    t.same(answers, [null, `queued-50000`], "nothing before on the free scale set; the last queued on the busy one");
    const created = await store.create({
      operations: [
        { name: "resizeServerGroup", description: { credentials: "demo", region: "eastus", serverGroupName: "busy" } },
      ],
      scaleSets: ["sub/rg/busy"],
    });
    t.match(
      created.task.history.at(-1)?.status ?? "",
      /queued-50000/,
      "a new task on the busy scale set waits for the last queued",
    );
  },
);

t.test(
  "with 10,000 scale sets ready and 200 tasks started, a claim reads the started tasks and the candidates it walks, not every ready one",
  async (t) => {
    const { schema, store, admin } = await withSchema(t, 0);
    const q = (n: string) => `"${schema}".${n}`;
    // Five tasks on each of 10,000 scale sets, the first of each ready (as 50,000 submissions held back by Azure's
    // budget leave them), and 200 of those started, as replicas running them.
    await admin.query(
      `INSERT INTO ${q("tasks")} (id, state, operations, created_at_ms, updated_at_ms)
       SELECT 'r' || r || '-s' || s, 'queued', '[]', 0, 0 FROM generate_series(0, 4) r, generate_series(0, 9999) s
       ORDER BY r, s`,
    );
    await admin.query(
      `INSERT INTO ${q("task_scale_sets")} (task_seq, scale_set)
       SELECT seq, 'sub/rg/' || split_part(id, '-', 2) FROM ${q("tasks")} WHERE id LIKE 'r%-s%'`,
    );
    await admin.query(`INSERT INTO ${q("task_ready")} (task_seq) SELECT seq FROM ${q("tasks")} WHERE id LIKE 'r0-%'`);
    await admin.query(
      `UPDATE ${q("tasks")} SET state = 'running', lease_owner = 'other', lease_expires_at_ms = 9e15
       WHERE seq IN (SELECT seq FROM ${q("tasks")} WHERE id LIKE 'r0-%' ORDER BY seq LIMIT 200)`,
    );
    await admin.query(`ANALYZE ${q("tasks")}, ${q("task_scale_sets")}, ${q("task_ready")}`);
    const plan = await claimPlan(admin, schema);
    const read = rowsRead(plan);
    t.ok(read < 1_500, `rows read by the claim: ${read} (10,000 scale sets ready, 200 started)`);
    const claimed = await store.claim("r", 60_000, 2);
    t.same(
      claimed.map((x) => x.id),
      ["r0-s200", "r0-s201"],
      "the first two ready that are not started, in submission order",
    );
  },
);
