// The order tasks run in, per scale set (docs/task-stores.md, "Order"). Every store applies the same rule in its
// claim; what is here is the part they share: the key that names a scale set, and the history line of a task that
// has to wait.
//
// The rule: a task names the scale sets its operations touch (one key each, deduplicated). Among the unfinished
// tasks that name a scale set, one goes first: a started one (running, or leased) before one that has not started,
// and otherwise the earlier submitted. A task is claimable only when it goes first on every scale set it names, so
// a multi-operation task waits until it is first on all of them, and then holds all of them until it finishes. The
// order is the same for every scale set, so two tasks never wait for each other.
import type { HistoryEntry } from "./task.ts";

/** The key of a scale set: ARM names are case-insensitive. */
export function scaleSetKey(ref: { subscriptionId: string; resourceGroup: string; name: string }): string {
  return `${ref.subscriptionId}/${ref.resourceGroup}/${ref.name}`.toLowerCase();
}

/** A task submitted earlier that is not finished, on one of the scale sets of a new task. */
export interface TaskAhead {
  taskId: string;
  scaleSet: string;
}

export const WAITING_PHASE = "QUEUED";
/** One task ahead (%s: its id, then the scale set), and the line around them; PostgreSQL formats them in SQL. */
export const WAITING_ITEM_FORMAT = "task %s on scale set %s";
export const WAITING_FORMAT = "Waiting for %s to finish: one operation at a time per scale set, in submission order";

function format(template: string, ...values: string[]): string {
  let i = 0;
  return template.replace(/%s/g, () => values[i++] ?? "");
}

/**
 * The history line of a task created behind others: per scale set (sorted by key), the task just before it.
 * Undefined when it waits for nobody.
 */
export function waitingEntry(ahead: TaskAhead[], timeMs: number): HistoryEntry | undefined {
  if (ahead.length === 0) return undefined;
  const sorted = [...ahead].sort((a, b) => (a.scaleSet < b.scaleSet ? -1 : a.scaleSet > b.scaleSet ? 1 : 0));
  const what = sorted.map((a) => format(WAITING_ITEM_FORMAT, a.taskId, a.scaleSet)).join(", ");
  return { phase: WAITING_PHASE, status: format(WAITING_FORMAT, what), timeMs };
}
