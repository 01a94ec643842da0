// Creates go to the database together, one statement in flight at a time: those asked for in one turn of the event
// loop, and those asked for while the statement before them ran, in the next (a group commit). One statement per
// MAX_CREATES_PER_STATEMENT, one commit and one NOTIFY (create.ts says why). Submissions arrive spread out over
// HTTP, a few per turn: sent as they came, a burst of them made statements of 8 creates on average, a dozen in
// flight at once. bench/pg-creates.ts (32 callers, each 0-10 ms between creates, load 5-8): sent as they came,
// 580-1,330 creates/s, p99 130-160 ms, 0.4-0.65 ms of the server's CPU per create; one statement at a time,
// 3,070-3,790/s, p99 16-25 ms, 0.14 ms.
//
// Each create is answered by its deadline (the request's, request-deadline.ts, or the call's bound, whichever comes
// first): one still waiting for its statement then is dropped, never sent, and fails as an outage (nothing was done);
// one whose statement was sent fails with CreateOutcomeUnknownError (the task may exist, its clientRequestId finds it).
import type { NewTask } from "../task-store.ts";
import type { Task } from "../task.ts";
import { createBatch, createSql, expire, type CreateStatement, type PendingCreate } from "./create.ts";
import type { PgConnection } from "./connection.ts";
import { jsonParam, type PgTables, textParam } from "./tables.ts";
import { requestDeadlineAtMs, withoutRequestDeadline } from "../request-deadline.ts";

/** At most this many creates per statement; more asked for in one turn go in several. */
const MAX_CREATES_PER_STATEMENT = 200;

export class PgCreateQueue {
  readonly #statement: CreateStatement;
  /** Creates waiting for the next statement. */
  #pending: PendingCreate[] = [];
  /** The statements in flight (one at a time), until their creates are answered: drain() waits for them. */
  #sending: Promise<void> | undefined;

  /** Each create is answered within this long (none: by its request's deadline only, if any). */
  readonly #timeoutMs: number | undefined;

  constructor(db: PgConnection, t: PgTables, timeoutMs?: number) {
    this.#statement = { db, t, sql: createSql(t) };
    this.#timeoutMs = timeoutMs !== undefined && timeoutMs > 0 ? timeoutMs : undefined;
  }

  add(input: NewTask): Promise<{ task: Task; created: boolean }> {
    const now = performance.now();
    const requestAtMs = requestDeadlineAtMs();
    const callAtMs = this.#timeoutMs !== undefined ? now + this.#timeoutMs : undefined;
    const byRequest = requestAtMs !== undefined && (callAtMs === undefined || requestAtMs < callAtMs);
    // Taken now: the caller may change its objects while the create waits for the statement.
    const pending: PendingCreate = {
      clientRequestId: textParam(input.clientRequestId) || undefined,
      operations: JSON.parse(jsonParam(input.operations)) as PendingCreate["operations"],
      ...(input.targets ? { targets: JSON.parse(jsonParam(input.targets)) as PendingCreate["targets"] } : {}),
      ...(input.traceparent ? { traceparent: textParam(input.traceparent) } : {}),
      scaleSets: [...new Set((input.scaleSets ?? []).map((k) => textParam(k)))],
      history: (input.history ?? []).map((h) => ({ ...h })),
      ...(input.audit ? { audit: structuredClone(input.audit) } : {}),
      askedAtMs: now,
      deadlineAtMs: byRequest ? requestAtMs : callAtMs,
      deadlineIs: byRequest ? "request" : "call",
      state: "waiting",
      resolve: () => {},
      reject: () => {},
    };
    const done = new Promise<{ task: Task; created: boolean }>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const settled = () => clearTimeout(timer);
      Object.assign(pending, {
        resolve: (r: { task: Task; created: boolean }) => (settled(), resolve(r)),
        reject: (err: unknown) => (settled(), reject(err as Error)),
      });
      if (pending.deadlineAtMs !== undefined)
        // Outside the request: the timer is the create's, not something the request waits on.
        timer = withoutRequestDeadline(() =>
          setTimeout(() => this.#expire(pending), Math.max(0, pending.deadlineAtMs! - now)),
        );
    });
    this.#pending.push(pending);
    // While a statement runs, the creates wait for it to end and go in the next one. Sent outside the request that
    // asked first: the statement carries others' creates, each with its own deadline.
    if (this.#pending.length === 1 && this.#sending === undefined)
      withoutRequestDeadline(() => setImmediate(() => this.#send()));
    return done;
  }

  /** The create's deadline passed: one still queued leaves the queue (never sent), one sent is answered unknown. */
  #expire(c: PendingCreate): void {
    if (c.state === "waiting") {
      const i = this.#pending.indexOf(c);
      if (i >= 0) this.#pending.splice(i, 1);
    }
    expire(c);
  }

  #send(): void {
    if (this.#sending !== undefined || this.#pending.length === 0) return;
    const pending = this.#pending;
    this.#pending = [];
    // More than one statement's worth: one after another, so that creation order stays the order asked.
    this.#sending = (async () => {
      for (let i = 0; i < pending.length; i += MAX_CREATES_PER_STATEMENT) {
        const batch = pending.slice(i, i + MAX_CREATES_PER_STATEMENT).filter((c) => c.state === "waiting");
        if (batch.length === 0) continue;
        await createBatch(this.#statement, batch).catch((err) => batch.forEach((c) => c.reject(err)));
      }
    })().finally(() => {
      this.#sending = undefined;
      this.#send();
    });
  }

  /** Sends the creates already asked for (not dropped) and waits until every one is answered. */
  async drain(): Promise<void> {
    this.#send();
    while (this.#sending !== undefined) await this.#sending;
  }
}
