// Tasks in PostgreSQL: durable, shared by several replicas. Every method but requestCancel is one round trip (claim:
// the claim lock, then SELECT … FOR UPDATE SKIP LOCKED inside an UPDATE, in one simple query), so no transaction
// spans a network round trip. Creates asked for together share one statement.
//
// Clock: every lease time (claim, renew, the fence on writes) and createdAtMs/updatedAtMs come from the database's
// clock (now()), never a replica's, so replicas with skewed clocks still agree on who holds a lease. Times the
// caller passes in (history timeMs, finishedAtMs, prune's finishedBeforeMs) are stored and compared as given.
// See docs/task-stores.md.
import { randomUUID } from "node:crypto";
import pg from "pg";
import type { HistoryEntry, Task, TaskState } from "./task.ts";
import { FINISHED_STATES } from "./task.ts";
import type { Backlog, CancelLines, CancelOutcome, NewTask, TaskChange, TaskPage, TaskQuery, TaskStore } from "./task-store.ts";
import { POSTGRES_MIGRATIONS, pendingMigrations, TaskStoreOpenError } from "./migrations.ts";
import { WAITING_FORMAT, WAITING_ITEM_FORMAT, WAITING_PHASE } from "./ordering.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import { CLAIMABLE_STATES, canMove, IllegalMoveError, sqlStateList, statesBefore } from "./task-state.ts";

export interface PostgresTaskStoreOptions {
  /** postgres://user:password@host:port/database (DATABASE_URL). */
  connectionString: string;
  /** Schema that holds the tables (created if missing); default public. Tests use one of their own. */
  schema?: string;
  /** Pool size (default 10). */
  poolMax?: number;
  /** How long to wait for a connection (default 10000 ms). */
  connectionTimeoutMs?: number;
  /** Errors of idle pooled connections (the server restarted, the network dropped): logged, never thrown. */
  onPoolError?: (err: Error) => void;
}

/** Lock class for pg_advisory_xact_lock(class, hashtext(schema)) while migrating: "vmss" in ASCII. */
const MIGRATION_LOCK_CLASS = 0x766d7373;
/** Lock class held while claiming ("vmsc"): claims of one schema take turns, see claim(). */
export const CLAIM_LOCK_CLASS = 0x766d7363;

/** Running, or leased: it goes before tasks that have not started (src/tasks/ordering.ts). */
const started = (t: string) => `(${t}.state = 'running' OR ${t}.lease_owner IS NOT NULL)`;

/** The database's clock in epoch milliseconds; constant within a statement. */
const NOW_MS = "(floor(extract(epoch from now()) * 1000))::bigint";

const FINISHED_SQL = sqlStateList(FINISHED_STATES);
const CLAIMABLE_SQL = sqlStateList(CLAIMABLE_STATES);

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The connection string without its password, for messages. */
export function redactConnectionString(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(DATABASE_URL, unparseable)";
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * PostgreSQL cannot store U+0000 in text or jsonb (other JSON round-trips exactly): it becomes U+FFFD, so a request
 * or a message that carries one is stored instead of failing. Only a \u0000 escape is touched, not an escaped
 * backslash followed by "u0000".
 */
function jsonParam(value: unknown): string {
  return JSON.stringify(value).replace(/(?<!\\)((?:\\\\)*)\\u0000/g, "$1\\ufffd");
}

function textParam(value: string): string;
function textParam(value: string | undefined): string | undefined;
function textParam(value: string | undefined): string | undefined {
  return value?.replace(/\0/g, "\ufffd");
}

type Row = Record<string, unknown>;

/** A whole number as SQL text, for the statements that cannot take parameters. */
function integerLiteral(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  return String(Math.round(value));
}

/** The connection died under the query (the server restarted or dropped it; the network failed). */
function connectionLost(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === "string" && (/^08/.test(code) || ["57P01", "57P02", "57P03", "ECONNRESET", "EPIPE"].includes(code))) return true;
  return /Connection terminated/i.test(message(err));
}

function toTask(row: Row): Task {
  const task: Task = {
    id: row.id as string,
    state: row.state as TaskState,
    operations: row.operations as Task["operations"],
    operationIndex: Number(row.operation_index),
    history: (row.history as HistoryEntry[] | null) ?? [],
    resultObjects: row.result_objects as Task["resultObjects"],
    armCalls: Number(row.arm_calls),
    createdAtMs: Number(row.created_at_ms),
    updatedAtMs: Number(row.updated_at_ms),
    revision: Number(row.revision),
  };
  if (row.client_request_id !== null) task.clientRequestId = row.client_request_id as string;
  if (row.failure !== null) task.failure = row.failure as Task["failure"];
  if (row.checkpoint !== null) task.checkpoint = row.checkpoint as Task["checkpoint"];
  if (row.lease_owner !== null) task.leaseOwner = row.lease_owner as string;
  if (row.lease_expires_at_ms !== null) task.leaseExpiresAtMs = Number(row.lease_expires_at_ms);
  if (row.finished_at_ms !== null) task.finishedAtMs = Number(row.finished_at_ms);
  if (row.cancel_requested_at_ms !== null) task.cancelRequestedAtMs = Number(row.cancel_requested_at_ms);
  return task;
}

/** A create waiting for its statement: the input as it was when create was called, as it will be stored. */
interface PendingCreate {
  clientRequestId: string | undefined;
  operations: Task["operations"];
  /** Deduplicated. */
  scaleSets: string[];
  history: HistoryEntry[];
  resolve: (result: { task: Task; created: boolean }) => void;
  reject: (err: unknown) => void;
}

/** At most this many creates per statement; more asked for in one turn go in several. */
const MAX_CREATES_PER_STATEMENT = 200;

/**
 * The batch create. Parameters: the creates in the order asked, as parallel arrays (unnest, whose row count the
 * planner reads off the array: with jsonb_array_elements' default guess of 100 rows per call the plan looked costly
 * enough to be JIT-compiled, 70 ms per statement): $1 ids, $2 clientRequestIds, $3 operations; their scale sets
 * ($4 the create's position from 1, $5 the key) and history lines ($6 position, $7 phase, $8 status, $9 time, in
 * order); then $10-$12 the waiting line's phase and formats, $13 its time, $14 the NOTIFY channel.
 *
 * Identity values follow the ORDER BY, so creation order is the order asked. The statement sees the scale sets as
 * they were before it, so a create's predecessor in the same batch comes from the batch itself (lag). A task's
 * history lines come after its waiting line: reading the waiting count makes that insert run first.
 */
function createSql(tasks: string, scaleSets: string, history: string, ready: string, wakes: string): string {
  return `WITH input AS (
      SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[]) WITH ORDINALITY AS i(id, client_request_id, operations, n)
    ), ins AS (
      INSERT INTO ${tasks} (id, client_request_id, state, operations, created_at_ms, updated_at_ms)
      SELECT id, client_request_id, 'queued', operations, ${NOW_MS}, ${NOW_MS} FROM input ORDER BY n
      ON CONFLICT (client_request_id) DO NOTHING
      RETURNING seq, id, created_at_ms
    ), mine AS (
      SELECT ins.seq, ins.id, k.scale_set
      FROM unnest($4::int[], $5::text[]) AS k(n, scale_set) JOIN input USING (n) JOIN ins USING (id)
    ), keys AS (
      INSERT INTO ${scaleSets} (task_seq, scale_set) SELECT seq, scale_set FROM mine
    ), ahead AS (
      SELECT m.id, m.scale_set, coalesce(
        lag(m.id) OVER (PARTITION BY m.scale_set ORDER BY m.seq),
        (SELECT u.id FROM ${scaleSets} s JOIN ${tasks} u ON u.seq = s.task_seq
         WHERE s.scale_set = m.scale_set AND s.task_seq < m.seq ORDER BY s.task_seq DESC LIMIT 1)) AS ahead_id
      FROM mine m
    ), first AS (
      INSERT INTO ${ready} (task_seq)
      SELECT seq FROM ins WHERE NOT EXISTS (SELECT 1 FROM ahead a WHERE a.id = ins.id AND a.ahead_id IS NOT NULL)
    ), woken AS (
      INSERT INTO ${wakes} (scale_set)
      SELECT DISTINCT scale_set FROM ahead WHERE ahead_id IS NOT NULL ORDER BY scale_set ON CONFLICT DO NOTHING
    ), waiting AS (
      INSERT INTO ${history} (task_id, phase, status, time_ms)
      SELECT id, $10, format($11, string_agg(format($12, ahead_id, scale_set), ', ' ORDER BY scale_set)), $13
      FROM ahead WHERE ahead_id IS NOT NULL GROUP BY id
      RETURNING task_id, status
    ), lines AS (
      INSERT INTO ${history} (task_id, phase, status, time_ms)
      SELECT ins.id, h.phase, h.status, h.time_ms
      FROM unnest($6::int[], $7::text[], $8::text[], $9::bigint[]) WITH ORDINALITY AS h(n, phase, status, time_ms, line)
        JOIN input USING (n) JOIN ins USING (id), (SELECT count(*) FROM waiting) w
      ORDER BY h.line
    ), notified AS (
      SELECT pg_notify($14, '') FROM (SELECT 1 FROM ins LIMIT 1) any_created
    )
    SELECT ins.id, ins.created_at_ms, w.status AS waiting, (SELECT count(*) FROM notified) AS notified
    FROM ins LEFT JOIN waiting w ON w.task_id = ins.id`;
}

/** Schema-qualified names of the tables a claim reads, and the task columns it returns. */
export interface ClaimTables {
  schema: string;
  tasks: string;
  scaleSets: string;
  ready: string;
  wakes: string;
  columns: string;
}

/**
 * The claim: two statements for one simple query (no parameters: values are literals), one transaction. The first
 * takes the claim lock; the second, with a snapshot taken after it:
 * - turns the wakes (scale sets whose first task may have changed since the last claim: a task ended, came back, or
 *   was created behind another) into candidates: the first task of each by submission order. Started tasks are
 *   candidates already: they were claimed from task_ready, and stay there until they end.
 * - checks each candidate (task_ready and the woken) against the order per scale set. A task that has not started
 *   waits for any earlier task on one of its scale sets (the first row of an index range, whatever the queue behind)
 *   and for any started one; a started task waits only for an earlier started one. The started tasks and their
 *   scale sets are collected once per claim, from the candidates.
 * So a claim reads the candidates and what was woken since the last claim, never the queue behind a busy scale set.
 */
export function claimSql(t: ClaimTables, owner: string, leaseMs: number, limit: number): string {
  // The plan must not hang on statistics: right after a burst of creates, before autovacuum analyzed the tables,
  // PostgreSQL chose hash joins that read every queued task (50 ms with 10,000 queued). So the candidates travel as
  // an array (tasks are found by index probes, seq = ANY), and each check is a subquery per candidate, which the
  // planner cannot turn into a join over the whole table.
  return `SELECT pg_advisory_xact_lock(${CLAIM_LOCK_CLASS}, hashtext(${pg.escapeLiteral(t.schema)}));
       WITH woken AS (
         DELETE FROM ${t.wakes} RETURNING scale_set
       ), heads AS (
         SELECT DISTINCT head FROM (
           SELECT (SELECT min(o.task_seq) FROM ${t.scaleSets} o WHERE o.scale_set = w.scale_set) AS head FROM woken w
         ) h WHERE head IS NOT NULL
       ), kept AS (
         INSERT INTO ${t.ready} (task_seq) SELECT head FROM heads ON CONFLICT DO NOTHING
       ), candidates AS (
         SELECT ARRAY(SELECT task_seq FROM ${t.ready} UNION SELECT head FROM heads) AS seqs
       ), busy AS MATERIALIZED (
         SELECT o.scale_set, o.task_seq FROM ${t.scaleSets} o
         WHERE o.task_seq = ANY (ARRAY(
           SELECT u.seq FROM ${t.tasks} u
           WHERE u.seq = ANY ((SELECT seqs FROM candidates)::bigint[]) AND u.state IN ${CLAIMABLE_SQL} AND ${started("u")}))
       ), picked AS (
         SELECT t.seq FROM ${t.tasks} t
         WHERE t.seq = ANY ((SELECT seqs FROM candidates)::bigint[])
           AND t.state IN ${CLAIMABLE_SQL} AND (t.lease_expires_at_ms IS NULL OR t.lease_expires_at_ms <= ${NOW_MS})
           AND NOT coalesce((
             SELECT bool_or(CASE WHEN ${started("t")}
               THEN EXISTS (SELECT 1 FROM busy b WHERE b.scale_set = mine.scale_set AND b.task_seq < t.seq)
               -- The first of the scale set's queue, one index probe (an EXISTS over task_seq < t.seq was planned as a
               -- sequential scan once the queue held most of the rows)
               ELSE (SELECT min(o.task_seq) FROM ${t.scaleSets} o WHERE o.scale_set = mine.scale_set) < t.seq
                 OR mine.scale_set IN (SELECT scale_set FROM busy) END)
             FROM ${t.scaleSets} mine WHERE mine.task_seq = t.seq), false)
         ORDER BY t.seq
         LIMIT ${integerLiteral(limit)}
         FOR UPDATE OF t SKIP LOCKED
       )
       UPDATE ${t.tasks} t SET lease_owner = ${pg.escapeLiteral(textParam(owner))}, lease_expires_at_ms = ${NOW_MS} + ${integerLiteral(leaseMs)}
       FROM picked WHERE t.seq = picked.seq
       RETURNING ${t.columns}`;
}

export class PostgresTaskStore implements TaskStore {
  readonly #pool: pg.Pool;
  readonly #poolMax: number;
  /** Schema-qualified table names. */
  readonly #tasks: string;
  readonly #history: string;
  readonly #scaleSets: string;
  readonly #ready: string;
  readonly #wakes: string;
  readonly #columns: string;
  readonly #schema: string;
  /** NOTIFY channel of this schema: "work may be claimable". */
  readonly #channel: string;
  readonly #connectionString: string;
  /** The batch create statement (#createBatch). */
  readonly #createSql: string;
  /** Creates waiting for the statement sent at the end of this turn of the event loop (create). */
  #pendingCreates: PendingCreate[] = [];
  /** Batches sent and not yet answered: close() waits for them. */
  readonly #createsInFlight = new Set<Promise<void>>();
  /** Where, for messages: the redacted URL and schema. */
  readonly where: string;

  private constructor(pool: pg.Pool, poolMax: number, schema: string, where: string, connectionString: string) {
    this.#pool = pool;
    this.#poolMax = poolMax;
    this.#schema = schema;
    this.#channel = `vmss_ops_work_${schema}`.slice(0, 63);
    this.#connectionString = connectionString;
    this.#tasks = `${quoteIdent(schema)}.tasks`;
    this.#history = `${quoteIdent(schema)}.task_history`;
    this.#scaleSets = `${quoteIdent(schema)}.task_scale_sets`;
    this.#columns = `t.seq, t.id, t.client_request_id, t.state, t.operations, t.operation_index, t.result_objects, t.failure,
      t.arm_calls, t.checkpoint, t.lease_owner, t.lease_expires_at_ms, t.created_at_ms, t.updated_at_ms, t.finished_at_ms,
      t.cancel_requested_at_ms, t.revision,
      (SELECT json_agg(json_build_object('phase', h.phase, 'status', h.status, 'timeMs', h.time_ms) ORDER BY h.seq)
         FROM ${this.#history} h WHERE h.task_id = t.id) AS history`;
    this.#ready = `${quoteIdent(schema)}.task_ready`;
    this.#wakes = `${quoteIdent(schema)}.task_wakes`;
    this.#createSql = createSql(this.#tasks, this.#scaleSets, this.#history, this.#ready, this.#wakes);
    this.where = where;
  }

  /**
   * Connects, and creates or migrates the schema under an advisory lock (replicas starting together migrate once).
   * Fails with a TaskStoreOpenError naming the database (password redacted) when it cannot connect, when the schema
   * is newer than this code, or when the schema holds a tasks table that is not ours.
   */
  static async open(options: PostgresTaskStoreOptions): Promise<PostgresTaskStore> {
    const schema = options.schema ?? "public";
    const redacted = redactConnectionString(options.connectionString);
    const where = `PostgreSQL ${redacted}, schema ${schema}`;
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(schema)) {
      throw new TaskStoreOpenError(`task store schema name "${schema}" is not a plain identifier (letters, digits, _)`);
    }
    const poolMax = options.poolMax ?? 10;
    const pool = new pg.Pool({
      connectionString: options.connectionString,
      max: poolMax,
      connectionTimeoutMillis: options.connectionTimeoutMs ?? 10_000,
      application_name: "vmss-ops",
      keepAlive: true,
    });
    const onPoolError =
      options.onPoolError ?? ((err: Error) => process.stderr.write(`vmss-ops task store: idle PostgreSQL connection failed: ${err.message}\n`));
    pool.on("error", (err) => onPoolError(err));
    try {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw new TaskStoreOpenError(`cannot connect to the task store database (${redacted}): ${message(err)}`);
      }
      try {
        await PostgresTaskStore.#migrate(client, schema, where);
      } finally {
        client.release();
      }
    } catch (err) {
      await pool.end().catch(() => {});
      if (err instanceof TaskStoreOpenError) throw err;
      throw new TaskStoreOpenError(`cannot prepare the task store in ${where}: ${message(err)}`);
    }
    return new PostgresTaskStore(pool, poolMax, schema, where, options.connectionString);
  }

  static async #migrate(client: pg.PoolClient, schema: string, where: string): Promise<void> {
    await client.query("BEGIN");
    try {
      // Held until COMMIT/ROLLBACK: a second replica waits here, then finds the schema migrated.
      await client.query("SELECT pg_advisory_xact_lock($1, hashtext($2))", [MIGRATION_LOCK_CLASS, schema]);
      const exists = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
      if (exists.rowCount === 0) await client.query(`CREATE SCHEMA ${quoteIdent(schema)}`);
      await client.query(`SET LOCAL search_path TO ${quoteIdent(schema)}`);
      const found = await client.query<{ migrations: string | null; tasks: string | null }>(
        "SELECT to_regclass($1)::text AS migrations, to_regclass($2)::text AS tasks",
        [`${quoteIdent(schema)}.schema_migrations`, `${quoteIdent(schema)}.tasks`],
      );
      if (found.rows[0].tasks && !found.rows[0].migrations) {
        throw new TaskStoreOpenError(`${where} has a tasks table but no schema_migrations: it is not a vmss-ops task store; it was left as it is`);
      }
      await client.query(
        "CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())",
      );
      const current = (await client.query<{ v: number }>("SELECT coalesce(max(version), 0)::int AS v FROM schema_migrations")).rows[0].v;
      for (const m of pendingMigrations(POSTGRES_MIGRATIONS, current, where)) {
        await client.query(m.sql);
        await client.query("INSERT INTO schema_migrations (version, description) VALUES ($1, $2)", [m.version, m.description]);
      }
      await client.query("COMMIT");
    } catch (err) {
      await client.query("ROLLBACK").catch(() => {});
      throw err;
    }
  }

  /**
   * One statement. `idempotent`: running it twice does no harm (reads, renew, release, prune), so when its
   * connection turns out dead it is sent again on another one; after a server restart every idle pooled connection
   * is dead and each failure removes one, hence up to poolMax + 1 tries. Anything else fails and the caller decides
   * (the outcome of a write whose connection died is unknown).
   */
  async #query<R extends pg.QueryResultRow = Row>(sql: string, params: unknown[], idempotent: boolean): Promise<pg.QueryResult<R>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.#pool.query<R>(sql, params);
      } catch (err) {
        if (!idempotent || !connectionLost(err) || attempt > this.#poolMax) throw err;
      }
    }
  }

  async #one(id: string): Promise<Task | undefined> {
    const { rows } = await this.#query(`SELECT ${this.#columns} FROM ${this.#tasks} t WHERE t.id = $1`, [id], true);
    return rows[0] ? toTask(rows[0]) : undefined;
  }

  /**
   * Creates the task. Creates asked for in one turn of the event loop (concurrent submissions) go to the database as
   * one statement, one commit and one NOTIFY: per create, a statement's round trip, planning, commit and the
   * NOTIFY's turn at commit cost more than its rows. Each is created as if alone, in the order asked.
   */
  async create(input: NewTask): Promise<{ task: Task; created: boolean }> {
    // Taken now: the caller may change its objects while the create waits for the statement.
    const pending: PendingCreate = {
      clientRequestId: textParam(input.clientRequestId) || undefined,
      operations: JSON.parse(jsonParam(input.operations)),
      scaleSets: [...new Set((input.scaleSets ?? []).map((k) => textParam(k)))],
      history: (input.history ?? []).map((h) => ({ ...h })),
      resolve: () => {},
      reject: () => {},
    };
    const done = new Promise<{ task: Task; created: boolean }>((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.#pendingCreates.push(pending);
    if (this.#pendingCreates.length === 1) setImmediate(() => this.#sendCreates());
    return done;
  }

  #sendCreates(): void {
    const pending = this.#pendingCreates;
    this.#pendingCreates = [];
    // More than one statement's worth: one after another, so that creation order stays the order asked.
    const sending = (async () => {
      for (let i = 0; i < pending.length; i += MAX_CREATES_PER_STATEMENT) {
        const batch = pending.slice(i, i + MAX_CREATES_PER_STATEMENT);
        await this.#createBatch(batch).catch((err) => batch.forEach((c) => c.reject(err)));
      }
    })().finally(() => this.#createsInFlight.delete(sending));
    this.#createsInFlight.add(sending);
  }

  /**
   * One statement for the batch: the tasks, their scale sets, each one's line saying whom it waits for (per scale
   * set, the one just before it: an earlier one of the batch, else the latest earlier unfinished task), and a NOTIFY
   * (sent at commit) that wakes the other replicas. A create whose clientRequestId is taken gets the task that has it.
   */
  async #createBatch(batch: PendingCreate[], attempt = 0): Promise<void> {
    // The same clientRequestId twice in one batch: the first is created (or found), the others get its task.
    const first = new Map<string, PendingCreate>();
    const sent: PendingCreate[] = [];
    for (const c of batch) {
      const earlier = c.clientRequestId !== undefined ? first.get(c.clientRequestId) : undefined;
      if (earlier) {
        const { resolve, reject } = earlier;
        earlier.resolve = (r) => (resolve(r), c.resolve({ task: structuredClone(r.task), created: false }));
        earlier.reject = (err) => (reject(err), c.reject(err));
        continue;
      }
      if (c.clientRequestId !== undefined) first.set(c.clientRequestId, c);
      sent.push(c);
    }
    const ids = sent.map(() => randomUUID());
    const timeMs = Date.now();
    let rows: { id: string; created_at_ms: string; waiting: string | null }[];
    try {
      ({ rows } = await this.#query<{ id: string; created_at_ms: string; waiting: string | null }>(
        this.#createSql,
        [
          ids,
          sent.map((c) => c.clientRequestId ?? null),
          sent.map((c) => jsonParam(c.operations)),
          sent.flatMap((c, i) => c.scaleSets.map(() => i + 1)),
          sent.flatMap((c) => c.scaleSets),
          sent.flatMap((c, i) => c.history.map(() => i + 1)),
          sent.flatMap((c) => c.history.map((h) => textParam(h.phase))),
          sent.flatMap((c) => c.history.map((h) => textParam(h.status))),
          sent.flatMap((c) => c.history.map((h) => Math.round(h.timeMs))),
          WAITING_PHASE,
          WAITING_FORMAT,
          WAITING_ITEM_FORMAT,
          timeMs,
          this.#channel,
        ],
        false,
      ));
    } catch (err) {
      // The statement failed as a whole (nothing was written): each alone, in order, so that one bad create fails by
      // itself. A connection that died under it leaves the outcome unknown: that fails them all, as it would one.
      if (sent.length === 1 || connectionLost(err)) for (const c of sent) c.reject(err);
      else for (const c of sent) await this.#createBatch([c], attempt);
      return;
    }
    const inserted = new Map(rows.map((r) => [r.id, r]));
    const taken: PendingCreate[] = [];
    sent.forEach((c, i) => {
      const row = inserted.get(ids[i]);
      if (!row) return void taken.push(c);
      // What was just written, without reading it back (jsonb may reorder keys; callers compare structurally).
      const createdAtMs = Number(row.created_at_ms);
      const task: Task = {
        id: row.id,
        state: "queued",
        operations: c.operations,
        operationIndex: 0,
        history: [...(row.waiting !== null ? [{ phase: WAITING_PHASE, status: row.waiting, timeMs }] : []), ...c.history],
        resultObjects: [],
        armCalls: 0,
        createdAtMs,
        updatedAtMs: createdAtMs,
        revision: 1,
      };
      if (c.clientRequestId !== undefined) task.clientRequestId = c.clientRequestId;
      c.resolve({ task, created: true });
    });
    if (taken.length === 0) return;
    // ON CONFLICT waited for a concurrent insert of the same clientRequestId to commit, then did nothing; this
    // SELECT (a new statement, a new snapshot) sees that row. One pruned in between is created again.
    try {
      const { rows: found } = await this.#query(
        `SELECT ${this.#columns} FROM ${this.#tasks} t WHERE t.client_request_id = ANY($1::text[])`,
        [taken.map((c) => c.clientRequestId)],
        true,
      );
      const byRequest = new Map(found.map((r) => [r.client_request_id as string, r]));
      const gone = taken.filter((c) => {
        const row = byRequest.get(c.clientRequestId!);
        if (row) c.resolve({ task: toTask(row), created: false });
        return !row;
      });
      if (gone.length === 0) return;
      if (attempt < 3) return this.#createBatch(gone, attempt + 1);
      for (const c of gone) c.reject(new Error(`create: clientRequestId ${c.clientRequestId} conflicts, but no task has it`));
    } catch (err) {
      for (const c of taken) c.reject(err);
    }
  }

  async get(id: string): Promise<Task | undefined> {
    return this.#one(id);
  }

  async revision(id: string): Promise<number | undefined> {
    const { rows } = await this.#query(`SELECT revision FROM ${this.#tasks} WHERE id = $1`, [id], true);
    return rows[0] ? Number(rows[0].revision) : undefined;
  }

  async list(query: TaskQuery): Promise<TaskPage> {
    const limit = Math.max(1, Math.min(500, Math.floor(query.limit) || 1));
    const where: string[] = [];
    const params: unknown[] = [];
    const param = (v: unknown) => {
      params.push(v);
      return `$${params.length}`;
    };
    const before = decodeCursor(query.cursor);
    if (before !== undefined) where.push(`t.seq < ${param(before)}::bigint`);
    if (query.state) where.push(`t.state = ${param(query.state)}`);
    // jsonb containment, served by the GIN index on operations.
    if (query.operation) where.push(`t.operations @> ${param(jsonParam([{ name: query.operation }]))}::jsonb`);
    if (query.serverGroup) {
      where.push(`t.operations @> ${param(jsonParam([{ description: { serverGroupName: query.serverGroup } }]))}::jsonb`);
    }
    const { rows } = await this.#query(
      `SELECT ${this.#columns} FROM ${this.#tasks} t ${where.length ? `WHERE ${where.join(" AND ")}` : ""}
       ORDER BY t.seq DESC LIMIT ${param(limit + 1)}`,
      params,
      true,
    );
    const page = rows.slice(0, limit);
    return {
      tasks: page.map(toTask),
      ...(rows.length > limit ? { nextCursor: encodeCursor(Number(page[page.length - 1].seq)) } : {}),
    };
  }

  async claim(owner: string, leaseMs: number, limit: number): Promise<Task[]> {
    if (limit <= 0) return [];
    // Whether a task goes first on its scale sets depends on other rows than its own, which FOR UPDATE does not
    // re-check: two claims at once could each see the other's pick as not yet started. So claims of one schema take
    // turns under a transaction-scoped advisory lock, and each takes its snapshot after the lock, seeing every
    // earlier claim. SKIP LOCKED still passes over rows a runner is writing right now.
    // One round trip: two statements in one simple query run as one transaction, which holds the lock to its end,
    // and each takes a snapshot of its own, the claim's after the lock. Values are literals (the simple query
    // protocol has no parameters).
    const results = (await this.#query(
      claimSql(
        { schema: this.#schema, tasks: this.#tasks, scaleSets: this.#scaleSets, ready: this.#ready, wakes: this.#wakes, columns: this.#columns },
        owner,
        leaseMs,
        limit,
      ),
      [],
      false,
    )) as unknown as pg.QueryResult<Row>[];
    return results.at(-1)!.rows.sort((a, b) => Number(a.seq) - Number(b.seq)).map(toTask);
  }

  async renew(owner: string, ids: string[], leaseMs: number): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.#query<{ id: string }>(
      `UPDATE ${this.#tasks} SET lease_expires_at_ms = ${NOW_MS} + $3::bigint
       WHERE id = ANY($2::text[]) AND lease_owner = $1 AND lease_expires_at_ms > ${NOW_MS}
       RETURNING id`,
      [owner, ids, Math.round(leaseMs)],
      true,
    );
    const held = new Set(rows.map((r) => r.id));
    return ids.filter((id) => held.has(id));
  }

  async release(owner: string, id: string): Promise<void> {
    await this.#query(
      `UPDATE ${this.#tasks} SET lease_owner = NULL, lease_expires_at_ms = NULL
       WHERE id = $1 AND lease_owner = $2 AND lease_expires_at_ms > ${NOW_MS}`,
      [id, owner],
      true,
    );
  }

  async appendHistory(owner: string, id: string, entry: HistoryEntry): Promise<boolean> {
    // The UPDATE is the fence (and locks the row until the INSERT is done); no lease, no row, no insert.
    const { rowCount } = await this.#query(
      `WITH held AS (
         UPDATE ${this.#tasks} SET updated_at_ms = ${NOW_MS}, revision = revision + 1
         WHERE id = $1 AND lease_owner = $2 AND lease_expires_at_ms > ${NOW_MS}
         RETURNING id
       )
       INSERT INTO ${this.#history} (task_id, phase, status, time_ms) SELECT id, $3, $4, $5 FROM held`,
      [id, owner, textParam(entry.phase), textParam(entry.status), Math.round(entry.timeMs)],
      false,
    );
    return rowCount === 1;
  }

  async update(owner: string, id: string, change: TaskChange): Promise<boolean> {
    const params: unknown[] = [id, owner];
    const sets: string[] = [`updated_at_ms = ${NOW_MS}`, "revision = revision + 1"];
    const set = (column: string, value: unknown, cast = "") => {
      params.push(value);
      sets.push(`${column} = $${params.length}${cast}`);
    };
    if (change.state !== undefined) set("state", change.state);
    if (change.operationIndex !== undefined) set("operation_index", change.operationIndex);
    if (change.resultObjects !== undefined) set("result_objects", jsonParam(change.resultObjects), "::jsonb");
    if (change.failure !== undefined) set("failure", jsonParam(change.failure), "::jsonb");
    else if ("failure" in change) sets.push("failure = NULL");
    if (change.armCalls !== undefined) set("arm_calls", change.armCalls);
    if (change.finishedAtMs !== undefined) set("finished_at_ms", Math.round(change.finishedAtMs), "::bigint");
    if (change.checkpoint === null) sets.push("checkpoint = NULL");
    else if (change.checkpoint !== undefined) set("checkpoint", jsonParam(change.checkpoint), "::jsonb");
    const finished = change.state !== undefined && FINISHED_STATES.has(change.state);
    if (finished) sets.push("lease_owner = NULL", "lease_expires_at_ms = NULL");
    // A change of state applies only from a state the table allows (task-state.ts), in the statement itself.
    const allowed = change.state !== undefined ? ` AND state IN ${sqlStateList(statesBefore(change.state))}` : "";
    const fenced = `UPDATE ${this.#tasks} SET ${sets.join(", ")} WHERE id = $1 AND lease_owner = $2 AND lease_expires_at_ms > ${NOW_MS}${allowed}`;
    const history = change.history ?? [];
    if (!finished && history.length === 0) {
      const { rowCount } = await this.#query(fenced, params, false);
      return rowCount === 1 || this.#refusedMove(owner, id, change.state);
    }
    // One statement: the fenced change, its history lines (only if the fence held), and for a finished task the
    // scale sets it no longer holds, with a NOTIFY (sent at commit) that wakes the replicas: one of them may now
    // claim the next task on those scale sets.
    const parts = [`done AS (${fenced} RETURNING seq, id)`];
    if (history.length > 0) {
      params.push(jsonParam(history.map((h) => ({ phase: h.phase, status: h.status, timeMs: Math.round(h.timeMs) }))));
      parts.push(
        `lines AS (INSERT INTO ${this.#history} (task_id, phase, status, time_ms)
           SELECT done.id, e.value->>'phase', e.value->>'status', (e.value->>'timeMs')::bigint
           FROM done, jsonb_array_elements($${params.length}::jsonb) WITH ORDINALITY AS e(value, n)
           ORDER BY e.n)`,
      );
    }
    let notified = "0";
    if (finished) {
      params.push(this.#channel);
      parts.push(`freed AS (DELETE FROM ${this.#scaleSets} s USING done WHERE s.task_seq = done.seq RETURNING s.scale_set)`);
      parts.push(`woken AS (INSERT INTO ${this.#wakes} (scale_set) SELECT DISTINCT scale_set FROM freed ORDER BY scale_set ON CONFLICT DO NOTHING)`);
      parts.push(`unready AS (DELETE FROM ${this.#ready} r USING done WHERE r.task_seq = done.seq)`);
      parts.push(`notified AS (SELECT pg_notify($${params.length}, '') FROM done)`);
      notified = "(SELECT count(*) FROM notified)";
    }
    const { rows } = await this.#query<{ n: string }>(
      `WITH ${parts.join(",\n")} SELECT (SELECT count(*) FROM done) AS n, ${notified} AS notified`,
      params,
      false,
    );
    return Number(rows[0].n) === 1 || this.#refusedMove(owner, id, change.state);
  }

  /**
   * An update changed nothing: false when the lease is not held (the fence), IllegalMoveError when it is and the
   * task is in a state the table has no move from to `to`.
   */
  async #refusedMove(owner: string, id: string, to: TaskState | undefined): Promise<false> {
    if (to === undefined) return false;
    const { rows } = await this.#query<{ state: TaskState }>(
      `SELECT state FROM ${this.#tasks} WHERE id = $1 AND lease_owner = $2 AND lease_expires_at_ms > ${NOW_MS}`,
      [id, owner],
      true,
    );
    if (rows[0] && !canMove(rows[0].state, to)) throw new IllegalMoveError(id, rows[0].state, to);
    return false;
  }

  async watch(onWork: () => void): Promise<() => Promise<void>> {
    // A connection of its own, outside the pool: LISTEN lasts as long as the session. If it drops, the runner's
    // timer still finds the work; the next watch() (a restart) listens again.
    const client = new pg.Client({ connectionString: this.#connectionString, application_name: "vmss-ops-listen", keepAlive: true });
    client.on("error", () => {});
    client.on("notification", () => onWork());
    await client.connect();
    await client.query(`LISTEN ${quoteIdent(this.#channel)}`);
    return async () => {
      await client.end().catch(() => {});
    };
  }

  async requeueRetryable(id: string, entry: HistoryEntry, scaleSets: string[]): Promise<boolean> {
    // One statement: the UPDATE is the compare-and-set; the history line, the scale sets it holds again (at its
    // place in submission order) and the wake-up of other replicas happen only if it matched.
    const { rows } = await this.#query(
      `WITH requeued AS (
         UPDATE ${this.#tasks} SET state = 'queued', failure = NULL, finished_at_ms = NULL, checkpoint = NULL,
           lease_owner = NULL, lease_expires_at_ms = NULL, updated_at_ms = ${NOW_MS}, revision = revision + 1
         WHERE id = $1 AND state = 'failed' AND (failure->>'retryable')::boolean IS TRUE
         RETURNING id, seq
       ), line AS (
         INSERT INTO ${this.#history} (task_id, phase, status, time_ms) SELECT id, $2, $3, $4 FROM requeued
       ), held AS (
         INSERT INTO ${this.#scaleSets} (task_seq, scale_set)
         SELECT requeued.seq, k FROM requeued, unnest($5::text[]) AS k ON CONFLICT DO NOTHING
       ), ready AS (
         INSERT INTO ${this.#ready} (task_seq) SELECT seq FROM requeued ON CONFLICT DO NOTHING
       ), woken AS (
         INSERT INTO ${this.#wakes} (scale_set) SELECT DISTINCT k FROM requeued, unnest($5::text[]) AS k ORDER BY k ON CONFLICT DO NOTHING
       ), notified AS (
         SELECT pg_notify($6, '') FROM requeued
       )
       SELECT (SELECT count(*) FROM notified) AS notified FROM requeued`,
      [id, textParam(entry.phase), textParam(entry.status), Math.round(entry.timeMs), [...new Set(scaleSets.map((k) => textParam(k)))], this.#channel],
      false,
    );
    return rows.length === 1;
  }

  async requestCancel(id: string, lines: CancelLines): Promise<CancelOutcome> {
    const outcome = await this.#inTransaction(async (client) => {
      const found = await client.query(
        `SELECT seq, state, lease_owner, lease_expires_at_ms, cancel_requested_at_ms, ${NOW_MS} AS now
         FROM ${this.#tasks} WHERE id = $1 FOR UPDATE`,
        [id],
      );
      const row = found.rows[0];
      let outcome: "canceled" | "requested" | "finished" | "missing";
      const line = (entry: HistoryEntry) =>
        client.query(`INSERT INTO ${this.#history} (task_id, phase, status, time_ms) VALUES ($1, $2, $3, $4)`, [
          id,
          textParam(entry.phase),
          textParam(entry.status),
          Math.round(entry.timeMs),
        ]);
      if (!row) outcome = "missing";
      else if (FINISHED_STATES.has(row.state)) outcome = "finished";
      else if (row.state === "queued" && (row.lease_owner === null || Number(row.lease_expires_at_ms) <= Number(row.now))) {
        outcome = "canceled";
        await client.query(
          `UPDATE ${this.#tasks} SET state = 'canceled', cancel_requested_at_ms = ${NOW_MS}, finished_at_ms = ${NOW_MS},
             updated_at_ms = ${NOW_MS}, revision = revision + 1, lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = $1`,
          [id],
        );
        await client.query(
          `WITH freed AS (DELETE FROM ${this.#scaleSets} WHERE task_seq = $1 RETURNING scale_set), unready AS (DELETE FROM ${this.#ready} WHERE task_seq = $1)
           INSERT INTO ${this.#wakes} (scale_set) SELECT DISTINCT scale_set FROM freed ORDER BY scale_set ON CONFLICT DO NOTHING`,
          [row.seq],
        );
        await line(lines.canceled);
        // The scale sets it named are free: wake the replicas.
        await client.query("SELECT pg_notify($1, '')", [this.#channel]);
      } else {
        outcome = "requested";
        if (row.cancel_requested_at_ms === null) {
          await client.query(`UPDATE ${this.#tasks} SET cancel_requested_at_ms = ${NOW_MS}, updated_at_ms = ${NOW_MS}, revision = revision + 1 WHERE id = $1`, [id]);
          await line(lines.requested);
        }
      }
      return outcome;
    });
    if (outcome === "missing") return { outcome };
    return { outcome, task: (await this.#one(id))! };
  }

  /** Runs work in one transaction on a connection of its own; a connection that broke is not given back. */
  async #inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.#pool.connect();
    let broken = false;
    try {
      await client.query("BEGIN");
      try {
        const result = await work(client);
        await client.query("COMMIT");
        return result;
      } catch (err) {
        broken = connectionLost(err);
        await client.query("ROLLBACK").catch(() => (broken = true));
        throw err;
      }
    } finally {
      client.release(broken);
    }
  }


  async cancelRequested(ids: string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const { rows } = await this.#query<{ id: string }>(
      `SELECT id FROM ${this.#tasks} WHERE id = ANY($1::text[]) AND cancel_requested_at_ms IS NOT NULL`,
      [ids],
      true,
    );
    const asked = new Set(rows.map((r) => r.id));
    return ids.filter((id) => asked.has(id));
  }

  async backlog(): Promise<Backlog> {
    const { rows } = await this.#query<{ n: string; oldest: string | null }>(`SELECT count(*) AS n, min(created_at_ms) AS oldest FROM ${this.#tasks} WHERE state = 'queued' AND lease_owner IS NULL`, [], true);
    return rows[0].oldest === null ? { queued: Number(rows[0].n) } : { queued: Number(rows[0].n), oldestQueuedAtMs: Number(rows[0].oldest) };
  }

  async prune(finishedBeforeMs: number): Promise<number> {
    // History rows go with their task (ON DELETE CASCADE).
    const { rowCount } = await this.#query(
      `DELETE FROM ${this.#tasks} WHERE state IN ${FINISHED_SQL} AND coalesce(finished_at_ms, updated_at_ms) < $1::bigint`,
      [Math.floor(finishedBeforeMs)],
      true,
    );
    return rowCount ?? 0;
  }

  async close(): Promise<void> {
    // Creates already asked for are sent, not dropped.
    if (this.#pendingCreates.length > 0) this.#sendCreates();
    await Promise.all(this.#createsInFlight);
    if (!this.#pool.ended) await this.#pool.end();
  }
}
