// One operation at a time per scale set, within this replica: our own tasks never 409 each other, and each plans
// on the state the previous one left. Different scale sets run in parallel.

export function scaleSetKey(ref: { subscriptionId: string; resourceGroup: string; name: string }): string {
  // ARM names are case-insensitive.
  return `${ref.subscriptionId}/${ref.resourceGroup}/${ref.name}`.toLowerCase();
}

export class ScaleSetQueue {
  readonly #tails = new Map<string, Promise<void>>();

  /** How many operations hold or wait for this scale set. */
  readonly waiting = new Map<string, number>();

  /**
   * Runs fn once every operation queued before it on the same key has finished (FIFO). onWait is called when fn
   * has to wait, so the task's history can say why it is not moving.
   */
  async run<T>(key: string, fn: () => Promise<T>, onWait?: (ahead: number) => void, signal?: AbortSignal): Promise<T> {
    const ahead = this.waiting.get(key) ?? 0;
    this.waiting.set(key, ahead + 1);
    const previous = this.#tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = previous.then(() => mine);
    this.#tails.set(key, tail);
    try {
      if (ahead > 0) onWait?.(ahead);
      if (signal) {
        // Interrupted while waiting its turn: give the turn up at once (the chain still orders those behind).
        let onAbort!: () => void;
        const aborted = new Promise<never>((_, reject) => {
          onAbort = () => reject(signal.reason ?? new Error("aborted"));
          if (signal.aborted) onAbort();
          else signal.addEventListener("abort", onAbort, { once: true });
        });
        try {
          await Promise.race([previous, aborted]);
        } finally {
          signal.removeEventListener("abort", onAbort);
        }
      } else {
        await previous;
      }
      return await fn();
    } finally {
      release();
      const left = (this.waiting.get(key) ?? 1) - 1;
      if (left === 0) this.waiting.delete(key);
      else this.waiting.set(key, left);
      if (this.#tails.get(key) === tail) this.#tails.delete(key);
    }
  }
}
