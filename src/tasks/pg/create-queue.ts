// Creates go to the database together, one statement in flight at a time: those asked for in one turn of the event
// loop, and those asked for while the statement before them ran, in the next (a group commit). One statement per
// MAX_CREATES_PER_STATEMENT, one commit and one NOTIFY (create.ts says why). Submissions arrive spread out over
// HTTP, a few per turn: sent as they came, a burst of them made statements of 8 creates on average, a dozen in
// flight at once. bench/pg-creates.ts (32 callers, each 0-10 ms between creates, load 5-8): sent as they came,
// 580-1,330 creates/s, p99 130-160 ms, 0.4-0.65 ms of the server's CPU per create; one statement at a time,
// 3,070-3,790/s, p99 16-25 ms, 0.14 ms.
import type { NewTask } from "../task-store.ts";
import type { Task } from "../task.ts";
import { createBatch, createSql, type CreateStatement, type PendingCreate } from "./create.ts";
import type { PgConnection } from "./connection.ts";
import { jsonParam, type PgTables, textParam } from "./tables.ts";
import { StoreCallTimeoutError } from "../store-outage.ts";

/** At most this many creates per statement; more asked for in one turn go in several. */
const MAX_CREATES_PER_STATEMENT = 200;

export class PgCreateQueue {
  readonly #statement: CreateStatement;
  /** Creates waiting for the next statement. */
  #pending: PendingCreate[] = [];
  /** The statements in flight (one at a time), until their creates are answered: drain() waits for them. */
  #sending: Promise<void> | undefined;

  /** A create not sent this long after it was asked for is dropped (its caller was answered an outage); none: kept. */
  readonly #sendByMs: number | undefined;

  constructor(db: PgConnection, t: PgTables, sendByMs?: number) {
    this.#statement = { db, t, sql: createSql(t) };
    this.#sendByMs = sendByMs !== undefined && sendByMs > 0 ? sendByMs : undefined;
  }

  add(input: NewTask): Promise<{ task: Task; created: boolean }> {
    // Taken now: the caller may change its objects while the create waits for the statement.
    const pending: PendingCreate = {
      clientRequestId: textParam(input.clientRequestId) || undefined,
      operations: JSON.parse(jsonParam(input.operations)) as PendingCreate["operations"],
      ...(input.targets ? { targets: JSON.parse(jsonParam(input.targets)) as PendingCreate["targets"] } : {}),
      scaleSets: [...new Set((input.scaleSets ?? []).map((k) => textParam(k)))],
      history: (input.history ?? []).map((h) => ({ ...h })),
      ...(input.audit ? { audit: structuredClone(input.audit) } : {}),
      askedAtMs: Date.now(),
      resolve: () => {},
      reject: () => {},
    };
    const done = new Promise<{ task: Task; created: boolean }>((resolve, reject) =>
      Object.assign(pending, { resolve, reject }),
    );
    this.#pending.push(pending);
    // While a statement runs, the creates wait for it to end and go in the next one.
    if (this.#pending.length === 1 && this.#sending === undefined) setImmediate(() => this.#send());
    return done;
  }

  #send(): void {
    if (this.#sending !== undefined || this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    // More than one statement's worth: one after another, so that creation order stays the order asked.
    this.#sending = (async () => {
      for (let i = 0; i < pending.length; i += MAX_CREATES_PER_STATEMENT) {
        const batch = this.#stillWanted(pending.slice(i, i + MAX_CREATES_PER_STATEMENT));
        if (batch.length === 0) continue;
        await createBatch(this.#statement, batch).catch((err) => batch.forEach((c) => c.reject(err)));
      }
    })().finally(() => {
      this.#sending = undefined;
      this.#send();
    });
  }

  /**
   * The creates still to send: one asked for longer ago than sendByMs is dropped here, before any statement carries
   * it. Its caller was answered 503 "nothing was done" at the call's bound (store-outage.ts), so sending it now would
   * make a task nobody was told of, and a second one when the caller tries again.
   */
  #stillWanted(batch: PendingCreate[]): PendingCreate[] {
    const sendByMs = this.#sendByMs;
    if (sendByMs === undefined) return batch;
    const now = Date.now();
    return batch.filter((c) => {
      if (now - c.askedAtMs < sendByMs) return true;
      c.reject(new StoreCallTimeoutError("create", sendByMs));
      return false;
    });
  }

  /** Sends the creates already asked for (not dropped) and waits until every one is answered. */
  async drain(): Promise<void> {
    this.#send();
    while (this.#sending !== undefined) await this.#sending;
  }
}
