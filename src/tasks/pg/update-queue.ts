// The writes of running tasks (a checkpoint, history lines, the ARM calls, a result, the end) go to the database
// together, one statement in flight at a time: those asked for while the statement before them ran share the next
// one (a group commit), whichever task they are for. Each caller is answered once that statement has committed, so a
// checkpoint is as durable before its Azure write as when it had a commit of its own. A write that ends a task also
// frees its scale sets (and wakes them), takes it out of the candidates and settles its audit entries, in the same
// statement; the NOTIFY that wakes the other replicas follows the commit (watch.ts). A replica running 16 resizes
// wrote a statement per change before; now concurrent changes share one (bench/pg-task.ts, docs/task-stores.md).
import type { TaskChange } from "../task-store.ts";
import { FINISHED_STATES } from "../task.ts";
import { statesBefore } from "../task-state.ts";
import { withoutRequestDeadline } from "../request-deadline.ts";
import { connectionLost, type PgConnection } from "./connection.ts";
import { jsonParam, NOW_MS, type PgTables } from "./tables.ts";
import type { EndNotifier } from "./watch.ts";

/** At most this many writes per statement; more waiting go in the next. */
const MAX_UPDATES_PER_STATEMENT = 100;

interface PendingUpdate {
  owner: string;
  id: string;
  change: TaskChange;
  resolve: (changed: boolean) => void;
  reject: (err: unknown) => void;
}

/** One write as a row of the statement's input (jsonb_to_recordset); absent fields leave their column as it is. */
function inputRow(n: number, u: PendingUpdate): Record<string, unknown> {
  const c = u.change;
  return {
    n,
    id: u.id,
    owner: u.owner,
    ...(c.state !== undefined ? { state: c.state, allowed: [...statesBefore(c.state)] } : {}),
    ...(c.state !== undefined && FINISHED_STATES.has(c.state) ? { finished: true } : {}),
    ...(c.operationIndex !== undefined ? { operation_index: c.operationIndex } : {}),
    ...(c.resultObjects !== undefined ? { result_objects: c.resultObjects } : {}),
    ...("failure" in c ? { set_failure: true, failure: c.failure ?? null } : {}),
    ...(c.armCalls !== undefined ? { arm_calls: c.armCalls } : {}),
    ...(c.finishedAtMs !== undefined ? { finished_at_ms: Math.round(c.finishedAtMs) } : {}),
    ...(c.checkpoint !== undefined ? { set_checkpoint: true, checkpoint: c.checkpoint } : {}),
    lines: (c.history ?? []).map((h) => ({ phase: h.phase, status: h.status, timeMs: Math.round(h.timeMs) })),
  };
}

/**
 * The statement: each input row's fenced UPDATE (the lease held by its owner, by the database's clock; a change of
 * state only from a state the table allows), and the history lines of the rows it changed, in order. A row that ends
 * its task (finished) also gives up the lease, frees the task's scale sets (a wake-up row each, for the next claim),
 * leaves the candidates, and settles the task's accepted audit entries still open with its state. Returns the input
 * rows (n) it changed, and whether each ended its task. A column a row does not name is set to itself: unchanged, so
 * an update that changes no indexed column stays a heap-only one (migration 14).
 */
export function groupUpdateSql(t: PgTables): string {
  return `WITH c AS (
      SELECT * FROM jsonb_to_recordset($1::jsonb) AS c(n int, id text, owner text, state text, allowed jsonb,
        operation_index int, result_objects jsonb, set_failure boolean, failure jsonb, arm_calls int,
        finished_at_ms bigint, set_checkpoint boolean, checkpoint jsonb, lines jsonb, finished boolean)
    ),
    done AS (
      UPDATE ${t.tasks} t SET updated_at_ms = ${NOW_MS}, revision = t.revision + 1,
        state = coalesce(c.state, t.state),
        operation_index = coalesce(c.operation_index, t.operation_index),
        result_objects = coalesce(c.result_objects, t.result_objects),
        failure = CASE WHEN c.set_failure THEN c.failure ELSE t.failure END,
        arm_calls = coalesce(c.arm_calls, t.arm_calls),
        finished_at_ms = coalesce(c.finished_at_ms, t.finished_at_ms),
        checkpoint = CASE WHEN c.set_checkpoint THEN c.checkpoint ELSE t.checkpoint END,
        lease_owner = CASE WHEN c.finished THEN NULL ELSE t.lease_owner END,
        lease_expires_at_ms = CASE WHEN c.finished THEN NULL ELSE t.lease_expires_at_ms END
      FROM c
      WHERE t.id = c.id AND t.lease_owner = c.owner AND t.lease_expires_at_ms > ${NOW_MS}
        AND (c.allowed IS NULL OR c.allowed ? t.state)
      RETURNING c.n, t.id, t.seq, t.state, coalesce(c.finished, false) AS finished
    ),
    freed AS (
      DELETE FROM ${t.scaleSets} s USING done WHERE done.finished AND s.task_seq = done.seq RETURNING s.scale_set
    ),
    woken AS (
      INSERT INTO ${t.wakes} (scale_set) SELECT DISTINCT scale_set FROM freed ORDER BY scale_set
    ),
    unready AS (
      DELETE FROM ${t.ready} r USING done WHERE done.finished AND r.task_seq = done.seq
    ),
    settled AS (
      UPDATE ${t.audit} a SET outcome = done.state, outcome_at_ms = ${NOW_MS} FROM done
      WHERE done.finished AND a.task_id = done.id AND a.outcome IS NULL AND a.entry->>'decision' = 'accepted'
    ),
    lines AS (
      INSERT INTO ${t.history} (task_id, phase, status, time_ms)
      SELECT done.id, e.value->>'phase', e.value->>'status', (e.value->>'timeMs')::bigint
      FROM done JOIN c ON c.n = done.n, jsonb_array_elements(c.lines) WITH ORDINALITY AS e(value, k)
      ORDER BY done.n, e.k
    )
    SELECT n, finished FROM done`;
}

export class PgUpdateQueue {
  readonly #db: PgConnection;
  readonly #sql: string;
  readonly #ended: EndNotifier | undefined;
  #pending: PendingUpdate[] = [];
  #sending: Promise<void> | undefined;
  /** Statements sent and the writes they carried, for tests and benchmarks. */
  readonly sent = { statements: 0, updates: 0 };

  /** `ended` sends the NOTIFY that follows the commit of a statement that ended a task. */
  constructor(db: PgConnection, t: PgTables, ended?: EndNotifier) {
    this.#db = db;
    this.#sql = groupUpdateSql(t);
    this.#ended = ended;
  }

  /** The write, sent with the others waiting; true once committed if the fence held, false if it did not. */
  add(owner: string, id: string, change: TaskChange): Promise<boolean> {
    // Taken now: the caller may change its objects while the write waits for the statement.
    const taken = JSON.parse(jsonParam(change)) as TaskChange;
    if ("failure" in change && change.failure === undefined) taken.failure = undefined;
    return new Promise<boolean>((resolve, reject) => {
      this.#pending.push({ owner, id, change: taken, resolve, reject });
      if (this.#pending.length === 1 && this.#sending === undefined)
        withoutRequestDeadline(() => setImmediate(() => this.#send()));
    });
  }

  /**
   * The next statement's writes: the first of each task in the order asked (a task's later write waits for the
   * next statement, so that its writes land in order), MAX_UPDATES_PER_STATEMENT at most.
   */
  #take(): PendingUpdate[] {
    const batch: PendingUpdate[] = [];
    const ids = new Set<string>();
    const rest: PendingUpdate[] = [];
    for (const u of this.#pending) {
      if (batch.length < MAX_UPDATES_PER_STATEMENT && !ids.has(u.id)) {
        ids.add(u.id);
        batch.push(u);
      } else rest.push(u);
    }
    this.#pending = rest;
    return batch;
  }

  #send(): void {
    if (this.#sending !== undefined || this.#pending.length === 0) return;
    const batch = this.#take();
    this.#sending = this.#write(batch).finally(() => {
      this.#sending = undefined;
      this.#send();
    });
  }

  /**
   * One statement for `batch`, each write answered after its commit. A statement that failed with its connection
   * lost fails each write (its outcome is unknown, as a write's of its own would be); any other failure sends each
   * write again alone, so that one bad write fails by itself.
   */
  async #write(batch: PendingUpdate[]): Promise<void> {
    try {
      const changed = await this.#statement(batch);
      batch.forEach((u, n) => u.resolve(changed.has(n)));
    } catch (err) {
      if (batch.length === 1 || connectionLost(err)) batch.forEach((u) => u.reject(err));
      else
        for (const u of batch)
          await this.#statement([u]).then(
            (changed) => u.resolve(changed.has(0)),
            (e: unknown) => u.reject(e),
          );
    }
  }

  async #statement(batch: PendingUpdate[]): Promise<Set<number>> {
    this.sent.statements++;
    this.sent.updates += batch.length;
    const input = jsonParam(batch.map((u, n) => inputRow(n, u)));
    const { rows } = await this.#db.query<{ n: number; finished: boolean }>(
      this.#sql,
      [input],
      false,
      this.#db.named(this.#sql),
    );
    if (rows.some((r) => r.finished)) this.#ended?.ended();
    return new Set(rows.map((r) => Number(r.n)));
  }

  /** Sends the writes already asked for and waits until every one is answered. */
  async drain(): Promise<void> {
    this.#send();
    while (this.#sending !== undefined) await this.#sending;
  }
}
