// Where tasks live. The in-memory store implements it now; a durable store (SQLite, PostgreSQL) implements the
// same interface and passes the same tests.
import type { HistoryEntry, Task, TaskState } from "./task.ts";

export interface NewTask {
  clientRequestId?: string;
  operations: Task["operations"];
}

export interface TaskQuery {
  limit: number;
  state?: TaskState;
}

export interface TaskStore {
  /** Creates a task, or returns the one already created with the same clientRequestId (created: false). */
  create(input: NewTask): Promise<{ task: Task; created: boolean }>;
  get(id: string): Promise<Task | undefined>;
  /** Newest first. */
  list(query: TaskQuery): Promise<Task[]>;
  appendHistory(id: string, entry: HistoryEntry): Promise<void>;
  /** Applies a partial change (state, results, failure, counters) and stamps updatedAtMs. */
  update(id: string, change: Partial<Omit<Task, "id" | "history" | "createdAtMs">>): Promise<void>;
  close(): Promise<void>;
}
