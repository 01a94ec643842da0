// The audit trail of the memory store: entries in recording order, and each task's entries by its id. Lost on
// restart with the tasks; bounded by time (pruneAudit) and, as memory must be, by count: past MAX_ENTRIES the
// oldest go first.
import { newId } from "./ids.ts";
import { decodeCursor, encodeCursor } from "./cursor.ts";
import {
  actorsOf,
  matchesAuditQuery,
  type AuditEntry,
  type AuditPage,
  type AuditQuery,
  type NewAuditEntry,
  type TaskActors,
} from "./audit.ts";

const MAX_ENTRIES = 100_000;

type StoredEntry = AuditEntry & { seq: number };

export class MemoryAuditTrail {
  /** Insertion order = seq order. */
  readonly #entries = new Map<string, StoredEntry>();
  readonly #byTask = new Map<string, StoredEntry[]>();
  #seq = 0;

  record(input: NewAuditEntry): AuditEntry {
    const entry: StoredEntry = { ...structuredClone(input), id: newId(), seq: ++this.#seq };
    this.#entries.set(entry.id, entry);
    if (entry.taskId !== undefined) {
      const list = this.#byTask.get(entry.taskId);
      if (list) list.push(entry);
      else this.#byTask.set(entry.taskId, [entry]);
    }
    if (this.#entries.size > MAX_ENTRIES) this.#delete(this.#entries.values().next().value!);
    return this.#public(entry);
  }

  /** The task ended: its entries still open take its state as their outcome. */
  ended(taskId: string, state: string, nowMs: number): void {
    for (const e of this.#byTask.get(taskId) ?? []) {
      if (e.decision !== "accepted" || e.outcome !== undefined) continue;
      e.outcome = state;
      e.outcomeAtMs = nowMs;
    }
  }

  settle(id: string, outcome: string, nowMs: number): void {
    const e = this.#entries.get(id);
    if (!e || e.outcome !== undefined) return;
    e.outcome = outcome;
    e.outcomeAtMs = nowMs;
  }

  actorsOf(taskId: string): TaskActors {
    const entries = this.#byTask.get(taskId);
    return entries ? structuredClone(actorsOf(entries)) : {};
  }

  list(query: AuditQuery): AuditPage {
    const before = decodeCursor(query.cursor);
    const out: AuditEntry[] = [];
    let last: number | undefined;
    for (const e of [...this.#entries.values()].reverse()) {
      if (before !== undefined && e.seq >= before) continue;
      if (!matchesAuditQuery(e, query)) continue;
      if (out.length === query.limit) return { entries: out, nextCursor: encodeCursor(last!) };
      out.push(this.#public(e));
      last = e.seq;
    }
    return { entries: out };
  }

  prune(beforeMs: number): number {
    let removed = 0;
    for (const e of [...this.#entries.values()]) {
      if (e.timeMs >= beforeMs) continue;
      this.#delete(e);
      removed++;
    }
    return removed;
  }

  #delete(e: StoredEntry): void {
    this.#entries.delete(e.id);
    if (e.taskId === undefined) return;
    const rest = (this.#byTask.get(e.taskId) ?? []).filter((x) => x !== e);
    if (rest.length > 0) this.#byTask.set(e.taskId, rest);
    else this.#byTask.delete(e.taskId);
  }

  #public(e: StoredEntry): AuditEntry {
    const copy: Partial<StoredEntry> = structuredClone(e);
    delete copy.seq;
    return copy as AuditEntry;
  }
}
