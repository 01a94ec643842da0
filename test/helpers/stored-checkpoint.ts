// The crash tests kill a replica once the write it sent is in flight *and* its poller is stored, so that the next
// replica can follow the write instead of sending it again. The second half is an event in the replica's SQLite
// file, not a time: wait for it there, instead of sleeping "long enough" (which a loaded machine makes too short).
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { waitFor } from "../../testkit/wait-for.ts";

/** Resolves once a task in dataDir's store (this one, when taskId is given) has a checkpoint with a write in flight. */
export async function waitForStoredPoller(dataDir: string, taskId?: string): Promise<void> {
  const db = new DatabaseSync(join(dataDir, "tasks.db"));
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    const query = db.prepare(
      `SELECT count(*) AS n FROM tasks WHERE json_extract(checkpoint, '$.inFlight.poller') IS NOT NULL${taskId ? " AND id = ?" : ""}`,
    );
    await waitFor(() => Number((query.get(...(taskId ? [taskId] : [])) as { n: number }).n) > 0, {
      what: `a stored poller${taskId ? ` for task ${taskId}` : ""} in ${dataDir}`,
    });
  } finally {
    db.close();
  }
}
