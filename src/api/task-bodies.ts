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

/**
 * Answers kept, least recently used first, up to maxEntries; of those, a finished task's answers at most one in
 * FINISHED_SHARE. A poller stops polling a task once it has seen it end: a finished task's answer is asked for once
 * or twice more, while a running task's is asked for every few seconds until it ends. Kept like the others, the
 * answers of 2,000 finished tasks (some 3 KB each) filled the cache after a burst, for nobody.
 */
export class TaskBodies {
  static readonly FINISHED_SHARE = 8;
  readonly #maxEntries: number;
  readonly #maxFinished: number;
  /** Least recently used first: running tasks' answers, and finished tasks'. */
  readonly #running = new Map<string, TaskBody>();
  readonly #finished = new Map<string, TaskBody>();

  constructor(maxEntries: number) {
    this.#maxEntries = maxEntries;
    this.#maxFinished = Math.ceil(maxEntries / TaskBodies.FINISHED_SHARE);
  }

  /** The body built at exactly this revision, if it is still kept. */
  get(id: string, revision: number): TaskBody | undefined {
    const body = this.#running.get(id) ?? this.#finished.get(id);
    if (body?.revision !== revision) return undefined;
    this.set(id, body);
    return body;
  }

  /** Whether an answer is kept for the task, at whatever revision. */
  has(id: string): boolean {
    return this.#running.has(id) || this.#finished.has(id);
  }

  set(id: string, body: TaskBody): void {
    this.#running.delete(id);
    this.#finished.delete(id);
    const [map, bound] = body.finished ? [this.#finished, this.#maxFinished] : [this.#running, this.#maxEntries];
    if (bound === 0) return;
    map.set(id, body);
    if (map.size > bound) map.delete(map.keys().next().value!);
    // Over the bound: a running task's answer goes, the least recently used (finished ones keep their share).
    if (this.size > this.#maxEntries) {
      const from = this.#running.size ? this.#running : this.#finished;
      from.delete(from.keys().next().value!);
    }
  }

  get size(): number {
    return this.#running.size + this.#finished.size;
  }
}
