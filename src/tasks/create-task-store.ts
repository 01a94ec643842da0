// Picks the task store the configuration asks for (TASK_STORE, DATA_DIR, DATABASE_URL). The durable ones are
// imported on demand, so a memory-only service never loads node:sqlite or pg.
import { MemoryTaskStore } from "./memory-task-store.ts";
import type { TaskStore } from "./task-store.ts";
import { TaskStoreOpenError } from "./migrations.ts";

export { TaskStoreOpenError } from "./migrations.ts";

export interface StoreConfig {
  /**
   * memory: one replica, lost on restart; sqlite: embedded file under dataDir; postgres: DATABASE_URL, several
   * replicas.
   * @env TASK_STORE
   * @default `sqlite` (`postgres` with `DATABASE_URL`; `memory` with the embedded simulator and only its accounts, so that `npm start` starts both fresh)
   */
  kind: "memory" | "sqlite" | "postgres";
  /**
   * For sqlite: the directory that holds tasks.db.
   * @env DATA_DIR
   * @default `data`
   */
  dataDir: string;
  databaseUrl?: string;
  /**
   * Every store call fails as an outage past this: a slow store is answered 503 at once.
   * @env TASK_STORE_CALL_TIMEOUT_MS
   * @default `3000`
   */
  callTimeoutMs?: number;
  /**
   * A request is answered within this long of its arrival as far as the store goes: each store call it makes is bounded
   * by the time it has left, one that cannot start in time is not sent, and past it the request is answered 503.
   * @env TASK_STORE_REQUEST_DEADLINE_MS
   * @default `3000`
   */
  requestDeadlineMs?: number;
  /**
   * PostgreSQL's statement_timeout: the server gives up on a statement past it.
   * @env TASK_STORE_STATEMENT_TIMEOUT_MS
   * @default `2000`
   */
  statementTimeoutMs?: number;
}

export interface CreateTaskStoreOptions {
  /** PostgreSQL: where errors of idle pooled connections go (default: a line on stderr). */
  onPoolError?: (err: Error) => void;
}

/** Opens the configured store; a durable one is migrated first. Throws TaskStoreOpenError with a clear message. */
export async function createTaskStore(
  config: { store: StoreConfig; taskRetentionCount: number },
  options: CreateTaskStoreOptions = {},
): Promise<TaskStore> {
  const { store } = config;
  switch (store.kind) {
    case "memory":
      return new MemoryTaskStore(config.taskRetentionCount);
    case "sqlite": {
      const { SqliteTaskStore } = await import("./sqlite-task-store.ts");
      return SqliteTaskStore.open({ dataDir: store.dataDir });
    }
    case "postgres": {
      if (!store.databaseUrl) throw new TaskStoreOpenError("TASK_STORE=postgres needs DATABASE_URL");
      const { PostgresTaskStore } = await import("./postgres-task-store.ts");
      return PostgresTaskStore.open({
        connectionString: store.databaseUrl,
        onPoolError: options.onPoolError,
        // A wait for a connection, and a statement, each end within a call's bound: a call never outlives it long.
        connectionTimeoutMs: store.callTimeoutMs,
        queryTimeoutMs: store.callTimeoutMs,
        statementTimeoutMs: store.statementTimeoutMs,
        // Each create answered by its bound (or its request's deadline): never sent if still queued then, "outcome
        // unknown" if sent.
        createTimeoutMs: store.callTimeoutMs,
      });
    }
  }
}
