// What GET /task/{id} sends, kept per task for as long as the stored task's revision stays the same. Orchestrators
// poll every task every few seconds, and most polls find it unchanged: answering them costs one indexed read of the
// revision instead of reading the task with its history, building its Clouddriver shape and serializing it. The
// revision comes from the store, so a change made by any replica shows at once.

/** A task's answer, as built at one revision. */
export interface TaskBody {
  revision: number;
  /** The Clouddriver task, serialized by the route's own response schema. */
  json: string;
  /** The accounts it acts on: who may read it. */
  accounts: string[];
  finished: boolean;
}

export class TaskBodies {
  readonly #maxEntries: number;
  /** Least recently used first. */
  readonly #entries = new Map<string, TaskBody>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
  }

  /** The body built at exactly this revision, if it is still kept. */
  get(id: string, revision: number): TaskBody | undefined {
    const body = this.#entries.get(id);
    if (body?.revision !== revision) return undefined;
    this.#entries.delete(id);
    this.#entries.set(id, body);
    return body;
  }

  /** Whether an answer is kept for the task, at whatever revision. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  set(id: string, body: TaskBody): void {
    this.#entries.delete(id);
    if (this.#maxEntries === 0) return;
    this.#entries.set(id, body);
    if (this.#entries.size > this.#maxEntries) this.#entries.delete(this.#entries.keys().next().value!);
  }

  get size(): number {
    return this.#entries.size;
  }
}
