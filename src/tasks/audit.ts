// The audit trail: who changed what, when, from where, and how it ended. One entry per change asked for and accepted
// (a submission, a cancel, a resume, a write forwarded to Clouddriver) or refused after the caller was identified
// (403, 409). Entries are kept by the task store under their own retention (AUDIT_RETENTION_DAYS), longer than the
// tasks they name; no route edits or deletes them. An accepted change's entry is written in the same store
// transaction as the change itself, so that one never exists without the other.
//
// The outcome is written once, by the store, in the transaction that ends the task (its end state), not as an entry
// of its own: a reader sees, on the line that says who resized web-prod, whether the resize succeeded, and an entry
// still open is one whose task has not ended. A forwarded write's outcome is Clouddriver's answer.
import type { Task, TaskActor } from "./task.ts";
import { accountOfOperation } from "./operation-account.ts";

export interface AuditConfig {
  /**
   * Entries are kept this long, set in days (as Azure's Activity Log), whatever the tasks'.
   * @env AUDIT_RETENTION_DAYS
   * @default `90`
   */
  retentionMs: number;
}

export type AuditAction = "submit" | "cancel" | "resume" | "forward";

/** Who acted, and how that was proven (the principal as identified: src/auth/principal.ts). */
export type AuditActor = Omit<TaskActor, "timeMs">;

/** What a change acts on: one per operation of the request (a list body may hold several). */
export interface AuditTarget {
  operation: string;
  account?: string;
  region?: string;
  serverGroup?: string;
}

export interface NewAuditEntry {
  action: AuditAction;
  /** accepted: the change was made (or handed to Clouddriver); refused: it was answered with `status` and not made. */
  decision: "accepted" | "refused";
  /** A refusal's HTTP status (403, 409). */
  status?: number;
  /** When the change was accepted or refused, epoch ms. */
  timeMs: number;
  actor: AuditActor;
  /** The caller's address: X-Forwarded-For's, when the connection came from a trusted proxy (TRUSTED_PROXIES). */
  remoteAddress: string;
  /** The connection's own address, when it differs from remoteAddress (a trusted proxy's). */
  peerAddress?: string;
  targets: AuditTarget[];
  clientRequestId?: string;
  /** The task the change made or acted on. A create fills it in. */
  taskId?: string;
  /** Method and path, as asked (forwarded writes, and every refusal). */
  request?: string;
  /** Why it was refused: the error's message. */
  reason?: string;
}

export interface AuditEntry extends NewAuditEntry {
  id: string;
  /**
   * How the change ended, once known: the task's end state (succeeded, failed, canceled) for a submission, a
   * resume or a cancel; for a forwarded write, "clouddriver <status>". Absent while the task runs.
   */
  outcome?: string;
  outcomeAtMs?: number;
}

export interface AuditQuery {
  /** Page size, 1..500. */
  limit: number;
  /** From a previous page's nextCursor. */
  cursor?: string;
  /** Entries at or after / before this time, epoch ms. */
  sinceMs?: number;
  untilMs?: number;
  /** The actor's name, exactly. */
  principal?: string;
  /** Case-insensitive, as account names are. */
  account?: string;
  serverGroup?: string;
  /** An operation name (resizeServerGroup), or an action (submit, cancel, resume, forward). */
  operation?: string;
  taskId?: string;
}

export interface AuditPage {
  /** Newest first. */
  entries: AuditEntry[];
  nextCursor?: string;
}

/** Who did what to a task, as its own answer carries it (the first submission and cancel, the last resume). */
export interface TaskActors {
  submittedBy?: TaskActor;
  canceledBy?: TaskActor;
  resumedBy?: TaskActor;
}

/** The targets of a task's operations, from their descriptions. */
export function targetsOf(operations: Task["operations"]): AuditTarget[] {
  return operations.map((op) => {
    const d = op.description as { region?: unknown; serverGroupName?: unknown };
    const account = accountOfOperation(op);
    return {
      operation: op.name,
      ...(account !== undefined ? { account } : {}),
      ...(typeof d.region === "string" ? { region: d.region } : {}),
      ...(typeof d.serverGroupName === "string" ? { serverGroup: d.serverGroupName } : {}),
    };
  });
}

/** The accounts an entry acts on, once each. */
export function accountsOfEntry(entry: Pick<NewAuditEntry, "targets">): string[] {
  const names = new Set<string>();
  for (const target of entry.targets) if (target.account !== undefined) names.add(target.account);
  return [...names];
}

const ACTIONS = new Set<string>(["submit", "cancel", "resume", "forward"]);

/** Whether `operation` (a query's) names an action rather than an operation. */
export function isAuditAction(operation: string): operation is AuditAction {
  return ACTIONS.has(operation);
}

/** The entry matches the query's filters (the cursor aside): the memory store's, and the reference for the SQL ones. */
export function matchesAuditQuery(entry: AuditEntry, q: AuditQuery): boolean {
  if (q.sinceMs !== undefined && entry.timeMs < q.sinceMs) return false;
  if (q.untilMs !== undefined && entry.timeMs >= q.untilMs) return false;
  if (q.principal !== undefined && entry.actor.name !== q.principal) return false;
  if (q.taskId !== undefined && entry.taskId !== q.taskId) return false;
  if (q.account !== undefined) {
    const wanted = q.account.toLowerCase();
    if (!entry.targets.some((t) => t.account?.toLowerCase() === wanted)) return false;
  }
  if (q.serverGroup !== undefined && !entry.targets.some((t) => t.serverGroup === q.serverGroup)) return false;
  if (q.operation !== undefined) {
    const op = q.operation;
    if (isAuditAction(op) ? entry.action !== op : !entry.targets.some((t) => t.operation === op)) return false;
  }
  return true;
}

/** A task's actors from its accepted entries, oldest first. */
export function actorsOf(entries: readonly Pick<AuditEntry, "action" | "decision" | "actor" | "timeMs">[]): TaskActors {
  const actors: TaskActors = {};
  for (const e of entries) {
    if (e.decision !== "accepted") continue;
    const actor = { ...e.actor, timeMs: e.timeMs };
    if (e.action === "submit") actors.submittedBy ??= actor;
    else if (e.action === "cancel") actors.canceledBy ??= actor;
    else if (e.action === "resume") actors.resumedBy = actor;
  }
  return actors;
}
