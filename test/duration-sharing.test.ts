// Azure's write durations shared by the replicas (src/tasks/duration-sharing.ts): a replica that has not run a kind of
// write yet, or has just started, expects what the others saw, and so polls the write where it can be expected to
// have ended instead of where Azure's Retry-After says (10 s late for a 30 s update).
import { mkdtempSync, rmSync } from "node:fs";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import t from "tap";
import { WriteDurations, type DurationSample } from "../src/azure/write-durations.ts";
import { DurationSharing } from "../src/tasks/duration-sharing.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { SqliteTaskStore } from "../src/tasks/sqlite-task-store.ts";
import { waitFor } from "../testkit/wait-for.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";
/** Reads on a miss at once, pushes soon, never on the timer alone: each step is one the test waits for. */
const QUICK = { pushDelayMs: 10, refreshMs: 3_600_000, missRefreshMs: 0 };

t.test(
  "what a replica has not shared yet is taken once, given back when the store failed, and kept on adopt",
  async (t) => {
    const d = new WriteDurations();
    const missed: string[] = [];
    let recorded = 0;
    d.listen({ recorded: () => recorded++, missed: (kind) => missed.push(kind) });
    t.equal(d.expectedMs("update"), undefined);
    t.same(missed, ["update"], "a kind with no duration is reported missed");
    d.record("update", 30_000);
    t.equal(recorded, 1);
    const taken = d.takeUnshared();
    t.same(taken, [{ kind: "update", ms: 30_000 }]);
    t.same(d.takeUnshared(), [], "taken once");
    d.giveBack(taken);
    d.record("update", 32_000);
    t.same(d.takeUnshared(), [...taken, { kind: "update", ms: 32_000 }], "given back ahead of the later ones");
    d.record("update", 50_000);
    // The replicas shared 20 s and 40 s: this replica's 50 s, not shared yet, comes after them.
    d.adopt(new Map([["update", [20_000, 40_000]]]));
    t.equal(d.expectedMs("update"), 50_500, "the longest of 20, 40 and 50 s, × 1.01");
    d.adopt(new Map([["createOrUpdate", [61_000]]]));
    t.equal(d.expectedMs("update"), 50_500, "a kind the replicas did not share is kept as it was");
    t.equal(d.expectedMs("createOrUpdate"), 61_610);
  },
);

t.test("on PostgreSQL, a replica that never ran a kind of write expects what another replica saw", async (t) => {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  const open = () => PostgresTaskStore.open({ connectionString: DATABASE_URL, schema, poolMax: 2 });
  const [storeA, storeB] = [await open(), await open()];
  const [a, b] = [new WriteDurations(), new WriteDurations()];
  const sharingA = new DurationSharing(storeA, a, QUICK);
  const sharingB = new DurationSharing(storeB, b, QUICK);
  t.teardown(async () => {
    await sharingA.stop();
    await sharingB.stop();
    await storeA.close();
    await storeB.close();
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  sharingA.start();
  sharingB.start();
  t.equal(b.expectedMs("update"), undefined, "replica b has seen no update end");

  a.record("update", 30_000);
  const expected = await waitFor(() => b.expectedMs("update"), { what: "replica b to expect an update's end" });
  t.equal(expected, 30_300, "a's 30 s, × 1.01");
  t.same(await storeB.sharedWriteDurations(), new Map([["update", [30_000]]]), "one row, a's duration");

  // b's own durations go the other way, and a keeps its own with them.
  b.record("update", 34_000);
  b.record("update", 36_000);
  await waitFor(async () => (await storeA.sharedWriteDurations()).get("update")?.length === 3, {
    what: "b's durations in the store",
  });
  a.record("createOrUpdate", 61_000);
  await waitFor(() => a.expectedMs("update") === 36_360, {
    what: "a to expect the longest of 30, 34 and 36 s",
    seen: () => a.expectedMs("update"),
  });
});

t.test("on SQLite, a restarted replica expects what it saw before the restart", async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), "vmss-ops-durations-"));
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }));
  const before = await SqliteTaskStore.open({ dataDir });
  const seen = new WriteDurations();
  const sharing = new DurationSharing(before, seen, QUICK);
  sharing.start();
  seen.record("delete", 40_000);
  // A stopping replica shares what it had not shared yet.
  await sharing.stop();
  await before.close();

  const after = await SqliteTaskStore.open({ dataDir });
  t.teardown(() => after.close());
  const restarted = new WriteDurations();
  const again = new DurationSharing(after, restarted, QUICK);
  t.teardown(() => again.stop());
  again.start();
  await again.settled();
  t.equal(restarted.expectedMs("delete"), 40_400);
});

t.test("a store that fails does not lose the durations: they go with the next push", async (t) => {
  const shared: DurationSample[] = [];
  let failures = 1;
  const store = {
    async shareWriteDurations(samples: readonly DurationSample[]) {
      if (failures-- > 0) throw new Error("store unavailable");
      shared.push(...samples);
    },
    async sharedWriteDurations() {
      return new Map<string, number[]>();
    },
  };
  const d = new WriteDurations();
  const sharing = new DurationSharing(store, d, QUICK);
  t.teardown(() => sharing.stop());
  sharing.start();
  d.record("update", 30_000);
  await waitFor(() => failures === 0, { what: "the failed push" });
  d.record("update", 31_000);
  await waitFor(() => shared.length === 2, { what: "both durations shared", seen: () => shared });
  t.same(shared, [
    { kind: "update", ms: 30_000 },
    { kind: "update", ms: 31_000 },
  ]);
  t.equal(d.expectedMs("update"), 31_310, "kept here all along: the longest of 30 and 31 s, × 1.01");
});

t.test("a stalled store does not hold a stopping replica", { timeout: 30_000 }, async (t) => {
  const never = new Promise<never>(() => {});
  let asked = 0;
  const store = {
    shareWriteDurations: () => never,
    sharedWriteDurations: () => {
      asked++;
      return never;
    },
  };
  const d = new WriteDurations();
  const sharing = new DurationSharing(store, d, QUICK);
  sharing.start();
  d.record("update", 30_000);
  await waitFor(() => asked > 0, { what: "the read the store never answers" });
  // Resolves: the store's answer is waited for a bounded time. Before, it waited for ever.
  await sharing.stop();
  t.pass("stopped");
});
