// The embedded SQLite store at start-up and across processes: tasks survive a close and re-open and a process that
// dies without closing; several processes share one file; and a data dir or tasks.db it cannot use stops it with a
// message that names the path, leaving the file exactly as it was.
import t, { type Test } from "tap";
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { randomBytes } from "node:crypto";
import { DatabaseSync } from "node:sqlite";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { latestVersion, SQLITE_MIGRATIONS, TaskStoreOpenError } from "../src/tasks/migrations.ts";
import { createTaskStore } from "../src/tasks/create-task-store.ts";
import { MemoryTaskStore } from "../src/tasks/memory-task-store.ts";
import type { TaskCheckpoint } from "../src/tasks/task.ts";
import { waitFor } from "../testkit/wait-for.ts";

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), "vmss-ops-sqlite-"));
  t.teardown(() => {
    try {
      chmodSync(dir, 0o700);
    } catch {
      // gone already
    }
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

const op = (serverGroupName: string) => ({
  name: "resizeServerGroup",
  description: { credentials: "demo", region: "eastus", serverGroupName },
});

// A separate Node process that uses the store the way a replica does. Modes:
//   crash <dataDir>            creates, claims, checkpoints a task, prints its id, then SIGKILLs itself (no close)
//   claim <dataDir> <owner>    once told to go, claims until nothing is left, finishing each task it claimed
//                              under its lease; prints the ids and whether each finish was accepted
//   open  <dataDir>            once told to go, opens the store (migrating a new file) and creates one task
// The last two print "ready" and wait for a line on stdin: the test tells them all to go at once (runTogether).
const CHILD = `
import { SqliteTaskStore } from ${JSON.stringify(new URL("../src/tasks/sqlite-task-store.ts", import.meta.url).href)};
const [mode, dataDir, a] = process.argv.slice(2);
const ready = () => new Promise((go) => { process.stdin.once("data", go); process.stdout.write("ready\\n"); });
if (mode === "crash") {
  const store = await SqliteTaskStore.open({ dataDir });
  const { task } = await store.create({ clientRequestId: "from-child", operations: [{ name: "scaleDown", description: { serverGroupName: "child-sg" } }] });
  const [claimed] = await store.claim("child", 300, 1);
  if (claimed?.id !== task.id) throw new Error("child could not claim its task");
  await store.update("child", task.id, { state: "running", checkpoint: { operationIndex: 0, attempt: 2, inFlight: { step: { kind: "update", summary: "capacity 3 → 1" }, poller: JSON.stringify({ state: { url: "https://x/op?y=1" } }) } }, armCalls: 4 });
  await store.appendHistory("child", task.id, { phase: "SCALE_DOWN", status: "attempt 2/8", timeMs: Date.now() });
  process.stdout.write(JSON.stringify({ id: task.id }) + "\\n", () => process.kill(process.pid, "SIGKILL"));
} else if (mode === "claim") {
  const store = await SqliteTaskStore.open({ dataDir });
  await ready();
  const ids = [];
  const finished = [];
  for (let empty = 0; empty < 5; ) {
    const got = await store.claim(a, 60000, 2);
    if (got.length === 0) empty++;
    for (const x of got) {
      ids.push(x.id);
      finished.push(await store.update(a, x.id, { state: "succeeded", finishedAtMs: Date.now() }));
    }
    // Not a wait for anything: a moment off the file between claims, so that the other processes' claims come in
    // between (how they fall is reported, not asserted).
    await new Promise((r) => setTimeout(r, 1));
  }
  await store.close();
  process.stdout.write(JSON.stringify({ ids, finished }));
} else if (mode === "open") {
  await ready();
  const store = await SqliteTaskStore.open({ dataDir });
  await store.create({ operations: [{ name: "scaleDown", description: { serverGroupName: "sg-" + process.pid } }] });
  await store.close();
  process.stdout.write("ok");
}
`;

interface ChildResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

function runChild(dir: string, args: string[]): Promise<ChildResult> {
  return startChild(dir, args).result;
}

function startChild(dir: string, args: string[]) {
  const script = join(dir, "child.ts");
  writeFileSync(script, CHILD);
  const child = spawn(process.execPath, [script, ...args], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  child.stdin.on("error", () => {}); // one that died cannot be told to go: its exit code and stderr say why
  const result = new Promise<ChildResult>((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { child, result, stdout: () => stdout };
}

/** Starts one child per args, waits until every one is ready, then tells them all to go at once. */
async function runTogether(dir: string, argsList: string[][]): Promise<ChildResult[]> {
  const children = argsList.map((args) => startChild(dir, args));
  const exited: ChildResult[] = [];
  for (const c of children) void c.result.then((r) => exited.push(r));
  await waitFor(() => children.every((c) => c.stdout().startsWith("ready\n")) || exited.length > 0, {
    what: `${children.length} child processes ready`,
  });
  // One that died getting ready (its stderr says why) leaves the others nothing to wait for.
  const go = exited.length === 0;
  for (const c of children) {
    if (go) c.child.stdin.end("go\n");
    else c.child.kill();
  }
  const results = await Promise.all(children.map((c) => c.result));
  return results.map((r) => ({ ...r, stdout: r.stdout.replace(/^ready\n/, "") }));
}

/** What open() must fail with: a TaskStoreOpenError whose message names `path` and matches `pattern`. */
async function rejectsNaming(t: Test, dataDir: string, path: string, pattern: RegExp, what: string): Promise<string> {
  try {
    const store = await SqliteTaskStore.open({ dataDir });
    await store.close();
    t.fail(`${what}: open succeeded`);
    return "";
  } catch (err) {
    t.type(err, TaskStoreOpenError, `${what}: a TaskStoreOpenError`);
    const message = (err as Error).message;
    t.ok(message.includes(path), `${what}: the message names ${path}: ${message}`);
    t.match(message, pattern, what);
    return message;
  }
}

/**
 * Commits in <dataDir>/tasks.db-wal since the log last started over: frames whose "database size after commit" field
 * is set, up to the first frame of an older generation (https://sqlite.org/fileformat.html#the_write_ahead_log).
 */
function walCommits(dataDir: string): number {
  const wal = readFileSync(join(dataDir, "tasks.db-wal"));
  if (wal.length < 32) return 0;
  const pageSize = wal.readUInt32BE(8);
  const [salt1, salt2] = [wal.readUInt32BE(16), wal.readUInt32BE(20)];
  let commits = 0;
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) {
    if (wal.readUInt32BE(at + 8) !== salt1 || wal.readUInt32BE(at + 12) !== salt2) break;
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return commits;
}

t.test("creates asked for together share one commit, and each comes out as if created alone", async (t) => {
  const dataDir = tempDir(t);
  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const first = (await store.create({ operations: [op("sg-0")], scaleSets: ["k"] })).task;
  const before = walCommits(dataDir);
  const results = await Promise.all([
    ...Array.from({ length: 8 }, (_, i) => store.create({ operations: [op(`sg-${i + 1}`)], scaleSets: ["k"] })),
    store.create({ clientRequestId: "twice", operations: [op("a")] }),
    store.create({ clientRequestId: "twice", operations: [op("b")] }),
  ]);
  t.equal(walCommits(dataDir) - before, 1, "ten creates, one commit");
  const chain = [first, ...results.slice(0, 8).map((r) => r.task)];
  for (let i = 1; i < chain.length; i++) {
    t.match(
      chain[i].history[0]?.status,
      new RegExp(`^Waiting for task ${chain[i - 1].id} on scale set k `),
      `create ${i} waits for the one asked for just before it`,
    );
  }
  t.same(
    results.slice(8).map((r) => r.created),
    [true, false],
    "a clientRequestId seen earlier in the same commit is found",
  );
  t.equal(results[9].task.id, results[8].task.id);
  t.same(results[9].task.operations, [op("a")]);
  t.same(
    (await store.claim("r", 60_000, 10)).map((x) => x.id),
    [first.id, results[8].task.id],
    "creation order is the order asked",
  );
});

t.test("a create that cannot be stored fails alone, not the others committed with it", async (t) => {
  const dataDir = tempDir(t);
  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const bad = { phase: "P", status: null as unknown as string, timeMs: 1 };
  const results = await Promise.allSettled([
    store.create({ operations: [op("a")] }),
    store.create({ operations: [op("b")], history: [bad] }),
    store.create({ operations: [op("c")] }),
  ]);
  t.same(
    results.map((r) => r.status),
    ["fulfilled", "rejected", "fulfilled"],
  );
  t.match((results[1] as PromiseRejectedResult).reason, { message: /NOT NULL/ });
  t.same(
    (await store.list({ limit: 10 })).tasks.map((x) => x.operations[0].description.serverGroupName),
    ["c", "a"],
    "the two good ones, nothing of the bad one",
  );
});

t.test("a task that ends with nothing behind it wakes nothing: the claims after it commit nothing", async (t) => {
  const dataDir = tempDir(t);
  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const a = (await store.create({ operations: [op("sg-a")], scaleSets: ["k", "l"] })).task;
  t.same(
    (await store.claim("r", 60_000, 10)).map((x) => x.id),
    [a.id],
  );
  t.ok(await store.update("r", a.id, { state: "succeeded", finishedAtMs: Date.now() }));
  const before = walCommits(dataDir);
  t.same(await store.claim("r", 60_000, 10), [], "nothing to claim");
  t.equal(walCommits(dataDir) - before, 0, "and no commit to find it out");
  // The scale sets are free: a task submitted now goes at once.
  const b = (await store.create({ operations: [op("sg-b")], scaleSets: ["l"] })).task;
  t.same(
    (await store.claim("r", 60_000, 10)).map((x) => x.id),
    [b.id],
  );
});

t.test("a task that ends wakes the scale sets with a task behind it, and only those", async (t) => {
  const dataDir = tempDir(t);
  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const a = (await store.create({ operations: [op("sg-a")], scaleSets: ["k", "l"] })).task;
  const b = (await store.create({ operations: [op("sg-b")], scaleSets: ["l"] })).task;
  t.same(
    (await store.claim("r", 60_000, 10)).map((x) => x.id),
    [a.id],
    "b waits for a",
  );
  t.ok(await store.update("r", a.id, { state: "failed", finishedAtMs: Date.now() }));
  const db = new DatabaseSync(join(dataDir, "tasks.db"), { readOnly: true });
  t.teardown(() => db.close());
  t.same(
    (db.prepare("SELECT scale_set FROM task_wakes ORDER BY scale_set").all() as { scale_set: string }[]).map(
      (r) => r.scale_set,
    ),
    ["l"],
  );
  t.same(
    (await store.claim("r", 60_000, 10)).map((x) => x.id),
    [b.id],
    "the task behind it goes next",
  );
});

t.test("close commits the creates already asked for", async (t) => {
  const dataDir = tempDir(t);
  const store = await SqliteTaskStore.open({ dataDir });
  const pending = store.create({ operations: [op("late")] });
  await store.close();
  const { task } = await pending;
  const reopened = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => reopened.close());
  t.equal((await reopened.get(task.id))?.operations[0].description.serverGroupName, "late");
});

t.test("tasks survive a close and re-open", async (t) => {
  const dataDir = join(tempDir(t), "nested", "data");
  const store = await SqliteTaskStore.open({ dataDir });
  t.equal(store.path, join(dataDir, "tasks.db"));
  const a = (await store.create({ clientRequestId: "keep-me", operations: [op("web-v001")] })).task;
  const b = (await store.create({ operations: [op("web-v002"), op("web-v003")] })).task;
  const c = (await store.create({ operations: [op("batch")] })).task;
  const [claimed] = await store.claim("replica-1", 60_000, 1);
  t.equal(claimed.id, a.id);
  const checkpoint: TaskCheckpoint = {
    operationIndex: 0,
    attempt: 1,
    inFlight: { step: { kind: "update", summary: "s" }, poller: "p".repeat(10_000) },
  };
  t.ok(await store.update("replica-1", a.id, { state: "running", checkpoint, armCalls: 2 }));
  t.ok(await store.appendHistory("replica-1", a.id, { phase: "INIT", status: "Initializing", timeMs: 1 }));
  await store.claim("replica-1", 60_000, 1);
  t.ok(await store.update("replica-1", b.id, { state: "succeeded", finishedAtMs: 1000 }));
  const before = await store.list({ limit: 10 });
  await store.close();

  const reopened = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => reopened.close());
  t.same(await reopened.list({ limit: 10 }), before, "every task as it was");
  t.same((await reopened.get(a.id))!.checkpoint, checkpoint);
  t.equal((await reopened.get(a.id))!.leaseOwner, "replica-1", "leases too");
  t.equal(
    (await reopened.create({ clientRequestId: "keep-me", operations: [] })).task.id,
    a.id,
    "dedupe across restarts",
  );
  t.ok(await reopened.update("replica-1", a.id, { armCalls: 3 }), "the lease still fences by owner");
  t.same(
    (await reopened.claim("replica-2", 60_000, 10)).map((x) => x.id),
    [c.id],
  );
  t.equal(await reopened.prune(2000), 1);
});

t.test("a task written by a process that was killed is taken over from its checkpoint", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const result = await runChild(dir, ["crash", dataDir]);
  t.equal(result.signal, "SIGKILL", `the child died hard (stderr: ${result.stderr.trim()})`);
  const { id } = JSON.parse(result.stdout) as { id: string };
  t.ok(readdirSync(dataDir).includes("tasks.db-wal"), "it died without closing: its writes are in the WAL");

  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const task = (await store.get(id))!;
  t.equal(task.state, "running");
  t.equal(task.leaseOwner, "child");
  t.equal(task.armCalls, 4);
  t.same(
    task.history.map((h) => h.status),
    ["attempt 2/8"],
  );
  t.equal(task.checkpoint?.attempt, 2);
  t.equal(JSON.parse(task.checkpoint!.inFlight!.poller).state.url, "https://x/op?y=1");
  t.equal((await store.create({ clientRequestId: "from-child", operations: [] })).created, false);
  const expires = task.leaseExpiresAtMs!;
  await waitFor(() => Date.now() > expires + 200, { what: "200 ms past the dead child's lease", intervalMs: 5 });
  const [taken] = await store.claim("survivor", 60_000, 5);
  t.equal(taken?.id, id, "once its lease expired, another replica claims it");
  t.same(taken.checkpoint, task.checkpoint, "with its checkpoint");
  t.equal(await store.update("child", id, { armCalls: 99 }), false, "the dead owner is fenced out");
});

t.test("several processes share one file: each task is claimed once, and every task is done", async (t) => {
  // The invariant, whatever the interleaving: how the claims fall between the processes is up to the scheduler (on
  // a loaded machine one process may take all of them), so it is reported, not asserted.
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const ids: string[] = [];
  for (let i = 0; i < 80; i++) ids.push((await store.create({ operations: [op(`sg-${i}`)] })).task.id);
  const owners = ["p0", "p1", "p2", "p3"];
  const results = await runTogether(
    dir,
    owners.map((owner) => ["claim", dataDir, owner]),
  );
  const claimedBy = new Map<string, string[]>();
  for (const [i, r] of results.entries()) {
    t.equal(r.code, 0, `child ${owners[i]} exited 0 (stderr: ${r.stderr.trim()})`);
    const { ids: claimed, finished } = JSON.parse(r.stdout || '{"ids":[],"finished":[]}') as {
      ids: string[];
      finished: boolean[];
    };
    t.ok(finished.every(Boolean), `child ${owners[i]} held the lease of every task it claimed until it finished it`);
    for (const id of claimed) claimedBy.set(id, [...(claimedBy.get(id) ?? []), owners[i]]);
  }
  t.same(
    [...claimedBy].filter(([, by]) => by.length > 1),
    [],
    "no task claimed by two processes",
  );
  t.same([...claimedBy.keys()].sort(), [...ids].sort(), "every task claimed");
  const states = await Promise.all(ids.map(async (id) => (await store.get(id))!.state));
  t.same(
    states.filter((s) => s !== "succeeded"),
    [],
    "every task done",
  );
  const perProcess = owners.map((o) => [...claimedBy.values()].filter((by) => by[0] === o).length);
  t.comment(`claims per process: ${perProcess.join(", ")}`);
});

t.test("processes that open a new file at once migrate it once", async (t) => {
  const dir = tempDir(t);
  const dataDir = join(dir, "data");
  const results = await runTogether(
    dir,
    [0, 1, 2, 3].map(() => ["open", dataDir]),
  );
  for (const r of results)
    t.same({ code: r.code, stdout: r.stdout }, { code: 0, stdout: "ok" }, `opened (stderr: ${r.stderr.trim()})`);
  const store = await SqliteTaskStore.open({ dataDir });
  t.equal((await store.list({ limit: 10 })).tasks.length, 4);
  await store.close();
  const db = new DatabaseSync(join(dataDir, "tasks.db"), { readOnly: true });
  t.same(
    db
      .prepare("SELECT version FROM schema_migrations")
      .all()
      .map((r) => r.version),
    SQLITE_MIGRATIONS.map((m) => m.version),
    "one row per version",
  );
  t.equal((db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode, "wal");
  db.close();
});

t.test("a corrupt tasks.db: a clear error, and the file is left byte for byte", async (t) => {
  const dataDir = tempDir(t);
  const path = join(dataDir, "tasks.db");
  const garbage = Buffer.concat([Buffer.from("this is not a database\n"), randomBytes(16_384)]);
  writeFileSync(path, garbage);
  await rejectsNaming(t, dataDir, path, /not a usable SQLite database.*left as it is/s, "garbage");
  t.ok(readFileSync(path).equals(garbage), "tasks.db unchanged");
  t.same(readdirSync(dataDir), ["tasks.db"], "nothing created next to it");
  await rejectsNaming(t, dataDir, path, /not a usable SQLite database/, "a second attempt says the same");
  t.ok(readFileSync(path).equals(garbage), "still unchanged");

  // A real task store cut short (a bad copy, a full disk): SQLite's header says it is longer than it is.
  const other = tempDir(t);
  const store = await SqliteTaskStore.open({ dataDir: other });
  for (let i = 0; i < 300; i++) await store.create({ operations: [op(`sg-${i}-${"x".repeat(300)}`)] });
  await store.close();
  const truncated = readFileSync(join(other, "tasks.db")).subarray(0, 40_000);
  writeFileSync(join(other, "tasks.db"), truncated);
  await rejectsNaming(t, other, join(other, "tasks.db"), /malformed|not a usable/, "truncated");
  t.ok(readFileSync(join(other, "tasks.db")).equals(truncated), "the truncated file is unchanged");
});

t.test("a SQLite database that is not a task store is refused and left alone", async (t) => {
  const dataDir = tempDir(t);
  const path = join(dataDir, "tasks.db");
  const db = new DatabaseSync(path);
  db.exec("CREATE TABLE tasks (id TEXT); INSERT INTO tasks VALUES ('someone else''s')");
  db.close();
  const bytes = readFileSync(path);
  await rejectsNaming(t, dataDir, path, /not a vmss-ops task store/, "foreign database");
  t.ok(readFileSync(path).equals(bytes), "unchanged");
});

t.test("a schema newer than the code: a clear error, nothing changed", async (t) => {
  const dataDir = tempDir(t);
  const path = join(dataDir, "tasks.db");
  const store = await SqliteTaskStore.open({ dataDir });
  const { task } = await store.create({ operations: [op("a")] });
  await store.close();
  const db = new DatabaseSync(path);
  db.exec("INSERT INTO schema_migrations (version, description, applied_at_ms) VALUES (99, 'from the future', 0)");
  db.close();
  const bytes = readFileSync(path);
  await rejectsNaming(
    t,
    dataDir,
    path,
    new RegExp(
      `schema version 99, newer than this version of vmss-ops knows \\(${latestVersion(SQLITE_MIGRATIONS)}\\)`,
    ),
    "newer schema",
  );
  t.ok(readFileSync(path).equals(bytes), "unchanged");
  // Back to the current version, it opens again with its task.
  const fix = new DatabaseSync(path);
  fix.exec("DELETE FROM schema_migrations WHERE version = 99");
  fix.close();
  const again = await SqliteTaskStore.open({ dataDir });
  t.ok(await again.get(task.id));
  await again.close();
});

t.test("a tasks.db from before targets were stored: migrated, and its tasks read back without targets", async (t) => {
  const dataDir = tempDir(t);
  const path = join(dataDir, "tasks.db");
  // The schema as the version before targets left it, with a task in it.
  const targets = SQLITE_MIGRATIONS.find((m) => m.description.startsWith("targets:"))!.version;
  const before = SQLITE_MIGRATIONS.filter((m) => m.version < targets);
  const db = new DatabaseSync(path);
  db.exec(
    "CREATE TABLE schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at_ms INTEGER NOT NULL)",
  );
  for (const m of before) {
    db.exec(m.sql);
    db.prepare("INSERT INTO schema_migrations (version, description, applied_at_ms) VALUES (?, ?, 0)").run(
      m.version,
      m.description,
    );
  }
  db.prepare(
    "INSERT INTO tasks (id, state, operations, created_at_ms, updated_at_ms) VALUES ('old', 'queued', ?, 1, 1)",
  ).run(JSON.stringify([op("a")]));
  db.close();

  const store = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => store.close());
  const old = await store.get("old");
  t.same(old?.operations, [op("a")], "the old task is there");
  t.notOk(old && "targets" in old, "without targets: its run locates it, as before");
  const check = new DatabaseSync(path, { readOnly: true });
  t.same(
    (check.prepare("SELECT version FROM schema_migrations ORDER BY version").all() as { version: number }[]).map(
      (r) => r.version,
    ),
    SQLITE_MIGRATIONS.map((m) => m.version),
    "migrated to the code's version",
  );
  check.close();
});

t.test("a data dir that cannot be used: a clear error naming it", async (t) => {
  const root = tempDir(t);

  // Works for every user, root included: the path is a regular file, or lies under one.
  const file = join(root, "not-a-dir");
  writeFileSync(file, "keep me");
  await rejectsNaming(t, file, file, /exists but is not a directory/, "DATA_DIR is a file");
  await rejectsNaming(
    t,
    join(file, "data"),
    join(file, "data"),
    /cannot create the data directory.*ENOTDIR/,
    "DATA_DIR under a file",
  );
  t.equal(readFileSync(file, "utf8"), "keep me", "the file is untouched");

  // Permissions: only where they stop this process. root (CAP_DAC_OVERRIDE, as in many containers and CI) writes
  // into a mode-500 directory anyway; that case is covered by the file-shaped paths above.
  const locked = join(root, "locked");
  mkdirSync(locked);
  chmodSync(locked, 0o500);
  let permissionsBind = true;
  try {
    writeFileSync(join(locked, "probe"), "");
    rmSync(join(locked, "probe"));
    permissionsBind = false;
  } catch {
    // expected for a normal user
  }
  if (!permissionsBind) {
    t.comment("running with privileges that ignore file modes (root): the chmod 500 case cannot be shown here");
  } else {
    await rejectsNaming(t, locked, locked, /not writable/, "DATA_DIR mode 500");
    await rejectsNaming(
      t,
      join(locked, "sub"),
      join(locked, "sub"),
      /cannot create the data directory.*EACCES/,
      "a new DATA_DIR under a mode-500 dir",
    );
    const dir = join(root, "ro-file");
    mkdirSync(dir);
    writeFileSync(join(dir, "tasks.db"), "");
    chmodSync(join(dir, "tasks.db"), 0o400);
    await rejectsNaming(t, dir, join(dir, "tasks.db"), /not readable and writable/, "tasks.db mode 400");
  }
});

t.test("createTaskStore picks the configured store", async (t) => {
  const dataDir = tempDir(t);
  const memory = await createTaskStore({ store: { kind: "memory", dataDir }, taskRetentionCount: 5 });
  t.type(memory, MemoryTaskStore);
  await memory.close();
  const sqlite = await createTaskStore({ store: { kind: "sqlite", dataDir }, taskRetentionCount: 5 });
  t.type(sqlite, SqliteTaskStore);
  t.equal((sqlite as SqliteTaskStore).path, join(dataDir, "tasks.db"));
  await sqlite.close();
  await t.rejects(createTaskStore({ store: { kind: "postgres", dataDir }, taskRetentionCount: 5 }), {
    name: "TaskStoreOpenError",
    message: /DATABASE_URL/,
  });
  await t.rejects(
    createTaskStore({
      store: { kind: "postgres", dataDir, databaseUrl: "postgres://u:s3cret@127.0.0.1:1/db" },
      taskRetentionCount: 5,
    }),
    {
      name: "TaskStoreOpenError",
      message: /cannot connect to the task store database \(postgres:\/\/u:\*\*\*@127\.0\.0\.1:1\/db\)/,
    },
    "an unreachable database: a clear error, password redacted",
  );
  await createTaskStore({
    store: { kind: "postgres", dataDir, databaseUrl: "postgres://u:s3cret@127.0.0.1:1/db" },
    taskRetentionCount: 5,
  }).catch((err: Error) => t.notMatch(err.message, /s3cret/, "never the password"));
});
