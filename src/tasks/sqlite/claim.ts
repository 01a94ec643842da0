// The claim on SQLite: which tasks a replica takes next (the order: src/tasks/ordering.ts), leased on this host's
// clock, under SQLite's write lock so that claims of every process sharing the file take turns. Its cost does not
// grow with the queue behind a busy scale set (the contract suite claims through 10,000 queued).
import type { Task } from "../task.ts";
import { bySubmission, claimOrderSql, firstOfQueueSql, startedSql, waitsSql } from "../ordering.ts";
import { CLAIMABLE_STATES, sqlStateList } from "../task-state.ts";
import type { SqliteDb } from "./db.ts";
import { getTask } from "./read.ts";

const CLAIMABLE_SQL = sqlStateList(CLAIMABLE_STATES);

/**
 * The candidate t waits (waitsSql), asked so that its cost does not grow with the queue behind t: an earlier started
 * task is looked for among the scale set's unfinished tasks; the scale sets of the started tasks (all in task_ready)
 * are collected once per claim. CROSS JOIN keeps SQLite's join order: from task_ready, never from an index of every
 * queued task.
 */
const WAITS = waitsSql({
  t: "t",
  scaleSets: "task_scale_sets",
  started: {
    earlierOn: (scaleSet, seq) => `EXISTS (SELECT 1 FROM task_scale_sets o JOIN tasks u ON u.seq = o.task_seq
                 WHERE o.scale_set = ${scaleSet} AND o.task_seq < ${seq} AND ${startedSql("u")})`,
    scaleSets: `SELECT o.scale_set FROM task_ready r CROSS JOIN tasks u ON u.seq = r.task_seq CROSS JOIN task_scale_sets o ON o.task_seq = r.task_seq
        WHERE u.state IN ${CLAIMABLE_SQL} AND ${startedSql("u")}`,
  },
  shape: "exists",
});

/**
 * Whether a claim could take anything: a scale set woken, or a candidate without a live lease. Read without the write
 * lock: most claims (the timer's, every second, on an idle replica) find nothing, and a write transaction per claim
 * was most of what an idle replica spent. A create committed just after this read is claimed by the wake-up it sends.
 */
const MAYBE_CLAIMABLE = `SELECT EXISTS (SELECT 1 FROM task_wakes) OR EXISTS (
    SELECT 1 FROM task_ready r CROSS JOIN tasks t ON t.seq = r.task_seq
    WHERE t.state IN ${CLAIMABLE_SQL} AND (t.lease_expires_at_ms IS NULL OR t.lease_expires_at_ms <= ?)) AS maybe`;

/** Takes up to `limit` tasks that go first on their scale sets for `owner`, oldest first, in one write transaction. */
export function claim(db: SqliteDb, owner: string, leaseMs: number, limit: number): Task[] {
  if (limit <= 0) return [];
  if (!(db.stmt(MAYBE_CLAIMABLE).get(Date.now()) as { maybe: number }).maybe) return [];
  return db.write(() => {
    const now = Date.now();
    // The scale sets whose first task may have changed (a task ended, or came back): their first by submission
    // order may go first now. Started tasks are in task_ready already (they were claimed from it).
    db.stmt(
      `INSERT OR IGNORE INTO task_ready (task_seq)
       SELECT head FROM (SELECT ${firstOfQueueSql("task_scale_sets", "w.scale_set")} AS head FROM task_wakes w)
       WHERE head IS NOT NULL`,
    ).run();
    db.stmt("DELETE FROM task_wakes").run();
    const claimed = db
      .stmt(
        `UPDATE tasks SET lease_owner = ?, lease_expires_at_ms = ?
         WHERE seq IN (SELECT t.seq FROM task_ready r CROSS JOIN tasks t ON t.seq = r.task_seq
                       WHERE t.state IN ${CLAIMABLE_SQL} AND (t.lease_expires_at_ms IS NULL OR t.lease_expires_at_ms <= ?)
                         AND NOT ${WAITS}
                       ORDER BY ${claimOrderSql("t")} LIMIT ?)
         RETURNING seq, id`,
      )
      .all(owner, now + leaseMs, now, limit) as { seq: number; id: string }[];
    // RETURNING comes in no particular order: oldest first.
    return claimed.sort(bySubmission).map((r) => getTask(db, r.id)!);
  });
}
