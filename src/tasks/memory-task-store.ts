// Tasks in memory: for a single replica that may lose its tasks on restart.
import { randomUUID } from "node:crypto";
import { FINISHED_STATES, type HistoryEntry, type Task } from "./task.ts";
import type { NewTask, TaskQuery, TaskStore } from "./task-store.ts";

export class MemoryTaskStore implements TaskStore {
  readonly #tasks = new Map<string, Task>(); // insertion order = creation order
  readonly #byClientRequestId = new Map<string, string>();
  readonly #retention: number;

  /** retention: how many finished tasks to keep; the oldest finished ones go first. */
  constructor(retention = 10_000) {
    this.#retention = retention;
  }

  async create(input: NewTask): Promise<{ task: Task; created: boolean }> {
    if (input.clientRequestId) {
      const existing = this.#byClientRequestId.get(input.clientRequestId);
      const task = existing ? this.#tasks.get(existing) : undefined;
      if (task) return { task: structuredClone(task), created: false };
    }
    const now = Date.now();
    const task: Task = {
      id: randomUUID(),
      ...(input.clientRequestId ? { clientRequestId: input.clientRequestId } : {}),
      state: "queued",
      operations: structuredClone(input.operations),
      operationIndex: 0,
      history: [],
      resultObjects: [],
      armCalls: 0,
      createdAtMs: now,
      updatedAtMs: now,
    };
    this.#tasks.set(task.id, task);
    if (input.clientRequestId) this.#byClientRequestId.set(input.clientRequestId, task.id);
    this.#prune();
    return { task: structuredClone(task), created: true };
  }

  async get(id: string): Promise<Task | undefined> {
    const task = this.#tasks.get(id);
    return task ? structuredClone(task) : undefined;
  }

  async list(query: TaskQuery): Promise<Task[]> {
    const out: Task[] = [];
    for (const task of [...this.#tasks.values()].reverse()) {
      if (query.state && task.state !== query.state) continue;
      out.push(structuredClone(task));
      if (out.length >= query.limit) break;
    }
    return out;
  }

  async appendHistory(id: string, entry: HistoryEntry): Promise<void> {
    const task = this.#tasks.get(id);
    if (!task) return;
    task.history.push({ ...entry });
    task.updatedAtMs = entry.timeMs;
  }

  async update(id: string, change: Partial<Omit<Task, "id" | "history" | "createdAtMs">>): Promise<void> {
    const task = this.#tasks.get(id);
    if (!task) return;
    Object.assign(task, structuredClone(change), { updatedAtMs: Date.now() });
    if (change.state && FINISHED_STATES.has(change.state)) this.#prune();
  }

  async close(): Promise<void> {}

  #prune(): void {
    let finished = 0;
    for (const t of this.#tasks.values()) if (FINISHED_STATES.has(t.state)) finished++;
    for (const [id, t] of this.#tasks) {
      if (finished <= this.#retention) break;
      if (!FINISHED_STATES.has(t.state)) continue;
      this.#tasks.delete(id);
      if (t.clientRequestId) this.#byClientRequestId.delete(t.clientRequestId);
      finished--;
    }
  }
}
