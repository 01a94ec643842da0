// Picks the task store the configuration asks for (TASK_STORE, DATA_DIR, DATABASE_URL). The durable ones are
// imported on demand, so a memory-only service never loads node:sqlite or pg.
import type { Config } from "../config.ts";
import { MemoryTaskStore } from "./memory-task-store.ts";
import type { TaskStore } from "./task-store.ts";
import { TaskStoreOpenError } from "./migrations.ts";

export { TaskStoreOpenError } from "./migrations.ts";

export interface CreateTaskStoreOptions {
  /** PostgreSQL: where errors of idle pooled connections go (default: a line on stderr). */
  onPoolError?: (err: Error) => void;
}

/** Opens the configured store; a durable one is migrated first. Throws TaskStoreOpenError with a clear message. */
export async function createTaskStore(
  config: Pick<Config, "store" | "taskRetention">,
  options: CreateTaskStoreOptions = {},
): Promise<TaskStore> {
  const { store } = config;
  switch (store.kind) {
    case "memory":
      return new MemoryTaskStore(config.taskRetention);
    case "sqlite": {
      const { SqliteTaskStore } = await import("./sqlite-task-store.ts");
      return SqliteTaskStore.open({ dataDir: store.dataDir });
    }
    case "postgres": {
      if (!store.databaseUrl) throw new TaskStoreOpenError("TASK_STORE=postgres needs DATABASE_URL");
      const { PostgresTaskStore } = await import("./postgres-task-store.ts");
      return PostgresTaskStore.open({ connectionString: store.databaseUrl, onPoolError: options.onPoolError });
    }
  }
}
