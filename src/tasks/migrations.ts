// Versioned schema for the durable task stores (docs/task-stores.md). Each store records the versions it applied in
// a schema_migrations table and applies the missing ones at open, under a lock, so replicas that start together
// migrate once: SQLite inside a BEGIN IMMEDIATE transaction, PostgreSQL under pg_advisory_xact_lock.
//
// Rules: a migration is never edited once released; a new one gets the next version. A database whose version is
// newer than the code's refuses to open (an older replica must not write into a schema it does not know).

export interface Migration {
  version: number;
  description: string;
  /** One or more statements, run in the migration's transaction. */
  sql: string;
}

/** Opening a task store failed: the message says what and where (path, database), and what to do. */
export class TaskStoreOpenError extends Error {
  override name = "TaskStoreOpenError";
}

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "tasks and task_history",
    sql: `
      CREATE TABLE tasks (
        seq                 INTEGER PRIMARY KEY AUTOINCREMENT, -- creation order: list, claim and cursors use it
        id                  TEXT NOT NULL UNIQUE,
        client_request_id   TEXT UNIQUE,
        state               TEXT NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
        operations          TEXT NOT NULL,                      -- JSON: [{name, description}]
        operation_index     INTEGER NOT NULL DEFAULT 0,
        result_objects      TEXT NOT NULL DEFAULT '[]',        -- JSON
        failure             TEXT,                               -- JSON
        arm_calls           INTEGER NOT NULL DEFAULT 0,
        checkpoint          TEXT,                               -- JSON
        lease_owner         TEXT,
        lease_expires_at_ms INTEGER,
        created_at_ms       INTEGER NOT NULL,
        updated_at_ms       INTEGER NOT NULL,
        finished_at_ms      INTEGER
      );
      CREATE INDEX tasks_runnable ON tasks (seq) WHERE state IN ('queued', 'running');
      CREATE INDEX tasks_state_seq ON tasks (state, seq);
      CREATE INDEX tasks_prunable ON tasks (coalesce(finished_at_ms, updated_at_ms))
        WHERE state IN ('succeeded', 'failed', 'canceled');
      CREATE TABLE task_history (
        seq     INTEGER PRIMARY KEY AUTOINCREMENT,             -- append order
        task_id TEXT NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        phase   TEXT NOT NULL,
        status  TEXT NOT NULL,
        time_ms INTEGER NOT NULL
      );
      CREATE INDEX task_history_task ON task_history (task_id, seq);
    `,
  },
  {
    version: 2,
    description: "task_scale_sets: the scale sets of unfinished tasks, for ordering per scale set",
    sql: `
      CREATE TABLE task_scale_sets (
        task_seq  INTEGER NOT NULL REFERENCES tasks (seq) ON DELETE CASCADE,
        scale_set TEXT NOT NULL,                                -- scaleSetKey: subscription/resource group/name, lower case
        PRIMARY KEY (task_seq, scale_set)
      );
      CREATE INDEX task_scale_sets_order ON task_scale_sets (scale_set, task_seq);
    `,
  },
  {
    version: 3,
    description: "cancel_requested_at_ms: a cancel request its lease holder acts on",
    sql: `ALTER TABLE tasks ADD COLUMN cancel_requested_at_ms INTEGER;`,
  },
  {
    version: 4,
    description:
      "revision: grows with every change a reader sees, so that readers can keep what they built from a task",
    sql: `ALTER TABLE tasks ADD COLUMN revision INTEGER NOT NULL DEFAULT 1;`,
  },
  {
    version: 5,
    description: "task_ready and task_wakes: a claim looks at the tasks that may go first, not at every task waiting",
    sql: `
      CREATE TABLE task_ready (
        task_seq INTEGER PRIMARY KEY REFERENCES tasks (seq) ON DELETE CASCADE
      );
      CREATE TABLE task_wakes (
        scale_set TEXT PRIMARY KEY
      );
      INSERT INTO task_ready (task_seq) SELECT seq FROM tasks WHERE state IN ('queued', 'running');
    `,
  },
  {
    version: 6,
    description: "audit_entries: who changed what, kept apart from the tasks (AUDIT_RETENTION_DAYS)",
    // No foreign key to tasks: an entry outlives its task. The entry is JSON; what is filtered on has a column.
    sql: `
      CREATE TABLE audit_entries (
        seq            INTEGER PRIMARY KEY AUTOINCREMENT,      -- recording order: list and cursors use it
        id             TEXT NOT NULL UNIQUE,
        time_ms        INTEGER NOT NULL,
        principal      TEXT NOT NULL,
        task_id        TEXT,
        entry          TEXT NOT NULL,                          -- JSON: the entry but id and outcome
        outcome        TEXT,
        outcome_at_ms  INTEGER
      );
      CREATE INDEX audit_entries_time ON audit_entries (time_ms);
      CREATE INDEX audit_entries_task ON audit_entries (task_id) WHERE task_id IS NOT NULL;
    `,
  },
  {
    version: 7,
    description: "targets: where each operation acts, located once at submission; NULL on the tasks stored before",
    sql: `ALTER TABLE tasks ADD COLUMN targets TEXT; -- JSON: [{account, subscriptionId, resourceGroup, name, region} | null]`,
  },
  {
    version: 8,
    description: "traceparent: the submission's span, under which every run of the task is traced; NULL untraced",
    sql: `ALTER TABLE tasks ADD COLUMN traceparent TEXT;`,
  },
  {
    version: 9,
    description: "write_durations: Azure's durations of the writes that ended, by kind, kept across restarts",
    sql: `CREATE TABLE write_durations (kind TEXT PRIMARY KEY, samples TEXT NOT NULL); -- JSON: [ms, …], oldest first`,
  },
];

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: "tasks and task_history",
    sql: `
      CREATE TABLE tasks (
        seq                 bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id                  text NOT NULL UNIQUE,
        client_request_id   text UNIQUE,
        state               text NOT NULL CHECK (state IN ('queued', 'running', 'succeeded', 'failed', 'canceled')),
        operations          jsonb NOT NULL,
        operation_index     integer NOT NULL DEFAULT 0,
        result_objects      jsonb NOT NULL DEFAULT '[]',
        failure             jsonb,
        arm_calls           integer NOT NULL DEFAULT 0,
        checkpoint          jsonb,
        lease_owner         text,
        lease_expires_at_ms bigint,
        created_at_ms       bigint NOT NULL,
        updated_at_ms       bigint NOT NULL,
        finished_at_ms      bigint
      );
      CREATE INDEX tasks_runnable ON tasks (seq) WHERE state IN ('queued', 'running');
      CREATE INDEX tasks_state_seq ON tasks (state, seq);
      CREATE INDEX tasks_operations ON tasks USING gin (operations jsonb_path_ops);
      CREATE INDEX tasks_prunable ON tasks ((coalesce(finished_at_ms, updated_at_ms)))
        WHERE state IN ('succeeded', 'failed', 'canceled');
      CREATE TABLE task_history (
        seq     bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        task_id text NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
        phase   text NOT NULL,
        status  text NOT NULL,
        time_ms bigint NOT NULL
      );
      CREATE INDEX task_history_task ON task_history (task_id, seq);
    `,
  },
  {
    version: 2,
    description: "task_scale_sets: the scale sets of unfinished tasks, for ordering per scale set",
    sql: `
      CREATE TABLE task_scale_sets (
        task_seq  bigint NOT NULL REFERENCES tasks (seq) ON DELETE CASCADE,
        scale_set text NOT NULL,
        PRIMARY KEY (task_seq, scale_set)
      );
      CREATE INDEX task_scale_sets_order ON task_scale_sets (scale_set, task_seq);
    `,
  },
  {
    version: 3,
    description: "cancel_requested_at_ms: a cancel request its lease holder acts on",
    sql: `ALTER TABLE tasks ADD COLUMN cancel_requested_at_ms bigint;`,
  },
  {
    version: 4,
    description:
      "revision: grows with every change a reader sees, so that readers can keep what they built from a task",
    sql: `ALTER TABLE tasks ADD COLUMN revision bigint NOT NULL DEFAULT 1;`,
  },
  {
    version: 5,
    description: "task_ready and task_wakes: a claim looks at the tasks that may go first, not at every task waiting",
    sql: `
      CREATE TABLE task_ready (
        task_seq bigint PRIMARY KEY REFERENCES tasks (seq) ON DELETE CASCADE
      );
      CREATE TABLE task_wakes (
        scale_set text PRIMARY KEY
      );
      INSERT INTO task_ready (task_seq) SELECT seq FROM tasks WHERE state IN ('queued', 'running');
    `,
  },
  {
    version: 6,
    description:
      "arm_budget: the ARM call budget's buckets, shared by every replica (src/azure/arm-budget/postgres-ledger.ts)",
    sql: `
      CREATE TABLE arm_budget (
        key              text PRIMARY KEY,          -- subscription/policy[/resource]
        tokens           double precision NOT NULL, -- the level at at_ms
        at_ms            bigint NOT NULL,           -- the database's clock
        blocked_until_ms bigint NOT NULL DEFAULT 0  -- a 429's Retry-After: nothing is given before
      );
      -- One call's take, all or nothing over its buckets, locked in key order (no deadlock between two takes).
      CREATE FUNCTION arm_budget_take(keys text[], bursts float8[], refills float8[], needs float8[])
        RETURNS TABLE (granted boolean, wait_ms bigint, empty_key text)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $take$
      DECLARE
        now_ms bigint := floor(extract(epoch from clock_timestamp()) * 1000);
        levels float8[] := '{}';
        lvl float8;
        blocked bigint;
        w bigint;
        worst bigint := 0;
        worst_key text;
      BEGIN
        INSERT INTO arm_budget (key, tokens, at_ms) SELECT k, b, now_ms FROM unnest(keys, bursts) AS u(k, b) ORDER BY k ON CONFLICT DO NOTHING;
        PERFORM 1 FROM arm_budget WHERE key = ANY (keys) ORDER BY key FOR UPDATE;
        FOR i IN 1 .. cardinality(keys) LOOP
          SELECT least(bursts[i], tokens + greatest(0, now_ms - at_ms) * refills[i] / 60000.0), blocked_until_ms
            INTO lvl, blocked FROM arm_budget WHERE key = keys[i];
          levels := levels || lvl;
          w := greatest(blocked - now_ms, CASE WHEN lvl >= needs[i] THEN 0 ELSE greatest(1, ceil((needs[i] - lvl) * 60000.0 / refills[i])) END);
          IF w > worst THEN worst := w; worst_key := keys[i]; END IF;
        END LOOP;
        IF worst > 0 THEN
          RETURN QUERY SELECT false, worst, worst_key;
          RETURN;
        END IF;
        UPDATE arm_budget a SET tokens = u.lvl - 1, at_ms = now_ms FROM unnest(keys, levels) AS u(k, lvl) WHERE a.key = u.k;
        RETURN QUERY SELECT true, 0::bigint, NULL::text;
      END
      $take$;
    `,
  },
  {
    version: 7,
    description: "task_wakes: a row per wake-up, not one per scale set, so that none is lost",
    // With one row per scale set, a create or a task's end that found the row there already (ON CONFLICT DO NOTHING)
    // relied on it; a claim could take that row away with a snapshot from before the create or end committed, and
    // the task behind never became a candidate (a burst of 10,000 left 36 queued for good). Now every wake-up
    // inserts its own row, which a claim sees, and takes, only with everything its transaction wrote.
    sql: `ALTER TABLE task_wakes DROP CONSTRAINT task_wakes_pkey;`,
  },
  {
    version: 8,
    description: "arm_budget_take_calls: the takes of several ARM calls in one statement, in the waiting line's order",
    // A replica's calls waiting in one turn take together (src/azure/arm-budget/postgres-ledger.ts). arm_budget_take stays
    // for replicas of the previous version during a rolling upgrade; both lock in key order, so they never deadlock.
    sql: `
      -- names: the buckets, once each, with their figures; slots, needs: each call's buckets (an index into names) in
      -- the order of the calls; ends: where each call's buckets end. Each call is all or nothing, as alone; a call
      -- refused holds its buckets for the rest of the take: a later call sharing one is not tried (wait_ms NULL).
      CREATE FUNCTION arm_budget_take_calls(names text[], bursts float8[], refills float8[], slots int[], needs float8[], ends int[])
        RETURNS TABLE (n int, granted boolean, wait_ms bigint, empty_key text)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $take$
      DECLARE
        now_ms bigint := floor(extract(epoch from clock_timestamp()) * 1000);
        levels float8[];
        blocks bigint[];
        held boolean[] := array_fill(false, ARRAY[cardinality(names)]);
        changed boolean[] := array_fill(false, ARRAY[cardinality(names)]);
        start int := 1;
        j int;
        w bigint;
        worst bigint;
        worst_key text;
        skipped boolean;
      BEGIN
        INSERT INTO arm_budget (key, tokens, at_ms) SELECT k, b, now_ms FROM unnest(names, bursts) AS u(k, b) ORDER BY k ON CONFLICT DO NOTHING;
        PERFORM 1 FROM arm_budget WHERE key = ANY (names) ORDER BY key FOR UPDATE;
        -- A row swept away since the insert was full: a missing one reads as its burst.
        SELECT array_agg(coalesce(least(u.b, a.tokens + greatest(0, now_ms - a.at_ms) * u.r / 60000.0), u.b) ORDER BY u.i),
               array_agg(coalesce(a.blocked_until_ms, 0) ORDER BY u.i)
          INTO levels, blocks
          FROM unnest(names, bursts, refills) WITH ORDINALITY AS u(k, b, r, i) LEFT JOIN arm_budget a ON a.key = u.k;
        FOR c IN 1 .. cardinality(ends) LOOP
          worst := 0;
          worst_key := NULL;
          skipped := false;
          FOR i IN start .. ends[c] LOOP
            j := slots[i];
            IF held[j] THEN skipped := true; EXIT; END IF;
            w := greatest(blocks[j] - now_ms, CASE WHEN levels[j] >= needs[i] THEN 0 ELSE greatest(1, ceil((needs[i] - levels[j]) * 60000.0 / refills[j])) END);
            IF w > worst THEN worst := w; worst_key := names[j]; END IF;
          END LOOP;
          n := c;
          IF skipped THEN
            granted := false; wait_ms := NULL; empty_key := NULL;
          ELSIF worst > 0 THEN
            FOR i IN start .. ends[c] LOOP held[slots[i]] := true; END LOOP;
            granted := false; wait_ms := worst; empty_key := worst_key;
          ELSE
            FOR i IN start .. ends[c] LOOP levels[slots[i]] := levels[slots[i]] - 1; changed[slots[i]] := true; END LOOP;
            granted := true; wait_ms := 0; empty_key := NULL;
          END IF;
          RETURN NEXT;
          start := ends[c] + 1;
        END LOOP;
        UPDATE arm_budget a SET tokens = u.lvl, at_ms = now_ms FROM unnest(names, levels, changed) AS u(k, lvl, ch) WHERE u.ch AND a.key = u.k;
      END
      $take$;
    `,
  },
  {
    version: 9,
    description: "audit_entries: who changed what, kept apart from the tasks (AUDIT_RETENTION_DAYS)",
    // No foreign key to tasks: an entry outlives its task. The entry is jsonb; what is filtered on has a column.
    sql: `
      CREATE TABLE audit_entries (
        seq            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        id             text NOT NULL UNIQUE,
        time_ms        bigint NOT NULL,
        principal      text NOT NULL,
        task_id        text,
        entry          jsonb NOT NULL,
        outcome        text,
        outcome_at_ms  bigint
      );
      CREATE INDEX audit_entries_time ON audit_entries (time_ms);
      CREATE INDEX audit_entries_task ON audit_entries (task_id) WHERE task_id IS NOT NULL;
    `,
  },
  {
    version: 10,
    description: "targets: where each operation acts, located once at submission; NULL on the tasks stored before",
    sql: `ALTER TABLE tasks ADD COLUMN targets jsonb;`,
  },
  {
    version: 11,
    description:
      "arm_budget_take_lease: a take that also leases a replica a slice of each busy bucket, and takes back slices' unspent tokens",
    // A call covered by its replica's slices is sent without a statement (src/azure/arm-budget/budget.ts): the statements per
    // ARM call fall with the replica's demand. arm_budget_take_calls stays for replicas of the previous version during
    // a rolling upgrade; all three lock in key order, so they never deadlock. OR REPLACE: a schema taken back to an
    // older version (as tests do) keeps its functions, and migrates again.
    sql: `
      -- As arm_budget_take_calls (names, bursts, refills: the buckets once each; slots, needs, ends: the calls), and per
      -- bucket: caps, Azure's counts since the replica's last take (the level is lowered to one if above; -1: none),
      -- applied first; gives, the unspent tokens of this replica's slices that ended, put back then (never into a
      -- bucket a 429 blocks); wants, the tokens to lease beyond this take's calls, taken last, after every call, from what is
      -- left above floors (the reserve cache reads leave) and at most share of it, never from a bucket a call of this
      -- take was refused or a 429 blocks. A call's row has n >= 1; a slice's row has n = 0, its bucket in empty_key
      -- and its tokens in leased.
      CREATE OR REPLACE FUNCTION arm_budget_take_lease(names text[], bursts float8[], refills float8[], caps float8[], gives float8[],
                                            wants float8[], floors float8[], share float8, slots int[], needs float8[],
                                            ends int[])
        RETURNS TABLE (n int, granted boolean, wait_ms bigint, empty_key text, leased float8)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $take$
      DECLARE
        now_ms bigint := floor(extract(epoch from clock_timestamp()) * 1000);
        levels float8[];
        blocks bigint[];
        held boolean[] := array_fill(false, ARRAY[cardinality(names)]);
        changed boolean[] := array_fill(false, ARRAY[cardinality(names)]);
        start int := 1;
        j int;
        w bigint;
        worst bigint;
        worst_key text;
        skipped boolean;
        extra float8;
      BEGIN
        INSERT INTO arm_budget (key, tokens, at_ms) SELECT k, b, now_ms FROM unnest(names, bursts) AS u(k, b) ORDER BY k ON CONFLICT DO NOTHING;
        PERFORM 1 FROM arm_budget WHERE key = ANY (names) ORDER BY key FOR UPDATE;
        SELECT array_agg(coalesce(least(u.b, a.tokens + greatest(0, now_ms - a.at_ms) * u.r / 60000.0), u.b) ORDER BY u.i),
               array_agg(coalesce(a.blocked_until_ms, 0) ORDER BY u.i)
          INTO levels, blocks
          FROM unnest(names, bursts, refills) WITH ORDINALITY AS u(k, b, r, i) LEFT JOIN arm_budget a ON a.key = u.k;
        FOR m IN 1 .. cardinality(names) LOOP
          IF caps[m] >= 0 AND levels[m] > caps[m] THEN
            levels[m] := caps[m];
            changed[m] := true;
          END IF;
          IF gives[m] > 0 AND blocks[m] <= now_ms THEN
            levels[m] := least(bursts[m], levels[m] + gives[m]);
            changed[m] := true;
          END IF;
        END LOOP;
        leased := NULL;
        FOR c IN 1 .. cardinality(ends) LOOP
          worst := 0;
          worst_key := NULL;
          skipped := false;
          FOR i IN start .. ends[c] LOOP
            j := slots[i];
            IF held[j] THEN skipped := true; EXIT; END IF;
            w := greatest(blocks[j] - now_ms, CASE WHEN levels[j] >= needs[i] THEN 0 ELSE greatest(1, ceil((needs[i] - levels[j]) * 60000.0 / refills[j])) END);
            IF w > worst THEN worst := w; worst_key := names[j]; END IF;
          END LOOP;
          n := c;
          IF skipped THEN
            granted := false; wait_ms := NULL; empty_key := NULL;
          ELSIF worst > 0 THEN
            FOR i IN start .. ends[c] LOOP held[slots[i]] := true; END LOOP;
            granted := false; wait_ms := worst; empty_key := worst_key;
          ELSE
            FOR i IN start .. ends[c] LOOP levels[slots[i]] := levels[slots[i]] - 1; changed[slots[i]] := true; END LOOP;
            granted := true; wait_ms := 0; empty_key := NULL;
          END IF;
          RETURN NEXT;
          start := ends[c] + 1;
        END LOOP;
        FOR m IN 1 .. cardinality(names) LOOP
          IF wants[m] >= 1 AND NOT held[m] AND blocks[m] <= now_ms THEN
            extra := least(floor(wants[m]), floor((levels[m] - floors[m]) * share));
            IF extra >= 1 THEN
              levels[m] := levels[m] - extra;
              changed[m] := true;
              n := 0; granted := true; wait_ms := NULL; empty_key := names[m]; leased := extra;
              RETURN NEXT;
            END IF;
          END IF;
        END LOOP;
        UPDATE arm_budget a SET tokens = u.lvl, at_ms = now_ms FROM unnest(names, levels, changed) AS u(k, lvl, ch) WHERE u.ch AND a.key = u.k;
      END
      $take$;
    `,
  },
  {
    version: 12,
    description: "tasks_started: the started tasks that have not ended, which a claim reads instead of every candidate",
    // The predicate is the claim's, word for word (STARTED_UNFINISHED_SQL in src/tasks/pg/claim.ts): PostgreSQL uses
    // a partial index only for a query that implies its predicate. A task's claim and end move it in and out.
    sql: `CREATE INDEX IF NOT EXISTS tasks_started ON tasks (seq)
      WHERE state IN ('queued', 'running') AND (state = 'running' OR lease_owner IS NOT NULL);`,
  },
  {
    version: 13,
    description: "traceparent: the submission's span, under which every run of the task is traced; NULL untraced",
    sql: `ALTER TABLE tasks ADD COLUMN IF NOT EXISTS traceparent text;`,
  },
  {
    version: 14,
    description:
      "tasks updated in place (HOT): no index reads updated_at_ms, and room left on each page for new versions",
    // Every write of a task sets updated_at_ms, and an index on it (tasks_prunable's coalesce) made every update a
    // new entry in each of the table's indexes, the operations' GIN index included. Without it, a write that leaves
    // the indexed columns (state, lease_owner, finished_at_ms, ...) as they were is a heap-only update on the same
    // page: a checkpoint or a history line no longer writes the indexes (bench/pg-task.ts; docs/task-stores.md).
    // Prune reads finished tasks by finished_at_ms, and those finished without one (none the runner writes) by
    // updated_at_ms, which the finished task no longer changes.
    sql: `DROP INDEX IF EXISTS tasks_prunable;
      CREATE INDEX IF NOT EXISTS tasks_finished ON tasks (finished_at_ms)
        WHERE state IN ('succeeded', 'failed', 'canceled');
      ALTER TABLE tasks SET (fillfactor = 80);`,
  },
  {
    version: 15,
    description:
      "fewer index entries and row locks per task: narrower partial indexes, no history primary key, no foreign keys",
    // Each new version of a task's row (its insert, and the claim, start and end, which change indexed columns) is an
    // entry in every index whose predicate it meets, and each history line was two; a statement inserting a history
    // line, a scale set or a candidate also locked the task's row (the foreign key's check: a WAL record each).
    // tasks_state_seq (every row, every version) gives way to an index of the failed and canceled tasks only (a list
    // of the others by state walks the primary key: succeeded tasks are most of it, running ones are in
    // tasks_started); tasks_runnable to tasks_waiting, the backlog's queued tasks nobody holds, which a claim leaves.
    // task_history's seq keeps ordering the lines through (task_id, seq). Prune deletes a task's lines, scale sets
    // and candidate with it (src/tasks/pg/prune.ts). The GIN index of the operations holds the finished tasks
    // only (their one version), where each version was a few entries; list finds the tasks not finished, few, through
    // tasks_waiting and tasks_started (src/tasks/pg/read.ts).
    sql: `DROP INDEX IF EXISTS tasks_state_seq;
      CREATE INDEX IF NOT EXISTS tasks_ended_badly ON tasks (state, seq) WHERE state IN ('failed', 'canceled');
      DROP INDEX IF EXISTS tasks_runnable;
      CREATE INDEX IF NOT EXISTS tasks_waiting ON tasks (seq) WHERE state = 'queued' AND lease_owner IS NULL;
      ALTER TABLE task_history DROP CONSTRAINT IF EXISTS task_history_pkey;
      ALTER TABLE task_history DROP CONSTRAINT IF EXISTS task_history_task_id_fkey;
      ALTER TABLE task_scale_sets DROP CONSTRAINT IF EXISTS task_scale_sets_task_seq_fkey;
      ALTER TABLE task_ready DROP CONSTRAINT IF EXISTS task_ready_task_seq_fkey;
      DROP INDEX IF EXISTS tasks_operations;
      CREATE INDEX IF NOT EXISTS tasks_operations_finished ON tasks USING gin (operations jsonb_path_ops)
        WHERE state IN ('succeeded', 'failed', 'canceled');`,
  },
  {
    version: 16,
    description:
      "fewer WAL records per task: an audit entry settled in place, and a budget bucket created by the take that fills it",
    // Through the service a resize wrote 3 KiB of WAL into arm_budget and 1.5 KiB into audit_entries
    // (docs/benchmarks.md, by pg_waldump). A bucket new to the table (every operation polled, every scale set and VM
    // read for the first time in two hours) was inserted empty-handed by a speculative insert (its record and its
    // confirmation), then locked (a record) and then updated (a record): it is now inserted once, with its level, by
    // the take, which takes each bucket's turn by an advisory lock of its key (no WAL) and still locks the rows there
    // are, as before. The same function, the same answers: replicas of the previous version call it too.
    // Room is left on its pages for a take's update to stay on the row's page (heap-only: no new key entry).
    // An audit entry is settled (outcome, outcome_at_ms: no index reads them) within its task's life; with its page
    // full (fillfactor 100) the settle wrote a new version on another page and an entry in each of its four indexes,
    // about half the time. Room is left on each page, as on tasks (version 14), for the settle to stay on the page.
    sql: `
      ALTER TABLE audit_entries SET (fillfactor = 80);
      ALTER TABLE arm_budget SET (fillfactor = 80);
      CREATE OR REPLACE FUNCTION arm_budget_take_lease(names text[], bursts float8[], refills float8[], caps float8[], gives float8[],
                                            wants float8[], floors float8[], share float8, slots int[], needs float8[],
                                            ends int[])
        RETURNS TABLE (n int, granted boolean, wait_ms bigint, empty_key text, leased float8)
        LANGUAGE plpgsql SET search_path FROM CURRENT AS $take$
      DECLARE
        now_ms bigint := floor(extract(epoch from clock_timestamp()) * 1000);
        levels float8[];
        blocks bigint[];
        held boolean[] := array_fill(false, ARRAY[cardinality(names)]);
        changed boolean[] := array_fill(false, ARRAY[cardinality(names)]);
        present boolean[];
        h int;
        start int := 1;
        j int;
        w bigint;
        worst bigint;
        worst_key text;
        skipped boolean;
        extra float8;
      BEGIN
        -- Each bucket's turn, in the order of its lock's number (no deadlock between two takes): a bucket with no row
        -- yet has nothing to lock, and is created by the take that fills it, not beforehand. A row there is locked as
        -- before, in key order, so that every other writer of it (a 429's drain, Azure's count) waits for this take.
        FOR h IN SELECT DISTINCT hashtext(k) FROM unnest(names) AS k ORDER BY 1 LOOP
          PERFORM pg_advisory_xact_lock(1986880098, h);
        END LOOP;
        PERFORM 1 FROM arm_budget WHERE key = ANY (names) ORDER BY key FOR UPDATE;
        SELECT array_agg(coalesce(least(u.b, a.tokens + greatest(0, now_ms - a.at_ms) * u.r / 60000.0), u.b) ORDER BY u.i),
               array_agg(coalesce(a.blocked_until_ms, 0) ORDER BY u.i),
               array_agg(a.key IS NOT NULL ORDER BY u.i)
          INTO levels, blocks, present
          FROM unnest(names, bursts, refills) WITH ORDINALITY AS u(k, b, r, i) LEFT JOIN arm_budget a ON a.key = u.k;
        FOR m IN 1 .. cardinality(names) LOOP
          IF caps[m] >= 0 AND levels[m] > caps[m] THEN
            levels[m] := caps[m];
            changed[m] := true;
          END IF;
          IF gives[m] > 0 AND blocks[m] <= now_ms THEN
            levels[m] := least(bursts[m], levels[m] + gives[m]);
            changed[m] := true;
          END IF;
        END LOOP;
        leased := NULL;
        FOR c IN 1 .. cardinality(ends) LOOP
          worst := 0;
          worst_key := NULL;
          skipped := false;
          FOR i IN start .. ends[c] LOOP
            j := slots[i];
            IF held[j] THEN skipped := true; EXIT; END IF;
            w := greatest(blocks[j] - now_ms, CASE WHEN levels[j] >= needs[i] THEN 0 ELSE greatest(1, ceil((needs[i] - levels[j]) * 60000.0 / refills[j])) END);
            IF w > worst THEN worst := w; worst_key := names[j]; END IF;
          END LOOP;
          n := c;
          IF skipped THEN
            granted := false; wait_ms := NULL; empty_key := NULL;
          ELSIF worst > 0 THEN
            FOR i IN start .. ends[c] LOOP held[slots[i]] := true; END LOOP;
            granted := false; wait_ms := worst; empty_key := worst_key;
          ELSE
            FOR i IN start .. ends[c] LOOP levels[slots[i]] := levels[slots[i]] - 1; changed[slots[i]] := true; END LOOP;
            granted := true; wait_ms := 0; empty_key := NULL;
          END IF;
          RETURN NEXT;
          start := ends[c] + 1;
        END LOOP;
        FOR m IN 1 .. cardinality(names) LOOP
          IF wants[m] >= 1 AND NOT held[m] AND blocks[m] <= now_ms THEN
            extra := least(floor(wants[m]), floor((levels[m] - floors[m]) * share));
            IF extra >= 1 THEN
              levels[m] := levels[m] - extra;
              changed[m] := true;
              n := 0; granted := true; wait_ms := NULL; empty_key := names[m]; leased := extra;
              RETURN NEXT;
            END IF;
          END IF;
        END LOOP;
        UPDATE arm_budget a SET tokens = u.lvl, at_ms = now_ms
          FROM unnest(names, levels, changed, present) AS u(k, lvl, ch, p) WHERE u.ch AND u.p AND a.key = u.k;
        -- A plain insert (an ON CONFLICT clause would make it a speculative one, a record more): the bucket's turn keeps
        -- other takes out. A writer that does not take the turn (a drain or a count, which lock the row when there is
        -- one) may have made the row meanwhile: then it is updated, unless that writer blocked the bucket.
        IF EXISTS (SELECT 1 FROM unnest(changed, present) AS u(ch, p) WHERE u.ch AND NOT u.p) THEN
          BEGIN
            INSERT INTO arm_budget (key, tokens, at_ms)
              SELECT u.k, u.lvl, now_ms FROM unnest(names, levels, changed, present) AS u(k, lvl, ch, p)
              WHERE u.ch AND NOT u.p ORDER BY u.k;
          EXCEPTION WHEN unique_violation THEN
            INSERT INTO arm_budget AS a (key, tokens, at_ms)
              SELECT u.k, u.lvl, now_ms FROM unnest(names, levels, changed, present) AS u(k, lvl, ch, p)
              WHERE u.ch AND NOT u.p ORDER BY u.k
              ON CONFLICT (key) DO UPDATE SET tokens = excluded.tokens, at_ms = excluded.at_ms
              WHERE a.blocked_until_ms <= now_ms;
          END;
        END IF;
      END
      $take$;
    `,
  },
  {
    version: 17,
    description: "write_durations: Azure's durations of the writes that ended, by kind, shared by the replicas",
    // Additive: replicas of the previous version neither read nor write it.
    sql: `CREATE TABLE IF NOT EXISTS write_durations (kind text PRIMARY KEY, samples int[] NOT NULL);`,
  },
];

export function latestVersion(migrations: readonly Migration[]): number {
  return migrations.reduce((max, m) => Math.max(max, m.version), 0);
}

/** The migrations still to apply on a database at `current`; throws if the database is newer than the code. */
export function pendingMigrations(migrations: readonly Migration[], current: number, where: string): Migration[] {
  const latest = latestVersion(migrations);
  if (current > latest) {
    throw new TaskStoreOpenError(
      `${where} has task store schema version ${current}, newer than this version of vmss-ops knows (${latest}): ` +
        `a newer vmss-ops migrated it. Run that version (or newer), or point this one at another database; ` +
        `the database was left as it is`,
    );
  }
  return migrations.filter((m) => m.version > current).sort((a, b) => a.version - b.version);
}
