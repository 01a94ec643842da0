// The creates asked for in one turn of the event loop (concurrent submissions) go to the database together: one
// statement per MAX_CREATES_PER_STATEMENT, one commit and one NOTIFY (create.ts says why).
import type { NewTask } from "../task-store.ts";
import type { Task } from "../task.ts";
import { createBatch, createSql, type CreateStatement, type PendingCreate } from "./create.ts";
import type { PgConnection } from "./connection.ts";
import { jsonParam, type PgTables, textParam } from "./tables.ts";

/** At most this many creates per statement; more asked for in one turn go in several. */
const MAX_CREATES_PER_STATEMENT = 200;

export class PgCreateQueue {
  readonly #statement: CreateStatement;
  /** Creates waiting for the statement sent at the end of this turn of the event loop. */
  #pending: PendingCreate[] = [];
  /** Batches sent and not yet answered: drain() waits for them. */
  readonly #inFlight = new Set<Promise<void>>();

  constructor(db: PgConnection, t: PgTables) {
    this.#statement = { db, t, sql: createSql(t) };
  }

  add(input: NewTask): Promise<{ task: Task; created: boolean }> {
    // Taken now: the caller may change its objects while the create waits for the statement.
    const pending: PendingCreate = {
      clientRequestId: textParam(input.clientRequestId) || undefined,
      operations: JSON.parse(jsonParam(input.operations)),
      scaleSets: [...new Set((input.scaleSets ?? []).map((k) => textParam(k)))],
      history: (input.history ?? []).map((h) => ({ ...h })),
      resolve: () => {},
      reject: () => {},
    };
    const done = new Promise<{ task: Task; created: boolean }>((resolve, reject) => Object.assign(pending, { resolve, reject }));
    this.#pending.push(pending);
    if (this.#pending.length === 1) setImmediate(() => this.#send());
    return done;
  }

  #send(): void {
    const pending = this.#pending;
    this.#pending = [];
    // More than one statement's worth: one after another, so that creation order stays the order asked.
    const sending = (async () => {
      for (let i = 0; i < pending.length; i += MAX_CREATES_PER_STATEMENT) {
        const batch = pending.slice(i, i + MAX_CREATES_PER_STATEMENT);
        await createBatch(this.#statement, batch).catch((err) => batch.forEach((c) => c.reject(err)));
      }
    })().finally(() => this.#inFlight.delete(sending));
    this.#inFlight.add(sending);
  }

  /** Sends the creates already asked for (not dropped) and waits for every batch sent. */
  async drain(): Promise<void> {
    if (this.#pending.length > 0) this.#send();
    await Promise.all(this.#inFlight);
  }
}
