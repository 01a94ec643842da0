// The HTTP side of the audit trail (src/tasks/audit.ts): an entry made from a request (who, how proven, from where),
// the JSON line every entry is also logged as (`audit: true`, for a log pipeline to ship), the entry of a write
// forwarded to Clouddriver, and the entries of refusals (403, 409 to a caller who was identified), recorded once the
// answer is sent.
//
// Accepted changes are recorded by the routes, in the store transaction that makes the change (task creation,
// cancel, resume): a change is never made without its entry. A refusal changed nothing: its entry is recorded after
// the answer, and a store that fails then loses it (the log line stays).
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest } from "fastify";
import type { TaskStore } from "../tasks/task-store.ts";
import {
  targetsOf,
  type AuditAction,
  type AuditActor,
  type AuditEntry,
  type AuditTarget,
  type NewAuditEntry,
} from "../tasks/audit.ts";
import type { Principal } from "../auth/principal.ts";
import { isSafeMethod } from "../auth/forwarded-identity.ts";
import { rawBodyOf } from "./json-body.ts";
import { accountsNamedBy } from "../auth/forwarded-accounts.ts";
import { accountsNamedIn, distinctAccounts } from "../auth/named-accounts.ts";

/** The principal as the entry records it: its name and how it was proven, nothing it may do. */
export function auditActor(principal: Principal): AuditActor {
  const { name, via, subject, issuer, application, spinnakerUser } = principal;
  return {
    name,
    via,
    ...(subject !== undefined ? { subject } : {}),
    ...(issuer !== undefined ? { issuer } : {}),
    ...(application !== undefined ? { application } : {}),
    ...(spinnakerUser !== undefined ? { spinnakerUser } : {}),
  };
}

/** The account a description names, as Clouddriver reads it. */
function accountIn(d: Record<string, unknown>): string | undefined {
  for (const key of ["credentials", "account", "accountName"]) {
    const value = d[key];
    if (typeof value === "string") return value;
  }
  return undefined;
}

function target(operation: string, d: unknown): AuditTarget {
  if (typeof d !== "object" || d === null || Array.isArray(d)) return { operation };
  const desc = d as Record<string, unknown>;
  const account = accountIn(desc);
  return {
    operation,
    ...(account !== undefined ? { account } : {}),
    ...(typeof desc.region === "string" ? { region: desc.region } : {}),
    ...(typeof desc.serverGroupName === "string" ? { serverGroup: desc.serverGroupName } : {}),
  };
}

/** A description's target, then one more for each other account it names (a clone's source, a nested reference). */
function targetsOfDescription(operation: string, d: unknown): AuditTarget[] {
  const main = target(operation, d);
  return withAccounts([main], operation, distinctAccounts(accountsNamedIn(d).references));
}

/** The targets, with a target of `operation` added for each of `accounts` none of them names yet. */
function withAccounts(targets: AuditTarget[], operation: string, accounts: string[]): AuditTarget[] {
  const named = new Set(targets.flatMap((t) => (t.account !== undefined ? [t.account.toLowerCase()] : [])));
  const more = accounts.filter((a) => !named.has(a.toLowerCase())).map((account) => ({ operation, account }));
  return [...targets, ...more];
}

/**
 * What a body asks for, read as sent (before validation, or never validated: a forwarded one): Clouddriver's list
 * body, one target per item's operation; else one description, of `operation`. Every account the body names is in
 * a target (named-accounts.ts), so that each account's readers see the entry.
 */
export function targetsOfBody(operation: string, body: unknown): AuditTarget[] {
  if (!Array.isArray(body)) return targetsOfDescription(operation, body);
  return (body as unknown[]).flatMap((item) =>
    typeof item === "object" && item !== null && !Array.isArray(item)
      ? Object.entries(item as Record<string, unknown>).flatMap(([name, d]) => targetsOfDescription(name, d))
      : [],
  );
}

/** The operation a path under /azure/ops names (`POST /azure/ops/{operation}`), else the path itself. */
function operationOfPath(url: string): string {
  const path = url.split("?")[0];
  const m = /^\/azure\/ops\/([^/]+)$/.exec(path);
  return m ? decodeURIComponent(m[1]) : path;
}

/** The change a request asks for, when it is one the trail records. */
function actionOf(request: FastifyRequest): AuditAction | undefined {
  if (isSafeMethod(request.method)) return undefined;
  const config = request.routeOptions.config as { forwardToClouddriver?: boolean } | undefined;
  if (request.is404 || config?.forwardToClouddriver === true) return "forward";
  const url = request.routeOptions.url ?? "";
  if (url === "/task/:id/cancel") return "cancel";
  if (url.startsWith("/task/") && url.endsWith(":resume")) return "resume";
  if (url === "/azure/ops" || url.startsWith("/azure/ops/")) {
    // A dry run changes nothing.
    const query = request.query as { dryRun?: unknown } | undefined;
    return query?.dryRun === true || query?.dryRun === "true" ? undefined : "submit";
  }
  return undefined;
}

/** Statuses a refusal is recorded for: the caller was identified, and may not do this (403) or not now (409). */
const REFUSALS = new Set([403, 409]);

export class AuditTrail {
  readonly #store: TaskStore;
  readonly #log: FastifyBaseLogger;
  /** Requests whose change was accepted and recorded: their answer is not a refusal to record again. */
  readonly #recorded = new WeakSet<FastifyRequest>();
  /** Why a request was refused: its error's message. */
  readonly #reasons = new WeakMap<FastifyRequest, string>();
  /** The bodies of writes to forward, as read before deciding on them: a refusal's entry names their accounts. */
  readonly #forwardedBodies = new WeakMap<FastifyRequest, Buffer>();

  constructor(store: TaskStore, log: FastifyBaseLogger) {
    this.#store = store;
    this.#log = log;
  }

  /**
   * The entry of this request's change if it is accepted: the route hands it to the store with the change, and
   * calls recorded() once the store made both.
   */
  accepted(
    request: FastifyRequest,
    action: AuditAction,
    targets: AuditTarget[],
    extra: Pick<NewAuditEntry, "clientRequestId" | "taskId" | "request"> = {},
  ): NewAuditEntry {
    return this.#entry(request, action, "accepted", targets, extra);
  }

  /** The store made the change and its entry: logged, and the request's answer is no refusal to record. */
  recorded(request: FastifyRequest, entry: NewAuditEntry | AuditEntry): void {
    this.#recorded.add(request);
    this.logged(entry);
  }

  /** One JSON line per entry, `audit: true`, whatever else the log holds. */
  logged(entry: NewAuditEntry | AuditEntry): void {
    this.#log.info({ audit: true, ...entry }, `audit: ${entry.action} ${entry.decision} (${entry.actor.name})`);
  }

  /**
   * A write about to be forwarded to Clouddriver: recorded first (a store that cannot record it refuses the write:
   * the error propagates, 503), then Clouddriver's answer is its outcome. Reads are not recorded; they get a no-op.
   */
  async forwarding(request: FastifyRequest, body: Buffer | undefined): Promise<(outcome: string) => void> {
    if (isSafeMethod(request.method)) return () => {};
    const entry = await this.#store.recordAudit(
      this.accepted(request, "forward", this.#forwardedTargets(request, body), {
        request: `${request.method} ${request.url.split("?")[0]}`,
      }),
    );
    this.recorded(request, entry);
    return (outcome) => {
      this.#store.settleAudit(entry.id, outcome).catch((err) => this.#lost(err, entry));
    };
  }

  /** The body of a write to forward, read whole before it is decided on: its refusal's entry names its accounts. */
  forwardedBody(request: FastifyRequest, body: Buffer): void {
    this.#forwardedBodies.set(request, body);
  }

  #forwardedTargets(request: FastifyRequest, body: Buffer | undefined): AuditTarget[] {
    const operation = operationOfPath(request.url);
    const raw = body ?? this.#forwardedBodies.get(request) ?? rawBodyOf(request);
    const named = accountsNamedBy(request.url, raw);
    const accounts = named.kind === "accounts" ? distinctAccounts(named.references) : [];
    return withAccounts(this.#forwardedBodyTargets(request, operation, raw), operation, accounts);
  }

  #forwardedBodyTargets(request: FastifyRequest, operation: string, raw: Buffer | undefined): AuditTarget[] {
    let parsed: unknown = Buffer.isBuffer(request.body) ? undefined : request.body;
    if (raw !== undefined) {
      try {
        parsed = JSON.parse(raw.toString("utf8"));
      } catch {
        parsed = undefined;
      }
    }
    return parsed === undefined ? [{ operation }] : targetsOfBody(operation, parsed);
  }

  /** Records refusals of identified callers once their answer is sent (hooks on every route). */
  install(app: FastifyInstance): void {
    app.addHook("onError", (request, _reply, error, done) => {
      this.#reasons.set(request, error.message);
      done();
    });
    app.addHook("onResponse", (request, reply, done) => {
      done();
      if (!REFUSALS.has(reply.statusCode) || !request.principal || this.#recorded.has(request)) return;
      const action = actionOf(request);
      if (action === undefined) return;
      void this.#refused(request, action, reply.statusCode).catch((err) => this.#log.warn({ err }, "audit"));
    });
  }

  async #refused(request: FastifyRequest, action: AuditAction, status: number): Promise<void> {
    const params = request.params as { id?: unknown } | undefined;
    const taskId = typeof params?.id === "string" && action !== "submit" ? params.id : undefined;
    let targets: AuditTarget[];
    if (action === "forward") targets = this.#forwardedTargets(request, undefined);
    else if (taskId !== undefined) targets = targetsOf((await this.#store.get(taskId))?.operations ?? []);
    else targets = targetsOfBody(operationOfPath(request.url), request.body);
    const query = request.query as { clientRequestId?: unknown } | undefined;
    const entry: NewAuditEntry = {
      ...this.#entry(request, action, "refused", targets, {
        request: `${request.method} ${request.url.split("?")[0]}`,
        ...(taskId !== undefined ? { taskId } : {}),
        ...(typeof query?.clientRequestId === "string" ? { clientRequestId: query.clientRequestId } : {}),
      }),
      status,
      ...(this.#reasons.has(request) ? { reason: this.#reasons.get(request) } : {}),
    };
    this.logged(entry);
    await this.#store.recordAudit(entry).catch((err) => this.#lost(err, entry));
  }

  #entry(
    request: FastifyRequest,
    action: AuditAction,
    decision: NewAuditEntry["decision"],
    targets: AuditTarget[],
    extra: Pick<NewAuditEntry, "clientRequestId" | "taskId" | "request">,
  ): NewAuditEntry {
    // request.ip follows X-Forwarded-For only through the proxies TRUSTED_PROXIES names (fastify's trustProxy).
    const peer = request.socket?.remoteAddress;
    return {
      action,
      decision,
      timeMs: Date.now(),
      actor: auditActor(request.principal),
      remoteAddress: request.ip,
      ...(peer !== undefined && peer !== request.ip ? { peerAddress: peer } : {}),
      targets,
      ...(extra.clientRequestId !== undefined ? { clientRequestId: extra.clientRequestId } : {}),
      ...(extra.taskId !== undefined ? { taskId: extra.taskId } : {}),
      ...(extra.request !== undefined ? { request: extra.request } : {}),
    };
  }

  #lost(err: unknown, entry: NewAuditEntry | AuditEntry): void {
    this.#log.warn(
      { err, auditEntry: entry },
      "audit: the task store did not take this entry or its outcome (the line above it holds the entry)",
    );
  }
}
