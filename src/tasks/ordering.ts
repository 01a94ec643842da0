// The order tasks run in, per scale set (docs/task-stores.md, "Order"), written once: as a comparator for the memory
// store and as SQL for the two databases, beside each other so that a change to one is a change to all three
// (test/task-ordering.test.ts holds the three stores to the same claims). Also here: the key that names a scale set,
// the history line of a task that has to wait, and the orders of claim and list.
//
// The rule: a task names the scale sets its operations touch (one key each, deduplicated). Among the unfinished
// tasks that name a scale set, one goes first: a started one (running, or leased) before one that has not started,
// and otherwise the earlier submitted. A task is claimable only when it goes first on every scale set it names, so
// a multi-operation task waits until it is first on all of them, and then holds all of them until it finishes. The
// order is the same for every scale set, so two tasks never wait for each other.
import type { HistoryEntry, TaskState } from "./task.ts";

/** The key of a scale set: ARM names are case-insensitive. */
export function scaleSetKey(ref: { subscriptionId: string; resourceGroup: string; name: string }): string {
  return `${ref.subscriptionId}/${ref.resourceGroup}/${ref.name}`.toLowerCase();
}

/** A task as the order sees it: its place in submission order (seq), its state and its lease. */
export interface OrderedTask {
  seq: number;
  state: TaskState;
  leaseOwner?: string;
}

/** Started: running, or leased (about to run, or its replica died). It goes before tasks that have not started. */
export function isStarted(task: OrderedTask): boolean {
  return task.state === "running" || task.leaseOwner !== undefined;
}

/** Whether u goes before t on a scale set both name: the rule. startedSql and waitsSql are the same rule in SQL. */
export function goesBefore(u: OrderedTask, t: OrderedTask): boolean {
  const su = isStarted(u);
  const st = isStarted(t);
  return su !== st ? su : u.seq < t.seq;
}

/** Submission order (seq): claims take and return the oldest first; lists show the newest first (reversed). */
export function bySubmission(a: { seq: number }, b: { seq: number }): number {
  return a.seq - b.seq;
}

/** SQL ORDER BY of a claim's candidates (bySubmission), for the task aliased `t`. */
export const claimOrderSql = (t: string): string => `${t}.seq`;

/** SQL ORDER BY of a list: newest first; cursors name a seq, and the next page is what comes before it. */
export const listOrderSql = (t: string): string => `${t}.seq DESC`;

/** SQL for isStarted, of the task aliased `t`. */
export function startedSql(t: string): string {
  return `(${t}.state = 'running' OR ${t}.lease_owner IS NOT NULL)`;
}

/**
 * SQL: the rows of task_scale_sets `o` on scale set `scaleSet`, asked so that only the index on (scale_set, task_seq)
 * can answer them in order. Written as a range, not `o.scale_set = x`: PostgreSQL takes an equality with a value
 * from outside the subquery for a constant, drops scale_set from the ORDER BY, and may then walk the primary key
 * (task_seq, scale_set) in task_seq order until a row of the scale set turns up. It did, once one scale set held
 * most of the rows (50,000 queued, the tables analyzed: its statistics then say any scale set holds the whole table),
 * reading the whole queue to find a scale set that held one task (test/claim-depth.test.ts). A range keeps scale_set
 * in the order, which the primary key cannot give without sorting; on the index it is the same probe as equality.
 */
function onScaleSet(o: string, scaleSet: string): string {
  return `${o}.scale_set >= ${scaleSet} AND ${o}.scale_set <= ${scaleSet}`;
}

/**
 * SQL: the seq of the first task of a scale set's queue by submission order (task_scale_sets only holds unfinished
 * tasks). One probe of the index on (scale_set, task_seq), whatever the queue behind it (see onScaleSet): an EXISTS
 * over task_seq < t.seq instead was planned by PostgreSQL as a sequential scan once the queue held most of the rows.
 */
export function firstOfQueueSql(scaleSets: string, scaleSet: string): string {
  return `(SELECT o.task_seq FROM ${scaleSets} o WHERE ${onScaleSet("o", scaleSet)}
     ORDER BY o.scale_set, o.task_seq LIMIT 1)`;
}

/**
 * SQL: the id of the unfinished task just before `seq` on a scale set, the one a new task's waiting line names. One
 * probe of the index on (scale_set, task_seq), backwards (see onScaleSet).
 */
export function taskJustBeforeSql(tables: { tasks: string; scaleSets: string }, scaleSet: string, seq: string): string {
  return `(SELECT u.id FROM ${tables.scaleSets} s JOIN ${tables.tasks} u ON u.seq = s.task_seq
     WHERE ${onScaleSet("s", scaleSet)} AND s.task_seq < ${seq} ORDER BY s.scale_set DESC, s.task_seq DESC LIMIT 1)`;
}

/** How a dialect finds the started tasks in a claim (each shaped for its planner; see the claim statements). */
export interface StartedTasksSql {
  /** SQL: a started task on scale set `scaleSet` with a seq below `seq` exists. */
  earlierOn(scaleSet: string, seq: string): string;
  /** SQL: a subquery, the scale sets that started tasks name. */
  scaleSets: string;
}

/**
 * SQL: the task aliased `t` waits: on some scale set it names (a row `mine` of task_scale_sets), an unfinished task
 * goes before it. goesBefore, split by whether t has started, so that no case reads the queue behind t:
 * - t has not started: every earlier task goes before it (is the first of the queue earlier than t?), and so does
 *   every started one;
 * - t has started: only an earlier started one does.
 * `shape` is how "on some scale set" is asked: PostgreSQL's planner turns an EXISTS into a join over the whole
 * table, but cannot do that with a scalar subquery per candidate; SQLite runs the EXISTS per candidate as written.
 */
export function waitsSql(p: {
  t: string;
  scaleSets: string;
  started: StartedTasksSql;
  shape: "exists" | "scalar";
}): string {
  const waitsOnMine = `CASE WHEN ${startedSql(p.t)}
      THEN ${p.started.earlierOn("mine.scale_set", `${p.t}.seq`)}
      ELSE ${firstOfQueueSql(p.scaleSets, "mine.scale_set")} < ${p.t}.seq
        OR mine.scale_set IN (${p.started.scaleSets}) END`;
  return p.shape === "exists"
    ? `EXISTS (SELECT 1 FROM ${p.scaleSets} mine WHERE mine.task_seq = ${p.t}.seq AND ${waitsOnMine})`
    : `coalesce((SELECT bool_or(${waitsOnMine}) FROM ${p.scaleSets} mine WHERE mine.task_seq = ${p.t}.seq), false)`;
}

/** A task submitted earlier that is not finished, on one of the scale sets of a new task. */
export interface TaskAhead {
  taskId: string;
  scaleSet: string;
}

export const WAITING_PHASE = "QUEUED";
/** One task ahead (%s: its id, then the scale set), and the line around them; PostgreSQL formats them in SQL. */
export const WAITING_ITEM_FORMAT = "task %s on scale set %s";
export const WAITING_FORMAT = "Waiting for %s to finish: one operation at a time per scale set, in submission order";

function format(template: string, ...values: string[]): string {
  let i = 0;
  return template.replace(/%s/g, () => values[i++] ?? "");
}

/**
 * The history line of a task created behind others: per scale set (sorted by key), the task just before it.
 * Undefined when it waits for nobody.
 */
export function waitingEntry(ahead: TaskAhead[], timeMs: number): HistoryEntry | undefined {
  if (ahead.length === 0) return undefined;
  const sorted = [...ahead].sort((a, b) => (a.scaleSet < b.scaleSet ? -1 : a.scaleSet > b.scaleSet ? 1 : 0));
  const what = sorted.map((a) => format(WAITING_ITEM_FORMAT, a.taskId, a.scaleSet)).join(", ");
  return { phase: WAITING_PHASE, status: format(WAITING_FORMAT, what), timeMs };
}
