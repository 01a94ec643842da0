// Two replicas whose takes (with slices leased) meet at the same bucket row of the shared ledger never spend the same
// tokens: the test holds the row in a transaction that sets its level, starts a take on each of two ledgers (two
// pools, as two replicas have), waits until PostgreSQL shows both waiting for that row, and commits. Whatever order
// they then go in, the tokens given (calls granted and slices leased) add up to no more than the level the test
// committed, and the level left is that level less what they were given.
import t, { type Test } from "tap";
import pg from "pg";
import { randomBytes } from "node:crypto";
import { PostgresLedger } from "../src/azure/arm-budget/postgres-ledger.ts";
import type { BucketFigures } from "../src/azure/arm-budget/figures.ts";
import type { TakeRequest, TakeResult } from "../src/azure/arm-budget/ledger.ts";
import { PostgresTaskStore } from "../src/tasks/postgres-task-store.ts";
import { waitFor } from "../testkit/wait-for.ts";

const DATABASE_URL = process.env.TEST_DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/test";

/** A schema of its own, migrated (arm_budget and its take functions), dropped afterwards. */
async function budgetSchema(t: Test): Promise<string> {
  const schema = `vmss_ops_test_${randomBytes(6).toString("hex")}`;
  await (await PostgresTaskStore.open({ connectionString: DATABASE_URL, schema })).close();
  t.teardown(async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });
  return schema;
}

/** Two replicas' ledgers on `schema`, bounded far beyond the test, closed at its end. */
function twoLedgers(t: Test, schema: string): PostgresLedger[] {
  const replicas = [0, 1].map(
    () => new PostgresLedger({ connectionString: DATABASE_URL, schema, timeoutMs: 30_000, statementTimeoutMs: 30_000 }),
  );
  t.teardown(() => Promise.all(replicas.map((r) => r.close())));
  return replicas;
}

/** A connection of the test's own, ended at its end. */
async function connection(t: Test): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  t.teardown(() => client.end());
  return client;
}

/** How many takes on `schema` wait for a lock now: of the kind named ("advisory", "transactionid"), or any. */
async function takesWaiting(watcher: pg.Client, schema: string, waitEvent?: string): Promise<number> {
  const { rows } = await watcher.query<{ n: string }>(
    `SELECT count(*) AS n FROM pg_stat_activity
      WHERE wait_event_type = 'Lock' AND ($2::text IS NULL OR wait_event = $2)
        AND query LIKE '%arm_budget_take_lease%' AND query LIKE $1`,
    [`%${schema}%`, waitEvent ?? null],
  );
  return Number(rows[0].n);
}

/** Tokens a take gave for `key`: one per call granted, and its slice. */
function given(result: TakeResult, key: string): number {
  const granted = result.answers.filter((a) => a !== "held" && a.granted).length;
  return granted + (result.leased.get(key) ?? 0);
}

// A refill of a token an hour: nothing comes back while the test runs (bounded below all the same).
const FIGURES: BucketFigures = { burst: 100, refillPerMinute: 1 / 60 };
const KEY = "sub/arm:writes";
const LEVEL = 10;

for (const share of [1, 0.5]) {
  void t.test(
    `two ledgers' takes held at one bucket row, then let go: never more than its level between them (share ${share})`,
    async (t) => {
      const schema = await budgetSchema(t);
      const replicas = twoLedgers(t, schema);
      const holder = await connection(t);
      // Another connection watches: inside the holder's transaction pg_stat_activity would not change.
      const watcher = await connection(t);
      const table = `"${schema}".arm_budget`;
      // The row, full; then the test's transaction sets its level and holds it.
      await holder.query(`INSERT INTO ${table} (key, tokens, at_ms) VALUES ($1, $2, 0)`, [KEY, FIGURES.burst]);
      await holder.query("BEGIN");
      await holder.query(
        `UPDATE ${table} SET tokens = $2, at_ms = floor(extract(epoch from clock_timestamp()) * 1000) WHERE key = $1`,
        [KEY, LEVEL],
      );
      const startedMs = Date.now();

      // Each replica: four calls, and a slice of as many tokens as the bucket holds.
      const calls: TakeRequest[][] = Array.from({ length: 4 }, () => [{ key: KEY, figures: FIGURES, need: 1 }]);
      const lease = {
        caps: [],
        gives: [],
        wants: [{ key: KEY, figures: FIGURES, tokens: FIGURES.burst, floor: 0 }],
        share,
      };
      const takes = replicas.map((r) => r.takeAndLease(calls, lease));
      await waitFor(async () => (await takesWaiting(watcher, schema)) === 2, {
        what: "both takes to wait for the bucket row the test holds",
      });
      await holder.query("COMMIT");
      const results = await Promise.all(takes);
      const elapsedMs = Date.now() - startedMs;

      const each = results.map((r) => given(r, KEY));
      const refill = (elapsedMs * FIGURES.refillPerMinute) / 60_000;
      t.ok(
        each[0] + each[1] <= LEVEL + refill,
        `given ${each.join(" + ")} against a level of ${LEVEL} (+ ${refill.toFixed(4)} refilled)`,
      );
      const { rows } = await holder.query<{ tokens: number }>(`SELECT tokens FROM ${table} WHERE key = $1`, [KEY]);
      t.ok(
        Math.abs(rows[0].tokens - (LEVEL - each[0] - each[1])) <= refill + 1e-9,
        `the row holds the rest (${rows[0].tokens})`,
      );
      if (share === 1) {
        t.equal(each[0] + each[1], LEVEL, "with the whole share, the first spends the level to the last token");
        t.ok(each.includes(0), `and the one behind finds it empty (${each.join(", ")})`);
      } else
        t.ok(
          each.every((n) => n >= 1 && n < LEVEL),
          `with half, each was given some, the one behind what the first left (${each.join(", ")})`,
        );
    },
  );
}

void t.test(
  "a slice given back is put back once, never into a bucket a 429 blocks; Azure's count lowers first",
  async (t) => {
    const schema = await budgetSchema(t);
    const ledger = new PostgresLedger({ connectionString: DATABASE_URL, schema });
    t.teardown(() => ledger.close());
    const admin = await connection(t);
    const level = async () =>
      (await admin.query<{ tokens: number }>(`SELECT tokens FROM "${schema}".arm_budget WHERE key = $1`, [KEY])).rows[0]
        .tokens;
    const leased = await ledger.takeAndLease([[{ key: KEY, figures: FIGURES, need: 1 }]], {
      caps: [],
      gives: [],
      wants: [{ key: KEY, figures: FIGURES, tokens: 30, floor: 10 }],
      share: 0.5,
    });
    // 100 - 1 = 99; half of what is above the floor of 10: floor(89 / 2) = 44, more than wanted: 30.
    t.equal(leased.leased.get(KEY), 30, "the slice wanted, within the share");
    t.ok(Math.abs((await level()) - 69) < 0.01, "taken from the row");
    await ledger.takeAndLease([], {
      caps: [],
      gives: [{ key: KEY, figures: FIGURES, tokens: 25 }],
      wants: [],
      share: 0.5,
    });
    t.ok(Math.abs((await level()) - 94) < 0.01, "25 unspent tokens back");
    // Azure's count (40) rides on a take: lowered first, then the 5 tokens given back, then the call's token taken.
    await ledger.takeAndLease([[{ key: KEY, figures: FIGURES, need: 1 }]], {
      caps: [{ key: KEY, figures: FIGURES, tokens: 40 }],
      gives: [{ key: KEY, figures: FIGURES, tokens: 5 }],
      wants: [],
      share: 0.5,
    });
    t.ok(Math.abs((await level()) - 44) < 0.01, `Azure's count lowers the level (${await level()})`);
    await ledger.drain(KEY, FIGURES, 60_000);
    await ledger.takeAndLease([], {
      caps: [],
      gives: [{ key: KEY, figures: FIGURES, tokens: 25 }],
      wants: [],
      share: 0.5,
    });
    t.equal(await level(), 1, "a drained bucket takes nothing back");
    const refused = await ledger.takeAndLease([[{ key: KEY, figures: FIGURES, need: 1 }]], {
      caps: [],
      gives: [],
      wants: [{ key: KEY, figures: FIGURES, tokens: 30, floor: 0 }],
      share: 1,
    });
    t.match(refused.answers, [{ granted: false }], "its calls wait out the Retry-After");
    t.equal(refused.leased.size, 0, "and no slice is leased from it");
  },
);

/** The lock a take waits on for its turn at a bucket (migration 16): the advisory lock of its key. */
const TURN_LOCK = "SELECT pg_advisory_xact_lock(1986880098, hashtext($1))";

void t.test(
  "two ledgers' takes of a bucket that has no row yet take turns: the row is made once, with what both took",
  async (t) => {
    const schema = await budgetSchema(t);
    const replicas = twoLedgers(t, schema);
    const holder = await connection(t);
    const watcher = await connection(t);
    const key = "sub/GetOperation/op-new";
    // The bucket's turn, held as a take holds it: both takes start, find no row, and must wait for it.
    await holder.query("BEGIN");
    await holder.query(TURN_LOCK, [key]);
    const calls: TakeRequest[][] = Array.from({ length: 3 }, () => [{ key, figures: FIGURES, need: 1 }]);
    const lease = { caps: [], gives: [], wants: [{ key, figures: FIGURES, tokens: 20, floor: 0 }], share: 0.5 };
    const takes = replicas.map((r) => r.takeAndLease(calls, lease));
    await waitFor(async () => (await takesWaiting(watcher, schema, "advisory")) === 2, {
      what: "both takes to wait for the bucket's turn",
    });
    await holder.query("COMMIT");
    const results = await Promise.all(takes);
    const each = results.map((r) => given(r, key));
    t.ok(
      each.every((n) => n >= 3),
      `each take's three calls were granted, and a slice (${each.join(", ")})`,
    );
    const { rows } = await holder.query<{ tokens: number }>(
      `SELECT tokens FROM "${schema}".arm_budget WHERE key = $1`,
      [key],
    );
    t.equal(rows.length, 1, "one row for the bucket");
    t.ok(
      Math.abs(rows[0].tokens - (FIGURES.burst - each[0] - each[1])) < 0.01,
      `it holds the burst less what both were given (${rows[0].tokens} = ${FIGURES.burst} - ${each[0]} - ${each[1]})`,
    );
  },
);

void t.test("a 429's drain that makes a bucket's row while a take creates it is kept, not overwritten", async (t) => {
  const schema = await budgetSchema(t);
  const ledger = new PostgresLedger({ connectionString: DATABASE_URL, schema, timeoutMs: 30_000 });
  t.teardown(() => ledger.close());
  const drainer = await connection(t);
  const watcher = await connection(t);
  const key = "sub/GetOperation/op-drained";
  const table = `"${schema}".arm_budget`;
  // The drain's row, not committed yet: the take finds no row, and its insert waits on the drain's.
  await drainer.query("BEGIN");
  await drainer.query(
    `INSERT INTO ${table} (key, tokens, at_ms, blocked_until_ms)
     VALUES ($1, 1, floor(extract(epoch from clock_timestamp()) * 1000) + 60000, floor(extract(epoch from clock_timestamp()) * 1000) + 60000)`,
    [key],
  );
  const take = ledger.takeAndLease([[{ key, figures: FIGURES, need: 1 }]], {
    caps: [],
    gives: [],
    wants: [],
    share: 0,
  });
  await waitFor(async () => (await takesWaiting(watcher, schema, "transactionid")) === 1, {
    what: "the take's insert to wait for the drain's row",
  });
  await drainer.query("COMMIT");
  await take;
  const { rows } = await drainer.query<{ tokens: number; blocked: boolean }>(
    `SELECT tokens, blocked_until_ms > floor(extract(epoch from clock_timestamp()) * 1000) AS blocked FROM ${table} WHERE key = $1`,
    [key],
  );
  t.same(rows, [{ tokens: 1, blocked: true }], "the row is the drain's: the bucket waits out its Retry-After");
});
