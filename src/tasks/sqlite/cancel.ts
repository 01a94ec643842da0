// Cancel and resume on SQLite: a cancel request (a queued task nobody started ends at once; a running one carries the
// request for its lease holder), and a failed, retryable task put back in the queue at its place. Each is one write
// transaction.
import type { HistoryEntry, TaskState } from "../task.ts";
import { FINISHED_STATES } from "../task.ts";
import type { CancelLines, CancelOutcome } from "../task-store.ts";
import type { Row, SqliteDb } from "./db.ts";
import { freeScaleSets } from "./journal.ts";
import { getTask } from "./read.ts";
import type { NewAuditEntry } from "../audit.ts";
import { endAudit, insertAudit } from "./audit.ts";

/** Puts a failed, retryable task back in the queue; false (nothing changed) for any other. */
export function requeueRetryable(
  db: SqliteDb,
  id: string,
  entry: HistoryEntry,
  scaleSets: string[],
  audit?: NewAuditEntry,
): boolean {
  return db.write(() => {
    const now = Date.now();
    const requeued = db
      .stmt(
        `UPDATE tasks SET state = 'queued', failure = NULL, finished_at_ms = NULL, checkpoint = NULL, lease_owner = NULL,
           lease_expires_at_ms = NULL, updated_at_ms = ?, revision = revision + 1
         WHERE id = ? AND state = 'failed' AND json_extract(failure, '$.retryable') = 1 RETURNING seq`,
      )
      .get(now, id) as { seq: number } | undefined;
    if (!requeued) return false;
    db.insertLine(id, entry);
    if (audit) insertAudit(db, { ...audit, taskId: id });
    // Unfinished again: it holds its scale sets again, at its place in submission order.
    const hold = db.stmt("INSERT OR IGNORE INTO task_scale_sets (task_seq, scale_set) VALUES (?, ?)");
    const wake = db.stmt("INSERT OR IGNORE INTO task_wakes (scale_set) VALUES (?)");
    for (const key of new Set(scaleSets)) {
      hold.run(requeued.seq, key);
      wake.run(key);
    }
    db.stmt("INSERT OR IGNORE INTO task_ready (task_seq) VALUES (?)").run(requeued.seq);
    return true;
  });
}

export function requestCancel(db: SqliteDb, id: string, lines: CancelLines, audit?: NewAuditEntry): CancelOutcome {
  return db.write(() => {
    const now = Date.now();
    const row = db
      .stmt("SELECT seq, state, lease_owner, lease_expires_at_ms, cancel_requested_at_ms FROM tasks WHERE id = ?")
      .get(id) as Row | undefined;
    if (!row) return { outcome: "missing" as const };
    if (FINISHED_STATES.has(row.state as TaskState)) return { outcome: "finished" as const, task: getTask(db, id)! };
    const leased = row.lease_owner !== null && Number(row.lease_expires_at_ms) > now;
    if (audit) insertAudit(db, { ...audit, taskId: id });
    if (row.state === "queued" && !leased) {
      db.stmt(
        `UPDATE tasks SET state = 'canceled', cancel_requested_at_ms = ?, finished_at_ms = ?, updated_at_ms = ?, revision = revision + 1,
           lease_owner = NULL, lease_expires_at_ms = NULL WHERE id = ?`,
      ).run(now, now, now, id);
      freeScaleSets(db, Number(row.seq));
      endAudit(db, id, "canceled", now);
      db.insertLine(id, lines.canceled);
      return { outcome: "canceled" as const, task: getTask(db, id)! };
    }
    if (row.cancel_requested_at_ms === null) {
      db.stmt(
        "UPDATE tasks SET cancel_requested_at_ms = ?, updated_at_ms = ?, revision = revision + 1 WHERE id = ?",
      ).run(now, now, id);
      db.insertLine(id, lines.requested);
    }
    return { outcome: "requested" as const, task: getTask(db, id)! };
  });
}
